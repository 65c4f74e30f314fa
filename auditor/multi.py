"""Several targets per command, and ``--recursive``: every model folder under a directory, one verdict each.

The policy (and lock) apply to each checkpoint: to a single report directly, to each section of a pipeline or
sentence-transformers model. One target prints as it always did; several print as sections of one report
whose exit code fails when any of them fails.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from .errors import TargetNotFound, UsageError
from .kinds import model_folders
from .report import Report
from .sections import CompositeReport, several


def expand_targets(targets: list[str], recursive: bool) -> list[str]:
    """The targets, with each directory replaced by the model folders under it when ``recursive``."""
    if not targets:
        raise UsageError("give at least one target")
    if not recursive:
        return list(targets)
    out: list[str] = []
    for t in targets:
        if not Path(t).is_dir():
            if Path(t).exists() or not recursive:
                out.append(t)
                continue
            raise UsageError(f"--recursive needs directories; {t} is not one")
        found = model_folders(t, _listdir)
        if not found:
            raise TargetNotFound(f"no safetensors file, index or model manifest under {t}")
        out += found
    return list(dict.fromkeys(out))


def _listdir(path: str) -> tuple[list[str], list[str]]:
    dirs: list[str] = []
    files: list[str] = []
    try:
        with os.scandir(path) as it:
            for entry in it:
                (dirs if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
    except OSError:
        pass
    return dirs, files


def gated_audit_target(targets: list[str], policy: Any, *, lock: str | None = None, base: str | None = None,
                       **audit_kw: Any) -> Report | CompositeReport:
    """``audit_target`` for each target under the policy: its findings added to every checkpoint's report."""
    from . import lock as lockmod
    from .dispatch import audit_target
    from .policy import apply, settings
    fail_on, ignore = settings(policy)
    lock_path = lock or policy.lock
    if lock_path and len(targets) > 1:
        raise UsageError(f"a lock describes one checkpoint; --lock/lock = {lock_path} cannot apply to "
                         f"{len(targets)} targets")
    lock_doc = lockmod.read(lock_path) if lock_path else None
    reports: list[Report | CompositeReport] = []
    for target in targets:
        report = audit_target(target, base=base, fail_on=fail_on, ignore=ignore, **audit_kw)
        if isinstance(report, CompositeReport):
            report = replace(report, sections=[replace(s, report=apply(s.report, policy))
                                               if isinstance(s.report, Report) else s for s in report.sections])
        else:
            report = apply(report, policy, lock_doc=lock_doc, lock_name=str(lock_path) if lock_path else None)
        reports.append(report)
    if len(reports) == 1:
        return reports[0]
    return several(targets, reports, fail_on, ignore)
