"""The pieces formats use for a report made of sections (pipeline, sentence-transformers model, independent files,
several targets); each format's ``composite`` (formats/base.py) picks its own.

Each section is printed by the chosen format exactly as a single checkpoint would be, under a heading naming
the section and what it is; the whole ends with one verdict line (``format_sections``). JSON is
``CompositeReport.to_dict()``; JUnit puts each section's test suite under one ``<testsuites>`` (``junit.py``);
the summary is one line per target (``summary_lines``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.findings import plural
from ..core.untrusted import markdown, printable
from ..report.composite import CompositeReport, Section, kind_line
from ..report.single import Report
from .numbers import counted_label, finding_line, human, policy_line, root_note, variants_note


def summary_line(report: CompositeReport) -> str:
    counts = report.severity_counts()
    found = (
        f"{plural(counts['error'], 'error')}, {plural(counts['warning'], 'warning')}, {plural(counts['info'], 'note')}"
    )
    if report.kind.of_targets:  # unrelated models: the run's line, not one model's sum
        verdicts = [s.report.verdict for s in report.sections]
        outcome = [
            f"{verdicts.count(v):,} {word}"
            for v, word in (("pass", "passed"), ("fail", "failed"), ("error", "could not be audited"))
            if v in verdicts
        ]
        if report.could_not:
            outcome.append(f"{len(report.could_not):,} could not be audited")
        every = len(report.sections) + len(report.could_not)
        return f"{report.verdict.upper()}: {every:,} targets in all: {', '.join(outcome)}; {found}"
    return (
        f"{report.verdict.upper()}: {printable(report.target)} ({printable(kind_line(report.kind.to_dict()))}): "
        f"{_holds(report)}"
    )


def _holds(report: CompositeReport) -> str:
    """``3 sections (+ 3 variants audited, not counted), 368 tensors, 99,379 parameters (99.38K); 0 errors, ...``"""
    counts = report.severity_counts()
    t = report.total_counts()
    alternates = sum(len(s.report.alternates) for s in report.sections if isinstance(s.report, Report))
    also = f" (+ {plural(alternates, 'variant')} audited, not counted)" if alternates else ""
    return (
        f"{plural(len(report.sections), 'section')}{also}, {plural(t['tensors'], 'tensor')}, "
        f"{plural(t['parameters'], 'parameter')} ({human(t['parameters'])}); {plural(counts['error'], 'error')}, "
        f"{plural(counts['warning'], 'warning')}, {plural(counts['info'], 'note')}"
    )


def could_not_lines(report: CompositeReport) -> list[str]:
    """``ERROR: ./missing: could not be audited: why``, one per target of several that could not be audited."""
    return [printable(f"ERROR: {name}: could not be audited: {why}") for name, why in report.could_not]


def section_title(s: object) -> str:
    part = s.part  # type: ignore[attr-defined]
    role = f", {part.role}" if part.role else ""
    return f"{part.name} ({part.kind}{role})"


def _variants(report: Any) -> str:
    """``; default weights: pass, variant fp16: fail`` for a section with alternate variants."""
    if not isinstance(report, Report) or not report.alternates:
        return ""
    each = [f"{a.variant}: {a.report.verdict}" for a in report.alternates]
    return f"; {counted_label(report)}: {report.counted_verdict}, variant {', variant '.join(each)}"


def _unread(report: Any) -> str | None:
    """The root cause's code when none of a section's tensors could be read (its files are Git LFS pointers,
    truncated, not safetensors) and nothing else failed: such a section's full report says nothing more."""
    from ..report.rootcause import ROOT_CODES

    if not isinstance(report, Report) or report.totals.tensors:
        return None
    codes = {f.code for f in report.failing}
    return codes.pop() if len(codes) == 1 and codes <= ROOT_CODES else None


def summary_lines(report: CompositeReport, inner: Callable[[Any], str]) -> str:
    """``-f summary`` of a report of sections: one line per target, then the whole's (sections of one target are in
    its own line). ``inner``: the format's rendering of a section's report."""
    if not report.kind.of_targets:  # one target: its line names its root finding, as a checkpoint's does
        return summary_line(report) + root_note(report) + "\n"
    lines = [inner(s.report).rstrip("\n") for s in report.sections]
    return "\n".join([*lines, *could_not_lines(report), summary_line(report)]) + "\n"


