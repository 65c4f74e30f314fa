"""Quantization bookkeeping: recognise scale tensors and check their shapes against quantization_config.

FP8 block quantization (DeepSeek-V3 style): ``X.weight`` is F8 and ``X.weight_scale_inv`` is
``[ceil(out/b0), ceil(in/b1)]`` for ``weight_block_size = [b0, b1]`` (leading dims of fused experts kept);
per-tensor scales (``weight_scale``, ``input_scale``) are scalars or ``[1]``.
MXFP4 (gpt-oss): ``X_blocks`` U8 ``[..., n/32, 16]`` holds two FP4 values per byte, ``X_scales`` U8
``[..., n/32]`` one E8M0 exponent per block of 32 values.
GPTQ and AWQ (``quant_method`` "gptq" / "awq"): a linear ``X.weight`` ``[out, in]`` is stored as ``X.qweight``,
``bits``-bit integers packed ``32 / bits`` to an I32, beside its bookkeeping ``X.qzeros`` (packed zero points),
``X.scales`` (one per group of ``group_size`` inputs; -1 means one group) and, for GPTQ, ``X.g_idx``. Shapes:

- GPTQ (AutoGPTQ ``QuantLinear``, also read by optimum / transformers): ``qweight [in // 32 * bits, out]``,
  ``qzeros [ceil(in / g), out // 32 * bits]``, ``scales [ceil(in / g), out]``, ``g_idx [in]``.
- AWQ GEMM (AutoAWQ ``WQLinear_GEMM``; also its exllama / ipex kernels): ``qweight [in, out // (32 // bits)]``,
  ``qzeros [in // g, out // (32 // bits)]``, ``scales [in // g, out]``.
- AWQ GEMV (``WQLinear_GEMV``): ``qweight [out, in // (32 // bits)]``, ``qzeros [out, w]``,
  ``scales [out, w * 32 // bits]`` with ``w`` = ``calculate_zeros_width(in, g)`` (groups rounded up to a whole
  I32, then to a multiple of 128 / g for g < 128).

``X.qweight`` counts as the ``out * in`` values it encodes (a "packed" verdict); the rest is bookkeeping. GPTQ
exports often add a zero ``X.bias`` to every quantized linear, even where the architecture has none: such a
bias is bookkeeping too (explained by a note), while a bias the architecture has stays a model parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any, NamedTuple

from .inventory import Tensor

SCALE_SUFFIXES = (".weight_scale_inv", ".weight_scale", ".input_scale", ".activation_scale", ".weight_scale_2",
                  ".k_scale", ".v_scale")
MXFP4_BLOCK = 32
INT_PACKED_METHODS = ("gptq", "awq")
INT_PACKED_ENDINGS = ("qweight", "qzeros", "scales", "g_idx")
GEMM_LIKE_AWQ = ("gemm", "exllama", "ipex")  # AutoAWQ kernels that load the GEMM layout
STRAY_BIAS_NOTE = ("stored by the quantizer beside packed weights whose layers have no bias in the architecture "
                   "(quantization bookkeeping: transformers reports them as unused and does not load them)")


class QuantVerdict(NamedTuple):
    """How a stored tensor relates to quantization: its base tensor and, if wrong, why (one per scale tensor,
    ~46k for DeepSeek-V3: a NamedTuple is the cheap record)."""

    category: str            # "quantization" (bookkeeping) or "packed" (the quantized weight itself)
    base: str                # the logical tensor it belongs to
    problem: str | None = None
    logical_elements: int = 0  # for packed weights: how many parameters the stored bytes encode
    note: str | None = None  # bookkeeping that needs its own explanation (reported as an info finding)


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
        self.int_packed = IntPacking.from_config(qconfig)

    def classify(self, tensor: Tensor, stored: dict[str, Tensor], expected: Mapping[str, Any]) -> QuantVerdict | None:
        """A verdict when ``tensor`` is bookkeeping or a packed weight; ``expected`` maps names to objects
        with a ``shape``."""
        name = tensor.name
        stem, _, ending = name.rpartition(".")
        if self.int_packed is not None and ending in (*INT_PACKED_ENDINGS, "bias"):
            return self.int_packed.classify(tensor, stored, expected)
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


@dataclass(frozen=True)
class IntPacking:
    """GPTQ / AWQ: integer weights packed into I32 ``qweight`` with per-group ``scales`` and ``qzeros``."""

    method: str           # "gptq" or "awq"
    layout: str           # "gptq", "gemm", "gemv", or another AWQ version (then only element counts are checked)
    bits: int | None      # None: quantization_config gives no usable bit width
    group_size: int | None  # -1: one group over the whole input; None: not given (group counts unchecked)

    @classmethod
    def from_config(cls, qconfig: dict[str, Any] | None) -> IntPacking | None:
        method = _quant_method(qconfig)
        if not isinstance(qconfig, dict) or not isinstance(method, str) or method.lower() not in INT_PACKED_METHODS:
            return None
        method = method.lower()
        bits = qconfig.get("bits", qconfig.get("w_bit"))
        group = qconfig.get("group_size", qconfig.get("q_group_size"))
        layout = "gptq"
        if method == "awq":
            version = qconfig.get("version", "gemm")
            layout = version.lower() if isinstance(version, str) else "gemm"
            layout = "gemm" if layout in GEMM_LIKE_AWQ else layout
        return cls(method, layout,
                   bits if isinstance(bits, int) and not isinstance(bits, bool) and bits in (2, 3, 4, 8) else None,
                   group if isinstance(group, int) and not isinstance(group, bool) and (group > 0 or group == -1)
                   else None)

    @property
    def label(self) -> str:
        bits = f"{self.bits}-bit " if self.bits else ""
        return f"{bits}GPTQ" if self.method == "gptq" else f"{bits}AWQ {self.layout.upper()}"

    def classify(self, tensor: Tensor, stored: dict[str, Tensor], expected: Mapping[str, Any]) -> QuantVerdict | None:
        stem, _, ending = tensor.name.rpartition(".")
        base = stem + ".weight"
        logical = expected.get(base)
        qweight = stem + ".qweight"
        if ending == "bias":
            if logical is None or qweight not in stored or tensor.name in expected:
                return None  # a bias the architecture has is the model's (matched before quantization is asked)
            out = logical.shape[0] if len(logical.shape) == 2 else None
            problem = None if out is None or tensor.shape == (out,) else (
                f"shape {list(tensor.shape)}, expected [{out}] (the output size of {base})")
            return QuantVerdict("quantization", base, problem, note=STRAY_BIAS_NOTE)
        if logical is None:
            if ending == "qweight" or qweight not in stored:
                return None  # no architecture to compare with: not ours to explain
            return QuantVerdict("quantization", base)  # bookkeeping of a stored qweight (generic audit)
        shape = tuple(logical.shape)
        if len(shape) != 2:
            return None  # GPTQ / AWQ quantize nn.Linear weights only
        out_f, in_f = shape
        want = self.shapes(out_f, in_f)
        if ending == "qweight":
            return self._qweight(tensor, stored, base, out_f, in_f, want)
        if qweight not in stored:
            why = (f"{base} is stored unquantized beside it" if base in stored
                   else f"its packed weight {qweight} (the stored form of {base}) is not stored")
            return QuantVerdict("quantization", base, why)
        if self.method == "awq" and ending == "g_idx":
            return QuantVerdict("quantization", base, "AWQ checkpoints have no g_idx (a GPTQ tensor)")
        need = want.get(ending) if want else None
        if need is not None and tensor.shape != need[0]:
            return QuantVerdict("quantization", base, f"shape {list(tensor.shape)}, expected {list(need[0])} = "
                                f"{need[1]} for {base} [out={out_f}, in={in_f}] ({self._groups_text()})")
        return QuantVerdict("quantization", base)

    def _qweight(self, tensor: Tensor, stored: dict[str, Tensor], base: str, out_f: int, in_f: int,
                 want: dict[str, tuple[tuple[int, ...], str]] | None) -> QuantVerdict:
        stem = tensor.name.rpartition(".")[0]
        n = out_f * in_f
        encoded = tensor.elements * 32 // self.bits if self.bits else tensor.elements
        problems = []
        if tensor.dtype != "I32":
            problems.append(f"dtype {tensor.dtype}, expected I32 ({32 // self.bits if self.bits else 'n'} packed "
                            "values per element)")
        if self.bits is None:
            problems.append("quantization_config gives no usable bits (2, 3, 4 or 8), so the packing is unknown")
        elif want is not None and tensor.shape != want["qweight"][0]:
            problems.append(f"shape {list(tensor.shape)}, expected {list(want['qweight'][0])} = "
                            f"{want['qweight'][1]} for {base} [out={out_f}, in={in_f}] ({self.label})")
        elif want is None and encoded != n:
            problems.append(f"{list(tensor.shape)} encodes {encoded:,} values; {base} needs {n:,}")
        if base in stored:
            problems.append(f"{base} is stored too, unpacked")
        for part in ("scales", "qzeros"):
            if f"{stem}.{part}" not in stored:
                problems.append(f"{stem}.{part} is not stored (the packed weight cannot be dequantized)")
        logical = n if not problems or (self.bits and encoded == n) else encoded
        return QuantVerdict("packed", base, "; ".join(problems) or None, logical)

    def _groups_text(self) -> str:
        if self.group_size is None:
            return f"{self.label}, no group_size in quantization_config"
        return f"{self.label}, group_size {self.group_size}" + (" = one group" if self.group_size == -1 else "")

    def shapes(self, out_f: int, in_f: int) -> dict[str, tuple[tuple[int, ...], str]] | None:
        """Expected shape (and its formula) of each stored tensor of a quantized ``[out, in]`` linear; None when
        the layout is not one this module knows (then only element counts are checked)."""
        bits = self.bits
        if bits is None:
            return None
        g = in_f if self.group_size == -1 else self.group_size
        pack = 32 // bits
        out: dict[str, tuple[tuple[int, ...], str]] = {}
        if self.layout == "gptq":
            out["qweight"] = ((in_f // 32 * bits, out_f), f"[in // 32 * {bits}, out]")
            if g is not None:
                groups = -(-in_f // g)
                out["qzeros"] = ((groups, out_f // 32 * bits), f"[ceil(in / {g}), out // 32 * {bits}]")
                out["scales"] = ((groups, out_f), f"[ceil(in / {g}), out]")
            out["g_idx"] = ((in_f,), "[in]")
        elif self.layout == "gemm":
            out["qweight"] = ((in_f, out_f // pack), f"[in, out // {pack}]")
            if g is not None:
                out["qzeros"] = ((in_f // g, out_f // pack), f"[in // {g}, out // {pack}]")
                out["scales"] = ((in_f // g, out_f), f"[in // {g}, out]")
        elif self.layout == "gemv":
            out["qweight"] = ((out_f, in_f // pack), f"[out, in // {pack}]")
            width = None if g is None else _awq_gemv_zeros_width(in_f, g, pack)
            if width is not None:
                out["qzeros"] = ((out_f, width), f"[out, {width}] (calculate_zeros_width(in, {g}))")
                out["scales"] = ((out_f, width * pack), f"[out, {width} * {pack}]")
        else:
            return None
        return out


def _awq_gemv_zeros_width(in_f: int, group: int, pack: int) -> int | None:
    """AutoAWQ ``calculate_zeros_width``: groups rounded up to whole I32s, then to a multiple of 128 / g."""
    multiplier = 1 if group >= 128 else {64: 2, 32: 4}.get(group)
    if multiplier is None:
        return None  # AutoAWQ itself raises NotImplementedError for other group sizes
    width = -(-(in_f // group) // pack)
    return -(-width // multiplier) * multiplier


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

