"""Dense families: every dumped transformers layout reconciles exactly, and the counts match published figures.

Ground truth is never the auditor's own spec: tensor lists come from ``fixtures/layouts`` (transformers'
state_dict on the meta device), parameter counts from ``fixtures/published-counts.json`` and the documented
real-repo quirks in ``tests/support/quirks.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import auditor
from auditor import Report
from auditor.reconcile.engine import formula_report
from tests.support import build, quirks
from tests.support.cli import run_cli, run_json

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = {e["config_file"]: e for e in json.loads((ROOT / "fixtures" / "published-counts.json").read_text())}

DENSE_TYPES = {
    "llama",
    "mistral",
    "qwen2",
    "qwen3",
    "gemma",
    "gemma2",
    "gemma3_text",
    "phi3",
    "gpt2",
    "gpt_neox",
    "olmo2",
    "starcoder2",
    "granite",
    "cohere",
    "smollm3",
    "glm4",
    "falcon",
    "RefinedWebModel",
    "RefinedWeb",
}
# Layouts that must exist (more may be added; every dense one found is tested).
REQUIRED = {
    "EleutherAI__pythia-160m",
    "HuggingFaceTB__SmolLM2-135M",
    "Qwen__Qwen2.5-0.5B",
    "Qwen__Qwen2.5-72B-Instruct",
    "Qwen__Qwen2.5-7B",
    "Qwen__Qwen3-0.6B",
    "Qwen__Qwen3-1.7B",
    "Qwen__Qwen3-14B",
    "Qwen__Qwen3-32B",
    "Qwen__Qwen3-4B",
    "Qwen__Qwen3-8B",
    "TinyLlama__TinyLlama-1.1B-Chat-v1.0",
    "allenai__OLMo-2-1124-7B",
    "bigcode__starcoder2-3b",
    "google__gemma-2-2b",
    "google__gemma-2-9b",
    "google__gemma-3-1b-it",
    "meta-llama__Llama-2-7b-hf",
    "meta-llama__Llama-3.1-405B",
    "meta-llama__Llama-3.1-70B",
    "meta-llama__Llama-3.1-8B",
    "meta-llama__Llama-3.2-1B",
    "meta-llama__Meta-Llama-3-8B",
    "microsoft__Phi-3-mini-4k-instruct",
    "mistralai__Mistral-7B-v0.1",
    "openai-community__gpt2",
    "tiiuae__falcon-7b",
    "tiny-cohere",
    "tiny-falcon-legacy",
    "tiny-falcon-new",
    "tiny-gemma",
    "tiny-glm4",
    "tiny-gpt2",
    "tiny-gpt_neox-parallel",
    "tiny-granite",
    "tiny-llama-bias",
    "tiny-mistral-head_dim",
    "tiny-qwen2-tied",
    "tiny-smollm3",
}

# published = (what st-audit formula predicts) + this documented difference (published-counts.json notes)
PUBLISHED_EXTRA = {
    "Qwen__Qwen3-0.6B.json": 151936 * 1024,  # lm_head stored despite the tie
    "Qwen__Qwen3-1.7B.json": 151936 * 2048,  # lm_head stored despite the tie
    "meta-llama__Llama-2-7b-hf.json": 32 * 64,  # rotary_emb.inv_freq buffers
    "tiiuae__falcon-7b.json": 65024 * 4544,  # lm_head stored although tied
}
# No published figure, but the notes give a hand computation from the modeling code.
HAND_COUNTS = {"bigcode__starcoder2-3b.json": 3_030_371_328}


def _model_type(config: dict[str, Any]) -> str | None:
    mt = config.get("model_type")
    if mt is None and isinstance(config.get("text_config"), dict):
        mt = config["text_config"].get("model_type")
    return mt


def _dense_layouts() -> list[str]:
    out = []
    for path in sorted(build.LAYOUTS.glob("*.json.gz")):
        name = path.name[: -len(".json.gz")]
        layout = build.load_layout(name)
        if _model_type(build.load_config(layout["config_file"])) in DENSE_TYPES:
            out.append(name)
    return out


DENSE = _dense_layouts()


def _elements(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def test_every_required_dense_layout_is_present() -> None:
    assert REQUIRED <= set(DENSE), sorted(REQUIRED - set(DENSE))


@pytest.mark.parametrize("name", DENSE)
def test_dense_layout_reconciles_exactly(name: str, layout_checkpoint: Any) -> None:
    layout = build.load_layout(name)
    dumped = sum(_elements(s) for _, _, s in layout["tensors"])
    big = dumped > 100_000_000
    path = layout_checkpoint(name, shards=4 if big else 1)
    report = auditor.audit(path)
    assert isinstance(report, Report)
    bad = [f.to_dict() for f in report.findings if f.severity in ("error", "warning")]
    assert bad == [], bad
    assert report.verdict == "pass"
    rec = report.reconciliation
    assert report.totals.parameters == dumped
    assert rec.ledger["model"] == report.totals.parameters
    assert {k: v for k, v in rec.ledger.items() if k != "model"} == dict.fromkeys(
        ("mtp", "tied_duplicates", "buffers", "quantization", "unexplained"), 0
    )
    assert rec.expected_parameters == dumped
    assert all(c.actual == c.expected for c in rec.components), [c.to_dict() for c in rec.components]
    if layout.get("total_params") is not None:  # the dump's own count of unique parameters
        assert rec.expected_parameters == layout["total_params"]
    if len(layout["tensors"]) > 0 and big:
        assert len(report.files) == 4


def test_tied_dumps_drop_the_head_and_the_spec_agrees() -> None:
    """The tied/untied decision (incl. config-class defaults for a missing key) matches transformers."""
    checked = 0
    for name in DENSE:
        layout = build.load_layout(name)
        config = build.load_config(layout["config_file"])
        tied_in_transformers = bool(
            layout.get("tied_dropped")
        ) or "is get_input_embeddings().weight: True" in layout.get("notes", "")
        assert formula_report(config)["tied_embeddings"] is tied_in_transformers, name
        checked += 1
    assert checked == len(DENSE)


def _published_cases() -> list[tuple[str, int]]:
    cases = []
    for config_file, entry in sorted(PUBLISHED.items()):
        if entry.get("published_params") is None or not (build.CONFIGS / config_file).exists():
            continue
        if _model_type(build.load_config(config_file)) in DENSE_TYPES:
            cases.append((config_file, entry["published_params"]))
    return cases


PUBLISHED_CASES = _published_cases()


@pytest.mark.parametrize(("config_file", "published"), PUBLISHED_CASES)
def test_formula_matches_published_count(config_file: str, published: int) -> None:
    expected = formula_report(build.load_config(config_file))["parameters"]
    assert expected + PUBLISHED_EXTRA.get(config_file, 0) == published


def test_published_cases_cover_the_dense_real_configs() -> None:
    files = {c for c, _ in PUBLISHED_CASES}
    assert len(files) >= 24
    assert set(PUBLISHED_EXTRA) <= files


@pytest.mark.parametrize(("config_file", "count"), sorted(HAND_COUNTS.items()))
def test_formula_matches_documented_hand_count(config_file: str, count: int) -> None:
    assert formula_report(build.load_config(config_file))["parameters"] == count


@pytest.mark.parametrize(
    ("config_file", "parameters", "tied"),
    [
        ("Qwen__Qwen3-8B.json", 8_190_735_360, False),
        ("Qwen__Qwen3-32B.json", 32_762_123_264, False),
        ("Qwen__Qwen3-0.6B.json", 596_049_920, True),
        ("meta-llama__Llama-2-7b-hf.json", 6_738_415_616, False),
    ],
)
def test_seed_counts_from_the_cli(config_file: str, parameters: int, tied: bool) -> None:
    proc = run_cli("formula", str(build.CONFIGS / config_file), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["parameters"] == parameters
    assert doc["tied_embeddings"] is tied
    assert f"{parameters:,}" in run_cli("formula", str(build.CONFIGS / config_file)).stdout


def test_llama2_7b_counts_the_untied_head() -> None:
    doc = formula_report(build.load_config("meta-llama__Llama-2-7b-hf.json"))
    rows = {c["component"]: c["expected"] for c in doc["components"]}
    assert rows["lm_head"] == 32000 * 4096
    assert rows["embedding"] == 32000 * 4096
    assert doc["parameters"] == 6_738_415_616


def test_qwen3_8b_per_layer_breakdown(layout_checkpoint: Any) -> None:
    path = layout_checkpoint("Qwen__Qwen3-8B", shards=4)
    code, doc = run_json("audit", str(path))
    assert code == 0
    assert doc["verdict"] == "pass"
    assert doc["expected"]["parameters"] == 8_190_735_360
    layer_rows = {c["component"]: c for c in doc["components"] if c["layer_type"] is not None}
    want = {"attention": 41_943_040, "mlp": 150_994_944, "norms": 8_192, "qk_norm": 256}
    assert set(layer_rows) == set(want)
    for component, per_layer in want.items():
        row = layer_rows[component]
        assert row["layers"] == 36
        assert row["expected_per_layer"] == per_layer
        assert row["expected"] == row["actual"] == 36 * per_layer
    assert sum(want.values()) == 192_946_432
    rest = {c["component"]: c["expected"] for c in doc["components"] if c["layer_type"] is None}
    assert rest == {"embedding": 151936 * 4096, "norms": 4096, "lm_head": 151936 * 4096}
    assert 36 * 192_946_432 + sum(rest.values()) == 8_190_735_360


def test_qwen3_explicit_head_dim_wider_than_hidden() -> None:
    """Qwen3-0.6B: hidden 1024, 16 heads, head_dim 128 -> q_proj [2048, 1024] (not hidden // heads = 64)."""
    layout = build.load_layout("Qwen__Qwen3-0.6B")
    shapes = {n: s for n, _, s in layout["tensors"]}
    assert shapes["model.layers.0.self_attn.q_proj.weight"] == [2048, 1024]
    doc = formula_report(build.load_config("Qwen__Qwen3-0.6B.json"))
    attention = next(c for c in doc["components"] if c["component"] == "attention")
    assert attention["expected_per_layer"] == 2048 * 1024 * 2 + 1024 * 1024 * 2


# ---- real-repo quirks ---------------------------------------------------------------------------------------


def _build_quirk(tmp_path: Path, name: str) -> Path:
    tensors, _ = quirks.quirk_tensors(name)
    shards = 4 if quirks.stored_elements(tensors) > 1_000_000_000 else 1
    return quirks.build_quirk(tmp_path / name, name, shards=shards)


@pytest.mark.parametrize("name", sorted(quirks.QUIRKS))
def test_quirk_totals_match_the_hub(name: str, tmp_path: Path) -> None:
    quirk = quirks.QUIRKS[name]
    tensors, _ = quirks.quirk_tensors(name)
    assert quirks.stored_elements(tensors) == quirk.hub_total == quirk.unique_parameters + quirk.extra_elements
    report = auditor.audit(str(_build_quirk(tmp_path, name)))
    assert isinstance(report, Report)
    assert report.totals.parameters == quirk.hub_total
    assert report.reconciliation.expected_parameters == quirk.unique_parameters
    assert report.reconciliation.ledger["model"] == quirk.unique_parameters
    assert sum(report.reconciliation.ledger.values()) == quirk.hub_total
    assert not [f for f in report.findings if f.severity == "error"], [f.to_dict() for f in report.findings]


@pytest.mark.parametrize(("name", "hidden"), [("qwen3-0.6b-stored-head", 1024), ("qwen3-1.7b-stored-head", 2048)])
def test_qwen3_small_stored_tied_head(name: str, hidden: int, tmp_path: Path) -> None:
    path = _build_quirk(tmp_path, name)
    code, doc = run_json("audit", str(path))
    assert code == 0  # a redundant tied copy is a warning; --fail-on defaults to error
    assert doc["verdict"] == "pass"
    assert doc["ledger"]["tied_duplicates"] == 151936 * hidden
    assert doc["totals"]["parameters"] == quirks.QUIRKS[name].hub_total
    heads = [f for f in doc["findings"] if f["code"] == "tied-head"]
    assert len(heads) == 1 and heads[0]["severity"] == "warning"
    assert heads[0]["tensors"] == ["lm_head.weight"]
    assert run_cli("audit", str(path), "--fail-on", "warning").returncode == 1


def test_qwen3_0_6b_hub_count(tmp_path: Path) -> None:
    code, doc = run_json("audit", str(_build_quirk(tmp_path, "qwen3-0.6b-stored-head")))
    assert doc["totals"]["parameters"] == 751_632_384
    assert doc["expected"]["parameters"] == 596_049_920
    assert doc["ledger"]["model"] == 596_049_920


def test_llama2_stored_inv_freq_buffers(tmp_path: Path) -> None:
    code, doc = run_json("audit", str(_build_quirk(tmp_path, "llama-2-7b-inv-freq")))
    assert code == 0
    assert doc["ledger"]["buffers"] == 2_048
    assert doc["totals"]["parameters"] == 6_738_417_664
    assert doc["expected"]["parameters"] == doc["ledger"]["model"] == 6_738_415_616
    [buf] = [f for f in doc["findings"] if f["code"] == "buffer-stored"]
    assert buf["severity"] == "info"
    assert buf["count"] == 32 and buf["patterns"] == ["model.layers.{0..31}.self_attn.rotary_emb.inv_freq"]
    assert [f for f in doc["findings"] if f["severity"] != "info"] == []


def test_gpt2_real_file_without_prefix(tmp_path: Path) -> None:
    tensors, _ = quirks.quirk_tensors("gpt2-real-file")
    names = {n for n, _, _ in tensors}
    assert "h.0.attn.c_attn.weight" in names and "wte.weight" in names
    assert not any(n.startswith("transformer.") for n in names) and "lm_head.weight" not in names
    code, doc = run_json("audit", str(_build_quirk(tmp_path, "gpt2-real-file")))
    assert code == 0 and doc["verdict"] == "pass"
    assert doc["totals"]["parameters"] == 137_022_720
    assert doc["ledger"]["model"] == 124_439_808
    assert doc["ledger"]["buffers"] == 12_582_912
    assert doc["ledger"]["unexplained"] == doc["ledger"]["tied_duplicates"] == 0
    assert doc["expected"]["parameters"] == 124_439_808
    [buf] = [f for f in doc["findings"] if f["code"] == "buffer-stored"]
    assert sorted(buf["tensors"]) == sorted(f"h.{i}.attn.bias" for i in range(12))
    assert [f for f in doc["findings"] if f["severity"] != "info"] == []
    rows = {c["component"]: c for c in doc["components"]}
    assert rows["position_embedding"]["expected"] == rows["position_embedding"]["actual"] == 1024 * 768


def test_falcon_7b_stored_tied_head(tmp_path: Path) -> None:
    code, doc = run_json("audit", str(_build_quirk(tmp_path, "falcon-7b-stored-head")))
    assert code == 0
    assert doc["model_type"] == "RefinedWebModel"  # the legacy name, read by the falcon formula
    assert doc["expected"]["spec"] == {"file": "falcon.toml", "class": "ForCausalLM", "layout": "default"}
    assert doc["totals"]["parameters"] == 7_217_189_760
    assert doc["ledger"]["tied_duplicates"] == 65024 * 4544 == 295_469_056
    assert doc["ledger"]["model"] == doc["expected"]["parameters"] == 6_921_720_704
    [head] = [f for f in doc["findings"] if f["code"] == "tied-head"]
    assert head["severity"] == "warning" and head["tensors"] == ["lm_head.weight"]


# ---- feature variants the tiny layouts pin down -----------------------------------------------------------


def test_legacy_falcon_names_resolve_to_the_falcon_formula() -> None:
    """The falcon-7b config uses RefinedWebModel with n_head / n_layer; the formula reads them."""
    config = build.load_config("tiiuae__falcon-7b.json")
    assert config["model_type"] == "RefinedWebModel" and "num_hidden_layers" not in config
    doc = formula_report(config)
    assert doc["layers"] == 32
    assert doc["parameters"] == 6_921_720_704
    # the same block under model_type "RefinedWeb" with n_head_kv is the new (40B-style) architecture
    new_style = {**config, "model_type": "RefinedWeb", "n_head_kv": 8, "n_head": 128, "hidden_size": 8192}
    rows = {
        c["component"]: c["expected_per_layer"]
        for c in formula_report(new_style)["components"]
        if c["layer_type"] is not None
    }
    assert rows["norms"] == 4 * 8192  # ln_attn + ln_mlp, weight and bias
    assert rows["attention"] == (128 + 2 * 8) * 64 * 8192 + 8192 * 8192


def test_gemma_ties_by_default_when_the_key_is_missing(layout_checkpoint: Any) -> None:
    config = build.load_config("google__gemma-2-2b.json")
    assert "tie_word_embeddings" not in config
    assert formula_report(config)["tied_embeddings"] is True
    untied = {**config, "tie_word_embeddings": False}
    assert formula_report(untied)["parameters"] == 2_614_341_888 + 256000 * 2304


def test_starcoder2_default_tie_and_biases() -> None:
    config = build.load_config("bigcode__starcoder2-3b.json")
    assert "tie_word_embeddings" not in config
    doc = formula_report(config)
    assert doc["tied_embeddings"] is True
    no_bias = formula_report({**config, "use_bias": False})
    # q/k/v/o + c_fc/c_proj biases per layer: 3072 + 2*256 + 3072 + 12288 + 3072
    assert doc["parameters"] - no_bias["parameters"] == 30 * (3072 + 2 * 256 + 3072 + 12288 + 3072)


def test_old_pythia_buffers_are_buffers(make_checkpoint: Any) -> None:
    """Early GPT-NeoX checkpoints persisted the causal mask, masked_bias and the rotary inv_freq per layer
    (modeling_gpt_neox before they became non-persistent): recomputable, never parameters."""
    layout = build.load_layout("EleutherAI__pythia-160m")
    config = build.load_config(layout["config_file"])
    extra = []
    for i in range(12):
        extra += [
            (f"gpt_neox.layers.{i}.attention.bias", "BOOL", [1, 1, 2048, 2048]),
            (f"gpt_neox.layers.{i}.attention.masked_bias", "F32", []),
            (f"gpt_neox.layers.{i}.attention.rotary_emb.inv_freq", "F32", [8]),
        ]  # head 64 * rotary_pct 0.25 / 2
    path = make_checkpoint([tuple(t) for t in layout["tensors"]] + extra, config=config)
    code, doc = run_json("audit", str(path))
    assert code == 0
    assert doc["ledger"]["buffers"] == 12 * (2048 * 2048 + 1 + 8)
    assert doc["ledger"]["model"] == doc["expected"]["parameters"] == 162_322_944
    [buf] = [f for f in doc["findings"] if f["code"] == "buffer-stored"]
    assert buf["count"] == 36
    assert [f for f in doc["findings"] if f["severity"] != "info"] == []
