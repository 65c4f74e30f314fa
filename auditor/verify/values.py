"""Tensor values by their bit patterns: NaN, Inf and zero counts, a sampled fingerprint, optional statistics.

numpy has no bfloat16 or float8 dtypes, and converting every element to float would cost more than hashing
it, so the default checks work on the raw bits viewed as unsigned integers: ``bits & abs_mask`` drops the
sign, a value is non-finite when its exponent field is all ones (``masked >= exponent_mask``), and zero
(including -0.0) when ``masked == 0``. One ``max`` of the masked bits tells whether any non-finite value
exists at all, so NaN/Inf are only counted (and located) in the rare segment that has one. Statistics
(min, max, mean |x|) need real floats and are computed only when asked for (``--tensors``).

Each function takes one *segment*: a whole number of elements of one tensor, in a buffer shared with the
reader, and returns a small ``Partial`` that is merged into the tensor's ``Scan`` under a lock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np


class BitLayout(NamedTuple):
    """How a floating-point dtype marks its special values."""

    uint: type  # unsigned view of one element
    abs_mask: int  # all bits but the sign
    special: int  # masked >= special: NaN or Inf (exponent all ones; E4M3: 0x7f is the only NaN)
    inf: int | None  # masked == inf is +-Inf; None when the format has no infinity
    nan_exact: int | None = None  # FNUZ / E8M0 formats: this one bit pattern is NaN, and there is no -0.0


FLOAT_LAYOUTS: dict[str, BitLayout] = {
    "BF16": BitLayout(np.uint16, 0x7FFF, 0x7F80, 0x7F80),
    "F16": BitLayout(np.uint16, 0x7FFF, 0x7C00, 0x7C00),
    "F32": BitLayout(np.uint32, 0x7FFF_FFFF, 0x7F80_0000, 0x7F80_0000),
    "F64": BitLayout(np.uint64, 0x7FFF_FFFF_FFFF_FFFF, 0x7FF0_0000_0000_0000, 0x7FF0_0000_0000_0000),
    "F8_E5M2": BitLayout(np.uint8, 0x7F, 0x7C, 0x7C),
    "F8_E4M3": BitLayout(np.uint8, 0x7F, 0x7F, None),  # OCP E4M3FN: S.1111.111 is NaN, no Inf
    "F8_E4M3FNUZ": BitLayout(np.uint8, 0xFF, 0x100, None, 0x80),  # 0x80 ("-0") is the NaN, no Inf
    "F8_E5M2FNUZ": BitLayout(np.uint8, 0xFF, 0x100, None, 0x80),
    "F8_E8M0": BitLayout(np.uint8, 0xFF, 0x100, None, 0xFF),  # scale exponents: 0xFF is NaN, no zero
}
INT_DTYPES: dict[str, type] = {
    "I8": np.int8,
    "U8": np.uint8,
    "I16": np.int16,
    "U16": np.uint16,
    "I32": np.int32,
    "U32": np.uint32,
    "I64": np.int64,
    "U64": np.uint64,
    "BOOL": np.uint8,
}
NO_ZERO = frozenset({"F8_E8M0"})  # every bit pattern is a power of two: "all zero" does not apply


def elementwise(dtype: str) -> bool:
    """True when elements can be counted (zeros, NaN): every dtype except the sub-byte and complex ones."""
    return dtype in FLOAT_LAYOUTS or dtype in INT_DTYPES


@dataclass
class Partial:
    """What one segment says about its tensor; ``first_*`` are element indices within the tensor."""

    zeros: int = 0
    nan: int = 0
    inf: int = 0
    first_nan: int | None = None
    first_inf: int | None = None
    sample: bytes = b""  # the segment's first, middle and last bytes: a fingerprint to group candidates by
    minimum: float | None = None
    maximum: float | None = None
    abs_sum: float = 0.0
    finite: int = 0


SAMPLE = 32


def sample(raw: np.ndarray) -> bytes:
    """A few bytes at fixed places of a segment (its start, middle and end): with the segment's position in
    the tensor, a fingerprint of the tensor that costs no pass over the data.

    It only *groups* candidates (duplicates, tied copies): equality is always confirmed byte by byte.
    """
    n = raw.size
    if n <= 3 * SAMPLE:
        return raw.tobytes()
    mid = n // 2 - (n // 2) % 8
    return raw[:SAMPLE].tobytes() + raw[mid : mid + SAMPLE].tobytes() + raw[n - SAMPLE :].tobytes()


def scan(raw: np.ndarray, dtype: str, first_element: int, scratch: np.ndarray | None, stats: bool) -> Partial:
    """Check one segment (``raw``: uint8 view of whole elements) of a tensor of ``dtype``."""
    p = Partial(sample=sample(raw))
    layout = FLOAT_LAYOUTS.get(dtype)
    if layout is not None:
        bits: Any = raw.view(layout.uint)
        if layout.nan_exact is not None:
            _scan_exact_nan(bits, layout, dtype, first_element, p)
        else:
            _scan_ieee(bits, layout, first_element, scratch, p, stats)
        if stats:
            _stats(_as_float(bits, dtype), p)
        return p
    int_type = INT_DTYPES.get(dtype)
    if int_type is not None:
        values: Any = raw.view(int_type)
        p.zeros = values.size - int(np.count_nonzero(values))
        if stats and values.size:
            _stats(values.astype(np.float64), p)
        return p
    p.zeros = raw.size - int(np.count_nonzero(raw))  # sub-byte / complex: zero *bytes*, for all-zero only
    return p


_SIGNED: dict[Any, Any] = {np.uint8: np.int8, np.uint16: np.int16, np.uint32: np.int32, np.uint64: np.int64}


def _scan_ieee(
    bits: np.ndarray, layout: BitLayout, first: int, scratch: np.ndarray | None, p: Partial, count_zeros: bool
) -> None:
    """Two max() reductions decide the common case without writing anything.

    Viewed as signed integers, positive specials (exponent all ones) are the largest values; viewed as unsigned,
    negative specials are. So no NaN/Inf iff ``max(signed) < special`` and ``max(unsigned) < sign | special``;
    and the segment is all (+-)zero iff ``max(unsigned) <= sign`` and ``max(signed) <= 0``.
    """
    if not bits.size:
        return
    sign = 1 << (8 * bits.itemsize - 1)
    top_u = int(bits.max())
    top_s = int(bits.view(_SIGNED[layout.uint]).max())
    if top_u <= sign and top_s <= 0:
        p.zeros = bits.size
        return
    specials = top_s >= layout.special or top_u >= sign | layout.special
    if not (specials or count_zeros):
        return  # the common case: finite, not all zero; the exact zero count is only needed for --tensors
    fits = scratch is not None and scratch.nbytes >= bits.nbytes
    out: Any = scratch[: bits.nbytes].view(layout.uint) if fits and scratch is not None else None
    masked = np.bitwise_and(bits, layout.uint(layout.abs_mask), out=out)
    p.zeros = masked.size - int(np.count_nonzero(masked))
    if not specials:
        return
    if layout.inf is None:
        nan_mask = masked >= layout.special
        inf_mask = None
    else:
        nan_mask = masked > layout.inf
        inf_mask = masked == layout.inf
    p.nan = int(np.count_nonzero(nan_mask))
    if p.nan:
        p.first_nan = first + int(np.argmax(nan_mask))
    if inf_mask is not None:
        p.inf = int(np.count_nonzero(inf_mask))
        if p.inf:
            p.first_inf = first + int(np.argmax(inf_mask))


def _scan_exact_nan(bits: np.ndarray, layout: BitLayout, dtype: str, first: int, p: Partial) -> None:
    nan_mask = bits == layout.nan_exact
    p.nan = int(np.count_nonzero(nan_mask))
    if p.nan:
        p.first_nan = first + int(np.argmax(nan_mask))
    if dtype not in NO_ZERO:
        p.zeros = bits.size - int(np.count_nonzero(bits))


# -- statistics (only with --tensors) ------------------------------------------------------------------


def _f8_table(exp_bits: int, man_bits: int, bias: int) -> np.ndarray:
    """float32 value of every byte of a float8 format with this layout (specials patched by the caller)."""
    b = np.arange(256)
    sign = np.where(b & 0x80, -1.0, 1.0)
    exp = (b >> man_bits) & ((1 << exp_bits) - 1)
    man = b & ((1 << man_bits) - 1)
    normal = (1 + man / (1 << man_bits)) * np.exp2(exp - bias)
    subnormal = (man / (1 << man_bits)) * np.exp2(1 - bias)
    return (sign * np.where(exp == 0, subnormal, normal)).astype(np.float32)


def _tables() -> dict[str, np.ndarray]:
    e4m3 = _f8_table(4, 3, 7)
    e4m3[[0x7F, 0xFF]] = np.nan
    e5m2 = _f8_table(5, 2, 15)
    e5m2[[0x7C, 0xFC]] = [np.inf, -np.inf]
    e5m2[[*range(0x7D, 0x80), *range(0xFD, 0x100)]] = np.nan
    fnuz43, fnuz52 = _f8_table(4, 3, 8), _f8_table(5, 2, 16)
    fnuz43[0x80] = fnuz52[0x80] = np.nan
    e8m0 = np.exp2(np.arange(256, dtype=np.float64) - 127).astype(np.float32)
    e8m0[0xFF] = np.nan
    return {"F8_E4M3": e4m3, "F8_E5M2": e5m2, "F8_E4M3FNUZ": fnuz43, "F8_E5M2FNUZ": fnuz52, "F8_E8M0": e8m0}


_F8: dict[str, np.ndarray] = {}


def _as_float(bits: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "BF16":
        return (bits.astype(np.uint32) << 16).view(np.float32)
    if dtype == "F16":
        return bits.view(np.float16).astype(np.float32)
    if dtype == "F32":
        return bits.view(np.float32)
    if dtype == "F64":
        return bits.view(np.float64)
    if not _F8:
        _F8.update(_tables())
    return _F8[dtype][bits]


def _stats(values: np.ndarray, p: Partial) -> None:
    if p.nan or p.inf or values.dtype.kind == "f" and not np.isfinite(values).all():
        values = values[np.isfinite(values)]
    p.finite = int(values.size)
    if values.size:
        p.minimum = float(values.min())
        p.maximum = float(values.max())
        p.abs_sum = float(np.add.reduce(np.abs(values), dtype=np.float64))
