"""The GitHub Action as the runner runs it (action.yml's audit step: its env mapping evaluated, its `run` in bash),
for tests of what a workflow's log, annotations, step summary and outputs show."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.paths import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
_EXPR = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


def _evaluate(expr: str, inputs: dict[str, str], env: dict[str, str]) -> str:
    """The small subset of GitHub expressions action.yml uses: inputs.X, env.X, github.action_path, a || b."""
    for operand in (o.strip() for o in expr.split("||")):
        scope, _, name = operand.partition(".")
        value = {"inputs": inputs, "env": env, "github": {"action_path": str(ROOT)}}[scope].get(name, "")
        if value:
            return value
    return ""


def run_action(
    tmp_path: Path, cwd: Path | None = None, **given: str
) -> tuple[subprocess.CompletedProcess[str], str, dict[str, str]]:
    """Run the action's audit step as the runner would: its env mapping evaluated, its `run` in bash."""
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, unknown
    inputs.update(given)
    step = next(s for s in ACTION["runs"]["steps"] if s.get("id") == "audit")
    runner_temp = tmp_path / "runner"
    python = runner_temp / "st-audit-venv" / "bin" / "python"
    python.parent.mkdir(parents=True, exist_ok=True)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # stands in for the installed venv
    python.chmod(0o755)
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    summary.write_text("")
    outputs.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "ST_AUDIT_"))}
    env.update(RUNNER_TEMP=str(runner_temp), GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(outputs))
    for key, value in step["env"].items():
        env[key] = _EXPR.sub(lambda m: _evaluate(m.group(1), inputs, env), str(value))
    proc = subprocess.run(
        ["bash", "-c", step["run"]], capture_output=True, text=True, env=env, cwd=cwd or tmp_path, timeout=300
    )
    out = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
    return proc, summary.read_text(), out
