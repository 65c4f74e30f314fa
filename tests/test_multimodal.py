"""Llama 4 multimodal: the real meta-llama/Llama-4-Scout-17B-16E layout (language model + vision tower +
projector) reconciles exactly against its multimodal config.json.

Ground truth: the tensor list is transformers 4.57.6's ``Llama4ForConditionalGeneration`` state_dict
(``fixtures/layouts/...-conditional-generation``), renamed to the released names by ``fixtures/multimodal.py``
(the documented mapping is empty: saved names are the module names). The figure is the Hub total from
``fixtures/published-counts.json``; the vision-default count below is a hand computation from
modeling_llama4.py. Nothing here comes from the auditor's specs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import auditor
from auditor.reconcile import formula_report
from conftest import run_json
from fixtures import build, multimodal

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = {e["model"]: e for e in json.loads((ROOT / "fixtures" / "published-counts.json").read_text())}
SCOUT = PUBLISHED["meta-llama/Llama-4-Scout-17B-16E"]["published_params"]
CONFIG = "meta-llama__Llama-4-Scout-17B-16E.json"
VISION, PROJECTOR = 850_960_896, 20_971_520   # of the dump: vision_model.* and multi_modal_projector.*


def _elements(tensors: list[build.TensorSpec]) -> int:
    return sum(math.prod(shape) for _, _, shape in tensors)


@pytest.fixture(scope="module")
def scout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return multimodal.build_scout(tmp_path_factory.mktemp("scout") / "Llama-4-Scout-17B-16E", shards=10)


def test_fixture_is_the_dump_with_the_released_names() -> None:
    tensors = multimodal.scout_tensors()
    layout = build.load_layout(multimodal.LAYOUT)
    assert multimodal.REAL_NAME_MAPPING == {}
    assert [t[0] for t in tensors] == [n for n, _, _ in layout["tensors"]]
    assert len(tensors) == 1133 and _elements(tensors) == SCOUT == 108_641_793_536
    assert {n.split(".")[0] for n, _, _ in tensors} == {"language_model", "vision_model", "multi_modal_projector"}
    assert _elements([t for t in tensors if t[0].startswith("vision_model.")]) == VISION
    assert _elements([t for t in tensors if t[0].startswith("multi_modal_projector.")]) == PROJECTOR
    assert "language_model.model.layers.0.feed_forward.experts.gate_up_proj" in {t[0] for t in tensors}


def test_real_scout_layout_reconciles_exactly(scout: Path) -> None:
    assert len(list(scout.glob("model-*-of-00010.safetensors"))) == 10
    assert (scout / "model.safetensors.index.json").exists()
    report = auditor.audit(scout)
    rec = report.reconciliation
    assert report.verdict == "pass", [f.to_dict() for f in report.findings]
    assert [f.code for f in report.findings if f.severity in ("error", "warning")] == []
    assert rec.model_type == "llama4"
    assert rec.expected_parameters == SCOUT == report.totals.parameters
    assert rec.ledger["model"] == report.totals.parameters and rec.ledger["unexplained"] == 0
    assert sum(rec.ledger.values()) == report.totals.parameters
    rows = {(c.component, c.layer_type): c for c in rec.components}
    assert (rows[("vision", None)].expected, rows[("vision", None)].actual) == (VISION, VISION)
    assert (rows[("projector", None)].expected, rows[("projector", None)].actual) == (PROJECTOR, PROJECTOR)
    assert rows[("routed_experts", "moe")].layers == 48                # the vision tower is not a decoder layer
    assert all(c.expected == c.actual for c in rec.components)
    assert [c.component for c in rec.components if c.layer_type is None][-2:] == ["vision", "projector"]
    assert rec.formula_by_component.endswith(f"vision {VISION:,} + projector {PROJECTOR:,} = {SCOUT:,}")
    # every vision tensor is a param: activated = total minus the 15 idle experts of each MoE layer
    idle_experts = 48 * 15 * (16 * 5120 * 8192 * 3 // 16)
    assert rec.activated_parameters == SCOUT - idle_experts


def test_formula_of_the_multimodal_config_is_the_hub_total() -> None:
    report = formula_report(build.load_config(CONFIG))
    assert report["spec"] == "llama4_multimodal.toml" and report["parameters"] == SCOUT
    rows = {r["component"]: r["expected"] for r in report["components"] if r["layer_type"] is None}
    assert rows["vision"] == VISION and rows["projector"] == PROJECTOR


def test_dropped_vision_tensor_is_missing(tmp_path: Path) -> None:
    gone = "vision_model.model.layers.17.mlp.fc2.weight"
    path = multimodal.build_scout(tmp_path / "ckpt", shards=10, drop=[gone])
    code, doc = run_json("audit", str(path))
    assert code == 1 and doc["verdict"] == "fail"
    missing = [f for f in doc["findings"] if f["code"] == "missing-tensor"]
    assert len(missing) == 1 and missing[0]["tensors"] == [gone] and gone in missing[0]["message"]
    assert missing[0]["severity"] == "error"
    assert doc["model_type"] == "llama4" and doc["expected"]["parameters"] == SCOUT


def test_whole_vision_tower_missing_is_not_a_text_only_checkpoint(tmp_path: Path) -> None:
    """language_model.* names say this is the multimodal save: losing the tower is an error, not a fallback."""
    tensors = [t for t in multimodal.scout_tensors() if not t[0].startswith(("vision_model.", "multi_modal"))]
    report = auditor.audit(build.build_checkpoint(tmp_path / "ckpt", tensors, config=build.load_config(CONFIG),
                                                  shards=4))
    missing = [f for f in report.findings if f.code == "missing-tensor"]
    assert report.verdict == "fail" and missing
    assert any("multi_modal_projector.linear_1.weight" in f.tensors for f in missing)
    [whole] = [f for f in missing if "tower is missing entirely" in f.message]
    assert "the vision tower is missing entirely (553 tensors, 850,960,896 parameters)" in whole.message
    tower = {t[0] for t in multimodal.scout_tensors() if t[0].startswith("vision_model.")}
    assert {n for f in missing for n in f.tensors if n.startswith("vision_model.")} == tower and len(tower) == 553


def test_wrong_projector_shape(tmp_path: Path) -> None:
    bad = "multi_modal_projector.linear_1.weight"
    tensors = [(n, d, (5120, 2048) if n == bad else s) for n, d, s in multimodal.scout_tensors()]
    report = auditor.audit(build.build_checkpoint(tmp_path / "ckpt", tensors, config=build.load_config(CONFIG),
                                                  shards=2))
    hits = [f for f in report.findings if f.code == "shape-mismatch"]
    assert report.verdict == "fail" and hits and hits[0].tensors == (bad,)


def test_text_only_checkpoint_with_the_multimodal_config(tmp_path: Path) -> None:
    """The language model alone (names model.*, as Llama4ForCausalLM saves it) is audited as the text model."""
    layout = build.load_layout("meta-llama__Llama-4-Scout-17B-16E")
    report = auditor.audit(build.build_checkpoint(tmp_path / "ckpt", layout["tensors"],
                                                  config=build.load_config(CONFIG), shards=4))
    assert report.verdict == "pass", [f.to_dict() for f in report.findings]
    assert report.reconciliation.expected_parameters == _elements(layout["tensors"]) == SCOUT - VISION - PROJECTOR
    assert not any(c.component in ("vision", "projector") for c in report.reconciliation.components)


def test_vision_config_defaults_are_llama4_vision_config() -> None:
    """Keys missing (or the whole vision_config) fall back to Llama4VisionConfig defaults, key by key."""
    config = build.load_config(CONFIG)
    for key in ("num_hidden_layers", "num_attention_heads", "num_channels", "patch_size", "projector_input_dim"):
        del config["vision_config"][key]     # all equal to the defaults in the Scout config
    assert formula_report(config)["parameters"] == SCOUT
    config["vision_config"] = None
    # hand computation from modeling_llama4.py with hidden 768, 34 layers, 16 heads, intermediate 5632,
    # image 448 / patch 14 (1025 positions), 3 channels, projector 4096/4096, vision_output_dim 7680
    h, i = 768, 5632
    layer = 4 * (h * h + h) + (i * h + i) + (h * i + h) + 4 * h
    tower = h + 1025 * h + h * 3 * 14 * 14 + 4 * h + 34 * layer + 4096 * i + 4096 * 4096
    rows = {r["component"]: r["expected"] for r in formula_report(config)["components"]}
    assert rows["vision"] == tower and rows["projector"] == 5120 * 7680
