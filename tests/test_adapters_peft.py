"""PEFT adapters against what the real PEFT library writes (fixtures/peft, dumped by tools/dump_peft.py).

Each dump holds PEFT's own adapter_config.json, the header of the adapter_model.safetensors it saved, the
base model's config.json and its parameter count. The adapter is rebuilt header-only, its base passed with
``--base``, and the audit must explain every tensor exactly; then single mutations must be caught.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor import Report
from auditor.run.dispatch import audit_target
from tests.support import build
from tests.support.peft import PEFT, load, make

CASES = sorted(p.name[: -len(".json.gz")] for p in PEFT.glob("*.json.gz"))
# bases with a formula: shapes are checked exactly against the base layers
EXACT = ("llama", "qwen2", "gemma", "gpt2", "bert", "t5")


def codes(report: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in report.active_findings:
        out[f.code] = out.get(f.code, 0) + 1
    return out


def test_dumps_cover_the_methods_the_issue_names() -> None:
    kinds = {load(c)["adapter_config"]["peft_type"] for c in CASES}
    assert {"LORA", "LOHA", "LOKR", "PROMPT_TUNING", "PREFIX_TUNING"} <= kinds
    configs = [load(c)["adapter_config"] for c in CASES]
    assert any(c.get("use_dora") for c in configs) and any(c.get("use_rslora") for c in configs)
    assert any(c.get("rank_pattern") for c in configs) and any(c.get("modules_to_save") for c in configs)
    assert {c.get("bias") for c in configs} >= {"none", "all", "lora_only"}


@pytest.mark.parametrize("case", CASES)
def test_real_peft_adapter_is_explained(case: str, tmp_path: Path) -> None:
    doc = load(case)
    adapter, base = make(tmp_path, doc)
    report = audit_target(str(adapter), base=str(base))
    assert isinstance(report, Report)
    assert report.extra["kind"]["kind"] == "peft-adapter"
    found = codes(report)
    assert not {c for c in found if c not in ("adapter-base-unknown",)}, [f.message for f in report.findings]
    summary = report.extra["adapter"]
    assert summary["adapter_parameters"] == doc["adapter_parameters"]
    assert summary["peft_type"] == doc["adapter_config"]["peft_type"]
    assert report.reconciliation.ledger["unexplained"] == 0
    exact = doc["family"] in EXACT
    assert ("adapter-base-unknown" in found) == (not exact)
    if exact:
        # the base is built as the adapter's task class (AutoModelForSequenceClassification for SEQ_CLS, not the
        # masked LM bert's config names): the formula's count equals the real model's, so the share is exact
        assert summary["base_parameters"] == doc["base_parameters"]
        assert summary["share_of_base"] == pytest.approx(doc["adapter_parameters"] / doc["base_parameters"])


@pytest.mark.parametrize(
    "case",
    ["llama-qv", "llama-all-linear-rank-pattern", "gpt2-fan-in-fan-out", "llama-dora-rslora", "llama-embedding-head"],
)
def test_a_lost_lora_b_is_found(case: str, tmp_path: Path) -> None:
    doc = load(case)
    victim = next(t for t in doc["tensors"] if ".lora_B." in t[0] or t[0].endswith("lora_embedding_B"))
    adapter, base = make(tmp_path, doc, tensors=[t for t in doc["tensors"] if t != victim])
    report = audit_target(str(adapter), base=str(base))
    found = codes(report)
    assert found.get("lora-pair-incomplete") == 1 and report.verdict == "fail"
    partner = victim[0].replace("lora_B", "lora_A").replace("lora_embedding_B", "lora_embedding_A")
    incomplete = next(f for f in report.findings if f.code == "lora-pair-incomplete")
    assert partner in incomplete.tensors
    # one root cause, one error: the base check does not report the same half pair again
    assert [f.code for f in report.findings if f.severity == "error"] == ["lora-pair-incomplete"]


def test_a_whole_module_missing_is_found_only_with_the_base(tmp_path: Path) -> None:
    doc = load("llama-qv")
    kept = [t for t in doc["tensors"] if ".layers.1.self_attn.v_proj." not in t[0]]
    adapter, base = make(tmp_path, doc, tensors=kept)
    report = audit_target(str(adapter), base=str(base))
    missing = [f for f in report.findings if f.code == "missing-tensor"]
    assert len(missing) == 1 and "model.layers.1.self_attn.v_proj" in missing[0].message
    structural = audit_target(str(adapter), base=None)  # no base reachable: only the structure is checked
    assert "missing-tensor" not in codes(structural) and "adapter-base-unknown" in codes(structural)


def test_rank_that_disagrees_with_rank_pattern(tmp_path: Path) -> None:
    doc = load("llama-all-linear-rank-pattern")
    config = dict(doc["adapter_config"], rank_pattern={"q_proj": 4})  # down_proj of layer 1 is stored at rank 2
    adapter, base = make(tmp_path, doc, config=config)
    report = audit_target(str(adapter), base=str(base))
    mismatch = [f for f in report.findings if f.code == "adapter-rank-mismatch"]
    assert len(mismatch) == 1 and "rank 2" in mismatch[0].message and "says 8" in mismatch[0].message


def test_shapes_are_checked_against_the_base_layers(tmp_path: Path) -> None:
    doc = load("llama-qv")
    base_config = dict(doc["base_config"], num_key_value_heads=4)  # v_proj would be [64, 64], stored [32, r]
    doc = dict(doc, base_config=base_config)
    adapter, base = make(tmp_path, doc)
    report = audit_target(str(adapter), base=str(base))
    wrong = [f for f in report.findings if f.code == "shape-mismatch"]
    assert len(wrong) == 1 and "v_proj.lora_B.weight [32, 8], expected [64, 8]" in wrong[0].message


def test_stray_tensor_and_typo_target(tmp_path: Path) -> None:
    doc = load("llama-qv")
    config = dict(doc["adapter_config"], target_modules=["q_proj", "v_proj", "V_proj"])
    tensors = doc["tensors"] + [
        ["base_model.model.model.layers.0.mlp.up_proj.lora_A.weight", "F32", [8, 64]],
        ["base_model.model.model.norm.weight", "F32", [64]],
    ]
    adapter, base = make(tmp_path, doc, tensors=tensors, config=config)
    report = audit_target(str(adapter), base=str(base))
    assert isinstance(report, Report)
    found = codes(report)
    assert found["adapter-tensor-unexplained"] == 2  # the LoRA on an untargeted module; the stray full tensor
    assert found["adapter-target-unmatched"] == 1
    unmatched = next(f for f in report.findings if f.code == "adapter-target-unmatched")
    assert "'V_proj'" in unmatched.message and "'q_proj'" not in unmatched.message
    assert report.reconciliation.ledger["unexplained"] == 8 * 64 + 64


def test_lora_without_adapter_config_fails(tmp_path: Path) -> None:
    doc = load("llama-qv")
    adapter, _ = make(tmp_path, doc, with_config=False)
    report = audit_target(str(adapter))
    assert isinstance(report, Report)
    assert report.extra["kind"]["kind"] == "peft-adapter"
    assert codes(report) == {"adapter-config-missing": 1} and report.verdict == "fail"
    # the same tensors in a model.safetensors with no adapter_config.json anywhere: a LoRA file PEFT cannot load
    other = tmp_path / "plain"
    other.mkdir()
    build.write_file(other / "model.safetensors", [tuple(t) for t in doc["tensors"]])
    plain = audit_target(str(other))
    assert "adapter-config-missing" in codes(plain) and plain.verdict == "fail"


def test_adapter_weights_under_another_name(tmp_path: Path) -> None:
    doc = load("gpt2-seq-cls")
    adapter, base = make(tmp_path, doc, weights="model.safetensors")
    report = audit_target(str(adapter), base=str(base))
    assert codes(report) == {"adapter-weights-name": 1}


def test_prompt_tuning_shape_from_the_config(tmp_path: Path) -> None:
    doc = load("llama-prompt-tuning")
    config = dict(doc["adapter_config"], num_virtual_tokens=12)
    adapter, base = make(tmp_path, doc, config=config)
    report = audit_target(str(adapter), base=str(base))
    wrong = [f for f in report.findings if f.code == "shape-mismatch"]
    assert len(wrong) == 1 and "[10, 64]" in wrong[0].message and "[12, 64]" in wrong[0].message


def test_base_from_config_beside_the_adapter_and_from_the_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = load("llama-qv")
    adapter, base = make(tmp_path, doc)
    (adapter / "config.json").write_text((base / "config.json").read_text())  # Trainer saves the base config too
    report = audit_target(str(adapter))
    assert isinstance(report, Report)
    assert report.extra["adapter"]["base_source"] == "config.json beside the adapter"
    assert (
        "adapter-base-unknown" not in codes(report)
        and report.extra["adapter"]["base_parameters"] == doc["base_parameters"]
    )
    # a Hub repo id that cannot be reached: structural checks and a note, never a traceback or a hang
    (adapter / "config.json").unlink()
    config = dict(doc["adapter_config"], base_model_name_or_path="some-org/some-base")
    (adapter / "adapter_config.json").write_text(json.dumps(config))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    report = audit_target(str(adapter))
    note = next(f for f in report.findings if f.code == "adapter-base-unknown")
    assert "some-org/some-base" in note.message and "offline" in note.message and report.verdict == "pass"


def test_biases_trained_with_bias_all_or_lora_only_must_be_stored(tmp_path: Path) -> None:
    for case, victim in (
        ("gpt2-bias-lora-only", "transformer.h.1.attn.c_attn.base_layer.bias"),
        ("gpt2-bias-all", "transformer.h.0.ln_2.bias"),
    ):
        doc = load(case)
        kept = [t for t in doc["tensors"] if not t[0].endswith(victim)]
        assert len(kept) == len(doc["tensors"]) - 1
        adapter, base = make(tmp_path / case, doc, tensors=kept)
        report = audit_target(str(adapter), base=str(base))
        missing = [f for f in report.findings if f.code == "missing-tensor"]
        assert len(missing) == 1 and missing[0].tensors == ("base_model.model." + victim,), case


def test_all_linear_shorthand_leaves_the_output_layer_alone(tmp_path: Path) -> None:
    doc = load("llama-all-linear-literal")  # PEFT 0.21 saves the expanded list; older configs say "all-linear"
    adapter, base = make(tmp_path, doc, config=dict(doc["adapter_config"], target_modules="all-linear"))
    report = audit_target(str(adapter), base=str(base))
    assert report.verdict == "pass" and not report.active_findings
    kept = [t for t in doc["tensors"] if ".layers.0.mlp.down_proj." not in t[0]]
    adapter, base = make(
        tmp_path / "lost", doc, tensors=kept, config=dict(doc["adapter_config"], target_modules="all-linear")
    )
    report = audit_target(str(adapter), base=str(base))
    assert [f.code for f in report.active_findings] == ["missing-tensor"]


def test_base_names_aligned_with_the_wrapped_task_class(tmp_path: Path) -> None:
    """A formula for the bare model (no "model." prefix) still lines up with an adapter on the task class."""
    doc = load("llama-qv")
    bare = [[n.replace("base_model.model.model.", "base_model.model."), d, s] for n, d, s in doc["tensors"]]
    adapter, base = make(tmp_path, doc, tensors=bare)
    report = audit_target(str(adapter), base=str(base))
    assert report.verdict == "pass" and not report.active_findings
    # and a formula that names nothing the adapter has: structural check and a note, not false errors
    odd = [
        [n.replace("base_model.model.model.layers.", "base_model.model.blocks."), d, s] for n, d, s in doc["tensors"]
    ]
    adapter, base = make(tmp_path / "odd", doc, tensors=odd)
    report = audit_target(str(adapter), base=str(base))
    assert [f.code for f in report.active_findings] == ["adapter-base-unknown"] and report.verdict == "pass"
