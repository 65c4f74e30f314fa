"""Report formats: each one class (``base.ReportFormat``) registered by name in ``FORMATS``; the command line's
``--format`` choices are its keys, and what the command line does around a format (colour, a terminal's width, a page,
the verdict line on stderr, a fleet's lines) it asks the class."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from importlib import import_module
from typing import TYPE_CHECKING

from ..core.errors import UsageError

if TYPE_CHECKING:
    from ..report.composite import AnyReport
    from .base import ReportFormat

# format name -> "module:Class" (imported only when chosen: formats and tabulate load only when printing)
FORMATS: dict[str, str] = {
    "table": "auditor.formats.table:Table",
    "json": "auditor.formats.json_format:Json",
    "markdown": "auditor.formats.markdown:Markdown",
    "junit": "auditor.formats.junit:JUnit",
    "summary": "auditor.formats.summary:Summary",
    "html": "auditor.formats.html:Html",
}


def register(name: str, where: str) -> None:
    """Register the format class at ``where`` ("module:Class") as ``name`` (another format of that name is replaced)."""
    FORMATS[name] = where
    _load.cache_clear()


def report_format(name: str) -> ReportFormat:
    """The format registered as ``name``."""
    if name not in FORMATS:
        raise UsageError(f"--format {name!r}: one of {', '.join(FORMATS)}")
    return _load(FORMATS[name])


@lru_cache(maxsize=None)
def _load(where: str) -> ReportFormat:
    module, _, cls = where.partition(":")
    return getattr(import_module(module), cls)()  # type: ignore[no-any-return]


def fleet_formats() -> tuple[str, ...]:
    """The formats that render a fleet run's lines (``st-audit report``)."""
    return tuple(name for name in FORMATS if report_format(name).fleet_view)


def formatter(name: str, width: int | None = None) -> Callable[[AnyReport], str]:
    """The rendering of format ``name`` (a report of sections through its ``composite``). ``width``: a terminal's
    columns, which a format that fits them (``fits_terminal``: the table) stays within; None (a file, a pipe) for
    whole tables."""
    form = report_format(name)
    return lambda report: form.render(report, width)
