"""Architectures without a formula, and configs a formula cannot evaluate: never a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import auditor
from auditor import Report
from tests.support.build import build_checkpoint, load_config, load_layout

LAYOUT = load_layout("Qwen__Qwen3-4B")
CONFIG = load_config(LAYOUT["config_file"])
# a model_type and a class no spec and no transformers class has (a known class under an unknown type gets that
# class's formula: tests/test_specs_remote_llm.py)
UNKNOWN = {"model_type": "brand_new_arch", "architectures": ["BrandNewArchForCausalLM"]}


def build(tmp_path: Path, config: dict, drop: tuple[str, ...] = ()) -> Path:
    tensors = [t for t in LAYOUT["tensors"] if t[0] not in drop]
    return build_checkpoint(tmp_path / "ckpt", tensors, config=config, shards=2)


def codes(report: auditor.Report) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in report.findings:
        out.setdefault(f.code, []).extend(f.tensors)
    return out


def test_unknown_model_type_is_checked_generically(tmp_path: Path) -> None:
    report = auditor.audit(str(build(tmp_path, {**CONFIG, **UNKNOWN})))
    assert isinstance(report, Report)
    found = codes(report)
    assert "unknown-architecture" in found and report.verdict == "pass"
    assert report.reconciliation.expected_parameters is None
    assert sum(report.reconciliation.ledger.values()) == report.totals.parameters


def test_generic_check_names_a_tensor_missing_from_one_layer(tmp_path: Path) -> None:
    gone = "model.layers.7.mlp.down_proj.weight"
    report = auditor.audit(str(build(tmp_path, {**CONFIG, **UNKNOWN}, drop=(gone,))))
    assert isinstance(report, Report)
    assert gone in codes(report)["missing-tensor"]


@pytest.mark.parametrize("change", [{"num_hidden_layers": 40}, {"hidden_size": 1234}, {"vocab_size": 99}])
def test_generic_check_compares_config_sizes(tmp_path: Path, change: dict) -> None:
    report = auditor.audit(str(build(tmp_path, {**CONFIG, **UNKNOWN, **change})))
    assert isinstance(report, Report)
    assert "config-mismatch" in codes(report) and report.exit_code == 1


@pytest.mark.parametrize(
    "change", [{"num_hidden_layers": "thirty-six"}, {"intermediate_size": [1, 2]}, {"num_hidden_layers": -3}]
)
def test_config_the_formula_cannot_evaluate_is_a_finding(tmp_path: Path, change: dict) -> None:
    report = auditor.audit(str(build(tmp_path, {**CONFIG, **change})))
    assert isinstance(report, Report)
    found = codes(report)
    assert "config-mismatch" in found, found
    assert any("cannot be evaluated" in f.message for f in report.findings)
    assert report.exit_code == 1


def test_nonsense_sizes_give_shape_findings(tmp_path: Path) -> None:
    report = auditor.audit(str(build(tmp_path, {**CONFIG, "num_attention_heads": 0})))
    assert isinstance(report, Report)
    assert "model.layers.0.self_attn.q_proj.weight" in codes(report)["shape-mismatch"]


def test_unreadable_config_is_a_finding(tmp_path: Path) -> None:
    path = build(tmp_path, CONFIG)
    (path / "config.json").write_text("{not json")
    report = auditor.audit(str(path))
    assert isinstance(report, Report)
    assert "config-mismatch" in codes(report) or any(f.files == ("config.json",) for f in report.findings)
    assert report.totals.tensors == len(LAYOUT["tensors"])


def test_unknown_wrapper_around_a_known_text_config_is_not_audited_as_the_text_model(tmp_path: Path) -> None:
    """An unknown multimodal wrapper may hold towers no spec describes: structure only, never the text-only
    count presented as the model's (the old text_config guess hid a vision tower from the expected count)."""
    nested = {
        "model_type": "wrapper",
        "architectures": ["Wrapper"],
        "text_config": {**CONFIG, "tie_word_embeddings": True},
    }
    report = auditor.audit(str(build(tmp_path, nested)))
    assert isinstance(report, Report)
    assert report.reconciliation.expected_parameters is None and report.verdict == "pass"
    assert [f.code for f in report.findings if f.code == "unknown-architecture"] == ["unknown-architecture"]
    json.dumps(report.to_dict())


@pytest.mark.parametrize(
    "change", [{"model_type": ["qwen3"]}, {"num_hidden_layers": 10**4000}, {"hidden_size": 10**300 * 7}]
)
def test_hostile_config_values_are_findings_not_crashes_or_hangs(tmp_path: Path, change: dict) -> None:
    report = auditor.audit(str(build(tmp_path, {**CONFIG, **change})))
    assert isinstance(report, Report)
    assert report.totals.tensors == len(LAYOUT["tensors"])
    # a model_type that is no string names no spec: Qwen3ForCausalLM's formula by class, or no formula
    assert {f.code for f in report.findings} & {"config-mismatch", "unknown-architecture", "formula-by-class"}
    json.dumps(report.to_dict())


@pytest.mark.parametrize("change", [{"text_config": [1]}, {"quantization_config": "fp8"}])
def test_malformed_optional_objects_are_ignored(tmp_path: Path, change: dict) -> None:
    report = auditor.audit(str(build(tmp_path, {**CONFIG, **change})))
    assert isinstance(report, Report)
    assert report.verdict == "pass" and report.reconciliation.expected_parameters == 4_022_468_096


def test_config_asking_for_a_billion_experts_is_refused_quickly() -> None:
    from auditor.core.errors import ConfigError
    from auditor.reconcile.engine import formula_report

    config = load_config("tiny-qwen3_moe.json")
    with pytest.raises(ConfigError, match="implausible expert count"):
        formula_report({**config, "num_experts": 2**40})
