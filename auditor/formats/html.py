"""``-f html``: one self-contained page (inline CSS, SVG and a few lines of script; nothing fetched) showing the
report problem first: the verdict, then the root findings with their next step (the remedy ``st-audit explain``
gives) and links to where they land in the module tree and the files view; then the counts and the formula, where
the parameters go, one bar per layer, the module tree and the files (folded past a dozen rows, the rows a finding
names always shown). A search box at the top filters the tree(s) by tensor name, in the page. A pure function of
the report, like every format.

A report of sections (pipeline, sentence-transformers model, several targets) is one page too: the whole's
verdict and the root findings of every section (each linking into its section), a donut of its sections, then
each section as a single report's body, folded unless it fails. The tree is built from the tensor groups
(``tree.py``), so a 92k-tensor checkpoint stays a small page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.findings import CODE_DATA, Finding
from ..core.untrusted import html as escape  # control characters shown, then HTML-escaped
from ..inventory.patterns import patterns
from ..report.composite import AnyReport, CompositeReport, kind_line
from ..report.single import Report
from .base import ReportFormat
from .common import ledger_label, summary_line
from .htmlfiles import file_anchors, files_view
from .htmlstyle import CSS, JS
from .htmlviews import node_anchors, per_layer, section_slices, tree_view, where_parameters_go
from .numbers import human
from .tree import Node, by_template, module_tree, where

if TYPE_CHECKING:
    from .fleet import Fleet

MAX_PATTERNS = 8  # tensor patterns shown under a finding (the JSON report has them all)
MAX_FILE_LINKS = 10  # files linked under a finding
_MANY_NAMES = 5_000  # above this, patterns are looked up in the report's groups (as report.to_dict does)
PROBLEMS = ("error", "warning")  # the severities shown open at the top; notes are folded under them


@dataclass(frozen=True)
class Place:
    """Where one checkpoint's findings can point on the page: its fold (a section, an alternate variant; "" for
    the page itself), its tree rows and file rows by HTML id, and what the whole's list calls it (``vae (fp16)``)."""

    uid: str
    fold: str = ""
    label: str = ""
    root: Node | None = None  # the module tree, built once for the links and the tree view
    nodes: dict[int, str] = field(default_factory=dict)  # id(node) -> HTML id
    files: dict[str, str] = field(default_factory=dict)  # file name -> HTML id
    leaves: dict[str, list[Node]] = field(default_factory=dict)  # template -> leaves (tree.by_template)


def _place(report: Report, uid: str, fold: str = "", label: str = "", tree: bool = True) -> Place:
    root = module_tree(report) if tree else None
    return Place(
        uid,
        fold,
        label,
        root,
        node_anchors(root, uid) if root else {},
        file_anchors(report, uid),
        by_template(root) if root else {},
    )


def format_report(report: AnyReport) -> str:
    title = f"st-audit: {report.target}"
    if isinstance(report, Report):
        place = _place(report, "r")
        body = _single(report, 1, place)
        links = [("r-findings", "Findings"), ("r-counts", "Counts"), ("r-charts", "Charts")]
        links += [
            (ident, text)
            for ident, text in (
                ("r-layers", "Per layer"),
                ("r-tree", "Module tree"),
                ("r-files", "Files"),
                ("r-variants", "Variants"),
            )
            if f'id="{ident}"' in body
        ]
    else:
        places = _places(report, "s")
        body = _composite(report, "s", places)
        links = [("s-findings", "Findings"), ("s-sections", "Sections")]
    from ..core.version import __version__

    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width,initial-scale=1">'
        f'<meta name="color-scheme" content="light dark"><title>{escape(title)}</title>'
        f"<style>{CSS}</style></head><body>{_nav(links)}{body}<footer>st-audit {escape(__version__)}: audited "
        f"from the safetensors headers; this page is self-contained (nothing is fetched).</footer>"
        f"<script>{JS}</script></body></html>\n"
    )


def _nav(links: list[tuple[str, str]]) -> str:
    """The bar that stays at the top: jump links and the search over tensor names (the script filters every
    module tree on the page as one types)."""
    jumps = " ".join(f'<a href="#{ident}">{text}</a>' for ident, text in links)
    return (
        f'<nav class="top">{jumps}<span class="search"><input type="search" id="tsearch" '
        f'placeholder="search tensor names, e.g. layers.7.self_attn" aria-label="search tensor names" '
        f'autocomplete="off" spellcheck="false"><span id="tcount" class="muted"></span></span></nav>'
    )


