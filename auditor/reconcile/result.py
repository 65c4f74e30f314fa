"""The result of a reconciliation: expected counts, the ledger, the component breakdown and the findings.

Values only (no comparison logic), so the stages that fill them (``compare``, ``messages``, ``breakdown``,
``fallback``) and those that read them (``report``, formats) share one definition without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from ..core.findings import Finding
from ..inventory.build import Totals

LEDGER_KEYS = ("model", "mtp", "tied_duplicates", "buffers", "quantization", "unexplained")


@dataclass
class Component:
    """One row of the breakdown: a component of one layer type (or of the whole model)."""

    component: str
    layer_type: str | None
    layers: int
    expected: int
    actual: int
    uniform: bool = True  # every layer of this type has the same count (UNet blocks of growing width do not)

    def to_dict(self) -> dict[str, Any]:
        per_layer = self.expected // self.layers if self.layers and self.uniform else None
        return {
            "component": self.component,
            "layer_type": self.layer_type,
            "layers": self.layers,
            "expected_per_layer": per_layer,
            "expected": self.expected,
            "actual": self.actual,
        }


@dataclass
class Reconciliation:
    """Expected counts, the ledger, the component breakdown and the findings of the comparison."""

    model_type: str | None = None
    architecture: str | None = None
    expected_parameters: int | None = None
    activated_parameters: int | None = None
    mtp_parameters: int | None = None
    formula: str | None = None
    formula_by_component: str | None = None
    spec: dict[str, str] | None = None  # the spec file, task class and name layout the formula came from
    ledger: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LEDGER_KEYS, 0))
    components: list[Component] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    categories: dict[str, str] = field(default_factory=dict)  # tensor -> ledger category
    heads: list[str] | None = None  # stored tensors the formula calls the output head (None: no formula)
    # parameters packed weights encode beyond their stored element count, by stored dtype (MXFP4: U8, two per
    # byte; GPTQ/AWQ: I32, 32/bits per element)
    packed_extra_by_dtype: dict[str, int] = field(default_factory=dict)
    # packed weight -> the parameters it encodes (its verdict's logical elements), where that is not its stored
    # element count: the HTML report's per-layer bars count a layer as the ledger does
    encoded: dict[str, int] = field(default_factory=dict)
    # what a part's own reconciler (adapter, LoRA file, module, single file) says about it, carried to its report:
    detail: str | None = None  # the kind block's detail ("diffusion LoRA (kohya names): 32 modules ...")
    extra: dict[str, Any] = field(default_factory=dict)  # report blocks of its own ("adapter", "single_file")
    # adapters and LoRA files cover the layers their config selects: a hole in a numbered range is not a loss
    selects_layers: bool = False

    def count_packed(self, name: str, dtype: str, encodes: int, stored: int) -> None:
        """A packed weight counted as the parameters it encodes: its surplus over the stored elements by dtype,
        and (where they differ) what it encodes, by name."""
        self.packed_extra_by_dtype[dtype] = self.packed_extra_by_dtype.get(dtype, 0) + encodes - stored
        if encodes != stored:
            self.encoded[name] = encodes

    @property
    def packed_extra(self) -> int:
        return sum(self.packed_extra_by_dtype.values())

    def counted(self, stored: Totals) -> Totals:
        """The stored totals with packed weights counted as the parameters they encode (MXFP4: two per U8;
        GPTQ/AWQ: 32/bits per I32): a new value, the inventory's own totals are left as read."""
        if not self.packed_extra_by_dtype:
            return stored
        by_dtype = dict(stored.by_dtype)
        for dtype, extra in self.packed_extra_by_dtype.items():
            by_dtype[dtype] = by_dtype[dtype]._replace(parameters=by_dtype[dtype].parameters + extra)
        return replace(stored, parameters=stored.parameters + self.packed_extra, by_dtype=MappingProxyType(by_dtype))
