"""The ``st-audit diff`` output: what changed between two checkpoints, as a table, Markdown or JSON.

A pure function of the comparison (``drift.Changes``), beside the report formats and ``formula.py``.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.findings import plural
from ..core.untrusted import markdown, markdown_code, printable
from ..gate.drift import Changes, unread_reason, value
from ..gate.lock import label, under
from ..inventory.patterns import patterns

MAX_LISTED = 50


def _shape(s: Any) -> str:
    return "[" + ", ".join(str(d) for d in s) + "]"


def _limited(lines: list[str], limit: int = MAX_LISTED) -> list[str]:
    return lines[:limit] + ([f"... and {len(lines) - limit:,} more"] if len(lines) > limit else [])


def format_diff(
    sections: list[tuple[str, Changes]] | Changes, a: str, b: str, fmt: str = "table", width: int | None = None
) -> str:
    """One checkpoint's changes as before; a target of sections (a pipeline) section by section, each under its
    name (``a/unet -> b/unet``), then one verdict."""
    if isinstance(sections, Changes):
        sections = [("", sections)]
    if len(sections) == 1 and sections[0][0] == "":
        return _format_one(sections[0][1], a, b, fmt, width)
    identical = all(c.identical for _, c in sections)
    complete = all(c.complete for _, c in sections)
    if fmt == "json":
        return (
            json.dumps(
                {
                    **_head(),
                    "a": a,
                    "b": b,
                    "identical": identical,
                    "complete": complete,
                    "sections": [{"name": name, **c.to_dict()} for name, c in sections],
                },
                indent=2,
                ensure_ascii=False,
            )
            + "\n"
        )
    verdict = "identical" if identical else "different" if complete else "incomplete"
    parts = [_format_one(c, under(a, name), under(b, name), fmt, width) for name, c in sections]
    changed = [label(name) for name, c in sections if not c.identical]
    last = f"st-audit diff: {a} -> {b}: {verdict}" + (f" ({', '.join(changed)})" if changed else "")
    return "\n".join(parts) + "\n" + (f"**{markdown(last)}**" if fmt == "markdown" else printable(last)) + "\n"


def _format_one(changes: Changes, a: str, b: str, fmt: str, width: int | None = None) -> str:
    """One section's changes; ``width``: a terminal's columns, which the tables stay within (formats.fit)."""
    if fmt == "json":
        return json.dumps({**_head(), "a": a, "b": b, **changes.to_dict()}, indent=2, ensure_ascii=False) + "\n"
    md = fmt == "markdown"
    from tabulate import tabulate

    from .fit import fit_table

    tablefmt = "github" if md else "simple"
    ta, tb = changes.totals
    sides = {"a": a, "b": b}
    unread = {side: [(n, c, w) for s, n, c, w in changes.unread if s == side] for side in sides}
    verdict = (
        "identical"
        if changes.identical
        else "different"
        if changes.complete
        else "incomplete: "
        + ", ".join(
            f"{plural(len(files), 'file')} of {sides[side]} could not be read"
            for side, files in unread.items()
            if files
        )
    )
    # names, dtypes, config values and file names are the checkpoints' text
    code = markdown_code if md else printable
    text = markdown if md else printable
    out = [
        f"## st-audit diff: {code(a)} -> {code(b)} ({text(verdict)})"
        if md
        else printable(f"st-audit diff: {a} -> {b}: {verdict}"),
        "",
    ]
    total_rows = [
        [k, f"{ta.get(k) or 0:,}", f"{tb.get(k) or 0:,}", _signed((tb.get(k) or 0) - (ta.get(k) or 0))]
        for k in ("tensors", "parameters", "bytes")
    ]
    out += [
        tabulate(
            total_rows,
            headers=["total", "a", "b", "delta"],
            tablefmt=tablefmt,
            disable_numparse=True,
            colalign=("left", "right", "right", "right"),
        ),
        "",
    ]

    def section(title: str, lines: list[str]) -> None:
        if lines:
            out.extend([f"### {title}", ""] if md else [f"{title}:"])
            out.extend(_limited([f"- {line}" if md else f"  {line}" for line in lines]))
            out.append("")

    # files that could not be read first: what they are (a Git LFS pointer: `git lfs pull`), and the tensors of the
    # other side they may hold, not compared (never "removed" or "added")
    for side, files in unread.items():
        by_reason: dict[str, list[str]] = {}
        for name, root, what in files:
            by_reason.setdefault(unread_reason(root, what), []).append(name)
        for reason, names in by_reason.items():
            section(
                f"could not be read in {side} ({plural(len(names), 'file')}): {text(reason)}", [code(n) for n in names]
            )
    for side, other in (("b", "a"), ("a", "b")):
        names = changes.not_compared_in(side)
        section(
            f"not compared ({plural(len(names), 'tensor')} of {other}: {side}'s unread files may hold them)",
            [code(p) for p in patterns(names)],
        )
    section(f"added ({plural(len(changes.added), 'tensor')})", [code(p) for p in patterns(changes.added)])
    section(f"removed ({plural(len(changes.removed), 'tensor')})", [code(p) for p in patterns(changes.removed)])
    section(
        f"shape changes ({plural(len(changes.reshaped), 'tensor')})",
        [f"{code(p)} {_shape(x)} -> {_shape(y)}" for p, x, y in changes.grouped(changes.reshaped)],
    )
    section(
        f"dtype changes ({plural(len(changes.retyped), 'tensor')})",
        [f"{code(p)} {text(str(x))} -> {text(str(y))}" for p, x, y in changes.grouped(changes.retyped)],
    )
    section("metadata changes", [f"{f}: {text(value(x))} -> {text(value(y))}" for f, x, y in changes.meta])
    section(
        f"config.json changes ({len(changes.config):,})",
        [f"{code(k)}: {text(repr(x))} -> {text(repr(y))}" for k, x, y in changes.config],
    )
    section(
        f"content changes ({len(changes.content):,} files)",
        [
            f"{code(n)} {how} {value(x) if how == 'size' else text(str(x))} -> "
            f"{value(y) if how == 'size' else text(str(y))}"
            for n, how, x, y in changes.content
        ],
    )
    if not changes.complete and (changes.components or changes.dtypes or changes.templates):
        out += [
            f"parameter deltas: not shown ({plural(len(changes.not_compared), 'tensor')} not compared: "
            "the counts above are of what could be read)",
            "",
        ]
    for title, head, rows in (
        ("parameters by component", "component", changes.components),
        ("parameters by dtype", "dtype", changes.dtypes),
        ("parameters by tensor pattern", "pattern", changes.templates),
    ):
        if rows and changes.complete:
            cell = (
                (lambda k: markdown_code(k, cell=True))
                if md and head == "pattern"
                else code
                if head == "pattern"
                else text
            )
            table = [[cell(k), f"{x:,}", f"{y:,}", _signed(y - x)] for k, x, y in rows[:MAX_LISTED]]
            out += [f"### {title}", ""] if md else [f"{title}:"]
            out += [
                tabulate(
                    table,
                    headers=[head, "a", "b", "delta"],
                    tablefmt=tablefmt,
                    disable_numparse=True,
                    colalign=("left", "right", "right", "right"),
                )
                if md
                else fit_table(
                    table,
                    [head, "a", "b", "delta"],
                    width=width,
                    colalign=("left", "right", "right", "right"),
                    wrap=head,
                ),
                "",
            ]
            if len(rows) > MAX_LISTED:
                out += [f"... and {len(rows) - MAX_LISTED:,} more", ""]
    section("file layout (informational)", [text(line) for line in changes.files_changed])
    return "\n".join(out).rstrip("\n") + "\n"


def _head() -> dict[str, Any]:
    """What every JSON document of st-audit starts with: its schema version and the tool that wrote it."""
    from ..core.version import __version__
    from ..report.single import SCHEMA_VERSION

    return {"schema_version": SCHEMA_VERSION, "tool": {"name": "st-audit", "version": __version__}}


def _signed(n: int) -> str:
    return "0" if n == 0 else f"{n:+,}"
