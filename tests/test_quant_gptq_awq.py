"""GPTQ and AWQ checkpoints: packed I32 weights count as the values they encode, their bookkeeping is checked.

Ground truth is never the auditor's own spec or quant.py: ``tests/support/gptq.py`` derives the released layouts from
transformers' dumps by the quantizers' documented storage rules (AutoGPTQ ``QuantLinear``, AutoAWQ
``WQLinear_GEMM`` / ``WQLinear_GEMV``), and the bookkeeping totals are hand computations written out below
from the model sizes in config.json.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import auditor
from auditor import Report
from auditor.core.findings import Finding
from tests.support import build, gptq
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = {
    e["config_file"]: e["published_params"]
    for e in json.loads((ROOT / "fixtures" / "published-counts.json").read_text())
}
LLAMA3_8B = "meta-llama__Meta-Llama-3-8B"
QWEN25_7B = "Qwen__Qwen2.5-7B"


# (in_features, out_features) of the seven linears of one decoder layer, from config.json:
# q, k, v, o, gate, up, down with hidden d, kv width h_kv * h_d and MLP width d_ff.
def _linears(d: int, kv: int, d_ff: int) -> list[tuple[int, int]]:
    return [(d, d), (d, kv), (d, kv), (d, d), (d, d_ff), (d, d_ff), (d_ff, d)]


LLAMA3_LINEARS = _linears(4096, 8 * 128, 14336)  # 32 layers
QWEN25_LINEARS = _linears(3584, 4 * 128, 18944)  # 28 layers


def _gptq_bookkeeping(linears: list[tuple[int, int]], layers: int, bits: int = 4, group: int = 128) -> int:
    """Per linear: qzeros ceil(in/g) x out*bits/32, scales ceil(in/g) x out, g_idx in (g -1: one group)."""
    groups = [1 if group == -1 else math.ceil(i / group) for i, _ in linears]
    return layers * sum(n * o * bits // 32 + n * o + i for n, (i, o) in zip(groups, linears))


def _awq_bookkeeping(linears: list[tuple[int, int]], layers: int, bits: int = 4, group: int = 128) -> int:
    """Per linear: qzeros in/g x out*bits/32, scales in/g x out (no g_idx)."""
    return layers * sum(i // group * o * bits // 32 + i // group * o for i, o in linears)


def _problems(report: auditor.Report) -> list[Finding]:
    return [f for f in report.findings if f.severity in ("error", "warning")]


def _hits(report: auditor.Report, code: str, tensor: str) -> list[Finding]:
    return [f for f in report.findings if f.code == code and tensor in f.tensors]


# --- clean exports -------------------------------------------------------------------------------------------


def test_hand_computations() -> None:
    """The figures the tests below rely on, written out: Llama-3-8B per layer, GPTQ 4-bit group 128.
    qzeros: q 32x512 + k 32x128 + v 32x128 + o 32x512 + gate 32x1792 + up 32x1792 + down 112x512 = 212,992;
    scales: 32x4096 x2 + 32x1024 x2 + 32x14336 x2 + 112x4096 = 1,703,936; g_idx: 4096 x6 + 14336 = 38,912."""
    assert 212_992 + 1_703_936 + 38_912 == 1_955_840
    assert _gptq_bookkeeping(LLAMA3_LINEARS, 32) == 32 * 1_955_840 == 62_586_880
    assert _awq_bookkeeping(LLAMA3_LINEARS, 32) == 32 * (212_992 + 1_703_936) == 61_341_696


def test_gptq_llama3_8b(tmp_path: Path) -> None:
    path = gptq.gptq_checkpoint(tmp_path / "gptq", LLAMA3_8B)
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    rec = report.reconciliation
    bookkeeping = _gptq_bookkeeping(LLAMA3_LINEARS, 32)
    assert report.verdict == "pass" and _problems(report) == []
    assert rec.expected_parameters == PUBLISHED[f"{LLAMA3_8B}.json"] == 8_030_261_248
    assert rec.ledger["model"] == rec.expected_parameters
    assert rec.ledger["quantization"] == bookkeeping == 62_586_880
    assert rec.ledger["unexplained"] == 0 and sum(rec.ledger.values()) == report.totals.parameters
    assert report.totals.parameters == 8_030_261_248 + 62_586_880
    # the packed I32 weights count 8 values per element (huggingface.js would count 1): all 7 x 32 linears
    dense_linears = 32 * sum(i * o for i, o in LLAMA3_LINEARS)
    i32 = report.totals.by_dtype["I32"]
    qweight_elements = dense_linears // 8
    assert i32[0] == 32 * 7 * 3  # qweight, qzeros, g_idx
    assert i32[1] == dense_linears + 32 * (212_992 + 38_912)
    assert i32[2] == 4 * (qweight_elements + 32 * (212_992 + 38_912))  # bytes are what is stored
    cats = rec.categories
    assert cats["model.layers.0.mlp.down_proj.qweight"] == "model"
    assert cats["model.layers.0.mlp.down_proj.g_idx"] == "quantization"
    assert cats["lm_head.weight"] == cats["model.embed_tokens.weight"] == cats["model.norm.weight"] == "model"
    assert {c.component: c.actual - c.expected for c in rec.components} == dict.fromkeys(
        [c.component for c in rec.components], 0
    )


def test_gptq_llama3_8b_zero_biases(tmp_path: Path) -> None:
    """Released GPTQ exports add a zero bias to every quantized linear; Llama has none: bookkeeping, with a note."""
    report = auditor.audit(str(gptq.gptq_checkpoint(tmp_path / "gptq", LLAMA3_8B, zero_biases=True)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    biases = 32 * sum(o for _, o in LLAMA3_LINEARS)
    assert biases == 32 * 43_008 == 1_376_256
    assert report.verdict == "pass" and _problems(report) == []
    assert rec.ledger["model"] == 8_030_261_248
    assert rec.ledger["quantization"] == 62_586_880 + biases
    note = _hits(report, "quantization-tensors", "model.layers.0.self_attn.q_proj.bias")
    assert len(note) == 1 and len(note[0].tensors) == 32 * 7
    assert "no bias in the architecture" in note[0].message and f"{biases:,} elements" in note[0].message
    assert rec.categories["model.layers.31.mlp.down_proj.bias"] == "quantization"


@pytest.mark.parametrize("zero_biases", [False, True])
def test_gptq_qwen25_7b_keeps_qkv_biases(tmp_path: Path, zero_biases: bool) -> None:
    report = auditor.audit(str(gptq.gptq_checkpoint(tmp_path / "gptq", QWEN25_7B, zero_biases=zero_biases)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert report.verdict == "pass" and _problems(report) == []
    assert rec.expected_parameters == PUBLISHED[f"{QWEN25_7B}.json"] == 7_615_616_512
    assert rec.ledger["model"] == rec.expected_parameters
    # Qwen2's q/k/v biases are the model's: d + 2 x kv per layer
    for proj in ("q_proj", "k_proj", "v_proj"):
        assert rec.categories[f"model.layers.27.self_attn.{proj}.bias"] == "model"
    stray = 28 * (3584 + 18944 + 18944 + 3584) if zero_biases else 0  # o, gate, up, down
    assert _gptq_bookkeeping(QWEN25_LINEARS, 28) == 58_483_712
    assert rec.ledger["quantization"] == 58_483_712 + stray
    if zero_biases:
        assert rec.categories["model.layers.27.self_attn.o_proj.bias"] == "quantization"
        note = _hits(report, "quantization-tensors", "model.layers.27.mlp.down_proj.bias")
        assert len(note) == 1 and len(note[0].tensors) == 28 * 4
        assert not any(n.endswith(("q_proj.bias", "k_proj.bias", "v_proj.bias")) for n in note[0].tensors)


def test_awq_gemm_llama3_8b(tmp_path: Path) -> None:
    report = auditor.audit(str(gptq.awq_checkpoint(tmp_path / "awq", LLAMA3_8B)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert report.verdict == "pass" and _problems(report) == []
    assert rec.ledger["model"] == rec.expected_parameters == 8_030_261_248
    assert rec.ledger["quantization"] == _awq_bookkeeping(LLAMA3_LINEARS, 32) == 61_341_696
    assert report.totals.parameters == 8_030_261_248 + 61_341_696
    assert not any(n.endswith(".g_idx") for n in rec.categories)


def test_awq_gemv_pads_zeros_and_scales(tmp_path: Path) -> None:
    """WQLinear_GEMV: qzeros [out, w], scales [out, 8w] with w = ceil(groups / 8); tiny-llama-bias (hidden 128,
    MLP 256, all linears biased) has 1 or 2 groups per linear, so w = 1 and scales carry 8 columns (padding)."""
    report = auditor.audit(str(gptq.awq_checkpoint(tmp_path / "gemv", "tiny-llama-bias", version="gemv", shards=1)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert report.verdict == "pass" and _problems(report) == []
    assert rec.ledger["model"] == rec.expected_parameters
    outs = [128, 64, 64, 128, 256, 256, 128]  # q, k, v (2 kv heads x 32), o, gate, up, down
    assert rec.ledger["quantization"] == 2 * sum(o * 1 + o * 8 for o in outs)
    assert rec.categories["model.layers.0.mlp.down_proj.bias"] == "model"  # mlp_bias: the model's own


def test_awq_modules_to_not_convert(tmp_path: Path) -> None:
    """A module the quantizer leaves alone (here the last layer's MLP) stays an ordinary F16 weight."""
    skip = ["model.layers.31.mlp"]
    path = gptq.awq_checkpoint(tmp_path / "awq", LLAMA3_8B, modules_to_not_convert=skip)
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert report.verdict == "pass" and _problems(report) == []
    assert rec.ledger["model"] == 8_030_261_248
    mlp = LLAMA3_LINEARS[4:]
    assert rec.ledger["quantization"] == 61_341_696 - _awq_bookkeeping(mlp, 1)
    assert rec.categories["model.layers.31.mlp.up_proj.weight"] == "model"
    assert "model.layers.31.mlp.up_proj.qweight" not in rec.categories


@pytest.mark.parametrize("bits,group", [(2, 128), (3, 32), (4, -1), (8, 64)])
def test_gptq_bits_and_groups(tmp_path: Path, bits: int, group: int) -> None:
    """Other bit widths (32 // bits values per I32; 3-bit packs 32 values in 3 words) and group_size -1 (one
    group: scales [1, out])."""
    layout = "tiny-llama-bias"
    report = auditor.audit(str(gptq.gptq_checkpoint(tmp_path / "t", layout, bits=bits, group_size=group, shards=1)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert report.verdict == "pass" and _problems(report) == []
    assert rec.ledger["model"] == rec.expected_parameters
    linears = _linears(128, 2 * 32, 256)
    assert rec.ledger["quantization"] == _gptq_bookkeeping(linears, 2, bits, group)
    if group == -1:
        assert report.tensors["model.layers.1.mlp.down_proj.scales"].shape == (1, 128)


def test_gptq_cli_exit_zero(tmp_path: Path) -> None:
    proc = run_cli("audit", str(gptq.gptq_checkpoint(tmp_path / "gptq", "tiny-llama-bias", shards=1)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "missing" not in proc.stdout and "unexpected" not in proc.stdout


# --- broken exports ------------------------------------------------------------------------------------------


def test_gptq_wrong_qweight_shape(tmp_path: Path) -> None:
    bad = "model.layers.5.mlp.down_proj.qweight"  # [14336 // 32 * 4, 4096] = [1792, 4096]
    report = auditor.audit(
        str(gptq.gptq_checkpoint(tmp_path / "bad", LLAMA3_8B, replace={bad: (bad, "I32", [1791, 4096])}))
    )
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-scale-mismatch", bad)
    assert report.verdict == "fail" and hits and hits[0].severity == "error"
    assert bad in hits[0].message and "[1792, 4096]" in hits[0].message
    assert report.reconciliation.ledger["model"] != 8_030_261_248  # it encodes 8 x 4096 values too few


def test_gptq_wrong_scales_group_count(tmp_path: Path) -> None:
    bad = "model.layers.7.self_attn.o_proj.scales"  # [ceil(4096 / 128), 4096] = [32, 4096]
    report = auditor.audit(
        str(gptq.gptq_checkpoint(tmp_path / "bad", LLAMA3_8B, replace={bad: (bad, "F16", [33, 4096])}))
    )
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-scale-mismatch", bad)
    assert report.verdict == "fail" and hits and hits[0].severity == "error"
    assert bad in hits[0].message and "[32, 4096]" in hits[0].message
    assert report.reconciliation.ledger["model"] == 8_030_261_248  # the weights themselves are fine


def test_awq_wrong_scales_group_count(tmp_path: Path) -> None:
    bad = "model.layers.0.mlp.down_proj.scales"  # [14336 // 128, 4096] = [112, 4096]
    report = auditor.audit(
        str(gptq.awq_checkpoint(tmp_path / "bad", LLAMA3_8B, replace={bad: (bad, "F16", [56, 4096])}))
    )
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-scale-mismatch", bad)
    assert report.verdict == "fail" and hits and "[112, 4096]" in hits[0].message


def test_gptq_missing_qweight(tmp_path: Path) -> None:
    """The spec's tensor is X.weight: missing-tensor names it; the orphaned bookkeeping names X.qweight."""
    gone = "model.layers.3.mlp.up_proj"
    report = auditor.audit(str(gptq.gptq_checkpoint(tmp_path / "bad", LLAMA3_8B, drop=[f"{gone}.qweight"])))
    assert isinstance(report, Report)
    assert report.verdict == "fail"
    missing = [f for f in report.findings if f.code == "missing-tensor"]
    assert len(missing) == 1 and missing[0].tensors == (f"{gone}.weight",) and f"{gone}.weight" in missing[0].message
    orphans = [f for f in report.findings if f.code == "quantization-scale-mismatch"]
    assert len(orphans) == 1 and set(orphans[0].tensors) == {f"{gone}.qzeros", f"{gone}.scales", f"{gone}.g_idx"}
    assert f"{gone}.qweight" in orphans[0].message and "not stored" in orphans[0].message
    assert report.reconciliation.ledger["model"] == 8_030_261_248 - 4096 * 14336


def test_gptq_qweight_without_scales(tmp_path: Path) -> None:
    module = "model.layers.9.self_attn.k_proj"
    report = auditor.audit(str(gptq.gptq_checkpoint(tmp_path / "bad", LLAMA3_8B, drop=[f"{module}.scales"])))
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-scale-mismatch", f"{module}.qweight")
    assert report.verdict == "fail" and hits and f"{module}.scales is not stored" in hits[0].message


def test_gptq_weight_stored_twice(tmp_path: Path) -> None:
    """Both the dense weight and its packed form: the parameters would count twice, and loaders take one."""
    module = "model.layers.1.self_attn.q_proj"
    layout = gptq.quantize(build.load_layout(LLAMA3_8B)["tensors"], "gptq")
    layout.append((f"{module}.weight", "F16", [4096, 4096]))
    config = gptq.gptq_config(build.load_config(f"{LLAMA3_8B}.json"))
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "twice", layout, config=config)))
    assert isinstance(report, Report)
    hits = _hits(report, "quantization-scale-mismatch", f"{module}.qweight")
    assert report.verdict == "fail" and hits and f"{module}.weight is stored too" in hits[0].message


def test_gptq_tensors_under_awq_config(tmp_path: Path) -> None:
    """The two layouts are told apart: GPTQ-packed tensors under an AWQ GEMM config do not fit."""
    layout = gptq.quantize(build.load_layout("tiny-llama-bias")["tensors"], "gptq")
    config = gptq.awq_config(build.load_config("tiny-llama-bias.json"))
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "mixed", layout, config=config)))
    hits = [f for f in report.findings if f.code == "quantization-scale-mismatch"]
    assert report.verdict == "fail" and hits
    assert "model.layers.0.self_attn.q_proj.qweight" in hits[0].tensors
    assert "model.layers.0.self_attn.q_proj.g_idx" in hits[0].tensors  # AWQ has no g_idx


def test_quantized_names_without_gptq_config_are_one_error(tmp_path: Path) -> None:
    """Without quant_method gptq/awq a loader cannot read these tensors: one root cause, one error naming them
    (quantization-config-missing), not a missing weight and an unexpected tensor for each."""
    layout = gptq.quantize(build.load_layout("tiny-llama-bias")["tensors"], "gptq")
    report = auditor.audit(
        str(build.build_checkpoint(tmp_path / "noconfig", layout, config=build.load_config("tiny-llama-bias.json")))
    )
    assert isinstance(report, Report)
    errors = [f for f in report.findings if f.severity == "error"]
    assert report.verdict == "fail" and [f.code for f in errors] == ["quantization-config-missing"]
    assert "model.layers.0.self_attn.q_proj.qweight" in errors[0].tensors
    assert report.reconciliation.ledger["model"] == report.reconciliation.expected_parameters
