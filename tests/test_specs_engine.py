"""The spec engine itself: the safe expression evaluator, spec loading and inheritance."""

from __future__ import annotations

import pytest

from auditor.specs import SpecError, _build, _resolve, all_specs, environment, expand
from auditor.specs.expr import ExprError, evaluate


@pytest.mark.parametrize("source,env,value", [
    ("hidden_size // num_attention_heads", {"hidden_size": 4096, "num_attention_heads": 32}, 128),
    ("ceil_div(7168, 128)", {}, 56),
    ("'moe' if layer >= k and layer % f == 0 else 'dense'", {"layer": 3, "k": 3, "f": 1}, "moe"),
    ("layer not in mlp_only", {"layer": 2, "mlp_only": [1, 2]}, False),
    ("q is None", {"q": None}, True),
    ("types[1]", {"types": ["a", "b"]}, "b"),
    ("2 ** 3 * x", {"x": 2}, 16),
    ("max(a, b) - min(a, b)", {"a": 3, "b": 8}, 5),
])
def test_expressions(source: str, env: dict, value: object) -> None:
    assert evaluate(source, env) == value


@pytest.mark.parametrize("source", [
    "__import__('os').system('true')", "x.__class__", "open('f')", "(lambda: 1)()", "[i for i in range(3)]",
    "x if True else y.attr", "2 ** n", "f'{x}'", "eval('1')", "a := 1",
])
def test_unsafe_or_unsupported_expressions_are_rejected(source: str) -> None:
    with pytest.raises(ExprError):
        evaluate(source, {"x": 1, "n": 100, "y": 1, "a": 1})


def test_missing_name_and_type_errors_are_expr_errors() -> None:
    with pytest.raises(ExprError, match="no 'vocab_size'"):
        evaluate("vocab_size * 2", {})
    with pytest.raises(ExprError):
        evaluate("a // b", {"a": 1, "b": 0})


def test_every_shipped_spec_loads_and_claims_unique_model_types() -> None:
    specs = all_specs()
    expected = {"llama", "mistral", "qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "mixtral", "gemma", "gemma2",
                "gemma3_text", "phi3", "gpt2", "gpt_neox", "deepseek_v2", "deepseek_v3", "olmo2", "starcoder2",
                "gpt_oss", "phimoe", "granite", "cohere", "smollm3", "glm4", "falcon"}
    assert expected <= set(specs)
    for spec in {s.file: s for s in specs.values()}.values():
        assert spec.rules and spec.description


BASE = {"model_types": ["base"], "defaults": {"d": 4, "e": 1}, "tensor": [
    {"name": "a.weight", "shape": ["d"], "component": "norms"},
    {"name": "b.weight", "shape": ["d", "d"], "component": "mlp"},
    {"name": "c.weight", "shape": ["d"], "component": "norms"}]}


def test_extends_merges_defaults_replaces_and_removes_tensors() -> None:
    child = {"model_types": ["child"], "extends": "base", "remove": ["c.weight"], "defaults": {"d": 8},
             "tensor": [{"name": "b.weight", "shape": ["d", "e"], "component": "mlp"},
                        {"name": "z.weight", "shape": ["e"], "component": "norms"}]}
    doc = _resolve("child.toml", {"base.toml": BASE, "child.toml": child})
    spec = _build("child.toml", doc)
    assert spec.model_types == ("child",)
    assert [r.name for r in spec.rules] == ["a.weight", "b.weight", "z.weight"]
    expectation = expand(spec, {"num_hidden_layers": 0, "tie_word_embeddings": False})
    assert {n: e.shape for n, e in expectation.tensors.items()} == {"a.weight": (8,), "b.weight": (8, 1),
                                                                    "z.weight": (1,)}
    assert environment(spec, {"d": 2})["d"] == 2  # config wins over defaults


@pytest.mark.parametrize("docs,match", [
    ({"child.toml": {"model_types": ["c"], "extends": "nope"}}, "not a spec"),
    ({"a.toml": {"model_types": ["a"], "extends": "b"}, "b.toml": {"model_types": ["b"], "extends": "a"}}, "circular"),
    ({"base.toml": BASE, "child.toml": {"model_types": ["c"], "extends": "base", "remove": ["q"]}}, "does not have"),
])
def test_extends_errors(docs: dict, match: str) -> None:
    name = next(n for n in docs if n != "base.toml")
    with pytest.raises(SpecError, match=match):
        _resolve(name, {**docs})


def test_malformed_spec_is_rejected() -> None:
    with pytest.raises(SpecError, match="needs name/shape/component"):
        _build("x.toml", {"model_types": ["x"], "tensor": [{"name": "a", "shape": []}]})
    with pytest.raises(SpecError, match="not allowed|only"):
        _build("x.toml", {"model_types": ["x"], "tensor": [{"name": "a", "shape": ["open('x')"], "component": "m"}]})
    with pytest.raises(SpecError, match="experts"):
        _build("x.toml", {"model_types": ["x"], "tensor": [{"name": "e.{expert}.w", "shape": [], "component": "m"}]})
