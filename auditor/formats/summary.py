"""``--format summary``: exactly one line, the verdict line (for logs, shell prompts and CI annotations)."""

from __future__ import annotations

from ..report.single import Report
from .common import summary_line


def format_report(report: Report) -> str:
    return summary_line(report) + "\n"
