"""``st-audit precommit FILES...``: the pre-commit hook (see .pre-commit-hooks.yaml).

pre-commit passes the changed files; each checkpoint directory holding one of them is audited once under
the policy in force (st-audit.toml / pyproject.toml of the repository). A changed ``config.json`` counts
only when its directory holds safetensors weights. Exit code: the worst over all directories (4 internal error,
3 when a directory could not be audited, 1 when any failed, else 0), the same codes as ``st-audit audit``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from ..core.conventions import OWNING_MANIFESTS
from ..core.errors import AuditError, UsageError
from ..core.untrusted import printable
from ..formats.common import summary_line
from ..formats.numbers import finding_line
from ..gate.policy import Policy
from ..run.multi import gated_audit

WEIGHT_SUFFIXES = (".safetensors", ".safetensors.index.json")
# OWNING_MANIFESTS (core/conventions.toml): the manifests that make a folder one target whose subfolders are its
# parts (a pipeline, a sentence-transformers model)


def _owner(directory: Path) -> Path:
    """The target a folder belongs to: a pipeline's or sentence-transformers model's component folder is audited
    as part of the whole (``model_index.json`` / ``modules.json`` one level up), as ``st-audit audit`` would."""
    parent = directory.parent
    return parent if any((parent / m).is_file() for m in OWNING_MANIFESTS) else directory


def checkpoint_dirs(paths: Iterable[str | Path]) -> list[Path]:
    """The checkpoint directories the given files belong to (a component's: its pipeline), each once, sorted."""
    return sorted({_owner(d) for d in _touched_dirs(paths)})


def _touched_dirs(paths: Iterable[str | Path]) -> set[Path]:
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
        elif p.name in OWNING_MANIFESTS and p.exists():
            dirs.add(p.parent)
    return dirs


def run(
    paths: Iterable[str | Path], policy: Policy, *, write: Callable[[str], None] | None = None, quiet: bool = False
) -> int:
    """Audit every checkpoint directory touched by ``paths``; returns the exit code (the CLI's: the worst of
    0 pass, 1 findings, 3 could not audit, 4 internal error). ``quiet`` prints only what fails."""
    emit = write or (lambda s: print(s, flush=True))
    code = 0
    for directory in checkpoint_dirs(paths):
        try:
            report = gated_audit(str(directory), policy)
        except UsageError:
            raise
        except AuditError as e:
            emit(printable(f"st-audit: error: {directory}: {e}"))
            code = max(code, 3)
            continue
        except Exception as e:  # noqa: BLE001 - a bug: the other directories are still audited
            emit(printable(f"st-audit: internal error (a bug) auditing {directory}: {type(e).__name__}: {e}"))
            code = 4
            continue
        if not quiet or report.failing:
            emit(summary_line(report))
        for f in report.failing:
            emit(finding_line(f))
        code = max(code, report.exit_code)
    return code


if __name__ == "__main__":  # pragma: no cover - `st-audit precommit` is the entry point
    from ..gate.policy import load

    sys.exit(run(sys.argv[1:], load()))
