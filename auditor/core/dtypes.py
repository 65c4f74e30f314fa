"""Dtype names as people write them (``bf16``, ``torch.bfloat16``, ``Float32``) -> safetensors names."""

from __future__ import annotations

# dtype names people write, case-insensitive: torch/numpy names and short forms -> safetensors names
DTYPE_ALIASES = {
    "bf16": "BF16",
    "bfloat16": "BF16",
    "fp16": "F16",
    "float16": "F16",
    "half": "F16",
    "fp32": "F32",
    "float32": "F32",
    "float": "F32",
    "fp64": "F64",
    "float64": "F64",
    "double": "F64",
    "int8": "I8",
    "uint8": "U8",
    "int16": "I16",
    "uint16": "U16",
    "int32": "I32",
    "uint32": "U32",
    "int64": "I64",
    "uint64": "U64",
    "long": "I64",
    "int": "I32",
    "bool": "BOOL",
    "complex64": "C64",
    "fp8": "F8_E4M3",
    "float8_e4m3fn": "F8_E4M3",
    "float8_e5m2": "F8_E5M2",
    "float8_e8m0fnu": "F8_E8M0",
    "float8_e4m3fnuz": "F8_E4M3FNUZ",
    "float8_e5m2fnuz": "F8_E5M2FNUZ",
    "fp4": "F4",
    "float4_e2m1fn_x2": "F4",
}


def canonical_dtype(name: str) -> str:
    """``bf16``, ``bfloat16``, ``Bf16`` and ``BF16`` all mean ``BF16``; unknown names are returned upper-cased
    (and then rejected with the list of known ones)."""
    key = name.strip().lower().removeprefix("torch.")
    return DTYPE_ALIASES.get(key, name.strip().upper())
