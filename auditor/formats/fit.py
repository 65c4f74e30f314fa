"""A table fitted to a terminal's width: columns dropped (the least needed first) or one column wrapped, never
wider than the terminal; a file or a pipe (``width`` None) gets the whole table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

MIN_WRAP = 12  # a wrapped column keeps at least this many characters per line


def fit_table(
    rows: Sequence[Sequence[Any]],
    headers: Sequence[str],
    *,
    width: int | None,
    colalign: Sequence[str] | None = None,
    drop: Sequence[str] = (),
    wrap: str | None = None,
) -> str:
    """``rows`` under ``headers`` (tabulate's "simple" format, numbers as the strings given) at most ``width``
    columns wide: the whole table when it fits (or ``width`` is None); else the columns named in ``drop`` are left
    out in that order until it fits, then column ``wrap`` is wrapped onto several lines. Only what does not fit
    is taken away: a table that fits after dropping one column keeps the others."""
    from tabulate import tabulate

    def render(keep: list[int], wrap_at: int | None = None) -> str:
        align = [colalign[i] for i in keep] if colalign else None
        limits = [wrap_at if wrap_at is not None and headers[i] == wrap else None for i in keep]
        return tabulate(
            [[row[i] for i in keep] for row in rows],
            headers=[headers[i] for i in keep],
            disable_numparse=True,
            colalign=align,
            maxcolwidths=limits if wrap_at is not None else None,
        )

    keep = list(range(len(headers)))
    text = render(keep)
    if width is None or _widest(text) <= width:
        return text
    for name in drop:
        if name in headers and headers.index(name) in keep and len(keep) > 1:
            keep.remove(headers.index(name))
            text = render(keep)
            if _widest(text) <= width:
                return text
    if wrap is not None and wrap in headers and headers.index(wrap) in keep:
        column = max([len(headers[headers.index(wrap)])] + [len(str(row[headers.index(wrap)])) for row in rows])
        at = max(MIN_WRAP, column - (_widest(text) - width))
        text = render(keep, at)
    return text


def _widest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)
