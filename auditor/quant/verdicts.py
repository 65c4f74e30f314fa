"""What the quantization check concludes, and which stored names look like quantization bookkeeping.

``QuantVerdict`` is one stored tensor's relation to quantization, ``Assessment`` all of them for a checkpoint;
the name sets come from the scheme files (``schemes/*.toml``), so a new scheme teaches them its names.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

from ..read.header import Tensor
from .schemes import all_schemes, packed_forms

FLOAT_DTYPES = ("F16", "BF16", "F32", "F64")


class QuantVerdict(NamedTuple):
    """How a stored tensor relates to quantization (one per quantization tensor: ~46k for DeepSeek-V3)."""

    category: str  # "quantization" (bookkeeping) or "packed" (the quantized weight itself)
    base: str  # the logical tensor a packed weight stands for ("" for one stored under that
    #                          tensor's own name, sorted in bulk, and for bookkeeping sorted in bulk)
    problem: str | None = None
    logical_elements: int = 0  # for packed weights: how many parameters the stored tensor encodes
    note: str | None = None  # bookkeeping that needs its own explanation (reported as an info finding)


@dataclass
class Assessment:
    """Everything the quantization layer concluded about one checkpoint."""

    verdicts: dict[str, QuantVerdict] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (tensor, what does not fit which rule)
    coverage: list[tuple[str, str]] = field(default_factory=list)  # (tensor, stored form vs the config)


SORTED = QuantVerdict("quantization", "")  # bookkeeping as its rule says, sorted in bulk


@cache
def rule_suffixes() -> tuple[frozenset[str], frozenset[str]]:
    """Last name parts of every scheme's tensors (``qweight``, ``weight_packed``, ``absmax``, ...): the packed
    weights' and the bookkeeping's. Read from the scheme files on first use (an unquantized checkpoint whose
    names are all expected never needs them)."""
    weight: set[str] = set()
    aux: set[str] = set()
    for scheme in all_schemes():
        for rule in scheme.rules:
            last = rule.name.rpartition(".")[2].replace("{weight}", "weight")
            if "{" in last or last in ("weight", "bias"):
                continue
            (weight if rule.role == "weight" else aux).add(last)
    return frozenset(weight), frozenset(aux)


def looks_quantized(name: str) -> bool:
    """A quantization tensor by its name: a packed weight or bookkeeping some scheme file names."""
    last = name.rpartition(".")[2]
    weight, aux = rule_suffixes()
    return (
        last in weight
        or last in aux
        or any(last.startswith(prefixes) or last.endswith(suffixes) for prefixes, suffixes in packed_forms().values())
    )


def looks_like_bookkeeping(name: str) -> bool:
    """Quantization bookkeeping by its name alone (no scheme evaluated): scales, zero points, quant state."""
    last = name.rpartition(".")[2]
    prefixes, suffixes = packed_forms()["bookkeeping"]
    return last in rule_suffixes()[1] or last.startswith(prefixes) or last.endswith(suffixes)


def stand_ins(name: str) -> tuple[str, ...]:
    """The one rule for which tensor a stored quantization tensor stands for or beside, by name alone (the
    reconciler's explainer, the no-config check and the root-cause pass all use it). Nearest first: its module's
    weight and the module (``q_proj.qweight`` -> ``q_proj.weight``; ``q_proj.weight.absmax`` -> ``q_proj.weight``),
    the module's module for nested bookkeeping (``q_proj.weight.quant_state.bitsandbytes__nf4`` -> ``q_proj.weight``)
    and the name without its ``_suffix`` (``experts.gate_up_proj_blocks`` -> ``experts.gate_up_proj``). Empty for
    a name that does not look quantized: a stray ``q_proj.bias`` is not explained by ``q_proj.weight``."""
    if not looks_quantized(name):
        return ()
    module = name.rpartition(".")[0]
    unsuffixed = name.rsplit("_", 1)[0]
    if not module:
        return (unsuffixed,)
    return tuple(c for c in (module + ".weight", module, module.rpartition(".")[0], unsuffixed) if c)


def stands_for(name: str, expected: Container[str]) -> str | None:
    """The expected tensor a stored quantization tensor stands for or beside (see ``stand_ins``), or None."""
    return next((c for c in stand_ins(name) if c in expected), None)


def unconfigured(stored: Mapping[str, Tensor], expected: Mapping[str, Any]) -> list[str]:
    """Without any quantization config: weights stored in a quantized dtype, and quantization tensors beside
    expected weights (a loader would read the codes as if they were the weights, or not at all)."""
    out = []
    for name, t in stored.items():
        e = expected.get(name)
        if e is not None:
            if t.dtype not in FLOAT_DTYPES and t.dtype != "BOOL" and e.kind == "param" and len(e.shape) >= 2:
                out.append(name)
        elif stands_for(name, expected):
            out.append(name)
    return out
