"""JSON report (schema_version 1, see auditor/schema/report.schema.json).

Indented at the top, one line per list item (group, finding, file, tensor): readable and diff-friendly, and
written by the C encoder, since ``indent`` would switch json to its pure-Python path (seconds for ~100k
tensors with ``--tensors``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..report.single import Report
from .base import ReportFormat

if TYPE_CHECKING:
    from ..report.composite import CompositeReport

_encode = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


def dumps(doc: dict[str, Any]) -> str:
    """``doc`` as JSON: top-level keys one per line, list items one per line."""
    lines = []
    for key, value in doc.items():
        if isinstance(value, list) and value:
            items = ",\n".join("    " + _encode(item) for item in value)
            lines.append(f"  {_encode(key)}: [\n{items}\n  ]")
        else:
            lines.append(f"  {_encode(key)}: {_encode(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def format_report(report: Report) -> str:
    return dumps(report.to_dict())


class Json(ReportFormat):
    """``-f json``: the report's ``to_dict`` (auditor/schema/report.schema.json); a report of sections is one
    document (``CompositeReport.to_dict``)."""

    name = "json"

    def single(self, report: Report, width: int | None = None) -> str:
        return format_report(report)

    def composite(self, report: CompositeReport, width: int | None = None) -> str:
        return dumps(report.to_dict())
