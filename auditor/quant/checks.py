"""Findings of the quantization layer beyond per-tensor shape checks: layers stored in another form than the
config says, quantized tensors with no config at all, and a floating dtype that differs from config.json's."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from itertools import groupby
from typing import Any

from ..core.findings import Finding, finding, plural
from ..core.names import shown
from ..read.header import DTYPE, DTYPE_BITS, ELEMENTS, Tensor
from . import Quantization
from .verdicts import FLOAT_DTYPES, unconfigured

CONFIG_DTYPES = {
    "bfloat16": "BF16",
    "float16": "F16",
    "half": "F16",
    "float32": "F32",
    "float": "F32",
    "float64": "F64",
}


def quantization_findings(
    quantization: Quantization,
    stored: Mapping[str, Tensor],
    expected: Mapping[str, Any],
    categories: Mapping[str, str],
    cfg: Mapping[str, Any],
) -> list[Finding]:
    """Coverage against the config, missing config, and the stored-vs-config dtype warning."""
    out: list[Finding] = []
    coverage = quantization.assessment.coverage
    if coverage:
        out.append(
            finding(
                "quantization-coverage",
                f"{plural(len(coverage), 'layer')} stored in another form than "
                "the quantization config says: " + shown([f"{n}: {why}" for n, why in coverage], sep="; "),
                tensors=[n for n, _ in coverage],
            )
        )
    q = cfg.get("quantization_config")
    if quantization.config is None and isinstance(q, Mapping):
        odd = unconfigured(stored, expected)
        if odd:
            out.append(
                finding(
                    "quantization-unknown",
                    f"quantization_config names quant_method "
                    f"{q.get('quant_method')!r}, which st-audit has no scheme for: "
                    f"{plural(len(odd), 'quantized tensor')} counted without checks: {shown(odd)}",
                    tensors=odd,
                    files=["config.json"],
                )
            )
    elif quantization.config is None:
        odd = unconfigured(stored, expected)
        if odd:
            dtypes = sorted({stored[n].dtype for n in odd if stored[n].dtype not in FLOAT_DTYPES}) or ["names"]
            out.append(
                finding(
                    "quantization-config-missing",
                    f"{plural(len(odd), 'tensor')} stored quantized "
                    f"({', '.join(dtypes)}) but config.json has no quantization_config: a loader would "
                    f"read the codes as plain weights or not at all: {shown(odd)}",
                    tensors=odd,
                    files=["config.json"],
                )
            )
    dtype = dtype_mismatch(stored, categories, cfg)
    if dtype is not None:
        out.append(dtype)
    return out


def _size(n: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def dtype_mismatch(
    stored: Mapping[str, Tensor], categories: Mapping[str, str], cfg: Mapping[str, Any]
) -> Finding | None:
    """The model's floating parameters are mostly stored in another dtype than config.json's ``dtype`` /
    ``torch_dtype``: a loader casts them (or keeps twice the memory). Deliberate exceptions (an F32 router bias in
    a BF16 model) do not count: the dominant stored dtype decides."""
    declared = cfg.get("dtype") or cfg.get("torch_dtype")
    want = CONFIG_DTYPES.get(declared) if isinstance(declared, str) else None
    if want is None:
        return None
    counted = [n for n, category in categories.items() if category == "model" or category == "mtp"]
    floats = [t for t in map(stored.get, counted) if t is not None and t.dtype in FLOAT_DTYPES]
    sums = {dtype: sum(map(ELEMENTS, run)) for dtype, run in groupby(sorted(floats, key=DTYPE), key=DTYPE)}
    order = list(dict.fromkeys(map(DTYPE, floats)))  # dtypes in order of appearance (most_common's tie-break)
    by_dtype = Counter({d: sums[d] for d in order})
    if not by_dtype:
        return None
    dominant, elements = by_dtype.most_common(1)[0]
    if dominant == want:
        return None
    odd = [t.name for d in order if d != want for t in floats if t.dtype == d]
    total = sum(by_dtype.values())
    stored_bytes = sum(e * DTYPE_BITS[d] // 8 for d, e in by_dtype.items())
    wanted_bytes = total * DTYPE_BITS[want] // 8
    return finding(
        "dtype-config-mismatch",
        f"stored {dominant}, config says {declared}: {_size(stored_bytes)} instead "
        f"of {_size(wanted_bytes)} ({plural(len(odd), 'floating tensor')} not {want}: {shown(odd)})",
        tensors=odd,
        files=["config.json"],
    )
