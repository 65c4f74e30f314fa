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


def files_view(report: Report) -> str:
    """The table: audited files in order, then index shards that are not there, files not audited, and the
    other files findings name (config.json, the index)."""
    naming: dict[str, list[Finding]] = {}
    for f in report.active_findings:
        for name in f.files:
            naming.setdefault(name, []).append(f)
    lost_tensors = Counter(report.lost.tensors.values())  # unread file -> tensors the index puts in it
    rows: list[tuple[str, str, str, str]] = []  # name, state, size, tensors
    for fs in report.files:
        unread = fs.name in report.lost.files or not fs.ok and not fs.tensors
        held = lost_tensors.get(fs.name)
        tensors = f"{fs.tensors:,}" if not unread else (f"{held:,} not checked" if held else "not read")
        rows.append((fs.name, "unread" if unread else "", size(fs.size) if fs.size is not None else "",
                     tensors))
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
    if not rows:
        return ""
    body = []
    for name, state, shown_size, tensors in rows:
        found = naming.get(name, [])
        sev = _worst(found)
        dot = f'<span class="dot {sev}" title="{sev}"></span>' if sev else ""
        tag = {"unread": ' <span class="tag-missing">not read</span>',
               "absent": ' <span class="tag-missing">missing</span>', "other": "", "": ""}.get(
            state, f' <span class="muted">{escape(state)}</span>')
        codes = "".join(f'<span class="fcode {f.severity}" title="{escape(f.message)}">{escape(f.code)}</span>'
                        for f in found)
        cls = " missing" if state == "absent" else " unread" if state == "unread" else ""
        body.append(f'<tr class="file{cls}" data-file="{escape(name)}" data-sev="{sev or "none"}">'
                    f'<td class="mark">{dot}</td><td><code>{escape(name)}</code>{tag}</td>'
                    f'<td class="n">{shown_size}</td><td class="n">{tensors}</td><td>{codes}</td></tr>')
    flagged = sum(1 for name, *_ in rows if naming.get(name))
    note = f'{flagged:,} named by a finding' if flagged else "no finding names a file"
    return (f'<h2>Files</h2><p class="muted">{len(report.files):,} audited; {note}. A file that could not be read '
            f'leaves its tensors &ldquo;not checked&rdquo; in the tree (dashed in the layer bars).</p>'
            f'<table class="files"><tr><th></th><th>file</th><th class="n">size</th><th class="n">tensors</th>'
            f'<th>findings</th></tr>{"".join(body)}</table>')
