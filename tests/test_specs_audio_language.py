"""Audio-language composites (Qwen2-Audio, Voxtral, Voxtral Realtime, Audio Flamingo 3, Music Flamingo): the dumped
cases are what save_pretrained writes (tests/test_specs_cases.py); a checkpoint written from the in-memory state_dict
holds transformers 5's names instead. The in-memory names come from the truth's own `renamed_on_save` pairs
(recorded by tools/dump_cases.py from transformers' conversion mapping), not from the specs."""

from __future__ import annotations

from pathlib import Path

import pytest

import auditor
from auditor import Report
from tests.support.truth import CASES, problems, tensors, truth, write_case

TYPES = ("qwen2_audio", "voxtral", "voxtral_realtime", "audioflamingo3", "musicflamingo")
SMALL = sorted(c for t in TYPES for c in (CASES / t).glob("*-small"))


def _in_memory(name: str, pairs: list[list[str]]) -> str:
    """A saved name back under its in-memory part (the longest saved part that is a prefix wins; "" matches all)."""
    for memory, saved in sorted(pairs, key=lambda p: -len(p[1])):
        if saved == "" or name.startswith(saved + "."):
            rest = name if saved == "" else name[len(saved) + 1 :]
            return f"{memory}.{rest}" if memory else rest
    return name


def test_every_type_has_both_classes_dumped() -> None:
    assert {c.parent.name for c in SMALL} == set(TYPES)
    assert len(SMALL) == 2 * len(TYPES)


@pytest.mark.parametrize("case", SMALL, ids=lambda c: f"{c.parent.name}/{c.name}")
def test_state_dict_names_reconcile_exactly(case: Path, tmp_path: Path) -> None:
    pairs = truth(case)["renamed_on_save"]
    renamed = [(_in_memory(n, pairs), d, s) for n, d, s in tensors(case)]
    assert {n for n, _, _ in renamed} != {n for n, _, _ in tensors(case)}  # the names really differ
    report = auditor.audit(str(write_case(case, tmp_path / "ckpt", renamed)))
    assert isinstance(report, Report)
    assert problems(report, case) == []
    assert report.reconciliation.spec is not None
    assert report.reconciliation.spec["layout"].startswith("transformers 5 state_dict")


def test_a_missing_projector_is_an_error_under_state_dict_names(tmp_path: Path) -> None:
    case = CASES / "voxtral" / "VoxtralForConditionalGeneration-small"
    pairs = truth(case)["renamed_on_save"]
    renamed = [(_in_memory(n, pairs), d, s) for n, d, s in tensors(case) if "linear_2" not in n]
    report = auditor.audit(str(write_case(case, tmp_path / "ckpt", renamed)))
    missing = [f for f in report.findings if f.code == "missing-tensor"]
    assert missing and any("model.multi_modal_projector.linear_2.weight" in t for f in missing for t in f.tensors)
