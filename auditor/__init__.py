"""st-audit: audit safetensors checkpoints from their headers.

    >>> import auditor
    >>> report = auditor.audit("path/to/checkpoint")   # or "org/name" on the Hub
    >>> report.verdict, report.total_counts()["parameters"]

``auditor.run.audit`` audits a target as ``st-audit audit`` does (its kind discovered: a PEFT adapter, a diffusers
pipeline or component, a sentence-transformers model ...) and returns the report ``st-audit audit -f json``
prints (``to_dict()``): a ``Report`` for one checkpoint, a ``CompositeReport`` of sections otherwise. Settings come
as one ``AuditOptions`` (``audit(path, AuditOptions(fail_on="warning"))``) or as its fields by keyword.
"""

from __future__ import annotations

from .core.version import __version__
from .report.single import Report
from .run.dispatch import audit_target as audit
from .run.options import AuditOptions

__all__ = ["audit", "AuditOptions", "Report", "__version__"]
