"""A config whose ``auto_map`` loads the repo's own modeling code may name its tensors its own way.

microsoft/Florence-2-* are the real case: model_type ``florence2`` and class ``Florence2ForConditionalGeneration``,
the same names transformers later gave its own port, but the repo's code stores ``language_model.model.*``,
``vision_tower.*`` and ``image_projection`` where transformers' class stores ``model.language_model.*``,
``model.vision_tower.*`` and ``model.multi_modal_projector.*`` (transformers ships no conversion for them). The
layout below is transformers' own dump of Florence-2 with those prefixes put back; the healthy checkpoint must not
get a wall of missing / unexpected errors, while the same names without ``auto_map`` still do, and transformers'
layout with ``auto_map`` is still reconciled exactly.
"""

from __future__ import annotations

from pathlib import Path

import auditor
from auditor import Report
from tests.support import build
from tests.support.truth import CASES, config, tensors, truth

CASE = CASES / "florence2" / "Florence2ForConditionalGeneration-small"
AUTO_MAP = {
    "AutoConfig": "configuration_florence2.Florence2Config",
    "AutoModelForCausalLM": "modeling_florence2.Florence2ForConditionalGeneration",
}
# transformers' prefix -> the repo code's (Florence2ForConditionalGeneration in modeling_florence2.py on the Hub)
REMOTE = (
    ("model.language_model.", "language_model.model."),
    ("model.vision_tower.", "vision_tower."),
    ("model.multi_modal_projector.image_position_embed.", "image_pos_embed."),
    ("model.multi_modal_projector.", ""),
    ("lm_head.", "language_model.lm_head."),
)


def _remote(name: str) -> str:
    for ours, theirs in REMOTE:
        if name.startswith(ours):
            return theirs + name[len(ours) :]
    return name


def _audit(tmp_path: Path, *, remote: bool, auto_map: bool) -> auditor.Report:
    layout = [(_remote(n) if remote else n, d, s) for n, d, s in tensors(CASE)]
    cfg = {**config(CASE), **({"auto_map": AUTO_MAP} if auto_map else {})}
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "ckpt", layout, config=cfg)))
    assert isinstance(report, Report)
    return report


def _codes(report: auditor.Report) -> dict[str, str]:
    return {f.code: f.severity for f in report.findings}


def test_remote_code_names_get_the_structural_check_not_false_errors(tmp_path: Path) -> None:
    report = _audit(tmp_path, remote=True, auto_map=True)
    assert report.verdict == "pass", [(f.code, f.message) for f in report.findings]
    note = next(f for f in report.findings if f.code == "unknown-architecture")
    assert "auto_map" in note.message and "florence2.toml" in note.message
    assert report.reconciliation.expected_parameters is None


def test_the_same_names_without_auto_map_are_errors(tmp_path: Path) -> None:
    report = _audit(tmp_path, remote=True, auto_map=False)
    assert report.verdict == "fail" and "missing-tensor" in _codes(report)


def test_transformers_layout_with_auto_map_is_still_reconciled(tmp_path: Path) -> None:
    report = _audit(tmp_path, remote=False, auto_map=True)
    assert "unknown-architecture" not in _codes(report)
    assert report.reconciliation.ledger["unexplained"] == 0 and report.verdict == "pass"
    assert report.reconciliation.expected_parameters == truth(CASE)["parameters"]  # transformers' own count


def test_a_truncated_remote_code_checkpoint_is_still_reconciled(tmp_path: Path) -> None:
    """auto_map does not excuse a lost tensor: transformers' names, one layer's weights gone, are still errors."""
    layout = [t for t in tensors(CASE) if ".encoder.layers.0." not in t[0]]
    cfg = {**config(CASE), "auto_map": AUTO_MAP}
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "ckpt", layout, config=cfg)))
    assert isinstance(report, Report)
    assert report.verdict == "fail" and "missing-tensor" in _codes(report)
