"""Every dumped case folder whose architecture a spec covers must reconcile exactly.

The folders (``fixtures/cases/<model_type>/<case>/``: config.json, layout.json.gz, truth.json) are what
transformers' own ``save_pretrained`` writes, dumped by tools/dump_cases.py at the class default config and at
perturbed configs (docs/truth.md). Nothing here comes from the auditor's specs: each case is written as a
header-only checkpoint and audited; it must pass with no error or warning, explain every stored tensor, and
expect exactly transformers' own parameter count. Adding a family adds folders, not test code.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import auditor
from auditor.specs import select
from fixtures import build

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "cases"


def _case_dirs() -> list[Path]:
    return sorted(p.parent for p in CASES.glob("*/*/truth.json"))


def _config(case: Path) -> dict:
    return json.loads((case / "config.json").read_text())


def covered_cases() -> list[Path]:
    """The cases a spec claims (by architectures[0] or model_type, with a class the family has)."""
    return [case for case in _case_dirs() if select(_config(case))[0] is not None]


COVERED = covered_cases()


def write_case(case: Path, dest: Path) -> Path:
    """The case as a one-file header-only checkpoint with its config.json."""
    layout = json.loads(gzip.decompress((case / "layout.json.gz").read_bytes()))
    dest.mkdir(parents=True, exist_ok=True)
    build.write_file(dest / "model.safetensors", [(n, d, s) for n, d, s in layout["tensors"]])
    (dest / "config.json").write_text((case / "config.json").read_text())
    return dest


def test_the_case_corpus_is_there() -> None:
    assert len(_case_dirs()) >= 100 and len(COVERED) >= 50


@pytest.mark.parametrize("case", COVERED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_reconciles_exactly(case: Path, tmp_path: Path) -> None:
    truth = json.loads((case / "truth.json").read_text())
    report = auditor.audit(write_case(case, tmp_path / "ckpt"))
    problems = [f"{f.severity} {f.code}: {f.message}" for f in report.findings if f.severity != "info"]
    rec = report.reconciliation
    assert problems == [], f"{rec.spec}: " + "\n".join(problems)
    assert rec.ledger["unexplained"] == 0
    # persistent buffers the model needs (a router's score-correction bias) count as the model's, as published
    needed = sum(report.tensors[n].elements for n in truth["persistent_buffers"]
                 if rec.categories.get(n) == "model")
    assert rec.expected_parameters == truth["parameters"] + needed, (rec.spec, rec.formula_by_component)


UNCOVERED = [case for case in _case_dirs() if case not in set(COVERED)]


@pytest.mark.parametrize("case", UNCOVERED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_structural_check_gives_no_false_alarm_on_a_healthy_layout(case: Path, tmp_path: Path) -> None:
    """An architecture no spec covers gets the structural check: on what transformers writes it must pass
    without a single error or warning, and say what it did and did not check."""
    report = auditor.audit(write_case(case, tmp_path / "ckpt"))
    problems = [f"{f.severity} {f.code}: {f.message}" for f in report.findings if f.severity != "info"]
    assert problems == []
    [note] = [f.message for f in report.findings if f.code == "unknown-architecture"]
    assert "Not checked" in note and report.reconciliation.expected_parameters is None


def test_structural_check_flags_a_lost_tensor_and_an_odd_shape(tmp_path: Path) -> None:
    case = min((c for c in CASES.glob("qwen3/Qwen3Model-*") if _config(c).get("num_hidden_layers", 0) >= 4),
               key=lambda c: _config(c)["num_hidden_layers"])
    layout = json.loads(gzip.decompress((case / "layout.json.gz").read_bytes()))
    config = {**_config(case), "model_type": "brand_new", "architectures": ["BrandNewForCausalLM"]}
    tensors = [(n, d, list(s)) for n, d, s in layout["tensors"]]
    lost = next(n for n, _, _ in tensors if ".1.mlp.up_proj" in n)
    odd = next(n for n, _, _ in tensors if ".0.mlp.down_proj" in n)
    tensors = [(n, d, [s[0], s[1] + 1] if n == odd else s) for n, d, s in tensors if n != lost]
    dest = tmp_path / "ckpt"
    dest.mkdir()
    build.write_file(dest / "model.safetensors", tensors)
    (dest / "config.json").write_text(json.dumps(config))
    report = auditor.audit(dest)
    found = {f.code: f for f in report.findings}
    assert found["missing-tensor"].tensors == (lost,) and found["missing-tensor"].severity == "warning"
    assert found["shape-mismatch"].tensors == (odd,) and found["shape-mismatch"].severity == "warning"
