"""What a report format is: one class, registered by name in ``formats.FORMATS`` (docs/development.md, "Adding a
report format").

A format renders one checkpoint's ``Report`` (``single``) and a report of sections (``composite``: a pipeline, a
sentence-transformers model, independent files, several targets); it may also render a fleet run's lines (``fleet``,
``st-audit report``). Its class attributes tell the command line what to do around it (colour, a terminal's width,
a page written to a file, the verdict line on stderr, a fleet's streamed lines), so no command compares format names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from ..report.composite import AnyReport, CompositeReport
    from ..report.single import Report
    from .fleet import Fleet


class ReportFormat:
    """One report format. A subclass sets ``name`` and writes ``single``; the rest has defaults that fit a text
    format printed to stdout."""

    name: ClassVar[str] = ""
    # severity words and the verdict coloured on a terminal (--color auto/always)
    colours: ClassVar[bool] = False
    # its tables fit a terminal's columns and its long prose lines are folded to them (a file, a pipe: whole lines)
    fits_terminal: ClassVar[bool] = False
    # a self-contained page: written to a file (its path printed) rather than onto a terminal; ``--open`` shows it
    page: ClassVar[bool] = False
    # a fleet run may write it target by target as each finishes (``-f summary``: one line per target)
    streams: ClassVar[bool] = False
    # it can render a fleet run's lines (``st-audit report -f NAME``): ``fleet`` is written
    fleet_view: ClassVar[bool] = False

    def render(self, report: AnyReport, width: int | None = None) -> str:
        """``report`` in this format: ``composite`` for a report of sections, else ``single``. ``width``: a terminal's
        columns when ``fits_terminal`` and the output goes to one, else None (whole lines)."""
        from ..report.composite import CompositeReport

        if isinstance(report, CompositeReport):
            return self.composite(report, width)
        return self.single(report, width)

    def single(self, report: Report, width: int | None = None) -> str:
        """One checkpoint's report."""
        raise NotImplementedError(f"format {self.name!r} does not render a report")

    def composite(self, report: CompositeReport, width: int | None = None) -> str:
        """A report of sections: by default each section rendered by ``single`` under a heading naming it, a healthy
        one in one line, then the whole's findings and verdict line (``sections.format_sections``)."""
        from .sections import format_sections

        return format_sections(report, lambda inner: self.render(inner, width), as_markdown=False)

    def fleet(self, fleet: Fleet, width: int | None = None) -> str:
        """A fleet run's lines as one view (``fleet_view``); ``width``: the columns of a table."""
        raise NotImplementedError(f"format {self.name!r} has no fleet view")

    def summary_on_stderr(self, to_file: bool) -> bool:
        """Whether the command line adds the verdict line on stderr (unless -q): yes, unless the output a person
        reads already ends with it (``to_file``: the output goes to -o FILE)."""
        return True

    def __repr__(self) -> str:
        return f"<report format {self.name!r}>"
