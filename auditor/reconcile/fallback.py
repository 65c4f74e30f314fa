"""The reconciliation without a formula: the structural check of ``structural.py``, with its ledger."""

from __future__ import annotations

from typing import Any

from ..inventory.build import Inventory
from ..quant import Quantization
from ..specs import buffer_suffixes
from .result import Reconciliation
from .structural import structure


def generic_reconciliation(inventory: Inventory, cfg: dict[str, Any]) -> Reconciliation:
    """No formula: the structural check of ``structural.py``, with its ledger."""
    rec = Reconciliation()
    quantization = Quantization.of(cfg)
    stored = inventory.tensors
    rec.categories, rec.findings = structure(
        inventory,
        cfg,
        lambda t: "quantization" if quantization.classify(t, stored, {}) is not None else None,
        buffer_suffixes(),
    )
    for name, category in rec.categories.items():
        rec.ledger[category] += stored[name].elements
    return rec
