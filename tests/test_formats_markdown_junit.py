"""CI outputs as report formats: the Markdown summary and JUnit XML."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

from auditor.core.findings import CODES
from auditor.formats.junit import NEEDS
from tests.support.cli import run_cli

GOOD = [("embed.weight", "BF16", [100, 16]), ("layers.0.w", "BF16", [16, 16]), ("layers.1.w", "BF16", [16, 16])]


# -- markdown -------------------------------------------------------------------------------------------------


def test_markdown_summary_findings_components(layout_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-8B", drop=["model.layers.5.mlp.up_proj.weight"])
    policy = tmp_path / "p.toml"
    policy.write_text('allowed_dtypes = ["F16"]\n')
    proc = run_cli("audit", str(ckpt), "--format", "markdown", "--policy", str(policy))
    assert proc.returncode == 1
    md = proc.stdout
    lines = md.splitlines()
    assert lines[0].startswith("## ❌ st-audit:")
    assert lines[2].startswith("FAIL: ")  # the summary comes first
    findings_at, components_at = md.index("### Findings"), md.index("### Components")
    assert findings_at < components_at
    table = md[findings_at:components_at]
    assert "`policy-violation`" in table and "`missing-tensor`" in table
    assert re.search(r"^\| severity +\| code +\| message", table, re.M)
    assert all(line.startswith("|") for line in table.splitlines()[2:] if line and not line.startswith("#"))
    assert "| mlp " in md[components_at:]


def test_markdown_escapes_table_cells(make_checkpoint: Callable[..., Path]) -> None:
    ckpt = make_checkpoint(GOOD + [("odd|name.w", "F32", [2])])
    md = run_cli("audit", str(ckpt), "--format", "markdown", "--allow-dtype", "BF16").stdout
    row = next(line for line in md.splitlines() if "policy-violation" in line)
    assert "odd\\|name.w" in row and row.count(" | ") == 2  # three cells, the pipe escaped


# -- JUnit ----------------------------------------------------------------------------------------------------


def junit(*args: str, **kw: Any) -> tuple[int, ET.Element]:
    proc = run_cli("audit", *args, "--format", "junit", **kw)
    assert proc.stdout.startswith('<?xml version="1.0" encoding="UTF-8"?>'), proc.stderr
    return proc.returncode, ET.fromstring(proc.stdout)


def test_junit_one_case_per_check(layout_checkpoint: Callable[..., Path]) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-8B", drop=["model.layers.3.self_attn.k_proj.weight"])
    code, root = junit(str(ckpt), "--allow-dtype", "F16", "--ignore", "range-gap")
    assert code == 1 and root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == list(CODES)
    failed = {c.get("name"): fail for c in cases if (fail := c.find("failure")) is not None}
    assert set(failed) == {"missing-tensor", "policy-violation"}
    assert suite.get("tests") == str(len(CODES)) and suite.get("failures") == "2"
    assert root.get("failures") == "2"
    missing = failed["missing-tensor"]
    assert missing.get("type") == "missing-tensor" and "not stored" in (missing.get("message") or "")
    assert "model.layers.3.self_attn.k_proj.weight" in (missing.text or "")
    policy = failed["policy-violation"].text or ""
    assert "allowed_dtypes" in policy and "model.layers.0.self_attn.q_proj.weight" in policy
    skipped = {c.get("name"): s.get("message") for c in cases if (s := c.find("skipped")) is not None}
    assert skipped["range-gap"] == "ignored (0 findings)"
    # what a headers-only audit with a policy rule and no lock did not run (core/codes.toml ``needs``)
    assert set(skipped) == {"range-gap", *(code for code, need in NEEDS.items() if need != "policy")}
    assert suite.get("skipped") == str(len(skipped))
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["verdict"] == "fail" and props["parameters"] == str(8190735360 - 1024 * 4096)


def test_junit_below_threshold_passes_with_output(make_checkpoint: Callable[..., Path]) -> None:
    ckpt = make_checkpoint(GOOD)  # no config.json: an info note only
    code, root = junit(str(ckpt))
    assert code == 0 and root.get("failures") == "0"
    case = next(c for c in root.iter("testcase") if c.get("name") == "config-missing")
    assert case.find("failure") is None and "no config.json" in (case.findtext("system-out") or "")
    code, root = junit(str(ckpt), "--fail-on", "info")
    assert code == 1 and root.get("failures") == "1"
    case = next(c for c in root.iter("testcase") if c.get("name") == "config-missing")
    assert case.find("failure") is not None


def test_junit_survives_control_characters(make_checkpoint: Callable[..., Path]) -> None:
    ckpt = make_checkpoint(GOOD + [("bad\x01name.w", "F32", [2])])
    code, root = junit(str(ckpt), "--allow-dtype", "BF16")
    assert code == 1
    text = "".join(root.itertext())
    assert "bad\\x01name.w" in text and "\x01" not in text  # shown as its escape, as every human format shows it


def _outcomes(root: ET.Element) -> dict[str, str]:
    """Each test case's outcome by check: failure, error, skipped (with why) or passed."""
    out = {}
    for case in root.iter("testcase"):
        child = next((c for c in case if c.tag in ("failure", "error", "skipped")), None)
        out[case.get("name") or ""] = (
            "passed" if child is None else child.tag if child.tag != "skipped" else f"skipped: {child.get('message')}"
        )
    return out


def test_junit_never_passes_a_check_that_did_not_run(tmp_path: Path) -> None:
    """A headers-only audit reads no tensor data, has no lock, no expected digests, no policy rule: those checks are
    skipped with why, never passed; ``verify`` runs the content checks; ``--lock`` runs lock-drift. Checkpoints
    written by the safetensors library."""
    from tests.support.arrays import config, tiny_arrays, write

    model = write(tmp_path / "model", tiny_arrays(), config())
    code, root = junit(str(model), "--no-policy")
    assert code == 0
    outcome = _outcomes(root)
    assert outcome["tensor-nan"] == "skipped: not run: only `st-audit verify` reads the tensor data"
    assert outcome["hash-mismatch"].startswith("skipped: not run: no expected digests")
    assert outcome["lock-drift"].startswith("skipped: not run: no lock")
    assert all(outcome[code].startswith("skipped: not run") for code in NEEDS)
    assert outcome["missing-tensor"] == "passed" and root.get("skipped") == str(len(NEEDS))

    lock = tmp_path / "lock.json"
    assert run_cli("lock", str(model), "-o", str(lock), "-q", "--no-policy").returncode == 0
    proc = run_cli("verify", str(model), "--format", "junit", "--lock", str(lock), "-q", "--no-policy")
    assert proc.returncode == 0, proc.stderr
    outcome = _outcomes(ET.fromstring(proc.stdout))
    content = [code for code, need in NEEDS.items() if need == "content"]
    assert content and all(outcome[code] == "passed" for code in content)
    assert outcome["lock-drift"] == "passed"
    assert outcome["hash-mismatch"].startswith("skipped: not run: no expected digests")  # a plain folder
    assert outcome["policy-violation"].startswith("skipped: not run: no policy rule")
