"""Running st-audit as a user would: ``python -m auditor ARGS`` in a subprocess behind the network guard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

NETGUARD = str(Path(__file__).resolve().parent / "netguard")


def run_cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m auditor ARGS`` as a user would; returns the completed process."""
    full_env = {**os.environ, **(env or {})}
    # the child Python imports tests/support/netguard/sitecustomize.py first: no connection but loopback there either
    full_env["PYTHONPATH"] = os.pathsep.join(p for p in (NETGUARD, full_env.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-m", "auditor", *args], capture_output=True, text=True, env=full_env, cwd=cwd, timeout=300
    )


def run_json(*args: str, **kw: Any) -> tuple[int, dict[str, Any]]:
    """Run ``st-audit audit ... --format json`` and parse the report."""
    proc = run_cli(*args, "--format", "json", **kw)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)
