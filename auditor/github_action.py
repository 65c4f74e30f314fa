"""The script behind the composite GitHub Action (action.yml): ``python -m auditor.github_action``.

Inputs arrive as environment variables (action.yml maps its inputs onto them): INPUT_TARGET (path or
repo id, required), INPUT_POLICY, INPUT_FAIL_ON, INPUT_LOCK, INPUT_IGNORE (codes separated by spaces or
commas), INPUT_REVISION, INPUT_JUNIT and INPUT_JSON (paths to also write those reports to), HF_TOKEN.
Empty inputs fall back like the CLI: ST_AUDIT_POLICY, then st-audit.toml / pyproject.toml in the working
directory; the policy's fail_on, then ST_AUDIT_FAIL_ON, then "error".

One audit, several outputs: the table in the log, markdown appended to $GITHUB_STEP_SUMMARY, an error
annotation per failing finding, ``verdict``/``exit-code``/``parameters``/``tensors`` in $GITHUB_OUTPUT.
The exit code is the CLI's (0 pass, 1 findings at or above fail_on, 2 usage error, 3 could not audit), so
the job fails exactly when ``st-audit audit`` would.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from .errors import AuditError, UsageError
from .formats import formatter
from .policy import gated_audit, load


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)


def _escape(text: str) -> str:
    """Workflow-command data escaping (``%``, CR and LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def run(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    summary, outputs = env.get("GITHUB_STEP_SUMMARY"), env.get("GITHUB_OUTPUT")
    target = (env.get("INPUT_TARGET") or "").strip()
    try:
        if not target:
            raise UsageError("the action needs a target: a checkpoint path or a Hub repo id")
        policy = load(env.get("INPUT_POLICY") or env.get("ST_AUDIT_POLICY") or None)
        overrides = {"fail_on": env.get("INPUT_FAIL_ON") or None, "lock": env.get("INPUT_LOCK") or None,
                     "ignore": [c for c in re.split(r"[\s,]+", env.get("INPUT_IGNORE", "")) if c] or None}
        policy = policy.merged(overrides, origin="the action's inputs")
        report = gated_audit(target, policy, env=env, revision=env.get("INPUT_REVISION") or None,
                             token=env.get("HF_TOKEN") or None, progress=lambda m: print(m, file=sys.stderr))
    except AuditError as e:
        print(f"::error title=st-audit::{_escape(str(e))}", flush=True)
        _append(summary, f"## ❌ st-audit: `{target}`\n\nst-audit could not audit: {e}\n")
        _append(outputs, f"verdict=error\nexit-code={e.exit_code}\n")
        return e.exit_code
    sys.stdout.write(formatter("table")(report))
    for f in report.failing:
        print(f"::error title=st-audit {f.code}::{_escape(f.message)}", flush=True)
    _append(summary, formatter("markdown")(report) + "\n")
    for var, fmt in (("INPUT_JUNIT", "junit"), ("INPUT_JSON", "json")):
        if env.get(var):
            Path(env[var]).write_text(formatter(fmt)(report), encoding="utf-8")
    _append(outputs, f"verdict={report.verdict}\nexit-code={report.exit_code}\n"
                     f"parameters={report.totals.parameters}\ntensors={report.totals.tensors}\n")
    sys.stdout.flush()
    return report.exit_code


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
