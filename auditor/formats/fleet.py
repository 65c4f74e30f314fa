"""``st-audit report FLEET.jsonl``: one view of a fleet run — counts by verdict, kind and family, then one row per
target (target, kind, parameters, verdict, the root finding), as a terminal table, Markdown for
``$GITHUB_STEP_SUMMARY`` or one self-contained HTML page (sortable, filterable, each row linking to the target's
own report when the run wrote them with ``--html-dir``).

Pure functions of the run's lines (``Fleet``): the lines are read by ``fleet.sink``; these only render them.
Everything that came from a checkpoint, a target list or the lines themselves (names, kinds, messages) is escaped
for the format it goes into, through ``core/untrusted.py`` as every other format does.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.untrusted import html as escape  # control characters shown, then HTML-escaped
from ..core.untrusted import markdown, printable
from .numbers import human

MARKDOWN_ROWS = 500  # failing rows shown in Markdown ($GITHUB_STEP_SUMMARY takes at most 1 MiB)
VERDICTS = ("fail", "error", "pass")


@dataclass(frozen=True)
class Row:
    """One target of the run, as the fleet views show it."""

    target: str
    kind: str
    family: str
    parameters: int | None
    verdict: str
    exit_code: int
    root: str  # the root finding ("code: message") or the error; "" for a pass
    html: str | None  # the target's own page, relative to where the fleet page is written


@dataclass(frozen=True)
class Fleet:
    """The rows (the last line of each target) and the run's summary line, if it has one."""

    rows: list[Row]
    summary: dict[str, Any] | None = None
    source: str = ""
    counts: dict[str, Counter[str]] = field(default_factory=dict)


def fleet_of(docs: Sequence[dict[str, Any]], *, source: str = "", page_dir: str | None = None) -> Fleet:
    """The fleet view of a run's JSON lines (``fleet.sink.lines``): per target the last line; ``page_dir``: the
    folder the HTML page goes to (links to the targets' own pages are made relative to it)."""
    last: dict[str, dict[str, Any]] = {}
    summary = None
    for doc in docs:
        fleet = doc.get("fleet")
        if isinstance(doc.get("summary"), dict):
            summary = doc["summary"]
        elif isinstance(fleet, dict) and isinstance(fleet.get("target"), str):
            last.pop(fleet["target"], None)
            last[fleet["target"]] = doc
    rows = [_row(doc, page_dir) for doc in last.values()]
    counts = {
        "verdict": Counter(r.verdict for r in rows),
        "kind": Counter(r.kind for r in rows),
        "family": Counter(r.family for r in rows),
    }
    return Fleet(rows, summary, source, counts)


def _row(doc: dict[str, Any], page_dir: str | None) -> Row:
    fleet = doc["fleet"]
    kind: dict[str, Any] = doc["kind"] if isinstance(doc.get("kind"), dict) else {}
    totals: dict[str, Any] = doc["totals"] if isinstance(doc.get("totals"), dict) else {}
    verdict = str(doc.get("verdict") or "error")
    verdict = verdict if verdict in VERDICTS else "error"
    family = str(doc.get("model_type") or doc.get("architecture") or kind.get("detail") or "") or "-"
    html = fleet.get("html")
    if isinstance(html, str) and page_dir is not None:
        html = os.path.relpath(html, page_dir)
    code = doc.get("exit_code")
    return Row(
        str(fleet["target"]),
        str(kind.get("kind") or ("-" if verdict == "error" else "?")),
        family,
        totals.get("parameters") if isinstance(totals.get("parameters"), int) else None,
        verdict,
        code if isinstance(code, int) else 4,
        _root(doc),
        html if isinstance(html, str) else None,
    )


def _root(doc: dict[str, Any]) -> str:
    """Why a target failed, in one line: its error, or its first root finding at the worst severity."""
    if doc.get("error"):
        return str(doc["error"])
    if doc.get("verdict") != "fail":
        return ""
    order = {"error": 0, "warning": 1, "info": 2}
    roots = [f for f in doc.get("findings") or [] if isinstance(f, dict) and not f.get("caused_by")]
    if not roots:
        return ""
    worst = min(roots, key=lambda f: order.get(str(f.get("severity")), 3))
    where = f"{worst['section']}: " if worst.get("section") else ""
    return f"{worst.get('code')}: {where}{worst.get('message', '')}"


