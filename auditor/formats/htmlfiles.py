"""The HTML report's files view: every file of the checkpoint as one row (name, size, tensors, the severity mark
the tree uses and the findings naming it), so a finding about a file rather than its tensors (a Git LFS pointer, a
truncated shard, a shard the index names that is not there, ``shard-unreferenced``, a wrong ``total_size``) shows
where it belongs. Built from what the JSON report has: ``files``, ``ignored_files`` and ``findings[].files``."""

from __future__ import annotations

from collections import Counter

from ..core.findings import SEVERITY_RANK, Finding
from ..core.untrusted import html as escape  # control characters shown, then HTML-escaped
from ..report.single import Report
from .htmlviews import size


def _worst(findings: list[Finding]) -> str | None:
    return max((f.severity for f in findings), key=SEVERITY_RANK.__getitem__, default=None)


# above this many rows, the rows no finding names are folded away (a toggle shows them): DeepSeek-V3's 163
# shards would otherwise push the module tree a page down
FOLD_ROWS = 12


def _naming(report: Report) -> dict[str, list[Finding]]:
    naming: dict[str, list[Finding]] = {}
    for f in report.active_findings:
        for name in f.files:
            naming.setdefault(name, []).append(f)
    return naming


def file_rows(report: Report) -> list[tuple[str, str, str, str]]:
    """(name, state, size, tensors) per row: audited files in order, then index shards that are not there, files
    not audited, and the other files findings name (config.json, the index)."""
    naming = _naming(report)
    lost_tensors = Counter(report.lost.tensors.values())  # unread file -> tensors the index puts in it
    rows: list[tuple[str, str, str, str]] = []  # name, state, size, tensors
    for fs in report.files:
        unread = fs.name in report.lost.files or not fs.ok and not fs.tensors
        held = lost_tensors.get(fs.name)
        tensors = f"{fs.tensors:,}" if not unread else (f"{held:,} not checked" if held else "not read")
        rows.append((fs.name, "unread" if unread else "", size(fs.size) if fs.size is not None else "", tensors))
    seen = {fs.name for fs in report.files}
    for name in report.lost.files:
        if name not in seen:
            held = lost_tensors.get(name)
            rows.append((name, "absent", "", f"{held:,} not checked" if held else ""))
            seen.add(name)
    for name, why in sorted(report.ignored_files.items()):
        if name not in seen:
            rows.append((name, f"not audited: {why}", "", ""))
            seen.add(name)
    rows += [(name, "other", "", "") for name in naming if name not in seen]
    return rows


def file_anchors(report: Report, uid: str) -> dict[str, str]:
    """File name -> the HTML id of its row in the files view (``r-f4``), for the findings' links."""
    return {name: f"{uid}-f{i}" for i, (name, *_) in enumerate(file_rows(report))}


def files_view(report: Report, uid: str = "r", anchor: str = "") -> str:
    """The table, one row per file with the worst severity of the findings naming it. Past ``FOLD_ROWS`` rows,
    only the files something is said about (a finding, not read, missing, not audited) show until the toggle
    above the table is ticked (CSS only: readable without the script)."""
    naming = _naming(report)
    rows = file_rows(report)
    if not rows:
        return ""
    fold = len(rows) > FOLD_ROWS
    body = []
    quiet = 0
    for i, (name, state, shown_size, tensors) in enumerate(rows):
        found = naming.get(name, [])
        sev = _worst(found)
        dot = f'<span class="dot {sev}" title="{sev}"></span>' if sev else ""
        tag = {
            "unread": ' <span class="tag-missing">not read</span>',
            "absent": ' <span class="tag-missing">missing</span>',
            "other": "",
            "": "",
        }.get(state, f' <span class="muted">{escape(state)}</span>')
        codes = "".join(
            f'<span class="fcode {f.severity}" title="{escape(f.message)}">{escape(f.code)}</span>' for f in found
        )
        cls = " missing" if state == "absent" else " unread" if state == "unread" else ""
        if fold and not found and not state:
            cls += " quiet"
            quiet += 1
        body.append(
            f'<tr class="file{cls}" id="{uid}-f{i}" data-file="{escape(name)}" data-sev="{sev or "none"}">'
            f'<td class="mark">{dot}</td><td><code>{escape(name)}</code>{tag}</td>'
            f'<td class="n">{shown_size}</td><td class="n">{tensors}</td><td>{codes}</td></tr>'
        )
    flagged = sum(1 for name, *_ in rows if naming.get(name))
    note = f"{flagged:,} named by a finding" if flagged else "no finding names a file"
    unread = any(state in ("unread", "absent") for _, state, _, _ in rows)
    why = (
        " A file that could not be read leaves its tensors &ldquo;not checked&rdquo; in the tree (dashed in the "
        "layer bars)."
        if unread
        else ""
    )
    others = "other " if quiet < len(rows) else ""
    toggle = (
        f'<input type="checkbox" class="showall" id="{uid}-allfiles"><label for="{uid}-allfiles"> show the '
        f"{quiet:,} {others}files (nothing is said about them)</label>"
        if quiet
        else ""
    )
    table_cls = "files quietall" if quiet == len(rows) else "files"
    ident = f' id="{anchor}"' if anchor else ""
    return (
        f'<h2{ident}>Files</h2><p class="muted">'
        f"{len(report.files):,} audited; {note}.{why}</p>{toggle}"
        f'<table class="{table_cls}"><tr><th></th><th>file</th><th class="n">size</th><th class="n">tensors</th>'
        f"<th>findings</th></tr>{''.join(body)}</table>"
    )