def _verdict(verdict: str) -> str:
    return f'<span class="verdict {verdict}">{verdict.upper()}</span>'


def _single(report: Report, level: int, place: Place) -> str:
    """One checkpoint: its verdict line, its findings (roots open with their next step), the counts, the charts,
    the tree, the files and its alternate variants."""
    uid = place.uid
    return (
        _header(report, level)
        + findings_view(report.active_findings, report.groups, place, anchor=f"{uid}-findings")
        + _counts(report, f"{uid}-counts")
        + _body(report, place)
        + variants_view(report, uid)
    )


def _header(report: Report, level: int) -> str:
    """Target, verdict, what it is and the summary line."""
    rec = report.reconciliation
    kind = kind_line(report.extra.get("kind"))
    h = f"h{level}"
    out = [f"<{h}>{_verdict(report.verdict)}<code>{escape(report.target)}</code></{h}>"]
    facts = [escape(kind)] if kind else []
    arch = " / ".join(x for x in (rec.model_type, rec.architecture) if x)
    if arch and arch not in kind:
        facts.append(f"architecture {escape(arch)}")
    if rec.spec is not None:
        layout = "" if rec.spec["layout"] == "default" else f", stored as {rec.spec['layout']}"
        facts.append(
            f"formula from <code>{escape(rec.spec['file'])}</code> ({escape(rec.spec['class'])}{escape(layout)})"
        )
    source = report.source
    if source.get("repo"):
        facts.append(
            f"Hub repo <code>{escape(str(source['repo']))}</code>"
            + (f" @ <code>{escape(str(source['commit']))[:12]}</code>" if source.get("commit") else "")
        )
    facts.append(
        f"{len(report.files):,} file{'s' if len(report.files) != 1 else ''} audited"
        + (f", {len(report.ignored_files):,} not audited" if report.ignored_files else "")
    )
    out.append(f'<div class="muted">{" &middot; ".join(facts)}</div>')
    notes = (report.extra.get("kind") or {}).get("notes", [])
    out += [f'<div class="muted">note: {escape(n)}</div>' for n in notes]
    out.append(f'<div class="summary">{escape(summary_line(report))}</div>')
    return "".join(out)


def _counts(report: Report, anchor: str) -> str:
    """Expected vs stored, the ledger, the totals and the formula."""
    rec = report.reconciliation
    t = report.totals
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
    out = [
        f'<h2 id="{anchor}">Counts</h2><table class="counts">'
        + "".join(f'<tr><td>{escape(k)}</td><td class="n">{v:,}</td></tr>' for k, v in rows)
        + "</table>"
    ]
    if rec.expected_parameters is not None and rec.expected_parameters != rec.ledger.get("model"):
        d = rec.ledger.get("model", 0) - rec.expected_parameters
        out.append(f'<div class="diffneg">the model\'s stored parameters differ from the formula by {d:+,}</div>')
    if rec.formula:
        out.append(f'<div>formula:</div><div class="formula mono">{escape(rec.formula)}</div>')
    if rec.formula_by_component and rec.formula_by_component != rec.formula:
        out.append(f'<div>by component:</div><div class="formula mono">{escape(rec.formula_by_component)}</div>')
    return "".join(out)


def _body(report: Report, place: Place) -> str:
    """Charts, per-layer bars, the module tree and the files of one checkpoint."""
    root = place.root if place.root is not None else module_tree(report)
    uid = place.uid
    packed = report.reconciliation.packed_extra
    note = (
        f'<p class="muted">The tree counts stored elements: packed weights encode {packed:,} parameters more '
        f"than they store (the totals count those).</p>"
        if packed
        else ""
    )
    return (
        where_parameters_go(report, root, f"{uid}-charts")
        + per_layer(report, root, uid, f"{uid}-layers")
        + tree_view(root, root.parameters, place.nodes, f"{uid}-tree")
        + note
        + files_view(report, uid, f"{uid}-files")
    )


