"""Optional towers (a sub-config that may be null) and legacy config names, on dumped cases (fixtures/cases).

Gemma-4 builds its vision / audio tower only when the config has one; Nemotron-H-Omni's config class still
reads the names NVIDIA's remote-code config used (llm_config, sound_config, vit_hidden_size)."""

from __future__ import annotations

import json
from pathlib import Path

import auditor
from auditor import Report
from tests.support.truth import CASES, config, problems, tensors, write_case

GEMMA4 = CASES / "gemma4" / "Gemma4ForConditionalGeneration-towers-small"
OMNI = CASES / "nemotron_h_omni" / "NemotronH_Omni_Reasoning_V3-towers-small"


def test_a_declared_tower_that_is_not_stored_is_one_error(tmp_path: Path) -> None:
    layout = [t for t in tensors(GEMMA4) if not t[0].startswith("model.vision_tower.")]
    report = auditor.audit(str(write_case(GEMMA4, tmp_path / "ckpt", layout)))
    errors = [f for f in report.findings if f.severity == "error"]
    assert [f.code for f in errors] == ["missing-tensor"] and "vision tower is missing entirely" in errors[0].message


def test_a_null_tower_config_expects_no_tower(tmp_path: Path) -> None:
    """audio_config null: transformers builds no audio tower, so a stored one is unexplained, not expected."""
    dest = write_case(GEMMA4, tmp_path / "ckpt")
    (dest / "config.json").write_text(json.dumps({**config(GEMMA4), "audio_config": None}))
    report = auditor.audit(str(dest))
    assert isinstance(report, Report)
    audio = {n for n, _, _ in tensors(GEMMA4) if n.startswith(("model.audio_tower.", "model.embed_audio."))}
    [finding] = [f for f in report.findings if f.severity != "info"]
    assert finding.code == "unexpected-tensor" and set(finding.tensors) == audio and len(audio) == 132
    assert report.reconciliation.ledger["unexplained"] == sum(report.tensors[n].elements for n in audio)


def test_nemotron_omni_legacy_config_names_give_the_same_formula(tmp_path: Path) -> None:
    dest = write_case(OMNI, tmp_path / "ckpt")
    cfg = config(OMNI)
    legacy = {k: v for k, v in cfg.items() if k not in ("text_config", "audio_config", "vision_hidden_size")}
    legacy.update(
        llm_config=cfg["text_config"], sound_config=cfg["audio_config"], vit_hidden_size=cfg["vision_hidden_size"]
    )
    (dest / "config.json").write_text(json.dumps(legacy))
    report = auditor.audit(str(dest))
    assert problems(report, OMNI) == []
