"""JSON report (schema_version 1, see auditor/schema/report.schema.json).

Indented at the top, one line per list item (group, finding, file, tensor): readable and diff-friendly, and
written by the C encoder, since ``indent`` would switch json to its pure-Python path (seconds for ~100k
tensors with ``--tensors``).
"""

from __future__ import annotations

import json
from typing import Any

from ..report.single import Report

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
