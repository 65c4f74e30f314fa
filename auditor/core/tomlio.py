"""The one place that picks the TOML reader: ``tomllib`` from Python 3.11, its backport ``tomli`` before (the
``tomli`` dependency in pyproject.toml has the same marker). Modules import ``tomllib`` from here and use it as the
standard library's."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["tomllib"]