def format_sections(report: CompositeReport, inner: Callable[[Any], str], *, as_markdown: bool) -> str:
    """A report of sections as text: each section rendered by ``inner`` (the format's own rendering of a section's
    report; sections may themselves be sectioned: several targets) under a heading naming it, then the whole's
    findings, one line per section and the verdict line. ``as_markdown``: Markdown headings and lists, every section in
    full; else a terminal's text, where a healthy section is one line unless -v/--tensors asks for every section."""
    md = as_markdown
    shown = markdown if md else printable  # a section's name is a folder's, a manifest's key: the repo author's text
    out = [f"{'# ' if md else ''}st-audit report for {shown(report.target)}: {shown(kind_line(report.kind.to_dict()))}"]
    out += [f"{'- ' if md else '  '}{shown(n)}" for n in report.kind.notes]
    policy = policy_line(report.policy)
    if policy:
        out.append(f"_{markdown(policy)}_" if md else policy)
    out.append("")
    unread = {id(s): code for s in report.sections if (code := _unread(s.report)) is not None}
    for code in dict.fromkeys(unread.values()):  # one root cause shared by several sections is said once
        alike = [s for s in report.sections if unread.get(id(s)) == code]
        first = next(f for f in alike[0].report.failing if f.code == code)
        out.append(
            f"{'## ' if md else '=== '}{plural(len(alike), 'section')} with no readable weights "
            f"({code}){'' if md else ' ==='}"
        )
        out.append(f"{'- ' if md else '  '}{', '.join(shown(s.part.name) for s in alike)}")
        out.append(f"{'- ' if md else '  '}e.g. {shown(first.message)}")
        out.append("")
    # in a terminal a healthy section is one line (below), unless -v/--tensors asks for every section in full
    brief = not md and not _long_view(report)
    for s in report.sections:
        if id(s) in unread or (brief and healthy(s.report)):
            continue
        out.append(f"{'## ' if md else '=== '}section {shown(section_title(s))}{'' if md else ' ==='}")
        out.append(inner(s.report))
    findings = report.active_findings
    if findings:
        out.append("findings about the whole:")
        out += [
            f"- {f.severity.upper()} `{f.code}`: {markdown(f.message)}" if md else finding_line(f) for f in findings
        ]
        out.append("")
    if brief:  # the hint only when a healthy section is shown in this one line alone
        hidden = any(healthy(s.report) and id(s) not in unread for s in report.sections)
        out.append("sections" + (" (a healthy one in this line alone; -v shows each in full):" if hidden else ":"))
    for s in report.sections:
        if brief:  # what the section holds and its counts, as its own verdict line says them
            out.append(f"  {printable(summary_line_of(s))}")
            continue
        out.append(f"{'- ' if md else '  '}{s.report.verdict.upper()}: {shown(section_title(s) + _variants(s.report))}")
    out += [f"{'- ' if md else '  '}{markdown(line) if md else line}" for line in could_not_lines(report)]
    out.append(shown(summary_line(report)))
    return "\n".join(out) + "\n"


def healthy(report: Report | CompositeReport) -> bool:
    """Nothing to look at: it passes and has no finding at warning or above (its alternates' and sections'
    included), so a terminal shows it in one line."""
    counts = report.severity_counts()
    return report.verdict == "pass" and not counts["error"] and not counts["warning"]


def _long_view(report: CompositeReport) -> bool:
    """Whether -v/--tensors was given (every checkpoint of the audit carries it)."""
    for s in report.sections:
        inner = s.report
        if isinstance(inner, CompositeReport):
            if _long_view(inner):
                return True
        elif inner.include_tensors:
            return True
    return False


def summary_line_of(s: Section) -> str:
    """A section's one line: its verdict, name and what it is, what it stores and its counts (``PASS: unet
    (diffusers-component, UNet2DConditionModel): 208 tensors, ...``)."""
    inner = s.report
    if isinstance(inner, CompositeReport):  # a pipeline among several targets
        holds = summary_line(inner) if inner.kind.of_targets else _holds(inner)
        return f"{inner.verdict.upper()}: {s.part.name} ({kind_line(inner.kind.to_dict())}): {holds}"
    return f"{inner.verdict.upper()}: {section_title(s)}: {_checkpoint_line(inner)}"


def _checkpoint_line(report: Report) -> str:
    t = report.totals
    counts = report.severity_counts()
    expected = report.reconciliation.expected_parameters
    return (
        f"{plural(t.tensors, 'tensor')}, {plural(t.parameters, 'parameter')} ({human(t.parameters)})"
        + (f", expected {expected:,}" if expected is not None else "")
        + f"{variants_note(report)}; "
        f"{plural(counts['error'], 'error')}, {plural(counts['warning'], 'warning')}, {plural(counts['info'], 'note')}"
    )
