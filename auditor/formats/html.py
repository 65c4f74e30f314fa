"""``-f html``: one self-contained page (inline CSS, SVG and a few lines of script; nothing fetched) showing the
report: the verdict and the formula, where the parameters go, one bar per layer, the module tree and the findings
grouped by root cause. A pure function of the report, like every format.

A report of sections (pipeline, sentence-transformers model, several targets) is one page too: the whole's
verdict and a donut of its sections, then each section as a single report's body. The tree is built from the
tensor groups (``tree.py``), so a 92k-tensor checkpoint stays a small page.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from ..core.findings import Finding
from ..inventory.patterns import patterns
from ..report.composite import AnyReport, CompositeReport, kind_line
from ..report.single import Report
from .common import ledger_label, summary_line
from .htmlfiles import files_view
from .htmlstyle import CSS, JS
from .htmlviews import per_layer, section_slices, tree_view, where_parameters_go
from .numbers import human
from .tree import module_tree

HANDLES_SECTIONS = True  # formats.formatter hands a report of sections to format_report whole
MAX_PATTERNS = 8  # tensor patterns shown under a finding (the JSON report has them all)
_MANY_NAMES = 5_000  # above this, patterns are looked up in the report's groups (as report.to_dict does)


def format_report(report: AnyReport) -> str:
    title = f"st-audit: {report.target}"
    if isinstance(report, Report):
        body = _header(report, 1) + _body(report, "r") + variants_view(report, "r")
    else:
        body = _composite(report)
    from ..core.version import __version__
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f'<meta name="color-scheme" content="light dark"><title>{escape(title)}</title>'
            f'<style>{CSS}</style></head><body>{body}<footer>st-audit {escape(__version__)}: audited from the '
            f'safetensors headers; this page is self-contained (nothing is fetched).</footer>'
            f'<script>{JS}</script></body></html>\n')


def _verdict(verdict: str) -> str:
    return f'<span class="verdict {verdict}">{verdict.upper()}</span>'


def _header(report: Report, level: int) -> str:
    """Target, kind, verdict, the summary line, expected vs stored and the formula."""
    rec = report.reconciliation
    t = report.totals
    kind = kind_line(report.extra.get("kind"))
    h = f"h{level}"
    out = [f'<{h}>{_verdict(report.verdict)}<code>{escape(report.target)}</code></{h}>']
    facts = [escape(kind)] if kind else []
    arch = " / ".join(x for x in (rec.model_type, rec.architecture) if x)
    if arch and arch not in kind:
        facts.append(f"architecture {escape(arch)}")
    if rec.spec is not None:
        layout = "" if rec.spec["layout"] == "default" else f", stored as {rec.spec['layout']}"
        facts.append(f"formula from <code>{escape(rec.spec['file'])}</code> ({escape(rec.spec['class'])}"
                     f"{escape(layout)})")
    source = report.source
    if source.get("repo"):
        facts.append(f"Hub repo <code>{escape(str(source['repo']))}</code>"
                     + (f" @ <code>{escape(str(source['commit']))[:12]}</code>" if source.get("commit") else ""))
    facts.append(f"{len(report.files):,} file{'s' if len(report.files) != 1 else ''} audited"
                 + (f", {len(report.ignored_files):,} not audited" if report.ignored_files else ""))
    out.append(f'<div class="muted">{" &middot; ".join(facts)}</div>')
    notes = (report.extra.get("kind") or {}).get("notes", [])
    out += [f'<div class="muted">note: {escape(n)}</div>' for n in notes]
    out.append(f'<div class="summary">{escape(summary_line(report))}</div>')
    rows = []
    if rec.expected_parameters is not None:
        rows.append(("expected from config.json", rec.expected_parameters))
    rows.append(("stored parameters", t.parameters))
    if rec.activated_parameters is not None:
        rows.append(("activated per token", rec.activated_parameters))
    if rec.mtp_parameters is not None:
        rows.append(("MTP module (not counted)", rec.mtp_parameters))
    rows += [(f"ledger: {ledger_label(k, report)}", v) for k, v in rec.ledger.items() if v]
    rows += [("stored tensors", t.tensors), ("stored bytes", t.bytes)]
    out.append("<table>" + "".join(f'<tr><td>{escape(k)}</td><td class="n">{v:,}</td></tr>' for k, v in rows)
               + "</table>")
    if rec.expected_parameters is not None and rec.expected_parameters != rec.ledger.get("model"):
        d = rec.ledger.get("model", 0) - rec.expected_parameters
        out.append(f'<div class="diffneg">the model\'s stored parameters differ from the formula by {d:+,}</div>')
    if rec.formula:
        out.append(f'<div>formula:</div><div class="formula mono">{escape(rec.formula)}</div>')
    if rec.formula_by_component and rec.formula_by_component != rec.formula:
        out.append(f'<div>by component:</div><div class="formula mono">{escape(rec.formula_by_component)}</div>')
    return "".join(out)


def _body(report: Report, uid: str) -> str:
    """Charts, per-layer bars, the module tree and the findings of one checkpoint."""
    root = module_tree(report)
    packed = report.reconciliation.packed_extra
    note = (f'<p class="muted">The tree counts stored elements: packed weights encode {packed:,} parameters more '
            f'than they store (the totals count those).</p>' if packed else "")
    return (where_parameters_go(report, root) + per_layer(report, root, uid) + files_view(report)
            + tree_view(root, root.parameters) + note + findings_view(report.active_findings, report.groups))


def findings_view(findings: Sequence[Finding], groups: Any = None, title: str = "Findings") -> str:
    """Findings grouped by root cause: each consequence (``caused_by``) folded under the finding it follows from;
    checkboxes filter by severity."""
    if not findings:
        return f'<h2>{escape(title)}</h2><p class="muted">none</p>'
    roots = [f for f in findings if f.caused_by is None or not any(r.code == f.caused_by and r.caused_by is None
                                                                   for r in findings)]
    counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "info")}
    boxes = "".join(f'<label><input type="checkbox" data-sev="{s}" checked> {s} ({n:,})</label>'
                    for s, n in counts.items() if n)
    items = []
    placed: set[int] = set()
    for root in roots:
        if id(root) in placed:
            continue
        placed.add(id(root))
        caused = [f for f in findings if f.caused_by == root.code and f.caused_by is not None and f is not root
                  and root.caused_by is None and id(f) not in placed]
        placed.update(id(f) for f in caused)
        inner = ""
        if caused:
            inner = (f'<details class="cons"><summary>{len(caused):,} consequence{"s" if len(caused) > 1 else ""}'
                     f' of this</summary>{"".join(_finding(f, groups, "") for f in caused)}</details>')
        items.append(_finding(root, groups, inner))
    return (f'<div class="findings"><h2>{escape(title)}</h2><div class="toolbar sevfilter"><span>show:</span>'
            f'{boxes}</div>{"".join(items)}<p class="none muted hidden">no finding of the severities chosen</p>'
            f'</div>')


def _finding(f: Finding, groups: Any, inner: str) -> str:
    pats = ""
    if f.tensors:
        shown = patterns(f.tensors, groups if len(f.tensors) > _MANY_NAMES else None)
        more = f" and {len(shown) - MAX_PATTERNS:,} more patterns" if len(shown) > MAX_PATTERNS else ""
        pats = (f'<div class="pat mono">{len(f.tensors):,} tensor{"s" if len(f.tensors) > 1 else ""}: '
                f'{escape("; ".join(shown[:MAX_PATTERNS]))}{more}</div>')
    files = f'<div class="pat mono">files: {escape(", ".join(f.files[:10]))}</div>' if f.files else ""
    return (f'<div class="finding {f.severity}" data-sev="{f.severity}"><span class="sev">{f.severity}</span>'
            f'<code>{escape(f.code)}</code> {escape(f.message)}{pats}{files}{inner}</div>')


def _composite(report: CompositeReport, uid: str = "s") -> str:
    """The whole's verdict and sections donut, then every section as a report of its own, in a fold of its own
    (open when the section fails) whose summary line says its verdict and counts."""
    out = [f'<h1>{_verdict(report.verdict)}<code>{escape(report.target)}</code></h1>',
           f'<div class="muted">{escape(kind_line(report.kind.to_dict()))}</div>']
    out += [f'<div class="muted">note: {escape(n)}</div>' for n in report.kind.notes]
    out.append(f'<div class="summary">{escape(summary_line(report))}</div>')
    rows = "".join(f'<tr><td>{_verdict(s.report.verdict)}</td><td><a href="#{uid}{i}"><code>{escape(s.part.name)}'
                   f'</code></a></td><td>{escape(s.part.kind)}{", " + escape(s.part.role) if s.part.role else ""}'
                   f'</td><td class="variants">{_variant_cell(s.report)}</td>'
                   f'<td class="n">{int(s.report.total_counts()["parameters"]):,}</td></tr>'
                   for i, s in enumerate(report.sections))
    out.append(f'<table><tr><th></th><th>section</th><th>kind</th><th>variants (counted first)</th>'
               f'<th class="n">parameters</th></tr>{rows}</table>')
    out.append(section_slices(report))
    if report.active_findings:
        out.append(findings_view(report.active_findings, title="Findings about the whole"))
    for i, s in enumerate(report.sections):
        inner = s.report
        if isinstance(inner, Report):
            content = _header(inner, 2) + _body(inner, f"{uid}{i}") + variants_view(inner, f"{uid}{i}")
        else:
            content = _composite(inner, f"{uid}{i}-").replace("<h1>", "<h2>").replace("</h1>", "</h2>")
        out.append(f'<details class="part" id="{uid}{i}"{" open" if inner.verdict == "fail" else ""}>'
                   f'<summary>{_fold_line(s, i, len(report.sections))}</summary>{content}</details>')
    return "".join(out)


def _variant_cell(report: AnyReport) -> str:
    """The variants a section's weights come in, the counted one first and marked, each alternate with its verdict:
    ``default (counted) · fp16 PASS``."""
    if not isinstance(report, Report) or (report.variant is None and not report.alternates):
        return '<span class="muted">-</span>'
    counted = f'<span class="vcounted">{escape(report.variant or "default")} (counted)</span>'
    return " &middot; ".join([counted] + [f'<span class="valt" data-variant="{escape(a.variant)}">'
                                          f'{escape(a.variant)} {_verdict(a.report.verdict)}</span>'
                                          for a in report.alternates])


def variants_view(report: Report, uid: str) -> str:
    """A checkpoint's alternate variants (``unet``'s fp16 weights): one table row per variant, the counted weights
    first, then each alternate in a fold of its own (open when it fails) with its files and findings. They are
    the same model again: the totals, the charts and the tree above are the counted weights' only."""
    if not report.alternates:
        return ""
    counted = "the default weights" if report.variant is None else f"variant {report.variant}"

    def row(name: str, r: Report, role: str) -> str:
        t = r.totals
        dtypes = ", ".join(t.by_dtype)
        files = escape(", ".join(f.name for f in r.files[:3]) + (f" (+ {len(r.files) - 3:,})" if len(r.files) > 3
                                                                  else ""))
        return (f'<tr class="{role}"><td>{_verdict(r.counted_verdict)}</td><td><code>{escape(name)}</code></td>'
                f'<td>{role}</td><td class="mono">{files}</td><td>{escape(dtypes)}</td><td class="n">{t.tensors:,}'
                f'</td><td class="n">{t.parameters:,}</td><td class="n">{t.bytes:,}</td></tr>')

    rows = row(report.variant or "default", report, "counted") + "".join(
        row(a.variant, a.report, "alternate") for a in report.alternates)
    out = [f'<div class="variants"><h2>Variants</h2><p class="muted">The same model is stored more than once: '
           f'{escape(counted)} are counted (the totals, charts and tree above); each alternate is audited in full '
           f'and judged with them, never counted.</p><table><tr><th></th><th>variant</th><th>role</th><th>files</th>'
           f'<th>dtypes</th><th class="n">tensors</th><th class="n">parameters</th><th class="n">bytes</th></tr>'
           f'{rows}</table>']
    for i, a in enumerate(report.alternates):
        r = a.report
        c = r.severity_counts()
        counts = ", ".join(f"{c[k]:,} {w}{'' if c[k] == 1 else 's'}" for k, w in
                           (("error", "error"), ("warning", "warning"), ("info", "note")))
        out.append(f'<details class="part alternate" id="{uid}v{i}"{" open" if r.verdict == "fail" else ""}>'
                   f'<summary>{_verdict(r.verdict)}<code>variant {escape(a.variant)}</code> <span class="muted">'
                   f'alternate of {escape(counted)}, not counted &middot; {r.totals.tensors:,} tensors, '
                   f'{r.totals.parameters:,} parameters; {counts}</span></summary>'
                   + files_view(r) + findings_view(r.active_findings, r.groups, f"Findings of variant {a.variant}")
                   + '</details>')
    return "".join(out) + "</div>"


def _fold_line(s: Any, i: int, n: int) -> str:
    """A section's fold, closed: its verdict, name and kind, then tensors, parameters and findings."""
    t = s.report.total_counts()
    c = s.report.severity_counts()
    role = f", {s.part.role}" if s.part.role else ""
    counts = ", ".join(f"{c[k]:,} {w}{'' if c[k] == 1 else 's'}" for k, w in
                       (("error", "error"), ("warning", "warning"), ("info", "note")))
    alternates = s.report.alternates if isinstance(s.report, Report) else ()
    also = (f' &middot; {len(alternates):,} alternate variant{"s" if len(alternates) > 1 else ""} '
            f'({escape(", ".join(a.variant for a in alternates))}), not counted' if alternates else "")
    return (f'{_verdict(s.report.verdict)}<code>{escape(s.part.name)}</code> <span class="muted">'
            f'{escape(s.part.kind + role)} &middot; section {i + 1} of {n} &middot; {int(t["tensors"]):,} tensors, '
            f'{int(t["parameters"]):,} parameters ({human(int(t["parameters"]))}){also}; {counts}</span>')