def _roots(findings: Sequence[Finding]) -> list[tuple[Finding, list[Finding]]]:
    """Each root finding with its consequences (``caused_by`` its code), in order; a finding whose root is not
    here is a root itself."""
    roots = [
        f
        for f in findings
        if f.caused_by is None or not any(r.code == f.caused_by and r.caused_by is None for r in findings)
    ]
    out = []
    placed: set[int] = set()
    for root in roots:
        if id(root) in placed:
            continue
        placed.add(id(root))
        caused = [
            f
            for f in findings
            if f.caused_by == root.code
            and f.caused_by is not None
            and f is not root
            and root.caused_by is None
            and id(f) not in placed
        ]
        placed.update(id(f) for f in caused)
        out.append((root, caused))
    return out


def findings_view(
    findings: Sequence[Finding],
    groups: Any = None,
    place: Place | None = None,
    title: str = "Findings",
    anchor: str = "",
) -> str:
    """Findings grouped by root cause, problems first: each error or warning open with its next step and links to
    where it lands (tree, files), its consequences (``caused_by``) folded under it; notes (``info``) folded at the
    end. Checkboxes filter by severity."""
    ident = f' id="{anchor}"' if anchor else ""
    if not findings:
        return f'<div class="findings"><h2{ident}>{escape(title)}</h2><p class="muted">none</p></div>'
    place = place or Place("")
    counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "info")}
    boxes = "".join(
        f'<label><input type="checkbox" data-sev="{s}" checked> {s} ({n:,})</label>' for s, n in counts.items() if n
    )
    problems: list[tuple[bool, str]] = []  # (not an error, its HTML): errors first, each kind in order
    notes = []
    for root, caused in _roots(findings):
        shown = _with_consequences(root, caused, groups, place)
        if root.severity in PROBLEMS:
            problems.append((root.severity != "error", shown))
        else:
            notes.append(shown)
    problems.sort(key=lambda item: item[0])
    said = [
        f"{counts[k]:,} {w}{'' if counts[k] == 1 else 's'}"
        for k, w in (("error", "error"), ("warning", "warning"), ("info", "note"))
        if counts[k]
    ]
    head = (
        f'<h2{ident}>{escape(title)}: {", ".join(said)}</h2><div class="toolbar sevfilter"><span>show:</span>'
        f"{boxes}</div>"
    )
    if not problems:
        head += '<p class="ok">No error or warning.</p>'
    return (
        f'<div class="findings">{head}{"".join(html for _, html in problems)}{_notes(notes)}<p class="none muted hidden">no finding of the '
        f"severities chosen</p></div>"
    )


def _with_consequences(root: Finding, caused: list[Finding], groups: Any, place: Place, label: str = "") -> str:
    """A root finding, its consequences folded inside it."""
    inner = ""
    if caused:
        inner = (
            f'<details class="cons"><summary>{len(caused):,} consequence{"s" if len(caused) > 1 else ""}'
            f" of this</summary>{''.join(_finding(f, groups, place) for f in caused)}</details>"
        )
    return _finding(root, groups, place, inner, root=True, label=label)


def _notes(notes: list[str]) -> str:
    """The notes (``info`` roots), folded: nothing to fix."""
    return (
        f'<details class="notes"><summary>{len(notes):,} note{"s" if len(notes) > 1 else ""} (info: nothing to '
        f"fix)</summary>{''.join(notes)}</details>"
        if notes
        else ""
    )


def next_step(code: str) -> str:
    """What to do about a finding: the remedy ``st-audit explain CODE`` prints (``core/codes.toml``), with its
    backticks as code; empty when the code has none."""
    remedy = CODE_DATA.get(code, {}).get("remedy")
    if not remedy:
        return ""
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(remedy))
    return (
        f'<div class="next"><b>What to do:</b> {text} <span class="muted">(<code>st-audit explain '
        f"{escape(code)}</code>)</span></div>"
    )


