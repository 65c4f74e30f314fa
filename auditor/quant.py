"""Quantization bookkeeping: recognise scale tensors and check their shapes against quantization_config.

FP8 block quantization (DeepSeek-V3 style): ``X.weight`` is F8 and ``X.weight_scale_inv`` is
``[ceil(out/b0), ceil(in/b1)]`` for ``weight_block_size = [b0, b1]`` (leading dims of fused experts kept);
per-tensor scales (``weight_scale``, ``input_scale``) are scalars or ``[1]``.
MXFP4 (gpt-oss): ``X_blocks`` U8 ``[..., n/32, 16]`` holds two FP4 values per byte, ``X_scales`` U8
``[..., n/32]`` one E8M0 exponent per block of 32 values.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

from .inventory import Tensor

SCALE_SUFFIXES = (".weight_scale_inv", ".weight_scale", ".input_scale", ".activation_scale", ".weight_scale_2",
                  ".k_scale", ".v_scale")
MXFP4_BLOCK = 32


@dataclass(frozen=True)
class QuantVerdict:
    """How a stored tensor relates to quantization: its base tensor and, if wrong, why."""

    category: str            # "quantization" (bookkeeping) or "packed" (the quantized weight itself)
    base: str                # the logical tensor it belongs to
    problem: str | None = None
    logical_elements: int = 0  # for packed weights: how many parameters the stored bytes encode


def block_size(qconfig: dict[str, Any] | None) -> tuple[int, int] | None:
    """``weight_block_size`` of an FP8 block-quantized config, if any."""
    if not isinstance(qconfig, dict):
        return None
    bs = qconfig.get("weight_block_size")
    if isinstance(bs, list) and len(bs) == 2 and all(isinstance(b, int) and b > 0 for b in bs):
        return bs[0], bs[1]
    return None


_SCALE_ENDINGS = {s.rsplit(".", 1)[1] for s in SCALE_SUFFIXES}


class Quantization:
    """The quantization scheme of one config (read once, then asked about each unexplained tensor)."""

    def __init__(self, qconfig: dict[str, Any] | None) -> None:
        self.qconfig = qconfig
        self.block = block_size(qconfig)
        self.mxfp4 = _quant_method(qconfig) == "mxfp4"

    def classify(self, tensor: Tensor, stored: dict[str, Tensor], expected: Mapping[str, Any]) -> QuantVerdict | None:
        """A verdict when ``tensor`` is bookkeeping or a packed weight; ``expected`` maps names to objects
        with a ``shape``."""
        name = tensor.name
        stem, _, ending = name.rpartition(".")
        if ending in _SCALE_ENDINGS:
            base = stem + ".weight"
            if base not in stored and base not in expected:
                return None
            if ending == "weight_scale_inv":
                return QuantVerdict("quantization", base, _fp8_block_problem(tensor, stored.get(base), self.block))
            if tensor.elements != 1 and ending in ("input_scale", "activation_scale", "k_scale", "v_scale"):
                return QuantVerdict("quantization", base, f"expected a scalar or [1], found {list(tensor.shape)}")
            return QuantVerdict("quantization", base)
        if self.mxfp4 and name.endswith(("_blocks", "_scales")):
            return _mxfp4(tensor, expected)
        return None

    def unscaled_fp8_weights(self, stored: dict[str, Tensor]) -> list[str]:
        """F8 weights of a block-quantized checkpoint without their ``weight_scale_inv`` (they cannot load)."""
        if self.block is None:
            return []
        return [name for name, t in stored.items()
                if t.dtype.startswith("F8_") and name.endswith(".weight") and f"{name}_scale_inv" not in stored]


def _mxfp4(tensor: Tensor, expected: Mapping[str, Any]) -> QuantVerdict | None:
    name = tensor.name
    base = name.rsplit("_", 1)[0]
    logical = expected.get(base)
    if logical is None:
        return None
    n = 1
    for d in logical.shape:
        n *= d
    if name.endswith("_blocks"):
        encoded = tensor.elements * 2
        problem = None if (tensor.dtype == "U8" and encoded == n and tensor.shape[-1:] == (16,)) else (
            f"{tensor.dtype} {list(tensor.shape)} encodes {encoded:,} FP4 values; {base} needs {n:,}")
        return QuantVerdict("packed", base, problem, encoded)
    problem = None if tensor.elements * MXFP4_BLOCK == n else (
        f"{list(tensor.shape)} holds {tensor.elements:,} block scales; {base} needs {n // MXFP4_BLOCK:,}")
    return QuantVerdict("quantization", base, problem)


def _quant_method(qconfig: dict[str, Any] | None) -> str | None:
    return qconfig.get("quant_method") if isinstance(qconfig, dict) else None


def _fp8_block_problem(scale: Tensor, weight: Tensor | None, bs: tuple[int, int] | None) -> str | None:
    if weight is None:
        return f"its weight {scale.name.rsplit('.', 1)[0]}.weight is not stored"
    if bs is None or len(weight.shape) < 2:
        return None if scale.elements == 1 else (
            f"no weight_block_size in quantization_config, so a per-tensor scale was expected, found {list(scale.shape)}")
    *lead, out_dim, in_dim = weight.shape
    want = (*lead, -(-out_dim // bs[0]), -(-in_dim // bs[1]))
    if scale.shape != want:
        return (f"shape {list(scale.shape)}, expected {list(want)} = [ceil({out_dim}/{bs[0]}), ceil({in_dim}/{bs[1]})] "
                f"for weight {list(weight.shape)}")
    return None

