"""Every dumped case folder whose architecture a spec covers must reconcile exactly.

The folders (``fixtures/cases/<model_type>/<case>/``: config.json, layout.json.gz, truth.json) are what
transformers' own ``save_pretrained`` writes, dumped by tools/dump_cases.py at the class default config and at
perturbed configs (docs/truth.md). Nothing here comes from the auditor's specs: each case is written as a
header-only checkpoint and audited; it must pass with no error or warning, explain every stored tensor, and
expect exactly transformers' own parameter count. Adding a family adds folders, not test code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import auditor
from auditor import Report
from auditor.specs import select
from tests.support.truth import CASES, case_dirs, config, problems, tensors, write_case

COVERED = [case for case in case_dirs() if select(config(case))[0] is not None]


def test_the_case_corpus_is_there() -> None:
    assert len(case_dirs()) >= 100 and len(COVERED) >= 50


@pytest.mark.cases
@pytest.mark.parametrize("case", COVERED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_reconciles_exactly(case: Path, tmp_path: Path) -> None:
    report = auditor.audit(str(write_case(case, tmp_path / "ckpt")))
    assert isinstance(report, Report)
    assert report.reconciliation.expected_parameters is not None
    assert problems(report, case) == [], report.reconciliation.spec


UNCOVERED = [case for case in case_dirs() if case not in set(COVERED)]
# the multimodal layouts (vision blocks beside decoder layers) are the structural check's hardest input: they
# are checked as an unknown architecture would be even where a spec covers them
DISGUISED = [
    case for case in COVERED if (_spec := select(config(case))[0]) is not None and _spec.family == "multimodal"
]


@pytest.mark.cases
@pytest.mark.parametrize("case", UNCOVERED + DISGUISED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_structural_check_gives_no_false_alarm_on_a_healthy_layout(case: Path, tmp_path: Path) -> None:
    """An architecture no spec covers gets the structural check: on what transformers writes it must pass
    without a single error or warning, and say what it did and did not check."""
    dest = write_case(case, tmp_path / "ckpt")
    if case in DISGUISED:
        (dest / "config.json").write_text(
            json.dumps(
                {**config(case), "model_type": "brand_new", "architectures": ["BrandNewForConditionalGeneration"]}
            )
        )
    report = auditor.audit(str(dest))
    assert isinstance(report, Report)
    assert problems(report, case) == []
    [note] = [f.message for f in report.findings if f.code == "unknown-architecture"]
    assert "Not checked" in note and report.reconciliation.expected_parameters is None


def test_structural_check_flags_a_lost_tensor_and_an_odd_shape(tmp_path: Path) -> None:
    case = min(
        (c for c in CASES.glob("qwen3/Qwen3Model-*") if config(c).get("num_hidden_layers", 0) >= 6),
        key=lambda c: config(c)["num_hidden_layers"],
    )
    layout = tensors(case)
    lost = next(n for n, _, _ in layout if ".2.mlp.up_proj" in n)  # a middle layer, 5+ siblings: a warning
    odd = next(n for n, _, _ in layout if ".3.mlp.down_proj" in n)  # shapes may vary by layer: a note
    layout = [(n, d, [s[0], s[1] + 1] if n == odd else s) for n, d, s in layout if n != lost]
    dest = write_case(case, tmp_path / "ckpt", layout)
    (dest / "config.json").write_text(
        json.dumps({**config(case), "model_type": "brand_new", "architectures": ["BrandNewForCausalLM"]})
    )
    report = auditor.audit(str(dest))
    found = {f.code: f for f in report.findings}
    assert found["missing-tensor"].tensors == (lost,) and found["missing-tensor"].severity == "warning"
    assert found["shape-mismatch"].tensors == (odd,) and found["shape-mismatch"].severity == "info"


def test_coverage_table_is_current() -> None:
    """docs/coverage.md (make coverage) marks exactly the model types whose cases a spec covers as exact (the
    audits behind "exact" are the tests above)."""
    rows: dict[str, set[str]] = {}  # a model type has a row in each table whose mapping names it
    for line in (CASES.parents[1] / "docs" / "coverage.md").read_text().splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 5 and cells[0] not in ("model_type", "---"):
            rows.setdefault(cells[0], set()).add(cells[4].split(" (")[0].split(":")[0])
    covered = {c.parent.name for c in COVERED}
    # a type whose class takes another type's config has its cases under that type (_redirects.json)
    redirects = json.loads((CASES / "_redirects.json").read_text())
    dumped = {c.parent.name for c in case_dirs()}
    covered |= {
        key.split("/")[0]
        for key, target in redirects.items()
        if target.split("/")[0] in covered and key.split("/")[0] not in dumped
    }
    mapped = {t for t in covered if t in rows}
    # a covered type is exact wherever its cases are judged; a row of a class no spec claims (BigBirdForMaskedLM
    # beside the claimed BigBirdForCausalLM) has no cases of its own or gets the structural check
    assert mapped and {t for t in mapped if "exact" not in rows[t] or "failing" in rows[t]} == set()
    assert {t for t, statuses in rows.items() if "exact" in statuses} <= covered


def test_a_persistent_buffer_the_model_needs_is_required_but_not_a_parameter(tmp_path: Path) -> None:
    """kind = "state" (docs/specs.md): DeepSeek-V3's router score-correction bias is a persistent buffer; the
    ledger calls it a buffer and num_parameters() leaves it out, yet a checkpoint without it is broken."""
    case = CASES / "deepseek_v3" / "DeepseekV3ForCausalLM-small"
    layout = tensors(case)
    [gone, *_] = [n for n, _, _ in layout if n.endswith(".e_score_correction_bias")]
    report = auditor.audit(str(write_case(case, tmp_path / "ckpt", [t for t in layout if t[0] != gone])))
    assert isinstance(report, Report)
    missing = [f for f in report.findings if f.code == "missing-tensor"]
    assert [f.severity for f in missing] == ["error"] and gone in missing[0].tensors
    assert report.reconciliation.expected_parameters == json.loads((case / "truth.json").read_text())["parameters"]


def test_a_parameter_the_class_never_saves_is_counted_and_the_models_when_stored(tmp_path: Path) -> None:
    """kind = "unsaved": MarianMTModel's frozen sinusoidal tables are nn.Parameters num_parameters() counts, but
    _keys_to_ignore_on_save keeps them out of every save; a checkpoint that has them (an old conversion) holds
    model parameters."""
    case = CASES / "marian" / "MarianMTModel-small"
    truth = json.loads((case / "truth.json").read_text())
    tables = [(n, "F32", shape) for n, shape in truth["split"]["parameters_not_saved"]]
    report = auditor.audit(str(write_case(case, tmp_path / "ckpt", tensors(case) + tables)))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert [f for f in report.findings if f.severity != "info"] == []
    assert rec.expected_parameters == truth["parameters"] == rec.ledger["model"]
    assert {rec.categories[n] for n, _, _ in tables} == {"model"}
