"""Shared blocks and includes (``use`` a block, ``from`` another spec): an include builds exactly the rules its
entries would written out, is adjusted as data (``with``, ``at`` / ``rename``, ``drop``, ``when``), is overridden in
place by a later entry of the same name, and every misuse is a one-line SpecError naming the file."""

from __future__ import annotations

from typing import Any

import pytest

from auditor.core.tomlio import tomllib
from auditor.specs import SpecError, build_specs, expand
from auditor.specs.blocks import block, substitute
from auditor.specs.files import DATA

STACK = {"layers": {"count": "num_hidden_layers", "prefix": "model.layers.{layer}."}}
DEFAULTS = {
    "num_hidden_layers": 2,
    "hidden_size": 8,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 4,
    "intermediate_size": 16,
    "vocab_size": 10,
    "attention_bias": False,
}

# LlamaAttention written out, as a spec wrote it before blocks (the truth the include is compared with)
ATTENTION = [
    {
        "name": "model.layers.{layer}.self_attn.q_proj",
        "linear": ["num_attention_heads * head_dim", "hidden_size"],
        "bias": "attention_bias",
        "component": "attention",
    },
    {
        "name": "model.layers.{layer}.self_attn.k_proj",
        "linear": ["num_key_value_heads * head_dim", "hidden_size"],
        "bias": "attention_bias",
        "component": "attention",
    },
    {
        "name": "model.layers.{layer}.self_attn.v_proj",
        "linear": ["num_key_value_heads * head_dim", "hidden_size"],
        "bias": "attention_bias",
        "component": "attention",
    },
    {
        "name": "model.layers.{layer}.self_attn.o_proj",
        "linear": ["hidden_size", "num_attention_heads * head_dim"],
        "bias": "attention_bias",
        "component": "attention",
    },
]


def _doc(tensors: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"model_types": ["x"], "defaults": dict(DEFAULTS), "stacks": STACK, "tensor": tensors, **extra}


def _rules(tensors: list[dict[str, Any]], **extra: Any) -> list[tuple[Any, ...]]:
    spec = build_specs({"x.toml": _doc(tensors, **extra)})["x.toml"]
    return [(r.name, r.shape, r.when, r.component, r.kind, r.tied_to) for r in spec.rules]


def test_an_include_builds_the_rules_its_entries_would_written_out() -> None:
    assert _rules([{"use": "decoder.attention"}]) == _rules(ATTENTION)
    assert block("decoder.attention") == ATTENTION  # the block file says what this test writes out
    # a block of blocks: the layer is its four parts in order
    names = [r[0] for r in _rules([{"use": "decoder.layer"}])]
    assert names[0] == "model.layers.{layer}.input_layernorm.weight"
    assert names[-1] == "model.layers.{layer}.mlp.down_proj.weight"
    assert len(names) == 1 + 4 * 2 + 1 + 3  # q, k, v, o each a weight and a bias (when attention_bias)


def test_a_later_entry_overrides_an_included_one_in_place_key_by_key() -> None:
    rules = _rules(
        [
            {"use": "decoder.attention", "with": {"attention_bias": True}},
            {"name": "model.layers.{layer}.self_attn.o_proj", "bias": False},
            {"name": "model.layers.{layer}.self_attn.k_proj", "linear": ["head_dim", "hidden_size"]},
        ]
    )
    names = [r[0] for r in rules]
    # o_proj keeps its place (last of the four) and loses its bias; the others keep theirs
    assert names == [
        "model.layers.{layer}.self_attn.q_proj.weight",
        "model.layers.{layer}.self_attn.q_proj.bias",
        "model.layers.{layer}.self_attn.k_proj.weight",
        "model.layers.{layer}.self_attn.v_proj.weight",
        "model.layers.{layer}.self_attn.v_proj.bias",
        "model.layers.{layer}.self_attn.o_proj.weight",
    ]
    # a shape form given replaces the included one and the included bias with it
    assert rules[2][1] == ("head_dim", "hidden_size")
    spec = build_specs(
        {
            "x.toml": _doc(
                [
                    {"use": "decoder.attention"},
                    {"name": "model.layers.{layer}.self_attn.q_proj", "component": "qk_norm"},
                ]
            )
        }
    )
    rules_ = spec["x.toml"].rules
    assert [r.component for r in rules_[:3]] == ["qk_norm", "qk_norm", "attention"]  # q weight, q bias, k weight


