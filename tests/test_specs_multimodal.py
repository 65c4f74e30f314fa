"""Llama 4 multimodal: the real meta-llama/Llama-4-Scout-17B-16E layout (language model + vision tower +
projector) reconciles exactly against its multimodal config.json.

Ground truth: the tensor list is transformers 4.57.6's ``Llama4ForConditionalGeneration`` state_dict
(``fixtures/layouts/...-conditional-generation``), renamed to the released names by ``tests/support/multimodal.py``
(the documented mapping is empty: saved names are the module names). The figure is the Hub total from
``fixtures/published-counts.json``; the vision-default count below is a hand computation from
modeling_llama4.py. Nothing here comes from the auditor's specs.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from pathlib import Path

import pytest

import auditor
from auditor import Report
from auditor.reconcile.engine import formula_report
from tests.support import build, multimodal
from tests.support.cli import run_cli, run_json
from tests.support.truth import write_case

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = {e["model"]: e for e in json.loads((ROOT / "fixtures" / "published-counts.json").read_text())}
SCOUT = PUBLISHED["meta-llama/Llama-4-Scout-17B-16E"]["published_params"]
CONFIG = "meta-llama__Llama-4-Scout-17B-16E.json"
VISION, PROJECTOR = 850_960_896, 20_971_520  # of the dump: vision_model.* and multi_modal_projector.*


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
    report = auditor.audit(str(scout))
    assert isinstance(report, Report)
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
    assert rows[("routed_experts", "moe")].layers == 48  # the vision tower is not a decoder layer
    assert all(c.expected == c.actual for c in rec.components)
    assert [c.component for c in rec.components if c.layer_type is None][-2:] == ["vision", "projector"]
    assert rec.formula_by_component is not None
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
    report = auditor.audit(
        str(build.build_checkpoint(tmp_path / "ckpt", tensors, config=build.load_config(CONFIG), shards=4))
    )
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
    report = auditor.audit(
        str(build.build_checkpoint(tmp_path / "ckpt", tensors, config=build.load_config(CONFIG), shards=2))
    )
    hits = [f for f in report.findings if f.code == "shape-mismatch"]
    assert report.verdict == "fail" and hits and hits[0].tensors == (bad,)


def test_text_only_checkpoint_with_the_multimodal_config(tmp_path: Path) -> None:
    """The language model alone (names model.*, as Llama4ForCausalLM saves it) is audited as the text model."""
    layout = build.load_layout("meta-llama__Llama-4-Scout-17B-16E")
    report = auditor.audit(
        str(build.build_checkpoint(tmp_path / "ckpt", layout["tensors"], config=build.load_config(CONFIG), shards=4))
    )
    assert isinstance(report, Report)
    assert report.verdict == "pass", [f.to_dict() for f in report.findings]
    assert report.reconciliation.expected_parameters == _elements(layout["tensors"]) == SCOUT - VISION - PROJECTOR
    assert not any(c.component in ("vision", "projector") for c in report.reconciliation.components)


def test_cli_audits_the_text_only_class_of_a_composite_config(tmp_path: Path) -> None:
    """Qwen3_5ForCausalLM as AutoModelForCausalLM.from_config builds it from a composite qwen3_5 config (the text
    model alone), beside that composite config.json: the text formula in text_config's scope, exactly
    transformers' num_parameters() (fixtures/cases/qwen3_5/Qwen3_5ForCausalLM-small, dumped from transformers)."""
    case = ROOT / "fixtures" / "cases" / "qwen3_5" / "Qwen3_5ForCausalLM-small"
    assert json.loads((case / "truth.json").read_text())["parameters"] == 656_384
    folder = write_case(case, tmp_path / "ckpt")
    config = json.loads((folder / "config.json").read_text())
    assert config["model_type"] == "qwen3_5" and "text_config" in config
    proc = run_cli("audit", str(folder))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "spec: qwen3_5_text.toml (ForCausalLM)" in proc.stdout
    assert "expected from config.json: 656,384 parameters" in proc.stdout
    assert "31 tensors, 656,384 parameters (656.38K), expected 656,384; 0 errors, 0 warnings, 0 notes" in proc.stdout
    code, report = run_json("audit", str(folder))
    assert code == 0 and report["verdict"] == "pass" and report["expected"]["parameters"] == 656_384
    assert report["expected"]["spec"] == {"file": "qwen3_5_text.toml", "class": "ForCausalLM", "layout": "default"}


