"""Report formats: pure functions ``Report -> str``, chosen by name on the command line."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..report.composite import AnyReport

# format name -> module defining ``format_report(report) -> str`` (imported only when chosen)
FORMATS: dict[str, str] = {"table": "table", "json": "json_format", "markdown": "markdown", "junit": "junit",
                           "summary": "summary", "html": "html"}


def formatter(name: str, width: int | None = None) -> Callable[[AnyReport], str]:
    """The ``format_report`` function of format ``name`` (a sectioned report is printed section by section).
    ``width``: a terminal's columns, which the tables of a format that fits them (``FITS_WIDTH``: the table) stay
    within; None (a file, a pipe) for whole tables."""
    module = import_module(f".{FORMATS[name]}", __name__)
    single = module.format_report
    whole = getattr(module, "HANDLES_SECTIONS", False)  # html draws a report of sections as one page
    fits = getattr(module, "FITS_WIDTH", False)

    def format_any(report: AnyReport) -> str:
        if hasattr(report, "sections") and not whole:
            from .sections import format_composite
            return format_composite(report, name, lambda fmt: formatter(fmt, width))  # type: ignore[arg-type]
        return single(report, width=width) if fits else single(report)  # type: ignore[no-any-return]
    return format_any
