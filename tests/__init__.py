"""st-audit's test suite. A package so that its helpers import as ``tests.support`` (pytest puts the repository root
on sys.path: ``pythonpath`` in pyproject.toml); test modules import helpers from there, never from each other."""