def test_vision_config_defaults_are_llama4_vision_config() -> None:
    """Keys missing (or the whole vision_config) fall back to Llama4VisionConfig defaults, key by key."""
    config = build.load_config(CONFIG)
    for key in ("num_hidden_layers", "num_attention_heads", "num_channels", "patch_size", "projector_input_dim"):
        del config["vision_config"][key]  # all equal to the defaults in the Scout config
    assert formula_report(config)["parameters"] == SCOUT
    config["vision_config"] = None
    # hand computation from modeling_llama4.py with hidden 768, 34 layers, 16 heads, intermediate 5632,
    # image 448 / patch 14 (1025 positions), 3 channels, projector 4096/4096, vision_output_dim 7680
    h, i = 768, 5632
    layer = 4 * (h * h + h) + (i * h + i) + (h * i + h) + 4 * h
    tower = h + 1025 * h + h * 3 * 14 * 14 + 4 * h + 34 * layer + 4096 * i + 4096 * 4096
    rows = {r["component"]: r["expected"] for r in formula_report(config)["components"]}
    assert rows["vision"] == tower and rows["projector"] == 5120 * 7680


# --- the image-text-to-text families of issue 8, on the cases dumped from transformers (fixtures/cases) ----
# Each case is transformers 5.23's own save_pretrained output (tools/dump_cases.py); the other on-disk names
# below come from transformers' sources, not from the specs: conversion_mapping.py's "llava" renames (the
# 4.52+ in-memory names: model.language_model.*, lm_head.*, model.vision_tower.*, model.multi_modal_projector.*)
# and CLIPVisionModel's PrefixChange (SigLIP / CLIP kept a vision_model. level in every 4.x save).

CASES = ROOT / "fixtures" / "cases"
GEMMA3_LAYOUTS = {
    "default": {},
    "released": {"vision_tower.": "vision_tower.vision_model."},
    "transformers 4.52+": {
        "language_model.model.": "model.language_model.",
        "language_model.lm_head.": "lm_head.",
        "vision_tower.": "model.vision_tower.vision_model.",
        "multi_modal_projector.": "model.multi_modal_projector.",
    },
    "transformers 5 state_dict": {
        "language_model.model.": "model.language_model.",
        "language_model.lm_head.": "lm_head.",
        "vision_tower.": "model.vision_tower.",
        "multi_modal_projector.": "model.multi_modal_projector.",
    },
}


def _case(model_type: str, variant: str) -> tuple[dict, list[build.TensorSpec], dict]:
    folder = next(CASES.glob(f"{model_type}/*-{variant}"))
    layout = json.loads(gzip.decompress((folder / "layout.json.gz").read_bytes()))
    return (
        json.loads((folder / "config.json").read_text()),
        [tuple(t) for t in layout["tensors"]],
        json.loads((folder / "truth.json").read_text()),
    )


def _renamed(tensors: list[build.TensorSpec], renames: dict[str, str]) -> list[build.TensorSpec]:
    def one(name: str) -> str:
        old = max((p for p in renames if name.startswith(p)), key=len, default=None)
        return name if old is None else renames[old] + name[len(old) :]

    return [(one(n), d, s) for n, d, s in tensors]


def _errors(report: auditor.Report) -> list[str]:
    return [f"{f.severity} {f.code}: {f.message}" for f in report.findings if f.severity in ("error", "warning")]


@pytest.mark.parametrize("layout", GEMMA3_LAYOUTS)
def test_gemma3_reconciles_on_every_on_disk_layout(layout: str, tmp_path: Path) -> None:
    config, tensors, truth = _case("gemma3", "p1")  # untied: the head is stored too
    assert "language_model.lm_head.weight" in {n for n, _, _ in tensors}
    report = auditor.audit(
        str(
            build.build_checkpoint(
                tmp_path / "ckpt", _renamed(tensors, GEMMA3_LAYOUTS[layout]), config=config, shards=2
            )
        )
    )
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert _errors(report) == [] and rec.ledger["unexplained"] == 0
    assert rec.spec == {"file": "gemma3_multimodal.toml", "class": "ForConditionalGeneration", "layout": layout}
    assert rec.expected_parameters == truth["parameters"] == report.totals.parameters


LLAVA_STYLE_4_52 = {
    "language_model.model.": "model.language_model.",
    "language_model.lm_head.": "lm_head.",
    "multi_modal_projector.": "model.multi_modal_projector.",
}