def _finding(f: Finding, groups: Any, place: Place, inner: str = "", root: bool = False, label: str = "") -> str:
    """One finding: severity, code, message; for a root, its next step; then where it lands (the tree node its
    tensors share, the file rows it names: links that open what they point into) and its tensor patterns."""
    pats = ""
    if f.tensors:
        shown = patterns(f.tensors, groups if len(f.tensors) > _MANY_NAMES else None)
        more = f" and {len(shown) - MAX_PATTERNS:,} more patterns" if len(shown) > MAX_PATTERNS else ""
        pats = (
            f'<div class="pat mono">{len(f.tensors):,} tensor{"s" if len(f.tensors) > 1 else ""}: '
            f"{escape('; '.join(shown[:MAX_PATTERNS]))}{more}</div>"
        )
    links = []
    if label and place.fold:
        links.append(f'section <a href="#{place.fold}" class="to-section">{escape(label)}</a>')
    node = where(place.leaves, f.tensors) if f.tensors and place.leaves else None
    if node is not None and id(node) in place.nodes:
        links.append(
            f'module tree <a href="#{place.nodes[id(node)]}" class="to-tree"><code>{escape(node.path)}</code></a>'
        )
    if f.files:
        named = [(name, place.files.get(name)) for name in f.files[:MAX_FILE_LINKS]]
        more = f" and {len(f.files) - MAX_FILE_LINKS:,} more" if len(f.files) > MAX_FILE_LINKS else ""
        links.append(
            "files "
            + ", ".join(
                f'<a href="#{to}" class="to-file"><code>{escape(name)}</code></a>'
                if to
                else f"<code>{escape(name)}</code>"
                for name, to in named
            )
            + more
        )
    where_line = f'<div class="where">&rarr; {" &middot; ".join(links)}</div>' if links else ""
    step = next_step(f.code) if root and f.severity in PROBLEMS else ""
    return (
        f'<div class="finding {f.severity}" data-sev="{f.severity}"><span class="sev">{f.severity}</span>'
        f"<code>{escape(f.code)}</code> {escape(f.message)}{step}{where_line}{pats}{inner}</div>"
    )


def _places(report: CompositeReport, uid: str, label: str = "") -> dict[str, Place]:
    """Every checkpoint of a report of sections, by its uid (``s2``; ``s2v0`` its fp16 alternate; ``s0-1`` a
    section of a section), each with its tree built once for the links above it and the view inside it."""
    out: dict[str, Place] = {}
    for i, s in enumerate(report.sections):
        name = f"{label} / {s.part.name}" if label else s.part.name
        inner = s.report
        if isinstance(inner, Report):
            out[f"{uid}{i}"] = _place(inner, f"{uid}{i}", f"{uid}{i}", name)
            for j, a in enumerate(inner.alternates):
                out[f"{uid}{i}v{j}"] = _place(
                    a.report, f"{uid}{i}v{j}", f"{uid}{i}v{j}", f"{name} ({a.variant})", tree=False
                )
        else:
            out.update(_places(inner, f"{uid}{i}-", name))
    return out


