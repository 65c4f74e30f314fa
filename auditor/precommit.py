"""``st-audit precommit FILES...``: the pre-commit hook (see .pre-commit-hooks.yaml).

pre-commit passes the changed files; each checkpoint directory holding one of them is audited once under
the policy in force (st-audit.toml / pyproject.toml of the repository). A changed ``config.json`` counts
only when its directory holds safetensors weights. Exit code: the worst over all directories (3 when a
directory could not be audited, else 1 when any failed, else 0).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from .errors import AuditError, UsageError
from .formats.common import summary_line
from .policy import Policy, gated_audit

WEIGHT_SUFFIXES = (".safetensors", ".safetensors.index.json")


def checkpoint_dirs(paths: Iterable[str | Path]) -> list[Path]:
    """The checkpoint directories the given files belong to, each once, in sorted order."""
    dirs: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            dirs.add(p)
        elif p.name.endswith(WEIGHT_SUFFIXES):
            if p.exists():
                dirs.add(p.parent)
        elif p.name == "config.json" and p.exists() and any(p.parent.glob("*.safetensors")):
            dirs.add(p.parent)
    return sorted(dirs)


def run(paths: Iterable[str | Path], policy: Policy, *, write: Callable[[str], None] | None = None) -> int:
    """Audit every checkpoint directory touched by ``paths``; returns the exit code."""
    emit = write or (lambda s: print(s, flush=True))
    code = 0
    for directory in checkpoint_dirs(paths):
        try:
            report = gated_audit(str(directory), policy)
        except UsageError:
            raise
        except AuditError as e:
            emit(f"st-audit: error: {directory}: {e}")
            code = 3
            continue
        emit(summary_line(report))
        for f in report.failing:
            emit(f"  {f.severity.upper():7} {f.code}: {f.message}")
        if report.exit_code and code == 0:
            code = report.exit_code
    return code


if __name__ == "__main__":  # pragma: no cover - `st-audit precommit` is the entry point
    from .policy import load
    sys.exit(run(sys.argv[1:], load()))
