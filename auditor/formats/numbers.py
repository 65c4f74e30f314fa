"""Numbers for people, shared by the single and the sectioned formats (its own module so that neither imports
the other at load time)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.findings import plural

if TYPE_CHECKING:
    from ..report.single import Report


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
    return f"policy: {policy['path'] or 'command-line flags'} ({plural(len(rules), 'rule')}: " \
           f"{', '.join(r['key'] for r in rules)})"


def counted_label(report: Report) -> str:
    """What a checkpoint's counted weights are: ``the default weights`` or ``variant fp16``."""
    return "the default weights" if report.variant is None else f"variant {report.variant}"