def _whole_findings(report: CompositeReport, uid: str, places: dict[str, Place]) -> str:
    """What fails, first: the errors and warnings of the whole and of every section and variant (roots only, with
    their next step), each naming and linking its section; targets that could not be audited."""
    items: list[tuple[str, str]] = []  # (severity, its HTML)
    own_notes: list[str] = []  # the whole's own notes (a section's are in its fold)
    for root, caused in _roots(report.active_findings):
        shown = _with_consequences(root, caused, None, Place(uid))
        if root.severity in PROBLEMS:
            items.append((root.severity, shown))
        else:
            own_notes.append(shown)

    def walk(r: CompositeReport, prefix: str, label: str) -> None:
        for i, s in enumerate(r.sections):
            inner = s.report
            name = f"{label} / {s.part.name}" if label else s.part.name
            if isinstance(inner, CompositeReport):
                items.extend(
                    (
                        root.severity,
                        _finding(root, None, Place(f"{prefix}{i}-", f"{prefix}{i}", name), root=True, label=name),
                    )
                    for root, _ in _roots(inner.active_findings)
                    if root.severity in PROBLEMS
                )
                walk(inner, f"{prefix}{i}-", name)
                continue
            checkpoints = [(f"{prefix}{i}", inner)] + [
                (f"{prefix}{i}v{j}", a.report) for j, a in enumerate(inner.alternates)
            ]
            for key, rep in checkpoints:
                place = places[key]
                items.extend(
                    (root.severity, _finding(root, rep.groups, place, root=True, label=place.label))
                    for root, _ in _roots(rep.active_findings)
                    if root.severity in PROBLEMS
                )

    walk(report, uid, "")
    items += [
        (
            "error",
            f'<div class="finding error" data-sev="error"><span class="sev">error</span><code>'
            f"{escape(name)}</code> could not be audited: {escape(why)}</div>",
        )
        for name, why in report.could_not
    ]
    c = report.severity_counts()
    said = ", ".join(
        f"{c[k]:,} {w}{'' if c[k] == 1 else 's'}"
        for k, w in (("error", "error"), ("warning", "warning"), ("info", "note"))
    )
    if not items:
        body = (
            f'<p class="ok">No error or warning in {len(report.sections):,} section'
            f"{'s' if len(report.sections) != 1 else ''}; notes are in the sections.</p>{_notes(own_notes)}"
        )
    else:
        tally = {s: sum(sev == s for sev, _ in items) for s in PROBLEMS}
        boxes = "".join(
            f'<label><input type="checkbox" data-sev="{s}" checked> {s} ({n:,})</label>' for s, n in tally.items() if n
        )
        body = (
            f'<div class="toolbar sevfilter"><span>show:</span>{boxes}</div>{"".join(h for _, h in items)}'
            f'{_notes(own_notes)}<p class="none muted hidden">no finding of the severities chosen</p>'
        )
    return (
        f'<div class="findings whole"><h2 id="{uid}-findings">Findings: {said}</h2>'
        f'<p class="muted">The problems of every section, root causes only (their consequences and the notes '
        f"are in the sections below).</p>{body}</div>"
    )


def _composite(report: CompositeReport, uid: str, places: dict[str, Place], level: int = 1) -> str:
    """The whole's verdict and root findings, the sections table and donut, then every section as a report of its
    own, in a fold of its own (open when the section fails) whose summary line says its verdict and counts."""
    h = f"h{level}"
    out = [
        f"<{h}>{_verdict(report.verdict)}<code>{escape(report.target)}</code></{h}>",
        f'<div class="muted">{escape(kind_line(report.kind.to_dict()))}</div>',
    ]
    out += [f'<div class="muted">note: {escape(n)}</div>' for n in report.kind.notes]
    out.append(f'<div class="summary">{escape(summary_line(report))}</div>')
    if level == 1:
        out.append(_whole_findings(report, uid, places))
    elif report.active_findings:
        out.append(findings_view(report.active_findings, title="Findings about the whole"))
    rows = "".join(
        f'<tr><td>{_verdict(s.report.verdict)}</td><td><a href="#{uid}{i}"><code>{escape(s.part.name)}'
        f"</code></a></td><td>{escape(s.part.kind)}{', ' + escape(s.part.role) if s.part.role else ''}"
        f'</td><td class="variants">{_variant_cell(s.report)}</td>'
        f'<td class="n">{int(s.report.total_counts()["parameters"]):,}</td></tr>'
        for i, s in enumerate(report.sections)
    )
    rows += "".join(
        f'<tr><td>{_verdict("error")}</td><td><code>{escape(name)}</code></td><td colspan="3">could not be '
        f"audited: {escape(why)}</td></tr>"
        for name, why in report.could_not
    )  # several targets
    out.append(
        f'<h2 id="{uid}-sections">Sections</h2><table><tr><th></th><th>section</th><th>kind</th>'
        f'<th>variants (counted first)</th><th class="n">parameters</th></tr>{rows}</table>'
    )
    out.append(section_slices(report))
    for i, s in enumerate(report.sections):
        inner = s.report
        if isinstance(inner, Report):
            content = _single(inner, 2, places[f"{uid}{i}"])
        else:
            content = _composite(inner, f"{uid}{i}-", places, 2)
        out.append(
            f'<details class="part" id="{uid}{i}"{" open" if inner.verdict == "fail" else ""}>'
            f"<summary>{_fold_line(s, i, len(report.sections))}</summary>{content}</details>"
        )
    return "".join(out)


