"""st-audit: audit safetensors checkpoints from their headers.

    >>> import auditor
    >>> report = auditor.audit("path/to/checkpoint")   # or "org/name" on the Hub
    >>> report.verdict, report.totals.parameters
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["audit", "Report", "__version__"]

if TYPE_CHECKING:
    from .audit import audit
    from .report import Report


def __getattr__(name: str) -> Any:
    # lazy, so `python -m auditor --help` does not import the whole engine
    if name == "audit":
        from .audit import audit
        return audit
    if name == "Report":
        from .report import Report
        return Report
    raise AttributeError(name)
