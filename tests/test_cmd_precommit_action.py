"""CI: the environment defaults, the pre-commit hook and the GitHub Action's script (the Markdown and JUnit formats
they write: tests/test_formats_markdown_junit.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.support.action import ACTION, run_action
from tests.support.cli import run_cli, run_json
from tests.support.paths import ROOT

GOOD = [("embed.weight", "BF16", [100, 16]), ("layers.0.w", "BF16", [16, 16]), ("layers.1.w", "BF16", [16, 16])]


# -- environment defaults ---------------------------------------------------------------------------------------


def test_environment_defaults(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    ckpt = make_checkpoint(GOOD)
    proc = run_cli("audit", str(ckpt), env={"ST_AUDIT_FORMAT": "junit"})
    assert ET.fromstring(proc.stdout).tag == "testsuites"
    code, _ = run_json("audit", str(ckpt), env={"ST_AUDIT_FAIL_ON": "info"})
    assert code == 1  # the config-missing note now fails
    assert run_cli("audit", str(ckpt), "--fail-on", "error", env={"ST_AUDIT_FAIL_ON": "info"}).returncode == 0
    policy = tmp_path / "p.toml"
    policy.write_text("max_shard_bytes = 100\n")
    code, doc = run_json("audit", str(ckpt), env={"ST_AUDIT_POLICY": str(policy)})
    assert code == 1 and any(
        f["code"] == "policy-violation" and f["files"] == ["model.safetensors"] for f in doc["findings"]
    )
    assert run_cli("audit", str(ckpt), env={"ST_AUDIT_FAIL_ON": "sometimes"}).returncode == 2


# -- pre-commit hook --------------------------------------------------------------------------------------------

HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())


def run_hook(*files: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the hook's entry exactly as pre-commit would (entry + file names), via this interpreter."""
    (hook,) = HOOKS
    program, *args = hook["entry"].split()
    assert program == "st-audit"
    return subprocess.run(
        [sys.executable, "-m", "auditor", *args, *map(str, files)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={**os.environ},
    )


def test_hook_definition() -> None:
    (hook,) = HOOKS
    assert hook["id"] == "st-audit" and hook["language"] == "python" and hook.get("pass_filenames", True)
    files = re.compile(hook["files"])
    for name in (
        "model.safetensors",
        "ckpt/model-00001-of-00002.safetensors",
        "ckpt/model.safetensors.index.json",
        "ckpt/config.json",
        "config.json",
    ):
        assert files.search(name), name
    for name in ("README.md", "ckpt/tokenizer.json", "ckpt/generation_config.json", "model.bin"):
        assert not files.search(name), name


def test_hook_audits_each_directory_once(
    make_checkpoint: Callable[..., Path], layout_checkpoint: Callable[..., Path], tmp_path: Path
) -> None:
    good = layout_checkpoint("Qwen__Qwen3-0.6B", shards=2)
    broken = layout_checkpoint("Qwen__Qwen3-0.6B", drop=["model.norm.weight"])
    notes = tmp_path / "README.md"
    notes.write_text("hi")
    proc = run_hook(*sorted(good.glob("*")), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASS: ") == 1 and str(good) in proc.stdout
    proc = run_hook(
        *good.glob("*.safetensors"), broken / "model.safetensors", broken / "config.json", notes, cwd=tmp_path
    )
    assert proc.returncode == 1
    assert proc.stdout.count("PASS: ") == 1 and proc.stdout.count("FAIL: ") == 1
    assert "missing-tensor" in proc.stdout and "model.norm.weight" in proc.stdout
    assert run_hook(notes, cwd=tmp_path).stdout == ""  # nothing to audit


def test_hook_uses_repository_policy(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    ckpt = make_checkpoint(GOOD)
    lone_config = tmp_path / "configs"
    lone_config.mkdir()
    (lone_config / "config.json").write_text("{}")
    repo = tmp_path / "repo"
    repo.mkdir()
    assert run_hook(ckpt / "model.safetensors", lone_config / "config.json", cwd=repo).returncode == 0
    (repo / "pyproject.toml").write_text('[tool.st-audit]\nallowed_dtypes = ["F32"]\n')
    proc = run_hook(ckpt / "model.safetensors", cwd=repo)
    assert proc.returncode == 1 and "policy-violation" in proc.stdout
    (repo / "pyproject.toml").write_text('[tool.st-audit]\nallowed_dtypes = "F32"\nfail_on = 1\n')
    proc = run_hook(ckpt / "model.safetensors", cwd=repo)
    assert proc.returncode == 2 and "fail_on" in proc.stderr


def test_hook_broken_file_is_a_finding(tmp_path: Path) -> None:
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "weights.safetensors").write_bytes(b"")  # an empty file: a finding, not a crash
    proc = run_hook(stray / "weights.safetensors", cwd=tmp_path)
    assert proc.returncode == 1 and "not-safetensors" in proc.stdout and "FAIL: " in proc.stdout


# -- the GitHub Action's script ---------------------------------------------------------------------------------


def test_action_definition() -> None:
    assert ACTION["runs"]["using"] == "composite"
    install, audit_step = ACTION["runs"]["steps"]
    assert "pip install" in install["run"] and "$ST_AUDIT_ACTION_PATH" in install["run"]
    venv = re.search(r'venv="(\$RUNNER_TEMP/[^"]+)"', install["run"]).group(1)  # type: ignore[union-attr]
    assert venv + "/bin/python" in audit_step["run"]  # the audit runs in the venv the install step made
    assert "${{" not in audit_step["run"] and "${{" not in install["run"]  # inputs only via env (no injection)
    assert set(ACTION["outputs"]) >= {"verdict", "exit-code"}
    assert ACTION["inputs"]["target"]["required"] is True


def test_action_passes_and_writes_summary(layout_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-0.6B")
    junit_path = tmp_path / "junit.xml"
    proc, summary, out = run_action(tmp_path, target=str(ckpt), junit=str(junit_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert summary.startswith("## ✅ st-audit:") and "### Components" in summary
    assert out["verdict"] == "pass" and out["exit-code"] == "0" and int(out["parameters"]) > 0
    assert "st-audit report for" in proc.stdout  # the table in the log
    assert ET.parse(junit_path).getroot().get("failures") == "0"


def test_action_fails_job_on_policy(layout_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-0.6B")
    work = tmp_path / "ws"
    work.mkdir()
    (work / "st-audit.toml").write_text('expect_parameters = "8B"\n')  # discovered in the workspace
    proc, summary, out = run_action(tmp_path, cwd=work, target=str(ckpt))
    assert proc.returncode == 1
    assert summary.startswith("## ❌") and "`policy-violation`" in summary
    assert out["verdict"] == "fail" and out["exit-code"] == "1"
    assert "::error title=st-audit policy-violation::" in proc.stdout
    proc, _, out = run_action(tmp_path, cwd=work, target=str(ckpt), **{"fail-on": "never"})
    assert proc.returncode == 0 and out["verdict"] == "pass"
    proc, _, _ = run_action(tmp_path, cwd=work, target=str(ckpt), ignore="policy-violation, range-gap")
    assert proc.returncode == 0


def test_action_lock_drift_and_errors(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    base = make_checkpoint(GOOD)
    lock_file = tmp_path / "l.json"
    assert run_cli("lock", str(base), "-o", str(lock_file), "-q").returncode == 0
    changed = make_checkpoint(GOOD[:2])
    proc, summary, out = run_action(tmp_path, target=str(changed), lock=str(lock_file))
    assert proc.returncode == 1 and "`lock-drift`" in summary and "layers.1.w" in summary
    proc, summary, out = run_action(tmp_path, target=str(changed), policy=str(tmp_path / "missing.toml"))
    assert proc.returncode == 2 and out["verdict"] == "error" and "does not exist" in summary
    assert "::error title=st-audit::" in proc.stdout
    proc, summary, out = run_action(tmp_path, target=str(tmp_path / "nowhere"))
    assert proc.returncode == 3 and out["exit-code"] == "3"


@pytest.mark.parametrize("name", ["docs/ci.md"])
def test_docs_show_workflow_and_every_policy_key(name: str) -> None:
    from auditor.gate.policy import FLAGS, KEYS

    text = (ROOT / name).read_text()
    workflow = re.search(r"```yaml\n(name: checkpoint.*?)```", text, re.S)
    assert workflow is not None
    doc = yaml.safe_load(workflow.group(1))
    steps = doc["jobs"]["audit"]["steps"]
    action_step = next(s for s in steps if "st-audit" in s.get("uses", ""))
    assert set(action_step["with"]) <= set(ACTION["inputs"])  # the copy-paste workflow uses real inputs
    for key in KEYS:
        assert f"`{key}`" in text and FLAGS[key] in text, key
