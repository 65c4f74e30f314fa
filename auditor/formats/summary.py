"""``--format summary``: exactly one line per target, the verdict line, and for a failing target its root finding
(for logs, shell prompts, CI annotations and a fleet's streamed lines)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import ReportFormat
from .common import summary_line
from .numbers import root_note

if TYPE_CHECKING:
    from ..report.composite import AnyReport, CompositeReport
    from ..report.single import Report


def format_report(report: AnyReport) -> str:
    return summary_line(report) + root_note(report) + "\n"


class Summary(ReportFormat):
    """``-f summary``: one line per target, the whole's verdict line last; a fleet run streams its lines."""

    name = "summary"
    colours = True
    streams = True

    def single(self, report: Report, width: int | None = None) -> str:
        return format_report(report)

    def composite(self, report: CompositeReport, width: int | None = None) -> str:
        from .sections import summary_lines

        return summary_lines(report, lambda inner: self.render(inner, width))

    def summary_on_stderr(self, to_file: bool) -> bool:
        """The output is the verdict line."""
        return False
