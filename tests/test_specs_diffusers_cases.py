"""Every case diffusers' own save_pretrained wrote (fixtures/diffusers-cases, tools/dump_diffusers.py) must
reconcile exactly when a spec claims its class, as a component folder and as a pipeline section.

The folders are ``<Class>/<Class>-<case>/`` with config.json, layout.json.gz and truth.json in the format of
fixtures/cases (docs/truth.md); ``parameters`` is diffusers' ``model.num_parameters()``. Nothing here comes from
the auditor's specs. A class no spec claims yet must get the structural check without a false alarm.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest

import auditor
from auditor import Report
from auditor.run.dispatch import audit_target
from auditor.specs import select
from tests.support import build
from tests.support.truth import problems, split_consistency

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "diffusers-cases"
FOLDERS = sorted(p.parent for p in CASES.glob("*/*/truth.json"))


def _config(case: Path) -> dict:
    return json.loads((case / "config.json").read_text())


def _tensors(case: Path) -> list[tuple[str, str, list[int]]]:
    return [
        (n, d, list(s)) for n, d, s in json.loads(gzip.decompress((case / "layout.json.gz").read_bytes()))["tensors"]
    ]


def _truth(case: Path) -> dict:
    return json.loads((case / "truth.json").read_text())


def _component(case: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    build.write_file(dest / "diffusion_pytorch_model.safetensors", _tensors(case))
    (dest / "config.json").write_text((case / "config.json").read_text())
    return dest


COVERED = [c for c in FOLDERS if select(_config(c))[0] is not None]
UNCOVERED = [c for c in FOLDERS if c not in set(COVERED)]


def test_the_diffusers_cases_are_there_and_well_formed() -> None:
    classes = {c.parent.name for c in FOLDERS}
    assert len(classes) >= 10 and len(FOLDERS) >= 40
    for case in FOLDERS:
        config, truth, layout = _config(case), _truth(case), _tensors(case)
        assert config["_class_name"] == truth["class"] == case.parent.name and case.name.startswith(case.parent.name)
        assert "_diffusers_version" in config and "model_type" not in config
        elements = {n: math.prod(s) for n, _, s in layout}
        assert len(elements) == len(layout)
        assert sum(elements.values()) - sum(elements[b] for b in truth["persistent_buffers"]) == truth["parameters"]
        assert split_consistency(truth, elements) == [], case.name
    # the published counts of the Stable Diffusion unets (diffusers' own num_parameters on the real configs)
    unet = CASES / "UNet2DConditionModel"
    assert {c: _truth(unet / f"UNet2DConditionModel-{c}")["parameters"] for c in ("sd15", "sd21", "sdxl")} == {
        "sd15": 859_520_964,
        "sd21": 865_910_724,
        "sdxl": 2_567_463_684,
    }


@pytest.mark.cases
@pytest.mark.parametrize("case", COVERED, ids=lambda p: p.name)
def test_diffusers_component_reconciles_exactly(case: Path, tmp_path: Path) -> None:
    report = auditor.audit(str(_component(case, tmp_path / "unet")))
    assert isinstance(report, Report)
    assert report.reconciliation.expected_parameters == _truth(case)["parameters"]
    assert problems(report, case) == [], report.reconciliation.formula_by_component


@pytest.mark.parametrize("case", UNCOVERED, ids=lambda p: p.name)
def test_uncovered_diffusers_class_gets_the_structural_check_without_false_alarm(case: Path, tmp_path: Path) -> None:
    report = audit_target(str(_component(case, tmp_path / "vae")))
    assert isinstance(report, Report)
    assert report.reconciliation.expected_parameters is None
    assert [f for f in report.findings if f.severity != "info"] == []


def test_spec_defaults_are_the_diffusers_class_defaults() -> None:
    """Older configs leave out keys added later (a SD 1.5 unet/config.json has no time_embedding_type): every
    default a spec fills in must be what the diffusers class's __init__ uses. The default case's config.json
    (written by save_config at the class defaults) is the truth."""
    from auditor.specs import environment

    checked = 0
    for case in FOLDERS:
        if _truth(case)["variant"] != "default":
            continue
        spec, _ = select(_config(case))
        if spec is None:
            continue
        written = _config(case)
        env = environment(spec, {"_class_name": written["_class_name"]})
        for key in spec.defaults:
            if key in written:
                value = written[key]
                assert env[key] == (list(value) if isinstance(value, tuple) else value), (case.name, key)
                checked += 1
    assert checked >= 80


def test_a_union_controlnet_saved_as_controlnetmodel_gets_the_union_formula(tmp_path: Path) -> None:
    """xinsir/controlnet-union-sdxl-1.0 ships its config with ``_class_name: ControlNetModel`` and
    ``num_control_type`` (ControlNetUnionModel loads it so): the union modules are expected, not unexpected."""
    case = CASES / "ControlNetUnionModel" / "ControlNetUnionModel-xinsir"
    folder = _component(case, tmp_path / "controlnet")
    (folder / "config.json").write_text(json.dumps({**_config(case), "_class_name": "ControlNetModel"}))
    report = auditor.audit(str(folder))
    assert isinstance(report, Report)
    assert report.reconciliation.expected_parameters == _truth(case)["parameters"]
    assert [f for f in report.findings if f.severity != "info"] == []


def test_a_shared_class_name_defers_to_the_layout_diffusers_loads() -> None:
    """``Transformer2DModel`` names DiT's and PixArt-alpha's releases alike; diffusers' loader remaps it by norm_type
    and ``defer_to`` does the same: PixArt's formula for ada_norm_single, DiT's for ada_norm_zero, none otherwise."""
    from auditor.specs import SpecError, build_specs

    base = {"_class_name": "Transformer2DModel", "in_channels": 4, "patch_size": 2, "num_embeds_ada_norm": 1000}
    single, _ = select({**base, "norm_type": "ada_norm_single"})
    assert single is not None and single.file == "diffusers_pixart.toml"
    zero, _ = select({**base, "norm_type": "ada_norm_zero"})
    assert zero is not None and zero.file == "diffusers_transformer_2d.toml"
    assert select({**base, "norm_type": "layer_norm", "patch_size": None})[0] is None
    from auditor.specs import all_specs

    specs = all_specs()
    assert all(f"{target}.toml" in specs for spec in specs.values() for target in spec.defer_to)
    with pytest.raises(SpecError, match="defer_to"):
        build_specs({"x.toml": {"diffusers_classes": ["X"], "family": "diffusers", "defer_to": ["y"]}})
