"""The script behind the composite GitHub Action (action.yml): ``python -m auditor.github_action``.

Inputs arrive as environment variables (action.yml maps its inputs onto them): INPUT_TARGET (path or
repo id, required), INPUT_POLICY, INPUT_FAIL_ON, INPUT_LOCK, INPUT_IGNORE (codes separated by spaces or
commas), INPUT_REVISION, INPUT_JUNIT and INPUT_JSON (paths to also write those reports to), HF_TOKEN.
Empty inputs fall back like the CLI: ST_AUDIT_POLICY, then st-audit.toml / pyproject.toml in the working
directory; the policy's fail_on, then ST_AUDIT_FAIL_ON, then "error".

One audit, several outputs: the table in the log, markdown appended to $GITHUB_STEP_SUMMARY, an error
annotation per failing finding, ``verdict``/``exit-code``/``parameters``/``tensors`` in $GITHUB_OUTPUT.
The exit code is the CLI's (0 pass, 1 findings at or above fail_on, 2 usage error, 3 could not audit, 4
internal error), so the job fails exactly when ``st-audit audit`` would; every output is written either way.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from .commands.kit import EXIT_INTERNAL
from .core.errors import AuditError, UsageError
from .core.untrusted import markdown, markdown_code, printable
from .formats import formatter
from .gate.policy import load
from .run.multi import gated_audit


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)


def _escape(text: str) -> str:
    """An annotation's message: the checkpoint's text as ``printable`` shows it (a tensor name's newline is ``\\n``
    there too), then workflow-command data escaping (``%``, CR and LF)."""
    return printable(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def run(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    summary, outputs = env.get("GITHUB_STEP_SUMMARY"), env.get("GITHUB_OUTPUT")
    target = (env.get("INPUT_TARGET") or "").strip()
    try:
        if not target:
            raise UsageError("the action needs a target: a checkpoint path or a Hub repo id")
        policy = load(env.get("INPUT_POLICY") or env.get("ST_AUDIT_POLICY") or None, near=[target])
        overrides = {
            "fail_on": env.get("INPUT_FAIL_ON") or None,
            "lock": env.get("INPUT_LOCK") or None,
            "ignore": [c for c in re.split(r"[\s,]+", env.get("INPUT_IGNORE", "")) if c] or None,
        }
        policy = policy.merged(overrides, origin="the action's inputs")
        report = gated_audit(
            target,
            policy,
            env=env,
            revision=env.get("INPUT_REVISION") or None,
            token=env.get("HF_TOKEN") or None,
            progress=lambda m: print(printable(m), file=sys.stderr),
        )
    except AuditError as e:
        return _could_not(env, target, str(e), e.exit_code, "could not audit")
    except Exception as e:  # noqa: BLE001 - a bug: the job still gets its outputs and exit code 4
        return _could_not(
            env,
            target,
            f"{type(e).__name__}: {e}",
            EXIT_INTERNAL,
            "hit an internal error (a bug in st-audit; please report it)",
        )
    sys.stdout.write(formatter("table")(report))
    for f in report.failing:
        print(f"::error title=st-audit {f.code}::{_escape(f.message)}", flush=True)
    _append(summary, formatter("markdown")(report) + "\n")
    for var, fmt in (("INPUT_JUNIT", "junit"), ("INPUT_JSON", "json")):
        if env.get(var):
            Path(env[var]).parent.mkdir(parents=True, exist_ok=True)
            Path(env[var]).write_text(formatter(fmt)(report), encoding="utf-8")
    totals = report.total_counts()
    _append(
        outputs,
        f"verdict={report.verdict}\nexit-code={report.exit_code}\n"
        f"parameters={totals['parameters']}\ntensors={totals['tensors']}\n",
    )
    sys.stdout.flush()
    return report.exit_code


def _could_not(env: Mapping[str, str], target: str, message: str, code: int, what: str) -> int:
    """No report: still an error annotation, the step summary, every output and the requested report files,
    so later steps (test reporters, artifact uploads) find what they expect."""
    print(f"::error title=st-audit::{_escape(message)}", flush=True)
    print(printable(f"st-audit: error: {message}"), file=sys.stderr, flush=True)
    _append(
        env.get("GITHUB_STEP_SUMMARY"),
        f"## ❌ st-audit: {markdown_code(target)}\n\nst-audit {what}: {markdown(message)}\n",
    )
    _append(env.get("GITHUB_OUTPUT"), f"verdict=error\nexit-code={code}\n")
    for var, text in (
        ("INPUT_JUNIT", _junit_error(target, message)),
        (
            "INPUT_JSON",
            json.dumps({"target": target, "verdict": "error", "exit_code": code, "error": message}, indent=2) + "\n",
        ),
    ):
        if env.get(var):
            try:
                Path(env[var]).parent.mkdir(parents=True, exist_ok=True)
                Path(env[var]).write_text(text, encoding="utf-8")
            except OSError as e:
                print(f"st-audit: cannot write {env[var]}: {e.strerror or e}", file=sys.stderr, flush=True)
    return code


def _junit_error(target: str, message: str) -> str:
    from .formats.junit import document, error_suite

    return document([error_suite(f"st-audit {printable(target)}", message)])


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