@pytest.mark.parametrize(
    "model_type,layout,renames",
    [
        ("llava", "released", {"vision_tower.": "vision_tower.vision_model."}),
        ("llava", "transformers 4.52+", {**LLAVA_STYLE_4_52, "vision_tower.": "model.vision_tower.vision_model."}),
        (
            "llava_next",
            "transformers 4.52+",
            {
                **LLAVA_STYLE_4_52,
                "vision_tower.": "model.vision_tower.vision_model.",
                "image_newline": "model.image_newline",
            },
        ),
        ("paligemma", "released", {"vision_tower.": "vision_tower.vision_model."}),
        ("mistral3", "transformers 4.52+", {**LLAVA_STYLE_4_52, "vision_tower.": "model.vision_tower."}),
        ("internvl", "transformers 4.52+", {**LLAVA_STYLE_4_52, "vision_tower.": "model.vision_tower."}),
        # conversion_mapping.py 'Qwen2VLForConditionalGeneration': visual -> model.visual, model -> model.language_model
        ("qwen2_vl", "transformers 4.52+", {"model.": "model.language_model.", "visual.": "model.visual."}),
        ("qwen2_5_vl", "transformers 4.52+", {"model.": "model.language_model.", "visual.": "model.visual."}),
    ],
)
def test_other_families_on_their_other_on_disk_layouts(
    model_type: str, layout: str, renames: dict[str, str], tmp_path: Path
) -> None:
    config, tensors, truth = _case(model_type, "p1")
    stored = _renamed(tensors, renames)
    assert stored != tensors
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "ckpt", stored, config=config)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert _errors(report) == [] and rec.ledger["unexplained"] == 0
    assert rec.spec is not None and rec.spec["layout"] == layout and rec.expected_parameters == truth["parameters"]


@pytest.mark.parametrize("model_type", ["gemma3", "llava", "qwen2_5_vl", "idefics3"])
def test_deleted_decoder_layer_is_a_missing_layer_of_the_language_model(model_type: str, tmp_path: Path) -> None:
    config, tensors, truth = _case(model_type, "small")
    text = config["text_config"]
    layers = text["num_hidden_layers"]
    gone = {
        n
        for n, _, _ in tensors
        if re.search(r"(^|\.)(language_model\.model|text_model|^model)\.layers\.1\.", n)
        and "visual" not in n
        and "vision" not in n
    }
    assert gone
    report = auditor.audit(
        str(build.build_checkpoint(tmp_path / "ckpt", [t for t in tensors if t[0] not in gone], config=config))
    )
    assert isinstance(report, Report)
    missing = [f for f in report.findings if f.code == "missing-tensor"]
    assert [f.message for f in missing] == [f"layer 1 of {layers} is missing entirely ({len(gone)} tensors)"]
    assert set(missing[0].tensors) == gone
    assert [f.code for f in report.findings if f.severity in ("error", "warning")] == [
        "missing-tensor",
        "config-mismatch",
    ]
    assert report.reconciliation.expected_parameters == truth["parameters"]


@pytest.mark.parametrize(
    "model_type,tower",
    [
        ("gemma3", "vision_tower."),
        ("llava", "vision_tower."),
        ("mistral3", "vision_tower."),
        ("paligemma", "vision_tower."),
        ("internvl", "vision_tower."),
        ("qwen2_vl", "visual."),
        ("smolvlm", "model.vision_model."),
    ],
)
def test_missing_vision_tower_is_named_as_such(model_type: str, tower: str, tmp_path: Path) -> None:
    config, tensors, truth = _case(model_type, "small")
    gone = [t for t in tensors if t[0].startswith(tower)]
    report = auditor.audit(
        str(build.build_checkpoint(tmp_path / "ckpt", [t for t in tensors if t not in gone], config=config))
    )
    assert isinstance(report, Report)
    missing = [f for f in report.findings if f.code == "missing-tensor"]
    assert report.verdict == "fail" and len(missing) == 1
    elements = sum(math.prod(s) for _, _, s in gone)
    assert missing[0].message == f"the vision tower is missing entirely ({len(gone)} tensors, {elements:,} parameters)"
    assert set(missing[0].tensors) == {n for n, _, _ in gone}
    assert report.reconciliation.expected_parameters == truth["parameters"]


@pytest.mark.parametrize(
    "model_type,text_prefix",
    [("gemma3", "language_model."), ("llava", "language_model."), ("paligemma", "language_model.")],
)
def test_text_only_checkpoint_with_the_multimodal_config_is_the_language_model_alone(
    model_type: str, text_prefix: str, tmp_path: Path
) -> None:
    """The language model saved by itself (as its *ForCausalLM class names it: model.*, lm_head.*) next to
    the multimodal config.json, e.g. a text-only extraction of Gemma-3."""
    config, tensors, _ = _case(model_type, "p1")
    text = [(n[len(text_prefix) :], d, s) for n, d, s in tensors if n.startswith(text_prefix)]
    assert text and all(n.startswith(("model.", "lm_head.")) for n, _, _ in text)
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "ckpt", text, config=config)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert _errors(report) == [] and rec.ledger["unexplained"] == 0
    assert rec.spec is not None and rec.spec["layout"] == "language_model alone"
    assert rec.expected_parameters == _elements(text)
    assert not any(c.component in ("vision", "projector") for c in rec.components)


