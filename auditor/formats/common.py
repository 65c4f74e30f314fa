"""Small helpers shared by the human-readable formats."""

from __future__ import annotations

from typing import Any

from ..report import Report

LEDGER_LABELS = {"model": "model (the formula's parameters)", "mtp": "MTP module", "tied_duplicates": "tied duplicates",
                 "buffers": "recomputable buffers", "quantization": "quantization bookkeeping",
                 "unexplained": "unexplained"}


def num(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def human(n: int) -> str:
    """1234567 -> '1.23M' (for the one-line summary; exact numbers are printed beside it)."""
    for unit, size in (("T", 10**12), ("B", 10**9), ("M", 10**6), ("K", 10**3)):
        if abs(n) >= size:
            return f"{n / size:.2f}{unit}"
    return str(n)


def shape(s: list[int] | tuple[int, ...]) -> str:
    return "[" + ", ".join(str(d) for d in s) + "]"


def summary_line(report: Report) -> str:
    t = report.totals
    counts = report.severity_counts()
    rec = report.reconciliation
    expected = f", expected {rec.expected_parameters:,}" if rec.expected_parameters is not None else ""
    return (f"{report.verdict.upper()}: {report.target}: {t.tensors:,} tensors, {t.parameters:,} parameters "
            f"({human(t.parameters)}){expected}; {counts['error']} errors, {counts['warning']} warnings, "
            f"{counts['info']} notes")


def component_rows(report: Report) -> list[list[Any]]:
    rows = []
    for c in report.reconciliation.components:
        d = c.to_dict()
        diff = c.actual - c.expected
        rows.append([c.component, c.layer_type or "-", c.layers or "-", num(d["expected_per_layer"]),
                     num(c.expected), num(c.actual), "" if diff == 0 else f"{diff:+,}"])
    return rows


COMPONENT_HEADERS = ["component", "layer type", "layers", "expected/layer", "expected", "stored", "difference"]
