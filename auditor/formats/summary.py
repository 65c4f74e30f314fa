"""``--format summary``: exactly one line per target, the verdict line, and for a failing target its root finding
(for logs, shell prompts, CI annotations and a fleet's streamed lines)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .common import summary_line
from .numbers import root_note

if TYPE_CHECKING:
    from ..report.composite import AnyReport


def format_report(report: AnyReport) -> str:
    return summary_line(report) + root_note(report) + "\n"
