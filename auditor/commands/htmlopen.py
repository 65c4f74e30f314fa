"""Where an HTML report goes: a file (``-o``, or a temporary one for ``--open`` and for a terminal), its path printed
as a link, a browser opened on it when asked. No server: the page is self-contained. Shared by ``audit``, ``verify`` and
``diff``."""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path

from ..core.errors import UsageError
from .kit import stderr


class DiffFormat(str, Enum):
    """``diff``'s formats: the text formats, and html (the two module trees side by side)."""

    table = "table"
    json = "json"
    markdown = "markdown"
    html = "html"


def html_output(page: bool, output: Path | None, open_: bool) -> Path | None:
    """Where the report goes: ``-o``; else a page (``page``: the format is one, ``ReportFormat.page``) goes to a
    temporary file when ``--open`` asks for a browser or stdout is a terminal (40-100 KB of HTML is no use on a
    screen; a pipe still gets it on stdout)."""
    if open_ and not page:
        raise UsageError("--open shows an HTML report: add -f html")
    if not page or output is not None or not (open_ or sys.stdout.isatty()):
        return output
    import tempfile

    handle, name = tempfile.mkstemp(prefix="st-audit-", suffix=".html")
    os.close(handle)
    return Path(name)


def show_html(is_page: bool, page: Path | None, open_: bool, quiet: bool, given: Path | None = None) -> None:
    """An HTML report written to a file: its path on stderr (a link most terminals open), and a browser when
    ``--open`` (no server: the page is self-contained). A page written to a file of its own because stdout is a
    terminal (``given``: the -o there was, None) says where on stdout, where the page would have gone."""
    if not is_page or page is None:
        return
    uri = page.resolve().as_uri()
    if given is None and not open_:
        print(f"HTML report written to {page} (open {uri}; -o FILE to choose where)", flush=True)
    elif not quiet:
        stderr(f"HTML report: {uri}")
    if open_:
        import webbrowser

        webbrowser.open(uri)