def _variant_cell(report: AnyReport) -> str:
    """The variants a section's weights come in, the counted one first and marked, each alternate with its verdict:
    ``default (counted) · fp16 PASS``."""
    if not isinstance(report, Report) or (report.variant is None and not report.alternates):
        return '<span class="muted">-</span>'
    counted = f'<span class="vcounted">{escape(report.variant or "default")} (counted)</span>'
    return " &middot; ".join(
        [counted]
        + [
            f'<span class="valt" data-variant="{escape(a.variant)}">'
            f"{escape(a.variant)} {_verdict(a.report.verdict)}</span>"
            for a in report.alternates
        ]
    )


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
        files = escape(
            ", ".join(f.name for f in r.files[:3]) + (f" (+ {len(r.files) - 3:,})" if len(r.files) > 3 else "")
        )
        return (
            f'<tr class="{role}"><td>{_verdict(r.counted_verdict)}</td><td><code>{escape(name)}</code></td>'
            f'<td>{role}</td><td class="mono">{files}</td><td>{escape(dtypes)}</td><td class="n">{t.tensors:,}'
            f'</td><td class="n">{t.parameters:,}</td><td class="n">{t.bytes:,}</td></tr>'
        )

    rows = row(report.variant or "default", report, "counted") + "".join(
        row(a.variant, a.report, "alternate") for a in report.alternates
    )
    out = [
        f'<div class="variants"><h2 id="{uid}-variants">Variants</h2><p class="muted">The same model is stored more than once: '
        f"{escape(counted)} are counted (the totals, charts and tree above); each alternate is audited in full "
        f"and judged with them, never counted.</p><table><tr><th></th><th>variant</th><th>role</th><th>files</th>"
        f'<th>dtypes</th><th class="n">tensors</th><th class="n">parameters</th><th class="n">bytes</th></tr>'
        f"{rows}</table>"
    ]
    for i, a in enumerate(report.alternates):
        r = a.report
        c = r.severity_counts()
        counts = ", ".join(
            f"{c[k]:,} {w}{'' if c[k] == 1 else 's'}"
            for k, w in (("error", "error"), ("warning", "warning"), ("info", "note"))
        )
        out.append(
            f'<details class="part alternate" id="{uid}v{i}"{" open" if r.verdict == "fail" else ""}>'
            f'<summary>{_verdict(r.verdict)}<code>variant {escape(a.variant)}</code> <span class="muted">'
            f"alternate of {escape(counted)}, not counted &middot; {r.totals.tensors:,} tensors, "
            f"{r.totals.parameters:,} parameters; {counts}</span></summary>"
            + findings_view(
                r.active_findings, r.groups, _place(r, f"{uid}v{i}", tree=False), f"Findings of variant {a.variant}"
            )
            + files_view(r, f"{uid}v{i}")
            + "</details>"
        )
    return "".join(out) + "</div>"


def _fold_line(s: Any, i: int, n: int) -> str:
    """A section's fold, closed: its verdict, name and kind, then tensors, parameters and findings."""
    t = s.report.total_counts()
    c = s.report.severity_counts()
    role = f", {s.part.role}" if s.part.role else ""
    counts = ", ".join(
        f"{c[k]:,} {w}{'' if c[k] == 1 else 's'}"
        for k, w in (("error", "error"), ("warning", "warning"), ("info", "note"))
    )
    alternates = s.report.alternates if isinstance(s.report, Report) else ()
    also = (
        f" &middot; {len(alternates):,} alternate variant{'s' if len(alternates) > 1 else ''} "
        f"({escape(', '.join(a.variant for a in alternates))}), not counted"
        if alternates
        else ""
    )
    return (
        f'{_verdict(s.report.verdict)}<code>{escape(s.part.name)}</code> <span class="muted">'
        f"{escape(s.part.kind + role)} &middot; section {i + 1} of {n} &middot; {int(t['tensors']):,} tensors, "
        f"{int(t['parameters']):,} parameters ({human(int(t['parameters']))}){also}; {counts}</span>"
    )


class Html(ReportFormat):
    """``-f html``: one self-contained page, a report of sections included; a fleet run's lines too."""

    name = "html"
    page = True
    fleet_view = True

    def single(self, report: Report, width: int | None = None) -> str:
        return format_report(report)

    def composite(self, report: CompositeReport, width: int | None = None) -> str:
        return format_report(report)

    def fleet(self, fleet: Fleet, width: int | None = None) -> str:
        from .fleet import format_html

        return format_html(fleet)