def test_with_at_rename_drop_and_when_adjust_the_brought_entries() -> None:
    rules = _rules(
        [
            {
                "use": "decoder.mlp",
                "with": {"intermediate_size": "2 * d_ff", "hidden_size": "d_model"},
                "rename": {"model.layers.{layer}.mlp.": "model.layers.{layer}.ffn."},
                "drop": ["model.layers.{layer}.ffn.up_proj"],
                "when": "layer > 0",
                "component": "shared_experts",
            }
        ],
        defaults={**DEFAULTS, "d_ff": 3, "d_model": 5},
    )
    assert rules == [
        (
            "model.layers.{layer}.ffn.gate_proj.weight",
            ("2 * d_ff", "d_model"),
            "layer > 0",
            "shared_experts",
            "param",
            None,
        ),
        (
            "model.layers.{layer}.ffn.down_proj.weight",
            ("d_model", "2 * d_ff"),
            "layer > 0",
            "shared_experts",
            "param",
            None,
        ),
    ]
    spec = build_specs(
        {
            "x.toml": _doc(
                [{"use": "decoder.mlp", "when": "layer > 0", "with": {"hidden_size": "d_model"}}],
                defaults={**DEFAULTS, "d_model": 5},
            )
        }
    )
    shapes = {n: e.shape for n, e in expand(spec["x.toml"], {"num_hidden_layers": 2}).tensors.items()}
    assert shapes == {
        "model.layers.1.mlp.gate_proj.weight": (16, 5),
        "model.layers.1.mlp.up_proj.weight": (16, 5),
        "model.layers.1.mlp.down_proj.weight": (5, 16),
    }


def test_an_include_when_is_anded_with_each_entry_own_condition() -> None:
    rules = _rules(
        [{"use": "decoder.attention", "when": "layer % 2 == 0", "with": {"attention_bias": "qkv"}}],
        defaults={**DEFAULTS, "qkv": True},
    )
    assert rules[1][0].endswith("q_proj.bias") and rules[1][2] == "(layer % 2 == 0) and (qkv)"
    assert rules[0][2] == "layer % 2 == 0"


def test_at_moves_every_name_tied_to_included() -> None:
    spec = build_specs(
        {
            "x.toml": {
                "model_types": ["x"],
                "defaults": DEFAULTS,
                "tensor": [
                    {"use": "decoder.embedding", "at": "language_model."},
                    {"use": "decoder.head", "at": "language_model."},
                ],
            }
        }
    )
    head = spec["x.toml"].rules[1]
    assert (head.name, head.tied_to) == ("language_model.lm_head.weight", "language_model.model.embed_tokens.weight")


def test_from_takes_another_specs_entries_after_its_inheritance_and_includes() -> None:
    base = _doc([{"use": "decoder.attention"}, {"use": "decoder.mlp"}])
    other = _doc([{"from": "base", "only": ["model.layers.{layer}.mlp."]}])
    other["model_types"] = ["y"]
    spec = build_specs({"base.toml": base, "y.toml": other})["y.toml"]
    assert [r.name for r in spec.rules] == [
        "model.layers.{layer}.mlp.gate_proj.weight",
        "model.layers.{layer}.mlp.up_proj.weight",
        "model.layers.{layer}.mlp.down_proj.weight",
    ]


def test_substitute_replaces_whole_names_only_and_parenthesizes() -> None:
    assert substitute("heads * head_dim", {"heads": "n_head"}) == "n_head * head_dim"
    assert substitute("heads * head_dim", {"heads": "a + b"}) == "(a + b) * head_dim"
    assert substitute("heads", {"heads": True}) is True
    assert substitute("'heads' if heads_x else heads", {"heads": "h"}) == "'heads' if heads_x else h"


