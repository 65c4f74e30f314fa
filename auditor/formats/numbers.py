"""Numbers and lines for people, shared by the single and the sectioned formats (its own module so that neither
imports the other at load time)."""

from __future__ import annotations

from typing import Any

from ..core.findings import SEVERITY_RANK, Finding, plural
from ..core.untrusted import printable
from ..report.single import Judged, Report


def human(n: int) -> str:
    """1234567 -> '1.23M' (for the one-line summary; exact numbers are printed beside it)."""
    for unit, size in (("T", 10**12), ("B", 10**9), ("M", 10**6), ("K", 10**3)):
        if abs(n) >= size:
            return f"{n / size:.2f}{unit}"
    return str(n)


def policy_line(policy: dict[str, Any] | None) -> str | None:
    """``policy: st-audit.toml (5 rules)``: which policy applied, so a verdict that depends on it says so."""
    if not policy:
        return None
    rules = policy["rules"]
    return printable(
        f"policy: {policy['path'] or 'command-line flags'} ({plural(len(rules), 'rule')}: "
        f"{', '.join(r['key'] for r in rules)})"
    )


def finding_line(f: Finding) -> str:
    """``  ERROR   missing-tensor: message``: one finding in a terminal or a log (its message may name tensors)."""
    return f"  {f.severity.upper():7} {f.code}: {printable(f.message)}"


def counted_label(report: Report) -> str:
    """What a checkpoint's counted weights are: ``the default weights`` or ``variant fp16``."""
    return "the default weights" if report.variant is None else f"variant {report.variant}"


def root_finding(report: Any) -> tuple[str, Finding] | None:
    """Why ``report`` fails, in one finding: of the failing findings that are not a consequence of another (no
    ``caused_by``), the worst, first found (the whole's own, then section by section, each checkpoint's counted
    weights before its alternate variants), with where it is: ``""`` for the checkpoint itself, ``unet``,
    ``unet (fp16)``, ``a/unet`` for a pipeline among several targets. None when nothing fails."""
    found = [(where, f) for where, f in _failing(report, "") if f.caused_by is None]
    if not found:
        return None
    worst = max(SEVERITY_RANK[f.severity] for _, f in found)
    return next((where, f) for where, f in found if SEVERITY_RANK[f.severity] == worst)


def _failing(report: Any, where: str) -> list[tuple[str, Finding]]:
    if report.fail_on == "never":
        return []
    own = [(where, f) for f in Judged.failing.fget(report)]  # type: ignore[attr-defined]
    if isinstance(report, Report):
        return own + [
            pair
            for a in report.alternates
            for pair in _failing(a.report, f"{where} ({a.variant})" if where else f"({a.variant})")
        ]
    return own + [
        pair for s in report.sections for pair in _failing(s.report, f"{where}/{s.part.name}" if where else s.part.name)
    ]


def root_note(report: Any) -> str:
    """``; root finding: file-truncated: model-00005...: 1,000,000 bytes missing ...``: why a failing target fails,
    for its one-line summary (empty when it passes). The message is the checkpoint's text: through ``printable``."""
    found = root_finding(report)
    if found is None:
        return ""
    where, f = found
    return f"; root finding: {f.code}: {printable(f'{where}: ' if where else '')}{printable(f.message)}"


def variants_note(report: Report) -> str:
    """``; variant fp16: pass (audited, not counted)``: the alternates beside the counted weights, for a verdict
    line (empty without any; a variant's name is its files' text: shown through ``printable`` or ``markdown``)."""
    if not report.alternates:
        return ""
    each = ", ".join(f"{a.variant}: {a.report.verdict}" for a in report.alternates)
    return f"; {'variant' if len(report.alternates) == 1 else 'variants'} {each} (audited, not counted)"
