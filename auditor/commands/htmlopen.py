"""Where an HTML report goes: a file (``-o``, or a temporary one for ``--open``), its path printed as a link, a
browser opened on it when asked. No server: the page is self-contained. Shared by ``audit``, ``verify`` and
``diff``."""

from __future__ import annotations

import os
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


def html_output(fmt: str, output: Path | None, open_: bool) -> Path | None:
    """Where the report goes: ``--open`` needs an HTML page, written to a temporary file when no -o is given."""
    if not open_:
        return output
    if fmt != "html":
        raise UsageError("--open shows an HTML report: add -f html")
    if output is None:
        import tempfile
        handle, name = tempfile.mkstemp(prefix="st-audit-", suffix=".html")
        os.close(handle)
        return Path(name)
    return output


def show_html(fmt: str, output: Path | None, open_: bool, quiet: bool) -> None:
    """An HTML report written to a file: its path on stderr (a link most terminals open), and a browser when
    ``--open`` (no server: the page is self-contained)."""
    if fmt != "html" or output is None:
        return
    uri = output.resolve().as_uri()
    if not quiet:
        stderr(f"HTML report: {uri}")
    if open_:
        import webbrowser
        webbrowser.open(uri)
