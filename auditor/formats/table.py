"""The human report: summary, totals, reconciliation, component breakdown, groups and findings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabulate import tabulate

from ..core.untrusted import printable
from ..report.single import Report
from .base import ReportFormat
from .common import COMPONENT_HEADERS, component_rows, ledger_label, num, shape, summary_line, variant_lines
from .fit import fit_table
from .numbers import finding_line, policy_line

if TYPE_CHECKING:
    from .fleet import Fleet


def format_report(report: Report, width: int | None = None) -> str:
    """The report for a terminal or a log; ``width``: a terminal's columns, which its tables stay within (columns
    dropped, the least needed first, or the tensor pattern wrapped); None for whole tables (a file, a pipe)."""
    rec = report.reconciliation
    t = report.totals
    from ..report.composite import kind_line

    kind = kind_line(report.extra.get("kind"))
    out = [f"st-audit report for {printable(report.target)}" + (f": {printable(kind)}" if kind else "")]
    out += [f"  note: {printable(n)}" for n in (report.extra.get("kind") or {}).get("notes", [])]
    policy = policy_line(report.extra.get("policy"))
    if policy:
        out.append(policy)
    adapter = report.extra.get("adapter")
    if adapter and adapter.get("base_source"):
        out.append(f"base model: {printable(adapter['base_source'])}")
    arch = " / ".join(x for x in (rec.model_type, rec.architecture) if x)
    if arch:
        out.append(f"architecture: {printable(arch)}")
    if rec.spec is not None:
        layout = "" if rec.spec["layout"] == "default" else f", stored as {rec.spec['layout']}"
        out.append(f"spec: {rec.spec['file']} ({printable(rec.spec['class'])}{layout})")
    unread = sum(1 for f in report.files if not f.ok and not f.tensors)  # no header could be parsed: see the findings
    read = (
        ""
        if not unread
        else " (none could be read)"
        if unread == len(report.files)
        else f" ({unread:,} could not be read)"
    )
    out.append(
        f"files audited: {len(report.files)}{read}"
        + (f"; not audited: {len(report.ignored_files)}" if report.ignored_files else "")
    )
    for name, why in sorted(report.ignored_files.items()):
        out.append(f"  - {printable(name)}: {printable(why)}")
    out.append("")
    if unread and not t.tensors and not report.include_tensors:
        # nothing was read: tables of zeros would only push the one finding that matters down the screen
        if rec.expected_parameters is not None:
            out += [
                f"expected from config.json: {rec.expected_parameters:,} parameters (nothing read to compare "
                "them with)",
                "",
            ]
        return "\n".join(out + _findings(report)) + "\n"
    dtype_rows = [[printable(d), num(n), num(p), num(b)] for d, (n, p, b) in t.by_dtype.items()]
    dtype_rows.append(["total", num(t.tensors), num(t.parameters), num(t.bytes)])
    out.append(
        fit_table(
            dtype_rows,
            ["dtype", "tensors", "parameters", "bytes"],
            width=width,
            colalign=("left", "right", "right", "right"),
            drop=("bytes",),
        )
    )
    out.append("")
    if rec.expected_parameters is not None:
        out.append(f"expected from config.json: {rec.expected_parameters:,} parameters")
        if rec.activated_parameters is not None:
            out.append(f"activated per token:       {rec.activated_parameters:,}")
        if rec.mtp_parameters is not None:
            out.append(f"MTP module (not counted):  {rec.mtp_parameters:,}")
        out.append(f"formula: {rec.formula}")
        if rec.formula_by_component and rec.formula_by_component != rec.formula:
            out.append(f"by component: {rec.formula_by_component}")
        out.append("")
    out.append("ledger (stored parameters):")
    ledger_rows = [[ledger_label(k, report), num(v)] for k, v in rec.ledger.items() if v or k == "model"]
    ledger_rows.append(["= stored total", num(t.parameters)])
    out.append(tabulate(ledger_rows, tablefmt="plain", disable_numparse=True, colalign=("left", "right")))
    out.append("")
    if rec.components:
        out.append(
            fit_table(
                component_rows(report),
                COMPONENT_HEADERS,
                width=width,
                colalign=("left", "left", "right", "right", "right", "right", "right", "right"),
                drop=("share", "per layer", "stack", "layers"),
                wrap="component",
            )
        )
        out.append("")
    if report.include_tensors or not rec.components:  # the brief view: the breakdown says it, --tensors lists all
        group_rows = [
            [printable(g.pattern), f"x{g.count:,}", printable(g.dtype), shape(g.shape)] for g in report.groups
        ]
        out.append(
            fit_table(group_rows, ["tensor pattern", "count", "dtype", "shape"], width=width, wrap="tensor pattern")
        )
        out.append("")
    return "\n".join(out + _findings(report)) + "\n"


def _findings(report: Report) -> list[str]:
    """The findings, the alternate variants and the verdict line: how every table report ends."""
    findings = report.active_findings
    out = ["findings:", *(finding_line(f) for f in findings)] if findings else ["findings: none"]
    return [*out, "", *variant_lines(report), summary_line(report)]


class Table(ReportFormat):
    """``-f table`` (the default): the report for a terminal or a log, ending with the verdict line."""

    name = "table"
    colours = True
    fits_terminal = True
    fleet_view = True

    def single(self, report: Report, width: int | None = None) -> str:
        return format_report(report, width)

    def fleet(self, fleet: Fleet, width: int | None = None) -> str:
        from .fleet import format_table

        return format_table(fleet, width or 120)

    def summary_on_stderr(self, to_file: bool) -> bool:
        """On a terminal the report ends with the verdict line; a file gets it on stderr too."""
        return to_file
