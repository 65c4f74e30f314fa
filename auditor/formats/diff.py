"""The ``st-audit diff`` output: what changed between two checkpoints, as a table, Markdown or JSON.

A pure function of the comparison (``drift.Changes``), beside the report formats and ``formula.py``.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.findings import plural
from ..gate.drift import Changes, value
from ..gate.lock import label, under
from ..inventory.patterns import patterns

MAX_LISTED = 50


def _shape(s: Any) -> str:
    return "[" + ", ".join(str(d) for d in s) + "]"


def _limited(lines: list[str], limit: int = MAX_LISTED) -> list[str]:
    return lines[:limit] + ([f"... and {len(lines) - limit:,} more"] if len(lines) > limit else [])


def format_diff(sections: list[tuple[str, Changes]] | Changes, a: str, b: str, fmt: str = "table") -> str:
    """One checkpoint's changes as before; a target of sections (a pipeline) section by section, each under its
    name (``a/unet -> b/unet``), then one verdict."""
    if isinstance(sections, Changes):
        sections = [("", sections)]
    if len(sections) == 1 and sections[0][0] == "":
        return _format_one(sections[0][1], a, b, fmt)
    identical = all(c.identical for _, c in sections)
    if fmt == "json":
        return json.dumps({**_head(), "a": a, "b": b, "identical": identical,
                           "sections": [{"name": name, **c.to_dict()} for name, c in sections]},
                          indent=2, ensure_ascii=False) + "\n"
    verdict = "identical" if identical else "different"
    parts = [_format_one(c, under(a, name), under(b, name), fmt) for name, c in sections]
    changed = [label(name) for name, c in sections if not c.identical]
    last = f"st-audit diff: {a} -> {b}: {verdict}" + (f" ({', '.join(changed)})" if changed else "")
    return "\n".join(parts) + "\n" + (f"**{last}**" if fmt == "markdown" else last) + "\n"


def _format_one(changes: Changes, a: str, b: str, fmt: str) -> str:
    if fmt == "json":
        return json.dumps({**_head(), "a": a, "b": b, **changes.to_dict()}, indent=2, ensure_ascii=False) + "\n"
    md = fmt == "markdown"
    from tabulate import tabulate
    tablefmt = "github" if md else "simple"
    ta, tb = changes.totals
    verdict = "identical" if changes.identical else "different"
    code = (lambda s: f"`{s}`") if md else (lambda s: s)
    out = [f"## st-audit diff: `{a}` -> `{b}` ({verdict})" if md else f"st-audit diff: {a} -> {b}: {verdict}", ""]
    total_rows = [[k, f"{ta.get(k) or 0:,}", f"{tb.get(k) or 0:,}", _signed((tb.get(k) or 0) - (ta.get(k) or 0))]
                  for k in ("tensors", "parameters", "bytes")]
    out += [tabulate(total_rows, headers=["total", "a", "b", "delta"], tablefmt=tablefmt, disable_numparse=True,
                     colalign=("left", "right", "right", "right")), ""]

    def section(title: str, lines: list[str]) -> None:
        if lines:
            out.extend([f"### {title}", ""] if md else [f"{title}:"])
            out.extend(_limited([f"- {line}" if md else f"  {line}" for line in lines]))
            out.append("")

    section(f"added ({plural(len(changes.added), 'tensor')})", [code(p) for p in patterns(changes.added)])
    section(f"removed ({plural(len(changes.removed), 'tensor')})", [code(p) for p in patterns(changes.removed)])
    section(f"shape changes ({plural(len(changes.reshaped), 'tensor')})",
            [f"{code(p)} {_shape(x)} -> {_shape(y)}" for p, x, y in changes.grouped(changes.reshaped)])
    section(f"dtype changes ({plural(len(changes.retyped), 'tensor')})",
            [f"{code(p)} {x} -> {y}" for p, x, y in changes.grouped(changes.retyped)])
    section("metadata changes", [f"{f}: {value(x)} -> {value(y)}" for f, x, y in changes.meta])
    section(f"config.json changes ({len(changes.config):,})", [f"{code(k)}: {x!r} -> {y!r}" for k, x, y in changes.config])
    section(f"content changes ({len(changes.content):,} files)",
            [f"{code(n)} {how} {value(x) if how == 'size' else x} -> {value(y) if how == 'size' else y}"
             for n, how, x, y in changes.content])
    for title, head, rows in (("parameters by component", "component", changes.components),
                              ("parameters by dtype", "dtype", changes.dtypes),
                              ("parameters by tensor pattern", "pattern", changes.templates)):
        if rows:
            table = [[code(k) if head == "pattern" else k, f"{x:,}", f"{y:,}", _signed(y - x)]
                     for k, x, y in rows[:MAX_LISTED]]
            out += [f"### {title}", ""] if md else [f"{title}:"]
            out += [tabulate(table, headers=[head, "a", "b", "delta"], tablefmt=tablefmt, disable_numparse=True,
                             colalign=("left", "right", "right", "right")), ""]
            if len(rows) > MAX_LISTED:
                out += [f"... and {len(rows) - MAX_LISTED:,} more", ""]
    section("file layout (informational)", changes.files_changed)
    return "\n".join(out).rstrip("\n") + "\n"


def _head() -> dict[str, Any]:
    """What every JSON document of st-audit starts with: its schema version and the tool that wrote it."""
    from ..core.version import __version__
    from ..report.single import SCHEMA_VERSION
    return {"schema_version": SCHEMA_VERSION, "tool": {"name": "st-audit", "version": __version__}}


def _signed(n: int) -> str:
    return "0" if n == 0 else f"{n:+,}"
