"""JSON report (schema_version 1, see auditor/schema/report.schema.json)."""

from __future__ import annotations

import json

from ..report import Report


def format_report(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
