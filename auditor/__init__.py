"""st-audit: audit safetensors checkpoints from their headers.

    >>> import auditor
    >>> report = auditor.audit("path/to/checkpoint")   # or "org/name" on the Hub
    >>> report.verdict, report.totals.parameters
"""

from __future__ import annotations

from .audit import audit
from .report import Report
from .version import __version__

__all__ = ["audit", "Report", "__version__"]
