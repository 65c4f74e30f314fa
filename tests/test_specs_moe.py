"""MoE / MLA families: every dumped layout reconciles exactly; real released layouts (FP8, MXFP4, MTP) too.

Ground truth is never the auditor's own spec: tensor lists come from ``fixtures/layouts`` (transformers'
state_dict on the meta device), ``tests/support/realistic.py`` rebuilds the released DeepSeek-V3 (FP8 + MTP) and
gpt-oss (MXFP4) layouts from those dumps plus the publishers' documented conventions, and the figures come
from ``fixtures/published-counts.json`` or from hand computations written out below.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import auditor
from auditor import Report
from auditor.reconcile.engine import formula_report
from tests.support import build, realistic
from tests.support.cli import run_cli, run_json

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = {e["config_file"]: e for e in json.loads((ROOT / "fixtures" / "published-counts.json").read_text())}

MOE_TYPES = {"qwen2_moe", "qwen3_moe", "mixtral", "phimoe", "deepseek_v2", "deepseek_v3", "gpt_oss", "llama4_text"}
REQUIRED = {
    "Qwen__Qwen1.5-MoE-A2.7B",
    "Qwen__Qwen2-57B-A14B",
    "Qwen__Qwen3-30B-A3B",
    "Qwen__Qwen3-235B-A22B",
    "deepseek-ai__DeepSeek-V2-Lite",
    "deepseek-ai__DeepSeek-V3",
    "microsoft__Phi-3.5-MoE-instruct",
    "mistralai__Mixtral-8x7B-v0.1",
    "openai__gpt-oss-20b",
    "meta-llama__Llama-4-Scout-17B-16E",
    "tiny-deepseek_v2-q_lora",
    "tiny-deepseek_v3",
    "tiny-gpt_oss",
    "tiny-mixtral",
    "tiny-qwen2_moe-sparse_step",
    "tiny-qwen3_moe",
}
# Published figures that describe a different file set than the transformers dump; each has its own test.
PUBLISHED_ELSEWHERE = {
    "deepseek-ai__DeepSeek-V3": "Hub total of the FP8 repo (MTP + scales): test_deepseek_v3_fp8_*",
    "meta-llama__Llama-4-Scout-17B-16E": "Hub total includes the vision tower: test_llama4_published_includes_vision",
}


def _header(name: str) -> dict[str, Any]:
    layout = build.load_layout(name)
    return {k: v for k, v in layout.items() if k not in ("tensors", "save_pretrained_tensors")}


def _moe_layouts() -> list[str]:
    names = sorted(p.name[: -len(".json.gz")] for p in build.LAYOUTS.glob("*.json.gz"))
    return [n for n in names if _header(n).get("model_type") in MOE_TYPES]


MOE_LAYOUTS = _moe_layouts()


def _on_disk(name: str) -> list[build.TensorSpec]:
    """What a checkpoint of this layout stores: transformers 5 dumps keep the in-memory (fused) state_dict in
    ``tensors`` and what ``save_pretrained`` actually wrote in ``save_pretrained_tensors``."""
    layout = build.load_layout(name)
    return [tuple(t) for t in layout.get("save_pretrained_tensors") or layout["tensors"]]  # type: ignore[misc]


def _elements(tensors: list[build.TensorSpec]) -> int:
    return sum(math.prod(shape) for _, _, shape in tensors)


# persistent buffers of these MoE layouts (transformers' register_buffer): stored, not parameters
BUFFERS = (".e_score_correction_bias",)


def _buffers(tensors: list[build.TensorSpec]) -> int:
    return _elements([t for t in tensors if t[0].endswith(BUFFERS)])


def _build(tmp_path: Path, name: str, tensors: list[build.TensorSpec], shards: int = 1, config=None) -> Path:
    cfg = config if config is not None else build.load_config(build.load_layout(name)["config_file"])
    return build.build_checkpoint(tmp_path / name, tensors, config=cfg, shards=shards)


def test_required_layouts_present() -> None:
    assert REQUIRED <= set(MOE_LAYOUTS), sorted(REQUIRED - set(MOE_LAYOUTS))


def test_every_moe_config_has_a_layout() -> None:
    """Every MoE config shipped in fixtures/configs is exercised by at least one dump."""
    used = {_header(n)["config_file"] for n in MOE_LAYOUTS}
    for path in sorted(build.CONFIGS.glob("*.json")):
        config = json.loads(path.read_text())
        model_type = (config.get("text_config") or {}).get("model_type", config.get("model_type"))
        if model_type in MOE_TYPES:
            assert path.name in used, path.name


@pytest.mark.parametrize("name", MOE_LAYOUTS)
def test_layout_reconciles_exactly(tmp_path: Path, name: str) -> None:
    tensors = _on_disk(name)
    path = _build(tmp_path, name, tensors, shards=1 if name.startswith("tiny-") else 4)
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    rec = report.reconciliation
    independent = _elements(tensors)
    # a router's score-correction bias is a persistent buffer: stored and required, but not a parameter
    buffers = _elements([t for t in tensors if t[0].endswith(BUFFERS)])
    assert report.verdict == "pass", [f.to_dict() for f in report.findings]
    assert [f.code for f in report.findings if f.severity != "info"] == []
    assert rec.expected_parameters == independent - buffers
    assert rec.ledger["model"] == independent - buffers and rec.ledger["unexplained"] == 0
    assert rec.ledger["buffers"] == buffers
    assert report.totals.parameters == independent
    # every MoE layout has routed experts, so an activated count below the total
    assert rec.activated_parameters is not None and 0 < rec.activated_parameters < rec.expected_parameters
    header = _header(name)
    entry = PUBLISHED.get(header["config_file"])
    if entry and entry.get("published_params") and name not in PUBLISHED_ELSEWHERE:
        assert rec.expected_parameters == entry["published_params"], entry["published_params_source"]


def test_seed_figures(tmp_path: Path) -> None:
    """The two Qwen3-MoE figures from the brief, independent of published-counts.json."""
    for name, published in (("Qwen__Qwen3-30B-A3B", 30_532_122_624), ("Qwen__Qwen3-235B-A22B", 235_093_634_560)):
        assert _elements(_on_disk(name)) == published
        config = build.load_config(build.load_layout(name)["config_file"])
        assert formula_report(config)["parameters"] == published


def test_activated_parameters_by_hand() -> None:
    """Qwen3-30B-A3B, from config numbers only (hidden 2048, 32 q / 4 kv heads of 128, 48 layers, 128 experts
    of moe_intermediate 768, top-8, vocab 151936, untied). Convention: routed top-k + everything dense,
    embeddings and head included."""
    h, heads, kv, hd, layers, inter, topk, vocab = 2048, 32, 4, 128, 48, 768, 8, 151936
    attention = h * heads * hd + 2 * h * kv * hd + heads * hd * h  # q, k, v, o (no biases)
    qk_norm = 2 * hd
    norms = 2 * h
    router = 128 * h
    active_experts = topk * 3 * inter * h  # gate, up, down of 8 experts
    per_layer = attention + qk_norm + norms + router + active_experts
    hand = layers * per_layer + 2 * vocab * h + h  # + embed, lm_head, final norm
    assert hand == 3_353_032_704  # model card: "3.3B activated"
    config = build.load_config("Qwen__Qwen3-30B-A3B.json")
    assert formula_report(config)["activated_parameters"] == hand

    # DeepSeek-V3: README_WEIGHTS says 36.6B activated without the input embedding (our convention counts it).
    report = formula_report(build.load_config("deepseek-ai__DeepSeek-V3.json"))
    assert round((report["activated_parameters"] - 129280 * 7168) / 1e9, 1) == 36.6


def test_dense_and_moe_layers_are_separate_rows() -> None:
    rows = formula_report(build.load_config("deepseek-ai__DeepSeek-V3.json"))["components"]
    layers = {(r["layer_type"], r["component"]): r["layers"] for r in rows if r["layer_type"]}
    assert layers[("dense", "mlp")] == 3  # first_k_dense_replace = 3
    assert layers[("moe", "routed_experts")] == 58
    assert ("dense", "routed_experts") not in layers and ("moe", "mlp") not in layers
    rows = formula_report(build.load_config("tiny-qwen2_moe-sparse_step.json"))["components"]
    layers = {(r["layer_type"], r["component"]): r["layers"] for r in rows if r["layer_type"]}
    # decoder_sparse_step 2 and mlp_only_layers [1] over 4 layers: only layer 3 is sparse (dump notes)
    assert layers[("moe", "routed_experts")] == 1 and layers[("dense", "mlp")] == 3


def test_config_defaults_fill_missing_keys() -> None:
    config = build.load_config("Qwen__Qwen3-30B-A3B.json")
    for key in ("decoder_sparse_step", "mlp_only_layers", "attention_bias", "tie_word_embeddings"):
        config.pop(key)
    assert formula_report(config)["parameters"] == 30_532_122_624
    # Qwen1.5-MoE's config has no qkv_bias key: Qwen2MoeConfig defaults it to true and the dump has the biases
    assert "qkv_bias" not in build.load_config("Qwen__Qwen1.5-MoE-A2.7B.json")


def test_phimoe_with_biases_matches_hand_computation() -> None:
    """published-counts.json notes: the real Phi-3.5-MoE has q/k/v/o biases and an lm_head bias; their hand
    computation is 41,873,153,344 (no exact published figure; consistent with the Hub's 41.9B)."""
    config = build.load_config("microsoft__Phi-3.5-MoE-instruct.json")
    assert formula_report(config)["parameters"] == _elements(_on_disk("microsoft__Phi-3.5-MoE-instruct"))
    config.update(attention_bias=True, lm_head_bias=True)
    assert formula_report(config)["parameters"] == 41_873_153_344


# --- DeepSeek-V3 as released: FP8 + MTP ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def deepseek_v3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return realistic.deepseek_v3_fp8(tmp_path_factory.mktemp("dsv3") / "DeepSeek-V3")


def test_deepseek_v3_fp8_builder_matches_hub(deepseek_v3: Path) -> None:
    """The builder is validated from outside: the Hub's tensor count and per-dtype element counts."""
    entry = PUBLISHED["deepseek-ai__DeepSeek-V3.json"]
    summary = realistic.summary(deepseek_v3)
    assert summary["tensors"] == 91_991 == entry["tensor_count"]
    assert summary["by_dtype"] == {"BF16": 3_918_786_560, "F8_E4M3": 680_571_043_840, "F32": 41_555_600}
    assert summary["by_dtype"] == entry["hub_params_by_dtype"]
    assert summary["total"] == 684_531_386_000 == entry["published_params"]
    assert len(list(deepseek_v3.glob("model-*-of-000163.safetensors"))) == 163


def test_deepseek_v3_fp8_reconciles(deepseek_v3: Path) -> None:
    code, doc = run_json("audit", str(deepseek_v3))
    assert code == 0, [f for f in doc["findings"] if f["severity"] != "info"]
    assert doc["verdict"] == "pass"
    assert doc["totals"]["parameters"] == 684_531_386_000
    ledger = doc["ledger"]
    # num_parameters(): layers 0-60 without the 58 x 256 F32 e_score_correction_bias (persistent buffers)
    assert ledger["model"] == 671_026_404_352 == 671_026_419_200 - 58 * 256
    assert ledger["mtp"] == 13_463_426_048  # layer 61: MoE decoder layer + embed/head copies + eh_proj
    assert ledger["quantization"] == 41_540_496  # F32 weight_scale_inv blocks
    assert ledger["buffers"] == 59 * 256  # the score-correction biases of layers 3-61
    assert ledger["unexplained"] == ledger["tied_duplicates"] == 0
    assert sum(ledger.values()) == 684_531_386_000
    # Hub F32 bucket 41,555,600 = scales 41,540,496 + 59 x 256 e_score_correction_bias (buffers)
    assert 41_555_600 - 41_540_496 == 59 * 256
    assert doc["expected"]["parameters"] == 671_026_404_352
    assert doc["expected"]["mtp_parameters"] == 13_463_426_048
    mtp_rows = [c for c in doc["components"] if c["component"] == "mtp"]
    assert mtp_rows == [
        {
            "component": "mtp",
            "layer_type": None,
            "layers": 1,
            "expected_per_layer": 13_463_426_048,
            "expected": 13_463_426_048,
            "actual": 13_463_426_048,
        }
    ]
    assert sum(c["expected"] for c in doc["components"] if c["component"] != "mtp") == 671_026_404_352
    assert doc["expected"]["activated_parameters"] is not None
    assert {f["code"] for f in doc["findings"]} == {"mtp-module", "quantization-tensors"}


def test_deepseek_v3_default_json_stays_small(deepseek_v3: Path) -> None:
    """Findings list at most 20 names plus count and patterns (it was 2.86 MB, 2.82 MB of it the 45,808 names of
    one info finding); --tensors still gives every name."""
    proc = run_cli("audit", str(deepseek_v3), "--format", "json")
    doc = json.loads(proc.stdout)
    assert len(proc.stdout.encode()) < 300_000, len(proc.stdout)
    [scales] = [f for f in doc["findings"] if f["code"] == "quantization-tensors"]
    assert scales["count"] > 40_000 and len(scales["tensors"]) == 20 and 0 < len(scales["patterns"]) < 100


def test_deepseek_v3_wrong_scale_shape(tmp_path: Path) -> None:
    bad = "model.layers.7.self_attn.q_a_proj.weight_scale_inv"  # q_a_proj [1536, 7168] -> [12, 56]
    path = realistic.deepseek_v3_fp8(tmp_path / "ds", replace={bad: (bad, "F32", [12, 57])})
    code, doc = run_json("audit", str(path))
    assert code == 1
    hits = [f for f in doc["findings"] if f["code"] == "quantization-scale-mismatch"]
    assert hits and hits[0]["tensors"] == [bad] and hits[0]["severity"] == "error"
    assert "[12, 56]" in hits[0]["message"]


def test_deepseek_v3_fp8_weight_without_scale(tmp_path: Path) -> None:
    weight = "model.layers.9.mlp.experts.5.up_proj.weight"
    path = realistic.deepseek_v3_fp8(tmp_path / "ds", drop=[weight + "_scale_inv"])
    code, doc = run_json("audit", str(path))
    assert code == 1
    hits = [f for f in doc["findings"] if f["code"] == "quantization-scale-mismatch"]
    assert hits and hits[0]["tensors"] == [weight] and f"{weight}_scale_inv is not stored" in hits[0]["message"]


def test_deepseek_v3_missing_expert(tmp_path: Path) -> None:
    gone = "model.layers.30.mlp.experts.17.down_proj.weight"
    path = realistic.deepseek_v3_fp8(tmp_path / "ds", drop=[gone, gone + "_scale_inv"])
    code, doc = run_json("audit", str(path))
    assert code == 1
    hits = [f for f in doc["findings"] if f["code"] == "missing-tensor"]
    assert len(hits) == 1 and hits[0]["tensors"] == [gone] and gone in hits[0]["message"]


def test_missing_expert_in_one_layer(tmp_path: Path) -> None:
    gone = "model.layers.1.mlp.experts.3.up_proj.weight"
    tensors = [t for t in _on_disk("tiny-qwen3_moe") if t[0] != gone]
    report = auditor.audit(str(_build(tmp_path, "tiny-qwen3_moe", tensors)))
    assert report.verdict == "fail"
    hits = [f for f in report.findings if f.code == "missing-tensor"]
    assert len(hits) == 1 and list(hits[0].tensors) == [gone] and gone in hits[0].message


def test_deepseek_v3_partial_mtp_is_a_warning(tmp_path: Path) -> None:
    gone = "model.layers.61.eh_proj.weight"
    code, doc = run_json("audit", str(realistic.deepseek_v3_fp8(tmp_path / "ds", drop=[gone])))
    hits = [f for f in doc["findings"] if f["code"] == "missing-tensor"]
    assert code == 0 and len(hits) == 1 and hits[0]["severity"] == "warning" and gone in hits[0]["tensors"]


def test_tiny_deepseek_v3_fp8_and_mtp(tmp_path: Path) -> None:
    """The same release conventions on the tiny config (q_lora_rank null, 1 dense + 2 MoE layers)."""
    layout = build.load_layout("tiny-deepseek_v3")
    config = build.load_config(layout["config_file"])
    config.update(
        num_nextn_predict_layers=1,
        quantization_config={"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]},
    )
    base = [tuple(t) for t in layout["tensors"]]
    mtp = realistic.deepseek_mtp_layer(3, 2, base, config["hidden_size"], config["vocab_size"])
    tensors = realistic.fp8_block_quantize(base + mtp)
    scales = [t for t in tensors if t[0].endswith("_scale_inv")]
    report = auditor.audit(str(_build(tmp_path, "tiny-deepseek_v3", tensors, config=config)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert report.verdict == "pass"
    assert rec.ledger["model"] == _elements(base) - _buffers(base) == rec.expected_parameters
    assert rec.ledger["mtp"] == _elements(mtp) - _buffers(mtp) == rec.mtp_parameters
    assert rec.ledger["buffers"] == _buffers(base + mtp) > 0
    assert rec.ledger["quantization"] == _elements(scales) and rec.ledger["unexplained"] == 0


# --- gpt-oss as released: MXFP4 experts -------------------------------------------------------------------


def test_gpt_oss_mxfp4_reconciles(tmp_path: Path) -> None:
    path = realistic.gpt_oss_mxfp4(tmp_path / "gpt-oss-20b")
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    rec = report.reconciliation
    published = PUBLISHED["openai__gpt-oss-20b.json"]["published_params"]
    # scales: one U8 exponent per 32 values, 24 layers x 32 experts x (gate_up 5760 x 2880 + down 2880 x 2880) / 32
    scales = 24 * 32 * (5760 * 2880 + 2880 * 2880) // 32
    assert scales == 597_196_800
    assert report.verdict == "pass"
    # The real repo numbers its shards from zero (model-00000-of-00002 .. model-00002-of-00002): not a problem.
    assert {f.code for f in report.findings if f.severity != "info"} == set()
    assert rec.expected_parameters == published == 20_914_757_184  # logical FP4 values, 2 per stored byte
    assert rec.ledger["model"] == published
    assert rec.ledger["quantization"] == scales and rec.ledger["unexplained"] == 0
    assert report.totals.parameters == published + scales
    assert "quantization-scale-mismatch" not in {f.code for f in report.findings}


def test_gpt_oss_mxfp4_wrong_blocks(tmp_path: Path) -> None:
    layout = build.load_layout("tiny-gpt_oss")
    config = build.load_config(layout["config_file"])
    config["quantization_config"] = {"quant_method": "mxfp4"}
    tensors = realistic.mxfp4_experts(layout["tensors"])
    good = auditor.audit(str(_build(tmp_path / "good", "tiny-gpt_oss", tensors, config=config)))
    assert isinstance(good, Report)
    assert good.verdict == "pass" and good.reconciliation.expected_parameters == _elements(_on_disk("tiny-gpt_oss"))
    bad = "model.layers.1.mlp.experts.down_proj_blocks"
    tensors = [(n, d, [s[0], s[1], s[2] - 1, s[3]]) if n == bad else (n, d, s) for n, d, s in tensors]
    report = auditor.audit(str(_build(tmp_path / "bad", "tiny-gpt_oss", tensors, config=config)))
    hits = [f for f in report.findings if f.code == "quantization-scale-mismatch"]
    assert report.verdict == "fail" and hits and bad in hits[0].tensors


# --- Llama 4: text model vs the multimodal release ----------------------------------------------------------


def test_llama4_published_includes_vision() -> None:
    """The Hub total counts the whole Llama4ForConditionalGeneration; the text model is what the llama4_text spec
    counts, and the difference is exactly the vision tower + projector of the conditional-generation dump.
    (The multimodal config itself now selects llama4_multimodal.toml, whose formula is the Hub total:
    tests/test_specs_multimodal.py.)"""
    published = PUBLISHED["meta-llama__Llama-4-Scout-17B-16E.json"]["published_params"]
    config = build.load_config("meta-llama__Llama-4-Scout-17B-16E.json")
    text = formula_report(config["text_config"])["parameters"]
    assert text == _elements(_on_disk("meta-llama__Llama-4-Scout-17B-16E")) == 107_769_861_120
    assert formula_report(config)["parameters"] == published
    full = build.load_layout("meta-llama__Llama-4-Scout-17B-16E-conditional-generation")["tensors"]
    vision = [t for t in full if not t[0].startswith("language_model.")]
    language = {(n[len("language_model.") :], d, tuple(s)) for n, d, s in full if n.startswith("language_model.")}
    assert {t[0].split(".")[0] for t in vision} == {"vision_model", "multi_modal_projector"}
    assert language == {(n, d, tuple(s)) for n, d, s in _on_disk("meta-llama__Llama-4-Scout-17B-16E")}
    assert published - text == _elements(vision) == 871_932_416


def test_gpt_oss_120b_and_active_counts() -> None:
    """published-counts.json notes: gpt-oss-120b is 116,829,156,672 (same sources as the 20b figure). Its
    config differs from the 20b one in num_hidden_layers (36) and num_local_experts (128). OpenAI's model card
    gives 3.6B / 5.1B active, counting the unembedding but not the input embedding (201088 x 2880)."""
    config = build.load_config("openai__gpt-oss-20b.json")
    small = formula_report(config)
    config.update(num_hidden_layers=36, num_local_experts=128)
    large = formula_report(config)
    assert large["parameters"] == 116_829_156_672
    embedding = 201088 * 2880
    assert round((small["activated_parameters"] - embedding) / 1e9, 1) == 3.6
    assert round((large["activated_parameters"] - embedding) / 1e9, 1) == 5.1


@pytest.mark.parametrize("renamed", [{"num_experts": "num_local_experts"}])
def test_qwen3_moe_config_written_by_transformers_5_reconciles(tmp_path: Path, renamed: dict) -> None:
    """transformers 5 writes Qwen3-MoE's expert count as num_local_experts (Qwen3MoeConfig.attribute_map), older
    releases as num_experts: both must read the same (falling back to the class default of 128 would report
    hundreds of missing experts on a healthy checkpoint)."""
    layout = build.load_layout("Qwen__Qwen3-30B-A3B")
    config = build.load_config(layout["config_file"])
    old, new = next(iter(renamed.items()))
    config[new] = config.pop(old)
    assert (
        old not in config
        and config[new] == 128 == max(int(n.split(".")[5]) for n, _, _ in layout["tensors"] if ".experts." in n) + 1
    )
    config[new] = 64  # a smaller expert count makes a fallback to the default of 128 visible
    tensors = [t for t in layout["tensors"] if ".experts." not in t[0] or int(t[0].split(".")[5]) < 64]
    tensors = [(n, d, [64, s[1]] if n.endswith("mlp.gate.weight") else s) for n, d, s in tensors]
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "ckpt", tensors, config=config, shards=3)))
    assert isinstance(report, Report)
    assert report.verdict == "pass", [f.message for f in report.findings if f.severity == "error"]
    assert report.reconciliation.ledger["model"] == report.reconciliation.expected_parameters
