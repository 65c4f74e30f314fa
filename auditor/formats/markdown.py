"""Markdown for $GITHUB_STEP_SUMMARY and PR comments: summary first, then findings and components."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabulate import tabulate

from ..core.findings import plural
from ..core.untrusted import markdown, markdown_code, printable
from ..report.single import Report
from .base import ReportFormat
from .common import COMPONENT_HEADERS, component_rows, ledger_label, num, shape, summary_line, variant_lines
from .numbers import policy_line

if TYPE_CHECKING:
    from ..report.composite import CompositeReport
    from .fleet import Fleet


def mermaid_pie(report: Report) -> list[str]:
    """The formula's components as a mermaid pie, which GitHub renders in a step summary or a comment (no pie
    without a formula, or when every component is empty)."""
    from .htmlviews import component_slices

    slices = [(label, expected) for label, expected, _ in component_slices(report) if expected > 0]
    if not slices:
        return []
    rows = [f'    "{printable(label).replace(chr(34), chr(39))}" : {value}' for label, value in slices]
    return ["```mermaid", "pie showData title Parameters by component (expected)", *rows, "```", ""]


def format_report(report: Report) -> str:
    rec = report.reconciliation
    icon = "✅" if report.verdict == "pass" else "❌"
    from ..report.composite import kind_line

    kind = kind_line(report.extra.get("kind"))
    out = [
        f"## {icon} st-audit: {markdown_code(report.target)}" + (f" ({markdown(kind)})" if kind else ""),
        "",
        markdown(summary_line(report)),
        "",
    ]
    policy = policy_line(report.extra.get("policy"))
    if policy:
        out += [f"_{markdown(policy)}_", ""]
    if rec.expected_parameters is not None:
        out += [
            f"- **Expected from config.json:** {rec.expected_parameters:,} parameters"
            + (f" ({rec.activated_parameters:,} activated)" if rec.activated_parameters is not None else ""),
            f"- **Formula:** {markdown_code(rec.formula or '')}",
        ]
        if rec.formula_by_component and rec.formula_by_component != rec.formula:
            out.append(f"- **By component:** {markdown_code(rec.formula_by_component)}")
    out += [
        f"- **Stored:** {plural(report.totals.tensors, 'tensor')}, {plural(report.totals.parameters, 'parameter')}, "
        f"{report.totals.bytes:,} bytes in {plural(len(report.files), 'file')}",
        "",
    ]
    findings = report.active_findings
    if findings:
        rows = [[f.severity, f"`{f.code}`", markdown(f.message)] for f in findings]
        out += ["### Findings", "", tabulate(rows, headers=["severity", "code", "message"], tablefmt="github"), ""]
    ledger = [[ledger_label(k, report), num(v)] for k, v in rec.ledger.items()]
    out += [
        "### Ledger",
        "",
        tabulate(
            ledger + [["**stored total**", num(report.totals.parameters)]],
            headers=["category", "parameters"],
            tablefmt="github",
            disable_numparse=True,
            colalign=("left", "right"),
        ),
        "",
    ]
    if rec.components:
        rows = [[markdown(label), markdown(stack), *rest] for label, stack, *rest in component_rows(report)]
        out += [
            "### Components",
            "",
            tabulate(rows, headers=COMPONENT_HEADERS, tablefmt="github", disable_numparse=True),
            "",
        ]
    out += mermaid_pie(report)
    out += variant_lines(report, md=True)
    groups = [
        [markdown_code(g.pattern, cell=True), f"{g.count:,}", markdown(g.dtype), shape(g.shape)] for g in report.groups
    ]
    out += [
        "<details><summary>Tensor groups</summary>",
        "",
        tabulate(groups, headers=["pattern", "count", "dtype", "shape"], tablefmt="github", disable_numparse=True),
        "",
        "</details>",
        "",
    ]
    return "\n".join(out)


class Markdown(ReportFormat):
    """``-f markdown``: for $GITHUB_STEP_SUMMARY and PR comments; a fleet run's lines too."""

    name = "markdown"
    fleet_view = True

    def single(self, report: Report, width: int | None = None) -> str:
        return format_report(report)

    def composite(self, report: CompositeReport, width: int | None = None) -> str:
        from .sections import format_sections

        return format_sections(report, lambda inner: self.render(inner, width), as_markdown=True)

    def fleet(self, fleet: Fleet, width: int | None = None) -> str:
        from .fleet import format_markdown

        return format_markdown(fleet)
