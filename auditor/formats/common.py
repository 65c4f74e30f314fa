"""Small helpers shared by the human-readable formats."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.findings import plural
from ..core.names import shown
from ..core.untrusted import markdown, printable
from ..report.single import Report
from .numbers import counted_label, finding_line, human, root_note, variants_note  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    from ..report.composite import AnyReport

LEDGER_LABELS = {
    "model": "model (the formula's parameters)",
    "mtp": "MTP module",
    "tied_duplicates": "tied duplicates",
    "buffers": "recomputable buffers",
    "quantization": "quantization bookkeeping",
    "unexplained": "unexplained",
}


def ledger_label(key: str, report: Report) -> str:
    """The ledger row's label; "the formula's parameters" only when a formula was compared."""
    if key == "model" and "adapter" in report.extra:
        return "adapter (its own tensors)"
    if key == "model" and report.reconciliation.expected_parameters is None:
        return "model (no formula applies: every tensor not classified otherwise)"
    return LEDGER_LABELS[key]


def num(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def shape(s: list[int] | tuple[int, ...]) -> str:
    return "[" + ", ".join(str(d) for d in s) + "]"


def summary_line(report: AnyReport) -> str:
    if not isinstance(report, Report):  # a pipeline, sentence-transformers model or folder of independent files
        from .sections import summary_line as composite_line

        return composite_line(report)
    t = report.totals
    counts = report.severity_counts()
    rec = report.reconciliation
    expected = f", expected {rec.expected_parameters:,}" if rec.expected_parameters is not None else ""
    kind = report.extra.get("kind")
    what = f" ({printable(kind['label'])})" if kind else ""
    return (
        f"{report.verdict.upper()}: {printable(report.target)}{what}: {plural(t.tensors, 'tensor')}, "
        f"{plural(t.parameters, 'parameter')} ({human(t.parameters)}){expected}{printable(variants_note(report))}; "
        f"{plural(counts['error'], 'error')}, {plural(counts['warning'], 'warning')}, "
        f"{plural(counts['info'], 'note')}"
    )


def variant_lines(report: Report, md: bool = False) -> list[str]:
    """Each alternate variant of a checkpoint, after the counted weights' report: its verdict, files, what it
    stores and its findings (the full report of each is in the JSON). Variant and file names, dtypes and messages
    are the checkpoint's text: ``printable`` in a terminal, ``markdown`` in Markdown."""
    text = markdown if md else printable
    out: list[str] = []
    for a in report.alternates:
        r = a.report
        t = r.totals
        head = text(
            f"variant {a.variant} ({'an alternate of' if md else 'audited beside'} {counted_label(report)}, "
            f"not counted): {r.verdict.upper()}"
        )
        out += [f"### {head}" if md else head, ""] if md else [head]
        pad = "- " if md else "  "
        out.append(f"{pad}files: {text(shown([f.name for f in r.files], 4))}")
        dtypes = text(", ".join(f"{d} {p:,}" for d, (_, p, _) in t.by_dtype.items()))
        expected = r.reconciliation.expected_parameters
        out.append(
            f"{pad}stored: {plural(t.tensors, 'tensor')}, {plural(t.parameters, 'parameter')} ({dtypes}), "
            f"{t.bytes:,} bytes" + (f"; expected from config.json: {expected:,}" if expected is not None else "")
        )
        findings = r.active_findings
        if not findings:
            out.append(f"{pad}findings: none")
        for f in findings:
            out.append(f"{pad}{f.severity.upper()} `{f.code}`: {markdown(f.message)}" if md else finding_line(f))
        out.append("")
    return out


def component_rows(report: Report) -> list[list[Any]]:
    """Breakdown rows, with a per-layer sum after each layer type, a grand total, then the MTP module."""
    rows: list[list[Any]] = []
    everything = report.reconciliation.components
    components = [c for c in everything if c.component != "mtp"]
    whole = sum(c.expected for c in components)

    def share(expected: int) -> str:
        return f"{100 * expected / whole:.1f}%" if whole else ""

    for i, c in enumerate(components):
        rows.append(_row(c.component, c) + [share(c.expected)])
        last_of_type = c.layer_type is not None and (
            i + 1 == len(components) or components[i + 1].layer_type != c.layer_type
        )
        if last_of_type:
            same = [r for r in components if r.layer_type == c.layer_type]
            expected, actual = sum(r.expected for r in same), sum(r.actual for r in same)
            per_layer = expected // c.layers if c.layers and expected % c.layers == 0 else None
            label = "= layers" if c.layer_type in ("layer", "layers") else f"= {c.layer_type} layers"
            rows.append(
                [
                    printable(label),
                    printable(c.layer_type or ""),
                    c.layers,
                    num(per_layer),
                    num(expected),
                    num(actual),
                    _diff(actual - expected),
                    share(expected),
                ]
            )
    if components:
        actual = sum(r.actual for r in components)
        rows.append(["= total", "", "", "", num(whole), num(actual), _diff(actual - whole), share(whole)])
    rows += [_row("mtp (beside the model)", c) + [""] for c in everything if c.component == "mtp"]
    return rows


def _row(label: str, c: Any) -> list[Any]:
    d = c.to_dict()
    return [
        printable(label),
        printable(c.layer_type or "-"),
        c.layers or "-",
        num(d["expected_per_layer"]),
        num(c.expected),
        num(c.actual),
        _diff(c.actual - c.expected),
    ]


def _diff(delta: int) -> str:
    return "" if delta == 0 else f"{delta:+,}"


# short headers: the breakdown fits a 100-column terminal (stack = the layer type, share = % of the total)
COMPONENT_HEADERS = ["component", "stack", "layers", "per layer", "expected", "stored", "diff", "share"]