@pytest.mark.parametrize(
    "tensors,match",
    [
        ([{"use": "decoder.nope"}], r"use = 'decoder.nope': no such block"),
        ([{"use": "nogroup.attention"}], "no such block"),
        ([{"use": "decoder"}], "no such block"),
        ([{"use": 3}], "not a block name"),
        ([{"use": "decoder.mlp", "from": "y"}], "use or from"),
        ([{"use": "decoder.mlp", "shape": ["d"]}], "not \\['shape'\\]"),
        ([{"use": "decoder.mlp"}, {"use": "decoder.mlp"}], "brings 'model.layers.{layer}.mlp.gate_proj' a second time"),
        (
            [
                {"name": "model.layers.{layer}.mlp.up_proj", "linear": ["d", "d"], "component": "mlp"},
                {"use": "decoder.mlp"},
            ],
            "a second time",
        ),
        ([{"use": "decoder.mlp", "drop": ["model.layers.{layer}.mlp.gate"]}], "drop names tensors it does not bring"),
        ([{"use": "decoder.mlp", "with": {"not a name": "x"}}], "with maps config names"),
        ([{"use": "decoder.mlp", "at": 3}], "at is a name prefix"),
        ([{"from": "nope"}], "not a spec"),
        ([{"from": "x"}], "circular"),
        ([{"use": "decoder.attention", "only": "q"}], "only is a list"),
    ],
)
def test_include_errors_name_the_file_and_the_include(tensors: list[dict[str, Any]], match: str) -> None:
    with pytest.raises(SpecError, match=match) as err:
        build_specs({"x.toml": _doc(tensors)})
    assert str(err.value).startswith("x.toml: ")
    assert "\n" not in str(err.value)


def test_every_block_is_included_somewhere_and_builds() -> None:
    used = "\n".join(p.read_text(encoding="utf-8") for p in (*DATA.glob("*.toml"), *DATA.glob("blocks/*.toml")))
    for path in sorted((DATA / "blocks").glob("*.toml")):
        for name in tomllib.loads(path.read_text(encoding="utf-8")):
            ref = f"{path.stem}.{name}"
            assert f'use = "{ref}"' in used, f"block {ref} is never used"
            assert block(ref), ref


def test_text_defaults_are_written_as_is_and_read_as_strings() -> None:
    from auditor.specs import environment

    doc = {"model_types": ["p"], "text": ["act"], "defaults": {"act": "gelu-approximate", "w": "2 * d", "d": 3}}
    spec = build_specs({"p.toml": doc})["p.toml"]
    assert spec.defaults["act"] == "'gelu-approximate'"  # the expression a quoted default was: same Spec
    env = environment(spec, {})
    assert (env["act"], env["w"]) == ("gelu-approximate", 6)
    assert environment(spec, {"act": "silu"})["act"] == "silu"
    # the list is the file's own: a child's expression default for the same key stays an expression
    child = {"model_types": ["c"], "extends": "p", "defaults": {"act": "'gelu' if d > 2 else 'relu'"}}
    built = build_specs({"p.toml": doc, "c.toml": child})["c.toml"]
    assert environment(built, {})["act"] == "gelu"


@pytest.mark.parametrize(
    "text,defaults,match",
    [
        (["act"], {}, "has no string default"),
        (["act"], {"act": 3}, "has no string default"),
        (["act"], {"act": "'silu'"}, "without quotes"),
        ("act", {"act": "silu"}, "text lists config keys"),
    ],
)
def test_text_errors(text: Any, defaults: dict[str, Any], match: str) -> None:
    with pytest.raises(SpecError, match=match):
        build_specs({"p.toml": {"model_types": ["p"], "text": text, "defaults": defaults}})


def test_the_spec_data_writes_few_rules_twice_and_the_measure_counts_a_copy(tmp_path: Any) -> None:
    """tools/spec_stats.py (issue 30's goal: under 5% of the written rules copied verbatim in another file)."""
    import importlib.util
    from pathlib import Path

    loader = importlib.util.spec_from_file_location(
        "spec_stats", Path(__file__).resolve().parents[1] / "tools" / "spec_stats.py"
    )
    assert loader is not None and loader.loader is not None
    tool = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(tool)
    stats = tool.measure()
    assert stats["copied_share"] < 0.05, stats["most_copied"][:5]
    assert stats["includes"] > 1000 and stats["block_files"] >= 5
    # the measure itself: a rule in two files is two copies, an include is no rule
    (tmp_path / "blocks").mkdir()
    rule = '[[tensor]]\nname = "a"\nnorm = "d"\ncomponent = "norms"\n'
    (tmp_path / "a.toml").write_text(rule + '[[tensor]]\nuse = "decoder.norm"\n')
    (tmp_path / "b.toml").write_text(rule + '[[tensor]]\nname = "b"\nnorm = "d"\ncomponent = "norms"\n')
    small = tool.measure(tmp_path)
    assert (small["rules"], small["includes"], small["copied"]) == (3, 1, 2)
