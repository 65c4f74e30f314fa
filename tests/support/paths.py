"""Where things are: the repository root and its top-level ``fixtures/`` folder (fixture data only)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
