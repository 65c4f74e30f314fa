"""Formats of a report made of sections (pipeline, sentence-transformers model, independent files).

Each section is printed by the chosen format exactly as a single checkpoint would be, under a heading naming
the section and what it is; the whole ends with one verdict line. JSON is ``CompositeReport.to_dict()``; JUnit
puts each section's test suite under one ``<testsuites>``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from ..core.findings import plural
from ..report.composite import CompositeReport, kind_line
from ..report.single import Report
from .numbers import counted_label, human, policy_line


def summary_line(report: CompositeReport) -> str:
    counts = report.severity_counts()
    t = report.total_counts()
    alternates = sum(len(s.report.alternates) for s in report.sections if isinstance(s.report, Report))
    also = f" (+ {plural(alternates, 'variant')} audited, not counted)" if alternates else ""
    return (f"{report.verdict.upper()}: {report.target} ({kind_line(report.kind.to_dict())}): "
            f"{plural(len(report.sections), 'section')}{also}, {plural(t['tensors'], 'tensor')}, "
            f"{plural(t['parameters'], 'parameter')} ({human(t['parameters'])}); {plural(counts['error'], 'error')}, "
            f"{plural(counts['warning'], 'warning')}, {plural(counts['info'], 'note')}")


def _section_title(s: object) -> str:
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


def format_composite(report: CompositeReport, fmt: str, formatter: Callable[[str], Callable[[Any], str]]) -> str:
    """``formatter``: the format registry (``formats.formatter``), passed in rather than imported back."""
    if fmt == "json":
        from .json_format import dumps
        return dumps(report.to_dict())
    if fmt == "summary":  # one line per target, then the whole's: sections of one target are in its own line
        lines = [formatter(fmt)(s.report).rstrip("\n") for s in report.sections] if report.kind.kind == "targets" \
            else []
        return "\n".join([*lines, summary_line(report)]) + "\n"
    inner_format = formatter(fmt)  # sections may themselves be sectioned (several targets)
    if fmt == "junit":
        root = ET.Element("testsuites", {"name": f"st-audit {report.target}"})
        for s in report.sections:
            doc = ET.fromstring(inner_format(s.report).split("\n", 1)[1])  # type: ignore[arg-type]
            for suite in doc.findall("testsuite"):  # an alternate variant's suite says which (its property)
                variant = suite.find("properties/property[@name='variant']")
                also = f" :: variant {variant.get('value')}" if variant is not None else ""
                suite.set("name", f"st-audit {report.target} :: {_section_title(s)}{also}")
                root.append(suite)
        for key in ("tests", "failures", "errors", "skipped"):
            root.set(key, str(sum(int(x.get(key, "0")) for x in root.findall("testsuite"))))
        ET.indent(root)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
    md = fmt == "markdown"
    out = [f"{'# ' if md else ''}st-audit report for {report.target}: {kind_line(report.kind.to_dict())}"]
    out += [f"{'- ' if md else '  '}{n}" for n in report.kind.notes]
    policy = policy_line(report.policy)
    if policy:
        out.append(f"_{policy}_" if md else policy)
    out.append("")
    unread = {id(s): code for s in report.sections if (code := _unread(s.report)) is not None}
    for code in dict.fromkeys(unread.values()):  # one root cause shared by several sections is said once
        alike = [s for s in report.sections if unread.get(id(s)) == code]
        first = next(f for f in alike[0].report.failing if f.code == code)
        out.append(f"{'## ' if md else '=== '}{plural(len(alike), 'section')} with no readable weights "
                   f"({code}){'' if md else ' ==='}")
        out.append(f"{'- ' if md else '  '}{', '.join(s.part.name for s in alike)}")
        out.append(f"{'- ' if md else '  '}e.g. {first.message}")
        out.append("")
    for s in report.sections:
        if id(s) in unread:
            continue
        out.append(f"{'## ' if md else '=== '}section {_section_title(s)}{'' if md else ' ==='}")
        out.append(inner_format(s.report))  # type: ignore[arg-type]
    findings = report.active_findings
    if findings:
        out.append("findings about the whole:")
        out += [f"  {f.severity.upper():7} {f.code}: {f.message}" for f in findings]
        out.append("")
    for s in report.sections:
        out.append(f"  {s.report.verdict.upper()}: {_section_title(s)}{_variants(s.report)}")
    out.append(summary_line(report))
    return "\n".join(out) + "\n"
