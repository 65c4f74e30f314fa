"""The quantization layer of the reconciliation: one engine, every scheme a data file.

``configs.py`` reads whatever the exporter wrote (``quantization_config`` of compressed-tensors, bitsandbytes,
GPTQ, AWQ, FP8, MXFP4, ModelOpt's ``hf_quant_config.json``, MLX's ``quantization``) into one ``QuantConfig``;
``schemes/*.toml`` say what each scheme stores per quantized layer (names, dtypes, shapes as expressions of the
layer's ``rows`` / ``cols`` and the scheme's bits, group and block sizes; format in docs/quant.md);
``assess.py`` compares them with the stored tensors; ``checks.py`` turns the result into findings.

The reconciliation asks one ``Quantization`` value, built once from the config with the stored and expected tensors
(``Quantization.of``), then ``verdict`` / ``classify`` per tensor. A packed weight counts as the values it encodes (``logical_elements``), so
the ledger's ``model`` equals the unquantized model's count; everything else a scheme stores is bookkeeping
(ledger ``quantization``), each tensor checked against the rule that names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..inventory.build import Tensor
from .assess import assess
from .configs import QuantConfig, read
from .verdicts import (
    Assessment,
    QuantVerdict,
    looks_like_bookkeeping,
    rule_suffixes,
    stand_ins,
    stands_for,
    unconfigured,
)

__all__ = ["Quantization", "QuantVerdict", "QuantConfig", "stand_ins", "stands_for"]


@dataclass(frozen=True)
class Quantization:
    """The quantization scheme of one config, and what it says about each stored tensor (``Quantization.of``)."""

    config: QuantConfig | None
    assessment: Assessment = field(default_factory=Assessment)

    @classmethod
    def of(
        cls,
        config: Mapping[str, Any] | None,
        stored: Mapping[str, Tensor] | None = None,
        expected: Mapping[str, Any] | None = None,
        tied: bool = False,
    ) -> Quantization:
        """The config's scheme, with every expected weight's stored tensors sorted by it (once per audit); without
        ``stored`` (no formula to compare with) no tensor is assessed, and ``classify`` judges by name alone."""
        quant = read(config)
        if stored is None or expected is None:
            return cls(quant)
        assessment = assess(quant, stored, expected, tied)
        if quant is None:
            assessment.verdicts.update(_unconfigured(stored, expected))
        return cls(quant, assessment)

    def verdict(self, name: str) -> QuantVerdict | None:
        return self.assessment.verdicts.get(name)

    def classify(
        self, tensor: Tensor, stored: Mapping[str, Tensor], expected: Mapping[str, Any]
    ) -> QuantVerdict | None:
        """A verdict when ``tensor`` is bookkeeping or a packed weight. Without expected tensors (no formula for
        the architecture) bookkeeping is recognised by name alone, for the ledger."""
        verdict = self.assessment.verdicts.get(tensor.name)
        if verdict is not None or expected or self.config is None:
            return verdict
        parent = tensor.name.rpartition(".")[0]
        if looks_like_bookkeeping(tensor.name):
            return QuantVerdict("quantization", parent + ".weight")
        return None

    def extra_problems(self) -> list[tuple[str, str]]:
        """Problems not tied to a verdict (a config the scheme cannot be evaluated with)."""
        return list(self.assessment.problems)


def _unconfigured(stored: Mapping[str, Tensor], expected: Mapping[str, Any]) -> dict[str, QuantVerdict]:
    """No quantization config, yet quantized tensors: one root cause (``quantization-config-missing``, made by
    ``checks.py``), so the tensors are filed under quantization and packed weights stand for their weight rather
    than each showing up again as unexpected or missing."""
    verdicts: dict[str, QuantVerdict] = {}
    for name in unconfigured(stored, expected):
        if name in expected:
            continue
        weight = stands_for(name, expected) or name
        e = expected.get(weight)
        if e is not None and name.rpartition(".")[2] in rule_suffixes()[0] and weight not in stored:
            verdicts[name] = QuantVerdict("packed", weight, None, e.elements)
        else:
            verdicts[name] = QuantVerdict("quantization", weight)
    return verdicts