def _ordered(rows: list[Row]) -> list[Row]:
    """Failing first (errors, then fails), then passes; by target within each."""
    rank = {"error": 0, "fail": 1, "pass": 2}
    return sorted(rows, key=lambda r: (rank[r.verdict], r.target))


def _headline(fleet: Fleet) -> str:
    v = fleet.counts["verdict"]
    word = "ERROR" if v["error"] else "FAIL" if v["fail"] else "PASS"
    return f"{word}: {len(fleet.rows):,} targets: {v['pass']:,} pass, {v['fail']:,} fail, {v['error']:,} could not be audited"


# -- terminal --------------------------------------------------------------------------------------------------


def format_table(fleet: Fleet, width: int = 120) -> str:
    from tabulate import tabulate

    out = [_headline(fleet), ""]
    for what in ("kind", "family"):
        counts = ", ".join(f"{printable(k)} {n:,}" for k, n in fleet.counts[what].most_common(12))
        more = len(fleet.counts[what]) - 12
        out.append(f"by {what}: {counts}{f', ... {more} more' if more > 0 else ''}")
    out.append("")
    ordered = _ordered(fleet.rows)
    # the target and the root finding share what kind, parameters and verdict (~45 columns) leave
    target_width = min(
        48, max(16, (width - 45) // 2), max([len("target")] + [len(printable(r.target)) for r in ordered])
    )
    cells = [
        [
            _clip_start(printable(r.target), target_width),
            printable(r.kind),
            human(r.parameters) if r.parameters is not None else "-",
            r.verdict.upper(),
        ]
        for r in ordered
    ]
    headers = ["target", "kind", "parameters", "verdict"]
    used = max(len(line) for line in tabulate(cells or [headers], headers=headers, disable_numparse=True).splitlines())
    # the root finding takes what the other columns leave (tabulate pads it by 2 and puts 2 spaces before it)
    room = max(12, width - used - 4)
    rows = [[*row, _clip(printable(r.root), room)] for row, r in zip(cells, ordered)]
    out.append(
        tabulate(rows, headers=["target", "kind", "parameters", "verdict", "root finding"], disable_numparse=True)
    )
    return "\n".join(out) + "\n"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _clip_start(text: str, width: int) -> str:
    """A long target keeps its end (the model's own name), not the folders above it."""
    return text if len(text) <= width else "..." + text[-(width - 3) :]


# -- Markdown --------------------------------------------------------------------------------------------------


def format_markdown(fleet: Fleet) -> str:
    v = fleet.counts["verdict"]
    out = [f"## st-audit fleet: {markdown(_headline(fleet))}", ""]
    out += ["| verdict | targets |", "|---|---:|"] + [f"| {w} | {v[w]:,} |" for w in ("pass", "fail", "error")] + [""]
    for what in ("kind", "family"):
        out += [f"| {what} | targets |", "|---|---:|"]
        out += [f"| {markdown(k)} | {n:,} |" for k, n in fleet.counts[what].most_common(20)] + [""]
    failing = [r for r in _ordered(fleet.rows) if r.verdict != "pass"]
    if failing:
        out += ["| target | kind | parameters | verdict | root finding |", "|---|---|---:|---|---|"]
        for r in failing[:MARKDOWN_ROWS]:
            params = human(r.parameters) if r.parameters is not None else "-"
            out.append(
                f"| {markdown(r.target)} | {markdown(r.kind)} | {params} | {r.verdict.upper()} | {markdown(_clip(r.root, 200))} |"
            )
        if len(failing) > MARKDOWN_ROWS:
            out.append(
                f"\n... and {len(failing) - MARKDOWN_ROWS:,} more failing targets (`st-audit report FILE` shows all)"
            )
    return "\n".join(out) + "\n"


# -- HTML ------------------------------------------------------------------------------------------------------

_FLEET_CSS = """
body{margin:0;padding:24px 32px;font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;
color:#1f2328;background:#fff}@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}
th{background:#151b23!important}td,th{border-color:#3d444d!important}}
h1{font-size:22px;margin:0 0 8px}.muted{color:#59636e}.counts{display:flex;gap:28px;flex-wrap:wrap;margin:12px 0}
.counts table{border-collapse:collapse}.counts td{padding:1px 8px}
.v{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:700;color:#fff;font-size:12px}
.v.pass{background:#1a7f37}.v.fail{background:#cf222e}.v.error{background:#8250df}
#rows{border-collapse:collapse;width:100%;margin-top:8px}#rows th,#rows td{padding:3px 8px;border-bottom:1px solid #d1d9e0;
text-align:left;vertical-align:top}#rows th{position:sticky;top:0;background:#f6f8fa;cursor:pointer;user-select:none}
#rows td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}#rows td:nth-child(2){white-space:nowrap}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;word-break:break-all}
.controls{display:flex;gap:12px;align-items:center;margin:8px 0}input[type=search]{width:28em;padding:4px 8px}
"""

_FLEET_JS = """
(function(){var t=document.getElementById('rows'),b=t.tBodies[0],q=document.getElementById('q'),
v=document.getElementById('verdict'),n=document.getElementById('shown');
function apply(){var s=q.value.toLowerCase(),w=v.value,k=0;for(var r of b.rows){var ok=(!w||r.dataset.verdict===w)&&
(!s||r.textContent.toLowerCase().indexOf(s)>=0);r.hidden=!ok;if(ok)k++}n.textContent=k}
q.addEventListener('input',apply);v.addEventListener('change',apply);
t.tHead.addEventListener('click',function(e){var th=e.target.closest('th');if(!th)return;var i=th.cellIndex,
d=th.dataset.dir==='asc'?'desc':'asc';th.dataset.dir=d;var rows=Array.from(b.rows);rows.sort(function(a,c){
var x=a.cells[i].dataset.key||a.cells[i].textContent,y=c.cells[i].dataset.key||c.cells[i].textContent,
nx=parseFloat(x),ny=parseFloat(y),r=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return d==='asc'?r:-r});
rows.forEach(function(r){b.appendChild(r)})});apply()})();
"""


def format_html(fleet: Fleet) -> str:
    from ..core.version import __version__

    v = fleet.counts["verdict"]

    def counts(what: str) -> str:
        cells = "".join(f"<tr><td>{escape(k)}</td><td>{n:,}</td></tr>" for k, n in fleet.counts[what].most_common(25))
        return f"<div><b>by {what}</b><table>{cells}</table></div>"

    rows = []
    for r in _ordered(fleet.rows):
        target = f"<code>{escape(r.target)}</code>"
        if r.html:
            target = f'<a href="{escape(r.html, quote=True)}">{target}</a>'
        params = human(r.parameters) if r.parameters is not None else "-"
        rows.append(
            f'<tr data-verdict="{r.verdict}"><td>{target}</td><td>{escape(r.kind)}</td>'
            f'<td>{escape(r.family)}</td><td class="n" data-key="{r.parameters or 0}">{params}</td>'
            f'<td data-key="{r.verdict}"><span class="v {r.verdict}">{r.verdict.upper()}</span></td>'
            f"<td>{escape(r.root)}</td></tr>"
        )
    summary = fleet.summary or {}
    took = f" &middot; {summary['seconds']:.1f} s" if isinstance(summary.get("seconds"), (int, float)) else ""
    options = "".join(f'<option value="{w}">{w} ({v[w]:,})</option>' for w in ("fail", "error", "pass"))
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" '
        f'content="light dark"><title>st-audit fleet: {escape(fleet.source)}</title><style>{_FLEET_CSS}</style>'
        f'</head><body><h1>{escape(_headline(fleet))}</h1><div class="muted">{escape(fleet.source)}{took}</div>'
        f'<div class="counts"><div><b>by verdict</b><table>'
        + "".join(
            f'<tr><td><span class="v {w}">{w.upper()}</span></td><td>{v[w]:,}</td></tr>'
            for w in ("pass", "fail", "error")
        )
        + f"</table></div>{counts('kind')}{counts('family')}</div>"
        f'<div class="controls"><input id="q" type="search" placeholder="filter: target, kind, family, finding" '
        f'aria-label="filter"><select id="verdict" aria-label="verdict"><option value="">all verdicts</option>'
        f'{options}</select><span class="muted"><span id="shown">{len(rows)}</span> shown</span></div>'
        f'<table id="rows"><thead><tr><th>target</th><th>kind</th><th>family</th><th>parameters</th>'
        f"<th>verdict</th><th>root finding</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        f'<footer class="muted">st-audit {escape(__version__)}; self-contained page (nothing fetched).</footer>'
        f"<script>{_FLEET_JS}</script></body></html>\n"
    )