def test_gemma3_formula_prints_the_towers_and_evaluates_exactly() -> None:
    from tests.support.formula import evaluate_printed

    folder = next(CASES.glob("gemma3/*-default"))
    _, tensors, truth = _case("gemma3", "default")
    vision = _elements([t for t in tensors if t[0].startswith("vision_tower.")])
    projector = _elements([t for t in tensors if t[0].startswith("multi_modal_projector.")])
    proc = run_cli("formula", str(folder / "config.json"), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["spec"] == "gemma3_multimodal.toml" and doc["tied_embeddings"] is True
    expr = doc["formula"].split("  [")[0]
    assert expr.startswith("N*(") and expr.endswith(f" + vision {vision:,} + projector {projector:,}")
    value, total = evaluate_printed(doc["formula"])
    assert value == total == doc["parameters"] == truth["parameters"]


def test_qwen2_5_vl_vision_blocks_are_not_decoder_layers(tmp_path: Path) -> None:
    """Issue 8: the 32 vision blocks were taken for the decoder layers; a deleted block is the tower's."""
    config, tensors, truth = _case("qwen2_5_vl", "default")
    gone = {n for n, _, _ in tensors if n.startswith("visual.blocks.30.")}
    report = auditor.audit(
        str(
            build.build_checkpoint(tmp_path / "ckpt", [t for t in tensors if t[0] not in gone], config=config, shards=3)
        )
    )
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert config["text_config"]["num_hidden_layers"] != config["vision_config"]["depth"]
    decoder_rows = {c.layers for c in rec.components if c.layer_type == "decoder"}
    assert decoder_rows == {config["text_config"]["num_hidden_layers"]}
    missing = [f for f in report.findings if f.code == "missing-tensor"]
    assert [f.message for f in missing] == [
        f"vision blocks layer 30 of {config['vision_config']['depth']} is missing entirely ({len(gone)} tensors)"
    ]
    assert rec.expected_parameters == truth["parameters"]


def test_multimodal_defaults_are_the_config_classes_defaults() -> None:
    """An empty multimodal config means the composite class's defaults: its own keys and, for each module, the
    sub-config it builds when the key is absent (SubConfigSpec init_kwargs over the sub-class's defaults),
    dumped from transformers in fixtures/config-classes. Every key a spec (or its modules' sub-specs) reads
    must agree with them, so the towers' and modules' defaults cannot drift."""
    import ast

    from auditor.specs import all_specs, environment
    from auditor.specs.expand import spec_for_module
    from auditor.specs.expr import compile_expr, evaluate
    from auditor.specs.load import expressions, load_all

    def used(spec: auditor.specs.Spec) -> set[str]:
        names = {n.id for src in expressions(spec) for n in ast.walk(compile_expr(src)) if isinstance(n, ast.Name)}
        return names - {*spec.derived, "layer", "is_mtp", *(k for s in spec.stacks for k, _ in s.bind)}

    def compare(where: str, spec: auditor.specs.Spec, env: dict, dumped: dict, skip: frozenset = frozenset()) -> int:
        checked = 0
        for key in sorted(used(spec) - skip):
            value, ours = dumped.get(key), env.get(key)
            if value is not None and not isinstance(value, dict) and key not in ("id2label", "num_labels"):
                checked += 1
                if (list(ours) if isinstance(ours, range) else ours) != value:
                    drift.append(f"{where} {key}: spec {ours!r}, class {value!r}")
        return checked

    classes = ROOT / "fixtures" / "config-classes"
    drift: list[str] = []
    checked, families = 0, set()
    for model_type, spec in sorted(all_specs().items()):
        dumped_file = classes / f"{model_type}.json"
        if spec.family != "multimodal" or not dumped_file.exists():
            continue
        families.add(model_type)
        dumped = json.loads(dumped_file.read_text())["defaults"]
        env = environment(spec, {})
        checked += compare(spec.file, spec, env, dumped)
        for module in spec.modules:
            if module.when is not None and not evaluate(module.when, env):
                continue  # a module the default config does not build (BLIP-2's seq2seq language model)
            assert module.config is not None  # a multimodal module reads a nested config
            sub = spec_for_module(module, env[module.config], load_all())
            assert sub is not None
            # keys the module sets from the parent (the top-level tie) are the parent's, checked above
            checked += compare(
                f"{spec.file} {module.name} ({sub.file})",
                sub,
                env[module.config],
                dumped[module.config],
                frozenset(module.set),
            )
    assert families >= {
        "gemma3",
        "llava",
        "llava_next",
        "mistral3",
        "idefics3",
        "smolvlm",
        "internvl",
        "paligemma",
        "qwen2_vl",
        "qwen2_5_vl",
        "llama4",
    }
    assert checked > 150, checked
    assert drift == [], "\n".join(drift)
