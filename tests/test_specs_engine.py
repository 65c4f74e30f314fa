"""The spec engine itself: the safe expression evaluator, spec loading and inheritance."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from auditor.specs import SpecError, all_specs, build_specs, environment, expand
from auditor.specs.expr import ExprError, evaluate
from auditor.specs.model import Spec
from auditor.specs.symbolic import closed_form


@pytest.mark.parametrize(
    "source,env,value",
    [
        ("hidden_size // num_attention_heads", {"hidden_size": 4096, "num_attention_heads": 32}, 128),
        ("ceil_div(7168, 128)", {}, 56),
        ("'moe' if layer >= k and layer % f == 0 else 'dense'", {"layer": 3, "k": 3, "f": 1}, "moe"),
        ("layer not in mlp_only", {"layer": 2, "mlp_only": [1, 2]}, False),
        ("q is None", {"q": None}, True),
        ("types[1]", {"types": ["a", "b"]}, "b"),
        ("2 ** 3 * x", {"x": 2}, 16),
        ("max(a, b) - min(a, b)", {"a": 3, "b": 8}, 5),
        ("2 * isqrt(n)", {"n": 16383}, 254),
        ("per_layer(p, 5, 'head_dim', 256)", {"p": {"05": {"head_dim": 512}, "11": {"head_dim": 512}}}, 512),
        ("per_layer(p, 4, 'head_dim', 256)", {"p": {"05": {"head_dim": 512}}}, 256),
        ("per_layer(p, 3, 'head_dim', 8)", {"p": None}, 8),
        ("['conv'] * n", {"n": 2}, ["conv", "conv"]),
        ("list(range(n)) == [0, 1, 2]", {"n": 3}, True),
        ("p[layer] == 'M'", {"p": "M*", "layer": 0}, True),
        ("'hybrid' not in types[:layer]", {"types": ["mamba", "hybrid", "hybrid"], "layer": 1}, True),
        ("types[1:][::2]", {"types": [0, 1, 2, 3]}, [1, 3]),
        ("count(types[:layer], 'hybrid')", {"types": ["hybrid", "mamba", "hybrid"], "layer": 2}, 1),
    ],
)
def test_expressions(source: str, env: dict, value: object) -> None:
    assert evaluate(source, env) == value


@pytest.mark.parametrize(
    "source",
    [
        "__import__('os').system('true')",
        "x.__class__",
        "open('f')",
        "(lambda: 1)()",
        "[i for i in range(3)]",
        "x if True else y.attr",
        "2 ** n",
        "f'{x}'",
        "eval('1')",
        "a := 1",
    ],
)
def test_unsafe_or_unsupported_expressions_are_rejected(source: str) -> None:
    with pytest.raises(ExprError):
        evaluate(source, {"x": 1, "n": 100, "y": 1, "a": 1})


@pytest.mark.parametrize(
    "source", ["['mamba'] * n", "n * 'M'", "list(range(n))", "len(range(n))", "count(range(n), 1)", "sorted(range(n))"]
)
def test_lists_built_from_hostile_config_values_are_bounded(source: str) -> None:
    """A layer_types default such as ['mamba'] * num_hidden_layers must not turn an absurd layer count into a
    MemoryError (exit 4): it is an ExprError, which the audit reports as a config finding."""
    with pytest.raises(ExprError):
        evaluate(source, {"n": 10**4000})


def test_primes_after_matches_qwen4_exp_head_vocabularies() -> None:
    """Qwen4-Exp's head h of PLE layer p has the (p * heads + h + 1)-th prime after base - 1 as its vocabulary
    (transformers' _find_nth_prime_after); a base that is itself prime is the first."""
    assert evaluate("primes_after(10, 4)", {}) == [11, 13, 17, 19]
    assert evaluate("primes_after(base - 1, 3)", {"base": 1009}) == [1009, 1013, 1019]
    # transformers: [_find_nth_prime_after(499, i) for i in range(9, 17)]
    assert evaluate("primes_after(499, 16)[8:]", {}) == [569, 571, 577, 587, 593, 599, 601, 607]
    assert evaluate("primes_after(n, 0)", {"n": 7}) == []
    assert evaluate("primes_after(n, 1)", {"n": 2**31 - 2}) == [2**31 - 1]  # a Mersenne prime: Miller-Rabin, exact
    assert evaluate("index_of(ids, layer + 1)", {"ids": [1, 3, 4], "layer": 2}) == 1
    assert evaluate("index_of(sorted(ids), 3)", {"ids": [4, 3, 1]}) == 1


@pytest.mark.parametrize(
    "env", [{"s": 0, "n": 10**6}, {"s": 10**30, "n": 1}, {"s": -5, "n": 1}, {"s": 1.5, "n": 1}, {"s": 1, "n": True}]
)
def test_primes_after_refuses_hostile_arguments(env: dict) -> None:
    """Too many primes, a start past 2**48, a negative or non-integer argument: an ExprError (a config finding),
    never a hang."""
    with pytest.raises(ExprError, match="primes_after"):
        evaluate("primes_after(s, n)", env)


def test_index_of_an_absent_value_is_an_expr_error() -> None:
    with pytest.raises(ExprError):
        evaluate("index_of(ids, 2)", {"ids": [1, 3]})


def test_missing_name_and_type_errors_are_expr_errors() -> None:
    with pytest.raises(ExprError, match="no 'vocab_size'"):
        evaluate("vocab_size * 2", {})
    with pytest.raises(ExprError):
        evaluate("a // b", {"a": 1, "b": 0})


def test_every_shipped_spec_loads_and_claims_unique_model_types() -> None:
    specs = all_specs()
    expected = {
        "llama",
        "mistral",
        "qwen2",
        "qwen3",
        "qwen2_moe",
        "qwen3_moe",
        "mixtral",
        "gemma",
        "gemma2",
        "gemma3_text",
        "phi3",
        "gpt2",
        "gpt_neox",
        "deepseek_v2",
        "deepseek_v3",
        "olmo2",
        "starcoder2",
        "gpt_oss",
        "phimoe",
        "granite",
        "cohere",
        "smollm3",
        "glm4",
        "falcon",
    }
    assert expected <= set(specs)
    for spec in {s.file: s for s in specs.values()}.values():
        assert (spec.rules or spec.modules) and spec.description  # Qwen2-VL is its two modules alone


BASE: dict[str, Any] = {
    "model_types": ["base"],
    "defaults": {"d": 4, "e": 1},
    "tensor": [
        {"name": "a", "norm": "d", "component": "norms"},
        {"name": "b", "linear": ["d", "d"], "bias": "e > 1", "component": "mlp"},
        {"name": "c.weight", "shape": ["d"], "component": "norms"},
    ],
}


def _spec(docs: dict, name: str):
    return build_specs(docs)[name]


def test_extends_merges_defaults_replaces_and_removes_tensors() -> None:
    child = {
        "model_types": ["child"],
        "extends": "base",
        "remove": ["c.weight"],
        "defaults": {"d": 8},
        "tensor": [
            {"name": "b", "linear": ["d", "e"], "component": "mlp"},
            {"name": "z.weight", "shape": ["e"], "component": "norms"},
        ],
    }
    spec = _spec({"base.toml": BASE, "child.toml": child}, "child.toml")
    assert spec.model_types == ("child",)
    assert [r.name for r in spec.rules] == ["a.weight", "b.weight", "z.weight"]
    expectation = expand(spec, {})
    assert {n: e.shape for n, e in expectation.tensors.items()} == {
        "a.weight": (8,),
        "b.weight": (8, 1),
        "z.weight": (1,),
    }
    assert environment(spec, {"d": 2})["d"] == 2  # config wins over defaults


def test_linear_and_norm_shorthands_expand_to_weight_and_optional_bias() -> None:
    spec = _spec({"base.toml": BASE}, "base.toml")
    assert [(r.name, r.shape, r.when) for r in spec.rules] == [
        ("a.weight", ("d",), None),
        ("b.weight", ("d", "d"), None),
        ("b.bias", ("d",), "e > 1"),
        ("c.weight", ("d",), None),
    ]
    assert "b.bias" in expand(spec, {"e": 2}).tensors and "b.bias" not in expand(spec, {}).tensors


@pytest.mark.parametrize(
    "docs,match",
    [
        ({"child.toml": {"model_types": ["c"], "extends": "nope"}}, "not a spec"),
        (
            {"a.toml": {"model_types": ["a"], "extends": "b"}, "b.toml": {"model_types": ["b"], "extends": "a"}},
            "circular",
        ),
        (
            {"base.toml": BASE, "child.toml": {"model_types": ["c"], "extends": "base", "remove": ["q"]}},
            "does not have",
        ),
    ],
)
def test_extends_errors(docs: dict, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        build_specs(docs)


@pytest.mark.parametrize(
    "tensor,match",
    [
        ({"name": "a", "shape": []}, "needs a name, a component"),
        ({"name": "a", "shape": ["open('x')"], "component": "mlp"}, "not allowed|only"),
        ({"name": "e.{expert}.w", "shape": [], "component": "mlp"}, "experts"),
        ({"name": "x.{block}.w", "shape": [], "component": "mlp"}, "unknown placeholder"),
        ({"name": "x.w", "shape": [], "component": "mpl"}, "unknown component"),
        ({"name": "x.w", "shape": [], "component": "mlp", "shpe": []}, "unknown keys"),
        ({"name": "x.{layer}.w", "shape": [], "component": "mlp"}, "stack"),
        ({"name": "x", "linear": ["d"], "component": "mlp"}, r"\[out, in\]"),
        ({"name": "x.w", "shape": [], "component": "embedding", "kind": "shared"}, "tied_to"),
    ],
)
def test_malformed_tensor_entries_are_rejected_at_load_time(tensor: dict, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        build_specs({"x.toml": {"model_types": ["x"], "tensor": [tensor]}})


@pytest.mark.parametrize(
    "doc,match",
    [
        ({"model_types": ["x"], "stacks": {"s": {"count": 2}}}, "prefix"),
        ({"model_types": ["x"], "stacks": {"s": {"count": 2, "prefix": "l.{layer}.", "rows": "x"}}}, "unknown keys"),
        ({"model_types": ["x"], "module": [{"name": "m", "spec": "y", "scope": "c"}]}, "unknown keys"),
        ({"model_types": ["x"], "module": [{"name": "m", "spec": "y", "component": "visoin"}]}, "unknown component"),
        ({"model_types": ["x"], "family": "encoder-ish"}, "family"),
        ({"model_types": ["x"], "tensors": []}, "unknown keys"),
        (
            {
                "model_types": ["x"],
                "tensor": [
                    {"name": "a", "norm": "d", "component": "norms"},
                    {"name": "a.weight", "shape": ["d"], "component": "norms"},
                ],
            },
            "named twice",
        ),
    ],
)
def test_malformed_specs_are_rejected_at_load_time(doc: dict, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        build_specs({"x.toml": doc})


STACKED: dict[str, Any] = {
    "model_types": ["s"],
    "base_prefix": "model.",
    "aliases": {"n_experts": ["num_local_experts"]},
    "defaults": {"n": 4, "d": 2, "n_experts": 3, "k": 1, "head_dim": "d * 2"},
    "nullable": ["k"],
    "stacks": {
        "decoder": {
            "count": "n",
            "prefix": "model.layers.{layer}.",
            "bind": {"sparse": "k is not None and layer >= k"},
            "row": "'moe' if sparse else 'dense'",
        }
    },
    "tensor": [
        {"name": "model.embed.weight", "shape": ["d", "d"], "component": "embedding"},
        {"name": "model.layers.{layer}.mlp", "linear": ["d", "d"], "component": "mlp", "when": "not sparse"},
        {
            "name": "model.layers.{layer}.experts.{expert}.w",
            "shape": ["d", "head_dim"],
            "component": "routed_experts",
            "when": "sparse",
            "experts": "n_experts",
        },
        {
            "name": "lm_head.weight",
            "shape": ["d", "d"],
            "component": "lm_head",
            "kind": "head",
            "tied_to": "model.embed.weight",
        },
    ],
}


def test_stack_bindings_drive_conditions_and_rows() -> None:
    spec = _spec({"s.toml": STACKED}, "s.toml")
    e = expand(spec, {"tie_word_embeddings": False})
    rows = {n: t.layer_type for n, t in e.tensors.items() if t.layer is not None}
    assert rows["model.layers.0.mlp.weight"] == "dense" and rows["model.layers.3.experts.2.w"] == "moe"
    assert "model.layers.0.experts.0.w" not in e.tensors and "model.layers.1.mlp.weight" not in e.tensors
    assert e.main is not None and (e.main.prefix, e.main.count) == ("model.layers.", 4)
    # an explicit null in a nullable key keeps its meaning (no sparse layers), it is not the default
    assert not any(t.component == "routed_experts" for t in expand(spec, {"k": None}).tensors.values())


def test_an_mtp_stack_holds_the_decoder_layers_under_its_own_prefix() -> None:
    """``mtp = true`` + ``like``: Qwen3-Next's released ``mtp.layers.N`` are decoder layers under their own prefix,
    evaluated with the MTP stack's own bindings; ``mtp = true`` on a tensor marks the block's other tensors.
    All of them are optional and outside the model's count; the model's own stack stays the main one."""
    doc = {
        **STACKED,
        "defaults": {**STACKED["defaults"], "n_mtp": 1},
        "stacks": {
            **STACKED["stacks"],
            "mtp": {
                "count": "n_mtp",
                "prefix": "mtp.layers.{layer}.",
                "mtp": True,
                "like": "decoder",
                "bind": {"sparse": True},
            },
        },
        "tensor": [*STACKED["tensor"], {"name": "mtp.fc", "linear": ["d", "2 * d"], "component": "mtp", "mtp": True}],
    }
    spec = _spec({"s.toml": doc}, "s.toml")
    e = expand(spec, {"tie_word_embeddings": False})
    mtp = {n: t for n, t in e.tensors.items() if t.mtp}
    assert set(mtp) == {
        "mtp.fc.weight",
        "mtp.layers.0.experts.0.w",
        "mtp.layers.0.experts.1.w",
        "mtp.layers.0.experts.2.w",
    }  # layer 0 is dense in the decoder, sparse by the MTP binding
    assert mtp["mtp.fc.weight"].shape == (2, 4) and mtp["mtp.layers.0.experts.0.w"].layer_type == "mtp"
    assert not any(t.mtp for n, t in e.tensors.items() if n.startswith("model."))
    assert e.main is not None and (e.main.prefix, e.main.count) == ("model.layers.", 4)
    assert (e.num_layers, e.mtp_layers) == (4, 1)
    assert expand(spec, {"n_mtp": 2}).mtp_layers == 2
    assert not any(t.mtp for t in expand(spec, {"n_mtp": 0}).tensors.values())  # no layers: no mtp.fc either
    # the base model saved alone (*Model) has no MTP block
    assert not any(t.mtp for t in expand(spec, {}, cls="Model").tensors.values())


@pytest.mark.parametrize(
    "stack,match",
    [
        ({"count": 1, "prefix": "mtp.layers.{layer}.", "like": "nope"}, "not another stack"),
        ({"count": 1, "prefix": "mtp.layers.{layer}.", "like": "mtp"}, "not another stack"),
        ({"count": 1, "prefix": "mtp.layers.{layer}.", "mtp": "yes"}, "true or false"),
    ],
)
def test_malformed_mtp_stacks_are_rejected_at_load_time(stack: dict, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        build_specs({"x.toml": {**STACKED, "stacks": {**STACKED["stacks"], "mtp": stack}}})


def test_expert_placeholder_repeats_over_a_list_of_names() -> None:
    """Xmod stores one adapter per language (adapter_modules.en_XX...): {expert} takes each name of a list."""
    doc = {
        "model_types": ["m"],
        "defaults": {"langs": ["en_XX", "de_DE"], "d": 2},
        "tensor": [{"name": "adapters.{expert}.w", "shape": ["d"], "component": "mlp", "experts": "langs"}],
    }
    spec = _spec({"m.toml": doc}, "m.toml")
    assert set(expand(spec, {}).tensors) == {"adapters.en_XX.w", "adapters.de_DE.w"}
    with pytest.raises(ExprError, match="a count or a list"):
        expand(spec, {"langs": ["a.b"]})


def test_a_condition_reading_expert_keeps_only_some_indices() -> None:
    """Zamba2's shared block holds one adapter per use, only at the indices of its own uses: a `when` that
    reads `expert` is decided index by index; without it every index exists."""
    doc = {
        **STACKED,
        "tensor": [
            *STACKED["tensor"][:2],
            {
                "name": "model.layers.{layer}.adapters.{expert}.w",
                "shape": ["d"],
                "component": "mlp",
                "when": "not sparse and expert % 2 == layer",
                "experts": "n_experts",
            },
        ],
    }
    e = expand(_spec({"s.toml": doc}, "s.toml"), {"n_experts": 5})
    assert sorted(n for n in e.tensors if ".adapters." in n) == [
        "model.layers.0.adapters.0.w",
        "model.layers.0.adapters.2.w",
        "model.layers.0.adapters.4.w",
    ]


def test_a_dimension_reading_expert_is_evaluated_index_by_index() -> None:
    """ERNIE-4.5-VL numbers its text experts 0..E-1 and its narrower vision experts E..2E-1 under one name: a
    shape that reads `expert` gives each index its own shape (and count); without it all indices share one."""
    doc = {
        **STACKED,
        "tensor": [
            *STACKED["tensor"][:2],
            {
                "name": "model.layers.{layer}.experts.{expert}.w",
                "shape": ["widths[0 if expert < n_experts else 1]", "d"],
                "component": "routed_experts",
                "when": "sparse",
                "experts": "2 * n_experts",
            },
        ],
    }
    e = expand(_spec({"s.toml": doc}, "s.toml"), {"n_experts": 2, "widths": [8, 3]})
    shapes = {n: t.shape for n, t in e.tensors.items() if n.startswith("model.layers.3.experts.")}
    assert shapes == {
        "model.layers.3.experts.0.w": (8, 2),
        "model.layers.3.experts.1.w": (8, 2),
        "model.layers.3.experts.2.w": (3, 2),
        "model.layers.3.experts.3.w": (3, 2),
    }
    assert e.tensors["model.layers.3.experts.2.w"].elements == 6


def test_alt_group_ties_alternatives_together() -> None:
    """alt_group names tensors that one checkpoint stores all in their shape or all in their alt_shape (Molmo2's two
    embedding parts, tests/test_specs_alt_layouts.py end to end); it goes with alt_shape and is a string."""
    doc = {
        **STACKED,
        "tensor": [
            *STACKED["tensor"][:2],
            {
                "name": "model.layers.{layer}.experts.w",
                "shape": ["n_experts", "2 * d", "d"],
                "alt_shape": ["n_experts", "d", "2 * d"],
                "alt_group": "experts",
                "component": "routed_experts",
                "when": "sparse",
                "experts": "n_experts",
            },
            STACKED["tensor"][3],
        ],
    }
    e = expand(_spec({"s.toml": doc}, "s.toml"), {}).tensors["model.layers.3.experts.w"]
    assert e.alt_group == "experts"
    for bad in ({"alt_group": 3}, {"alt_shape": None, "alt_group": "experts"}):
        t = {k: v for k, v in {**doc["tensor"][2], **bad}.items() if v is not None}
        with pytest.raises(SpecError, match="alt_group"):
            build_specs({"x.toml": {**doc, "tensor": [*doc["tensor"][:2], t, doc["tensor"][3]]}})


def test_alt_shape_accepts_a_release_that_stores_the_weight_transposed(tmp_path) -> None:
    """Qwen3-VL-MoE's fused experts are [E, 2I, H] as transformers 5 saves them and [E, H, 2I] in the released
    checkpoints: `alt_shape` makes either a match; a third shape is still a shape mismatch."""
    import json

    import auditor
    from tests.support.build import write_file

    doc = {
        **STACKED,
        "tensor": [
            *STACKED["tensor"][:2],
            {
                "name": "model.layers.{layer}.experts.w",
                "shape": ["n_experts", "2 * d", "d"],
                "alt_shape": ["n_experts", "d", "2 * d"],
                "component": "routed_experts",
                "when": "sparse",
                "experts": "n_experts",
            },
            STACKED["tensor"][3],
        ],
    }
    spec = _spec({"s.toml": doc}, "s.toml")
    e = expand(spec, {}).tensors["model.layers.3.experts.w"]
    assert (e.shape, e.alt_shape) == ((3, 4, 2), (3, 2, 4))
    with pytest.raises(SpecError, match="alt_shape"):
        build_specs({"x.toml": {**doc, "tensor": [{**doc["tensor"][2], "alt_shape": ["d"]}]}})
    # end to end on a real spec: the released layout passes, a wrong one is a shape mismatch
    cfg = {
        "architectures": ["Qwen3VLMoeForConditionalGeneration"],
        "model_type": "qwen3_vl_moe",
        "text_config": {
            "hidden_size": 8,
            "intermediate_size": 12,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "num_key_value_heads": 1,
            "head_dim": 4,
            "vocab_size": 16,
            "moe_intermediate_size": 6,
            "num_experts": 2,
            "num_experts_per_tok": 1,
        },
        "vision_config": {
            "depth": 1,
            "hidden_size": 8,
            "intermediate_size": 8,
            "num_heads": 2,
            "patch_size": 2,
            "out_hidden_size": 8,
            "num_position_embeddings": 4,
            "deepstack_visual_indexes": [],
        },
    }
    selected, _ = auditor.specs.select(cfg)
    assert selected is not None
    expected = expand(selected, cfg).tensors
    for variant, fused in (("released", (2, 8, 12)), ("wrong", (2, 12, 12))):
        layout = [
            (n, "F32", list(fused if n.endswith("gate_up_proj") else t.shape))
            for n, t in expected.items()
            if t.kind != "head" or not t.tied
        ]
        dest = tmp_path / variant
        dest.mkdir()
        write_file(dest / "model.safetensors", layout)
        (dest / "config.json").write_text(json.dumps(cfg))
        codes = {f.code for f in auditor.audit(dest).findings if f.severity != "info"}
        assert codes == (set() if variant == "released" else {"shape-mismatch"}), (variant, codes)


def test_config_key_aliases_read_either_release_name() -> None:
    spec = _spec({"s.toml": STACKED}, "s.toml")
    assert sum(1 for n in expand(spec, {"num_local_experts": 5}).tensors if n.startswith("model.layers.3.experts")) == 5
    assert environment(spec, {"n_experts": 7})["num_local_experts"] == 7


def test_task_classes_from_architectures() -> None:
    spec = _spec({"s.toml": STACKED}, "s.toml")
    base = expand(spec, {"architectures": ["SModel"]})
    assert base.cls == "Model" and "embed.weight" in base.tensors and "lm_head.weight" not in base.tensors
    cls = expand(
        spec,
        {"architectures": ["SForSequenceClassification"], "id2label": {"0": "a", "1": "b", "2": "c"}, "hidden_size": 2},
    )
    assert cls.tensors["score.weight"].shape == (3, 2) and "lm_head.weight" not in cls.tensors
    assert expand(spec, {"tie_word_embeddings": True}).tensors["lm_head.weight"].tied


TOWER: dict[str, Any] = {
    "model_types": ["tower_model"],
    "family": "tower",
    "defaults": {"width": 3, "depth": 2},
    "stacks": {"layers": {"count": "depth", "prefix": "blocks.{layer}."}},
    "tensor": [{"name": "blocks.{layer}.w", "shape": ["width", "width"], "component": "vision"}],
}
TEXT: dict[str, Any] = {
    "model_types": ["text"],
    "base_prefix": "model.",
    "defaults": {"v": 10, "d": 4, "n": 2},
    "stacks": {"decoder": {"count": "n", "prefix": "model.layers.{layer}."}},
    "tensor": [
        {"name": "model.embed.weight", "shape": ["v", "d"], "component": "embedding"},
        {"name": "model.layers.{layer}.w", "shape": ["d", "d"], "component": "mlp"},
        {
            "name": "lm_head.weight",
            "shape": ["v", "d"],
            "component": "lm_head",
            "kind": "head",
            "tied_to": "model.embed.weight",
        },
    ],
}
WRAP: dict[str, Any] = {
    "model_types": ["wrap"],
    "family": "multimodal",
    "module": [
        {
            "name": "language_model",
            "config": "text_config",
            "spec": "text",
            "inherit": True,
            "prefix": {"model.": "lm.model.", "lm_head.": "lm.lm_head."},
        },
        {"name": "vision", "config": "vision_config", "spec": "tower", "prefix": "tower.", "component": "vision"},
    ],
    "layouts": {"nested": {"lm.model.": "model.lm.", "lm.lm_head.": "lm_head.", "tower.": "model.tower."}},
    "tensor": [{"name": "proj", "linear": ["text_config['d']", 3], "component": "projector"}],
    "defaults": {"text_config": {"d": 4}},
}


def test_modules_are_evaluated_in_their_own_scope_under_their_prefix() -> None:
    specs = build_specs({"text.toml": TEXT, "tower.toml": TOWER, "wrap.toml": WRAP})
    spec = specs["wrap.toml"]
    e = expand(
        spec,
        library=specs,
        config={"tie_word_embeddings": True, "text_config": {"n": 3}, "vision_config": {"depth": 4}},
    )
    params = {n for n, t in e.tensors.items() if t.kind == "param"}
    assert params == {
        "lm.model.embed.weight",
        "proj.weight",
        *(f"lm.model.layers.{i}.w" for i in range(3)),
        *(f"tower.blocks.{i}.w" for i in range(4)),
    }
    assert e.tied_names == {"lm.lm_head.weight": "lm.model.embed.weight"} and e.tensors["lm.lm_head.weight"].tied
    tower = [t for n, t in e.tensors.items() if n.startswith("tower.")]
    assert all(t.component == "vision" and t.layer_type is None and t.stack == "vision.layers" for t in tower)
    assert [(s.label, s.prefix, s.count) for s in e.stacks] == [
        ("", "lm.model.layers.", 3),
        ("vision", "tower.blocks.", 4),
    ]


def test_module_set_defaults_and_resolved_scopes() -> None:
    """``set``: scope keys from the parent's scope, where a module's config is seen with its sub-spec's defaults
    (the text spec's tie default, false, decides below when text_config says nothing); ``defaults``: the scope
    when the config object is absent; the parent's projector reads a text width the config leaves out."""
    text = {**TEXT, "defaults": {**TEXT["defaults"], "tie_word_embeddings": False}}
    wrap = {
        **WRAP,
        "defaults": {"tie_word_embeddings": False},
        "module": [
            {
                **WRAP["module"][0],
                "inherit": False,
                "set": {"tie_word_embeddings": "tie_word_embeddings or text_config['tie_word_embeddings']"},
            },
            {**WRAP["module"][1], "defaults": {"depth": 5}},
        ],
    }
    specs = build_specs({"text.toml": text, "tower.toml": TOWER, "wrap.toml": wrap})
    spec = specs["wrap.toml"]

    def run(config: dict) -> Any:
        return expand(spec, config, library=specs)

    base = run({"text_config": {"n": 1}})
    assert base.tensors["proj.weight"].shape == (4, 3)  # text default d = 4, never written
    assert not base.tensors["lm.lm_head.weight"].tied and not base.tied
    assert base.env["text_config"]["d"] == 4 and base.env["text_config"]["tie_word_embeddings"] is False
    assert sum(1 for n in base.tensors if n.startswith("tower.")) == 5  # vision_config absent: module defaults
    assert sum(1 for n in run({"vision_config": {}}).tensors if n.startswith("tower.")) == 2  # present: class's
    assert run({"tie_word_embeddings": True}).tensors["lm.lm_head.weight"].tied  # the top-level flag
    assert run({"text_config": {"tie_word_embeddings": True}}).tied  # or the text config's own
    assert run({"text_config": {"d": 6}}).tensors["proj.weight"].shape == (6, 3)


def test_a_class_that_is_one_module_alone_is_built_from_its_sub_config() -> None:
    """``[class.X] module = "language_model"`` (Qwen3_5ForCausalLM under a qwen3_5 config: AutoModelForCausalLM
    builds text_config's model alone): the module's sub-spec, names as that class saves them, the sub-config as
    the class gets it (not the composite's ``set`` keys nor inherited top-level keys), the sub-spec's class named
    by architectures[0]'s suffix."""
    text = {**TEXT, "defaults": {**TEXT["defaults"], "tie_word_embeddings": False}}
    wrap = {
        **WRAP,
        "class": {"ForCausalLM": {"module": "language_model"}, "TextModel": {"module": "language_model"}},
        "module": [{**WRAP["module"][0], "set": {"tie_word_embeddings": "tie_word_embeddings"}}, WRAP["module"][1]],
    }
    specs = build_specs({"text.toml": text, "tower.toml": TOWER, "wrap.toml": wrap})
    spec = specs["wrap.toml"]
    config = {
        "architectures": ["WrapForCausalLM"],
        "tie_word_embeddings": True,
        "n": 7,
        "text_config": {"n": 3, "d": 2},
        "vision_config": {"depth": 4},
    }
    e = expand(spec, config, library=specs)
    assert e.spec.file == "text.toml" and e.cls == "ForCausalLM" and not e.tied  # text_config's own tie
    assert set(e.tensors) == {"model.embed.weight", "lm_head.weight", *(f"model.layers.{i}.w" for i in range(3))}
    assert e.tensors["model.embed.weight"].shape == (10, 2)
    base = expand(spec, {**config, "architectures": ["WrapTextModel"]}, library=specs)
    assert base.cls == "Model" and set(base.tensors) == {"embed.weight", *(f"layers.{i}.w" for i in range(3))}
    assert len(expand(spec, {"architectures": ["WrapForCausalLM"]}, library=specs).tensors) == 4  # class defaults
    whole = expand(spec, {**config, "architectures": ["WrapForConditionalGeneration"]}, library=specs)
    assert whole.spec.file == "wrap.toml" and whole.tied and "tower.blocks.3.w" in whole.tensors
    with pytest.raises(SpecError, match="not a module of this spec"):
        build_specs(
            {
                "text.toml": text,
                "tower.toml": TOWER,
                "wrap.toml": {**wrap, "class": {"ForCausalLM": {"module": "text"}}},
            }
        )


def test_a_composite_base_model_is_its_conditional_generation_class_without_the_head() -> None:
    """``[class.Model] base_of = "ForConditionalGeneration"`` (LlavaModel, Qwen2_5_VLModel ...: AutoModel on the
    composite config): that class's tensors less its LM head and MTP block, ``rename``d to the names the base
    class saves; a task class adds its own head (Gemma3ForSequenceClassification's score) to the same base; the
    closed-form formula leaves the head out; a base_of naming no complete class is refused at load."""
    text = {
        **TEXT,
        "defaults": {**TEXT["defaults"], "tie_word_embeddings": False, "m": 0},
        "stacks": {
            **TEXT["stacks"],
            "mtp": {"count": "m", "prefix": "mtp.layers.{layer}.", "mtp": True, "like": "decoder"},
        },
    }
    wrap = {
        **WRAP,
        "module": [{**WRAP["module"][0], "inherit": False}, WRAP["module"][1]],
        "class": {
            "Model": {"base_of": "ForConditionalGeneration", "rename": {"lm.model.": "lm."}},
            "ForSequenceClassification": {
                "base_of": "ForConditionalGeneration",
                "tensor": [{"name": "score", "linear": ["num_labels", "text_config['d']"], "component": "head"}],
            },
        },
    }
    specs = build_specs({"text.toml": text, "tower.toml": TOWER, "wrap.toml": wrap})
    spec = specs["wrap.toml"]
    config = {"text_config": {"n": 2, "m": 1}, "vision_config": {"depth": 1}}
    whole = expand(spec, {**config, "architectures": ["WrapForConditionalGeneration"]}, library=specs)
    assert {"lm.lm_head.weight", "mtp.layers.0.w"} <= set(whole.tensors)
    base = expand(spec, {**config, "architectures": ["WrapModel"]}, library=specs)
    assert base.cls == "Model" and not base.tied and not base.tied_names and base.mtp_layers == 0
    assert set(base.tensors) == {"lm.embed.weight", "lm.layers.0.w", "lm.layers.1.w", "proj.weight", "tower.blocks.0.w"}
    assert base.tensors["lm.embed.weight"].shape == (10, 4)
    cls = expand(
        spec, {**config, "architectures": ["WrapForSequenceClassification"], "id2label": {"0": "a"}}, library=specs
    )
    assert cls.cls == "ForSequenceClassification" and cls.tensors["score.weight"].shape == (1, 4)
    assert set(cls.tensors) - {"score.weight"} == {n for n in whole.tensors if not n.startswith(("lm.lm_head", "mtp."))}
    parameters = sum(t.elements for t in base.tensors.values() if t.kind == "param")
    assert closed_form(base, parameters) is not None and closed_form(whole, parameters) is None
    for bad in (
        {"Model": {"base_of": "ForCausalLM"}},
        {"Model": {"rename": {"a.": "b."}}},
        {"Model": {"base_of": "ForConditionalGeneration"}, "X": {"base_of": "Model"}},
    ):
        with pytest.raises(SpecError, match="base_of"):
            build_specs({"text.toml": text, "tower.toml": TOWER, "wrap.toml": {**wrap, "class": bad}})


def test_a_repeated_tower_is_stored_once_per_index_under_its_own_prefix() -> None:
    """``repeat = {p = count}`` (Granite 4 Vision's per-layer Q-Former projectors): the tower expanded once, stored
    ``count`` times with ``{p}`` filled in; each copy's rules are their own (dtype grouping); the count is the
    parent's expression. A repeat needs a component and ``{index}`` in its prefix."""
    wrap = {
        **WRAP,
        "defaults": {"pairs": 2},
        "module": [WRAP["module"][0], {**WRAP["module"][1], "prefix": "towers.{p}.", "repeat": {"p": "pairs + 1"}}],
    }
    specs = build_specs({"text.toml": TEXT, "tower.toml": TOWER, "wrap.toml": wrap})
    e = expand(specs["wrap.toml"], {"vision_config": {"depth": 2}}, library=specs)
    towers = {n: t for n, t in e.tensors.items() if n.startswith("towers.")}
    assert set(towers) == {f"towers.{p}.blocks.{i}.w" for p in range(3) for i in range(2)}
    assert len({t.rule for t in towers.values()}) == 3 and all(t.component == "vision" for t in towers.values())
    assert (
        sum(1 for n in expand(specs["wrap.toml"], {"pairs": 0}, library=specs).tensors if n.startswith("towers.")) == 2
    )
    for bad in (
        {"repeat": {"p": "2"}},
        {"prefix": "towers.{p}.", "repeat": {"p": "2"}, "component": None},
        {"prefix": "towers.{p}.", "repeat": {"p": "2", "q": "3"}},
    ):
        module = {k: v for k, v in {**WRAP["module"][1], **bad}.items() if v is not None}
        with pytest.raises(SpecError, match="repeat"):
            build_specs({"text.toml": TEXT, "tower.toml": TOWER, "wrap.toml": {**wrap, "module": [module]}})


def test_as_list_reads_one_value_or_several() -> None:
    assert evaluate("as_list(x)[0] * as_list(x)[-1]", {"x": 448}) == 448 * 448
    assert evaluate("as_list(x)[0] * as_list(x)[-1]", {"x": [448, 224]}) == 448 * 224
    assert evaluate("len(as_list(layers))", {"layers": [-2, -5, -8]}) == 3


def test_layout_variants_pick_the_names_the_checkpoint_uses() -> None:
    from auditor.specs.layouts import best_layout

    specs = build_specs({"text.toml": TEXT, "tower.toml": TOWER, "wrap.toml": WRAP})
    e = expand(specs["wrap.toml"], {"tie_word_embeddings": False}, library=specs)
    nested = {
        "model.lm.embed.weight",
        "model.lm.layers.0.w",
        "model.lm.layers.1.w",
        "lm_head.weight",
        "model.tower.blocks.0.w",
        "model.tower.blocks.1.w",
        "proj.weight",
    }
    assert best_layout(e, nested).layout == "nested"
    alone = {"model.embed.weight", "model.layers.0.w", "model.layers.1.w", "lm_head.weight"}
    picked = best_layout(e, alone)
    assert picked.layout == "language_model alone" and set(picked.tensors) == alone


def test_every_shipped_spec_file_validates_against_the_editor_schema() -> None:
    """auditor/specs/spec.schema.json (for editors) agrees with what the loader accepts."""
    import json
    import sys
    from importlib import resources

    import jsonschema

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    schema = json.loads(resources.files("auditor.specs").joinpath("spec.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    files = [
        p
        for p in resources.files("auditor.specs").joinpath("data").iterdir()
        if p.name.endswith(".toml") and not p.name.startswith("_")
    ]
    assert len(files) >= 36
    for item in files:
        errors = [e.message for e in validator.iter_errors(tomllib.loads(item.read_text()))]
        assert errors == [], item.name
    assert list(validator.iter_errors({"model_types": ["x"], "tensors": []}))  # a misspelt key is caught


def test_docs_family_list_is_generated_from_the_spec_files() -> None:
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    loader = importlib.util.spec_from_file_location("coverage_tool", root / "tools" / "coverage.py")
    assert loader is not None and loader.loader is not None
    tool = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(tool)
    assert tool.family_list() in (root / "docs" / "families.md").read_text(), "run make coverage"


def test_the_kept_claims_are_the_heads_and_an_edit_is_never_answered_from_a_stale_copy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Which file claims what is read from ~700 heads once, then from the user's cache while every spec file keeps
    its name, size and modification time: a same-size edit (a claim renamed, qwen3 -> qwen9) and an added file are
    read again, and a cache that cannot be written only costs the time."""
    import json
    import os
    import shutil

    from auditor.specs import files as store
    from auditor.specs import load

    data = tmp_path / "data"
    shutil.copytree(store.DATA, data)
    monkeypatch.setattr(store, "DATA", data)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    names = store.spec_files()
    heads = store.head_claims(names)
    assert load.SpecLibrary(names).claimant(0, "qwen3") == "qwen3.toml"
    kept = store.cache_file()
    assert kept is not None and kept.is_file()
    reads: list[str] = []
    # a kept answer reads no head (append returns None: the lambda records, then answers)
    monkeypatch.setattr(store, "head", lambda name: reads.append(name) or {})  # type: ignore[func-returns-value]
    assert store.claims(names) == heads and not reads
    monkeypatch.undo()
    monkeypatch.setattr(store, "DATA", data)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec = data / "qwen3.toml"
    before = spec.stat()
    spec.write_text(spec.read_text().replace('"qwen3"', '"qwen9"', 1))
    os.utime(spec, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))  # an edit within the clock's tick
    assert spec.stat().st_size == before.st_size
    fresh = load.SpecLibrary(names)
    assert fresh.claimant(0, "qwen9") == "qwen3.toml" and fresh.claimant(0, "qwen3") is None
    (data / "zz-new.toml").write_text('model_types = ["brand-new"]\n')
    assert load.SpecLibrary(store.spec_files()).claimant(0, "brand-new") == "zz-new.toml"
    stamped = json.loads(kept.read_bytes())
    for damaged in (b'{"stamp": [], "files"', json.dumps({**stamped, "claims": [1, 2, 3]}).encode()):
        kept.write_bytes(damaged)  # damaged on disk: read again (and rewritten whole)
        assert load.SpecLibrary(store.spec_files()).claimant(0, "brand-new") == "zz-new.toml"
    assert json.loads(kept.read_bytes())["claims"][0]["brand-new"] == "zz-new.toml"
    kept.unlink()
    kept.parent.chmod(0o500)  # a cache that cannot be written: still the right answer
    try:
        assert load.SpecLibrary(store.spec_files()).claimant(0, "brand-new") == "zz-new.toml"
    finally:
        kept.parent.chmod(0o700)


def test_spec_defaults_are_the_config_classes_defaults() -> None:
    """save_pretrained leaves keys equal to the class default out of config.json, so every config key a spec
    reads must default to exactly what transformers' config class says (fixtures/config-classes, dumped from
    transformers). Literal and computed defaults alike: the spec's environment of an empty config is compared
    with the class's defaults. Keys whose class default is None are left to the spec (it says what null means)."""
    import ast
    import json
    from pathlib import Path

    from auditor.specs.expr import compile_expr
    from auditor.specs.load import expressions, load_all

    root = Path(__file__).resolve().parents[1] / "fixtures"
    classes = root / "config-classes"
    # specs claiming only a class (BartForCausalLM: model_type bart is the seq2seq model's) are checked against
    # the config class of every model type whose causal-LM class they claim
    causal = json.loads((root / "transformers-mappings.json").read_text())["MODEL_FOR_CAUSAL_LM_MAPPING_NAMES"]
    by_class = [
        (model_type, spec)
        for spec in load_all().values()
        if not spec.model_types
        for model_type, cls in causal.items()
        if cls in spec.architectures
    ]
    checked, drift = 0, []
    for model_type, spec in sorted(all_specs().items()) + by_class:
        dumped = classes / f"{model_type}.json"
        if spec.family not in ("decoder", "encoder", "seq2seq", "vision") or spec.modules or not dumped.exists():
            continue
        defaults = json.loads(dumped.read_text())["defaults"]
        used = {n.id for src in expressions(spec) for n in ast.walk(compile_expr(src)) if isinstance(n, ast.Name)}
        used -= {*spec.derived, "layer", "is_mtp", *(k for s in spec.stacks for k, _ in s.bind)}
        env = environment(spec, {})
        for key in sorted(used):
            value = defaults.get(key)
            if value is not None and not isinstance(value, dict) and key not in ("id2label", "num_labels"):
                checked += 1
                ours = env.get(key)
                if (list(ours) if isinstance(ours, range) else ours) != value:  # llama4 moe_layers: a range
                    drift.append(f"{spec.file} {key}: spec {env.get(key)!r}, {model_type} class {value!r}")
    assert checked > 100 and drift == []


# -- diffusers: selection by _class_name, nested repeats, optional dimensions, `applies` -----------------------

UNETISH: dict[str, Any] = {
    "diffusers_classes": ["TinyUNet"],
    "family": "diffusers",
    "defaults": {"channels": [4, 8], "layers": [1, 2], "depth": 2, "linear": False},
    "derived": {"n": "len(channels)"},
    "stacks": {
        "down": {
            "count": "n",
            "prefix": "down.{layer}.",
            "bind": {"cin": "channels[max(layer - 1, 0)]", "cout": "channels[layer]"},
        }
    },
    "tensor": [
        # a resnet per layer of the block: the first one reads the block's input width
        {
            "name": "down.{layer}.res.{j}.conv",
            "shape": ["cout", "cin if j == 0 else cout"],
            "component": "convolution",
            "repeat": {"j": "layers[layer]"},
        },
        # nested: transformer blocks inside each attention, their count read per attention index
        {
            "name": "down.{layer}.attn.{j}.blocks.{k}.w",
            "shape": ["cout"],
            "component": "attention",
            "repeat": {"j": "layers[layer]", "k": "depth if j == 0 else 1"},
            "when": "layer > 0",
        },
        # a Linear or a 1x1 conv under one name: a dimension evaluating to None is left out
        {
            "name": "proj.weight",
            "shape": ["channels[0]", 3, "None if linear else 1", "None if linear else 1"],
            "component": "convolution",
        },
    ],
}


def test_repeat_indices_nest_and_shapes_read_them() -> None:
    spec = _spec({"u.toml": UNETISH}, "u.toml")
    e = expand(spec, {})
    shapes = {n: t.shape for n, t in e.tensors.items()}
    assert shapes["down.0.res.0.conv"] == (4, 4) and shapes["down.1.res.0.conv"] == (8, 4)
    assert shapes["down.1.res.1.conv"] == (8, 8) and "down.0.res.1.conv" not in shapes
    assert sorted(n for n in shapes if ".attn." in n) == [
        "down.1.attn.0.blocks.0.w",
        "down.1.attn.0.blocks.1.w",
        "down.1.attn.1.blocks.0.w",
    ]
    assert shapes["proj.weight"] == (4, 3, 1, 1) and expand(spec, {"linear": True}).tensors["proj.weight"].shape == (
        4,
        3,
    )
    assert e.tensors["down.1.res.1.conv"].layer == 1 and e.tensors["down.1.res.1.conv"].stack == "down"
    with pytest.raises(ExprError, match="implausible repeat count"):
        expand(spec, {"layers": [1, 10**9]})


@pytest.mark.parametrize(
    "tensor,match",
    [
        ({"name": "a.{j}.w", "shape": [1], "component": "mlp"}, "unknown placeholder"),
        ({"name": "a.{j}.w", "shape": [1], "component": "mlp", "repeat": {"i": 2, "j": 2}}, "does not appear"),
        ({"name": "a.{layer}.w", "shape": [1], "component": "mlp", "repeat": {"layer": 2}}, "repeat must map"),
    ],
)
def test_malformed_repeats_are_rejected(tensor: dict, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        build_specs({"r.toml": {"diffusers_classes": ["R"], "family": "diffusers", "tensor": [tensor]}})


def test_diffusers_configs_select_their_spec_by_class_name() -> None:
    from auditor.specs import select, selection_note

    spec, _ = select({"_class_name": "UNet2DConditionModel", "_diffusers_version": "0.42.1"})
    assert spec is not None and spec.file == "diffusers_unet_2d_condition.toml" and spec.family == "diffusers"
    assert select({"_class_name": "NoSuchTransformer"})[0] is None
    assert "diffusers class 'NoSuchTransformer'" in selection_note({"_class_name": "NoSuchTransformer"})
    # a configuration outside what the formula covers (a block type the VAE spec does not know) is not guessed at
    odd = {
        "_class_name": "AutoencoderKL",
        "block_out_channels": [8, 16],
        "down_block_types": ["DownEncoderBlock2D", "SkipDownBlock2D"],
        "up_block_types": ["UpDecoderBlock2D", "UpDecoderBlock2D"],
    }
    assert select(odd)[0] is None and "does not cover" in selection_note(odd)
    assert select({**odd, "down_block_types": ["DownEncoderBlock2D", "AttnDownEncoderBlock2D"]})[0] is not None
    assert select({**odd, "down_block_types": ["DownEncoderBlock2D"] * 3})[0] is None  # one type per block
    # every diffusers class is claimed once
    claims = [c for s in load_all_specs().values() for c in s.diffusers_classes]
    assert len(claims) == len(set(claims)) >= 9


def load_all_specs() -> Mapping[str, Spec]:
    from auditor.specs.load import load_all

    return load_all()


ENCODER: dict[str, Any] = {
    "model_types": ["enc"],
    "family": "encoder",
    "base_prefix": "enc.",
    "defaults": {"d": 2, "v": 5, "n": 1, "hidden_size": "d", "add_pooling_layer": False},
    "stacks": {"encoder": {"count": "n", "prefix": "enc.layer.{layer}."}},
    "tensor": [
        {"name": "enc.embed.weight", "shape": ["v", "d"], "component": "embedding"},
        {"name": "enc.layer.{layer}.w", "linear": ["d", "d"], "component": "mlp"},
        {"name": "enc.pooler", "linear": ["d", "d"], "bias": True, "component": "head", "when": "add_pooling_layer"},
        {"name": "mlm.bias", "shape": ["v"], "component": "lm_head"},
    ],
}


def test_encoder_classes_are_the_familys_own_and_set_what_they_build_the_base_with() -> None:
    """_common.toml's encoder family defines its classes (replacing the decoder family's ForSequenceClassification
    `score` and ForQuestionAnswering `transformer.` prefix); `set` is what a class builds its base model with
    (BertForMaskedLM: add_pooling_layer=False), and a spec overrides a class key by key."""
    spec = _spec({"enc.toml": ENCODER}, "enc.toml")
    assert spec.default_class == "ForMaskedLM"
    mlm = expand(spec, {"architectures": ["EncForMaskedLM"]})
    assert "mlm.bias" in mlm.tensors and "enc.pooler.weight" not in mlm.tensors
    base = expand(spec, {"architectures": ["EncModel"]})
    assert set(base.tensors) == {"embed.weight", "layer.0.w.weight", "pooler.weight", "pooler.bias"}
    seq = expand(spec, {"architectures": ["EncForSequenceClassification"], "id2label": {"0": "a", "1": "b", "2": "c"}})
    assert seq.tensors["classifier.weight"].shape == (3, 2) and "classifier.bias" in seq.tensors
    assert "enc.pooler.weight" in seq.tensors and "score.weight" not in seq.tensors and "mlm.bias" not in seq.tensors
    qa = expand(spec, {"architectures": ["EncForQuestionAnswering"]})
    assert {"enc.embed.weight", "qa_outputs.weight", "qa_outputs.bias"} <= set(qa.tensors)
    assert "enc.pooler.weight" not in qa.tensors
    choice = expand(spec, {"architectures": ["EncForMultipleChoice"]})
    assert choice.tensors["classifier.weight"].shape == (1, 2) and "enc.pooler.weight" in choice.tensors
    own = {**ENCODER, "class": {"ForSequenceClassification": {"set": {"add_pooling_layer": "False"}}}}
    roberta_like = expand(_spec({"enc.toml": own}, "enc.toml"), {"architectures": ["EncForSequenceClassification"]})
    assert "enc.pooler.weight" not in roberta_like.tensors and "classifier.weight" in roberta_like.tensors
    with pytest.raises(SpecError, match="set must be a table"):
        build_specs({"enc.toml": {**ENCODER, "class": {"ForMaskedLM": {"set": "add_pooling_layer"}}}})


def test_a_base_model_stored_under_a_masked_lm_config_is_read_as_its_model_class() -> None:
    """sentence-transformers' all-mpnet-base-v2: config.json names MPNetForMaskedLM, the weights are MPNetModel
    (no prefix, with the pooler). Without the pooler the plain base-model layout still fits."""
    from auditor.specs.layouts import best_layout

    spec = _spec({"enc.toml": ENCODER}, "enc.toml")
    mlm = expand(spec, {"architectures": ["EncForMaskedLM"]})
    stored = {"embed.weight", "layer.0.w.weight", "pooler.weight", "pooler.bias"}
    picked = best_layout(mlm, stored)
    assert picked.layout == "stored as its Model class" and set(picked.tensors) == stored
    picked = best_layout(mlm, {"embed.weight", "layer.0.w.weight"})
    assert picked.layout == "base model alone" and set(picked.tensors) == {"embed.weight", "layer.0.w.weight"}


def test_expressions_see_the_task_class_being_built() -> None:
    """A part only some classes have (CLIP's text model, absent from CLIPForImageClassification) reads task_class."""
    doc = {
        "model_types": ["x"],
        "family": "vision",
        "defaults": {"d": 4},
        "tensor": [
            {
                "name": "text.w",
                "shape": ["d"],
                "component": "embedding",
                "when": "task_class != 'ForImageClassification'",
            },
            {"name": "vision.w", "shape": ["d"], "component": "vision"},
        ],
        "class": {
            "ForImageClassification": {
                "tensor": [{"name": "classifier", "linear": ["num_labels", "d"], "component": "head"}]
            }
        },
    }
    spec = build_specs({"x.toml": doc})["x.toml"]
    whole = expand(spec, {"model_type": "x", "architectures": ["XModel"]})
    head = expand(spec, {"model_type": "x", "architectures": ["XForImageClassification"]})
    assert set(whole.tensors) == {"text.w", "vision.w"} and whole.env["task_class"] == "Model"
    assert set(head.tensors) == {"vision.w", "classifier.weight"}


def test_select_builds_only_the_claiming_spec_and_claims_match_the_built_specs() -> None:
    """Lazy loading (a start-up cost): selecting DeepSeek-V3 builds its spec alone; the claims read from the
    files' heads are exactly the model_types and classes of the fully built specs."""
    from auditor.specs import select
    from auditor.specs.files import spec_files as _files
    from auditor.specs.load import load_all

    load_all.cache_clear()  # a fresh library: nothing built yet
    spec, _ = select({"model_type": "deepseek_v3", "architectures": ["DeepseekV3ForCausalLM"]})
    library = load_all()
    assert spec is not None and spec.file == "deepseek_v3.toml"
    assert set(library._specs) == {"deepseek_v3.toml"}
    by_type, by_arch, by_class = library.claims()
    built = dict(library.items())  # iterating builds every spec, as the eager load did
    assert len(built) == len(_files()) > 150
    assert by_type == {t: s.file for s in built.values() for t in s.model_types}
    assert by_arch == {a: s.file for s in built.values() for a in s.architectures}
    assert by_class == {c: s.file for s in built.values() for c in s.diffusers_classes}
