"""The client side of the Hub tests: st-audit's HubSource pointed at the stand-in Hub (tests/support/hubstub.py)."""

from __future__ import annotations

from typing import Any

from auditor.read.sources.hub import HubSource


def source(repo: str, **kw: Any) -> HubSource:
    """A HubSource for ``repo`` that retries without the real backoff (the stub answers at once)."""
    kw.setdefault("backoff", 0.01)
    return HubSource(repo, **kw)
