"""``st-audit lock``: the snapshot of a target as audit judges it (under the same policy), refused when it fails.

The CLI is a thin shell over ``write``: it builds the policy and the options; this module audits (or verifies),
keeps a Hugging Face cache snapshot's digests without reading the weights, and writes the lock."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..formats.common import summary_line
from ..formats.numbers import finding_line
from ..gate import lock
from ..report.composite import AnyReport
from ..run.multi import gated_audit
from ..run.options import AuditOptions
from .kit import emit


def judged(target: str, rules: Any, options: AuditOptions, *, verify: bool, quiet: bool) -> AnyReport:
    """The report the lock is a snapshot of: verified (every byte read) or audited from the headers; a cache
    snapshot's files keep the Hub's digests (its blob names), so the lock records them without reading."""
    if verify:
        from ..verify import verify as run_verify

        return run_verify(target, options, policy=rules, show_progress=not quiet)  # --variant, --base ... as given
    # the resolver gives a cache snapshot's source its digests, repo and commit (and an hf download folder's)
    return gated_audit(target, rules, options=options)


def write(report: AnyReport, output: Path | None, *, force: bool, quiet: bool, stderr: Callable[[str], None]) -> int:
    """Write the lock of ``report`` (exit 0), or refuse a failing one (exit 1) unless ``force``."""
    if report.failing and not force:
        stderr(summary_line(report))
        for f in report.failing[:5]:
            stderr(finding_line(f))
        stderr("st-audit: not writing a lock of a failing checkpoint (fix it, or pass --force)")
        return 1
    emit(lock.dumps(lock.snapshot(report)), output)
    if not quiet:
        stderr(summary_line(report) + (f"; lock written to {output}" if output is not None else ""))
    return 0
