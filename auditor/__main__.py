"""``python -m auditor`` runs the st-audit command."""

from .cli import main

main()
