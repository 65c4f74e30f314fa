"""Read a checkpoint's quantization settings, whatever exporter wrote them, into one shape: ``QuantConfig``.

Exporters describe the same facts (bit width, group or block size, which modules are quantized) in different
dialects: compressed-tensors ``config_groups`` with ``targets`` and ``ignore``; bitsandbytes' ``llm_int8_skip_modules``;
GPTQ's ``dynamic`` per-module overrides; AWQ / FP8 / MXFP4 ``modules_to_not_convert``; ModelOpt's
``hf_quant_config.json`` (``quant_algo``, ``exclude_modules`` as shell patterns); MLX's ``quantization`` key with
per-layer entries. Each reader below only renames keys into the parameters the scheme files
(``schemes/*.toml``) use and says how module names are matched; what each scheme stores is data, not code here.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

LINEAR = "Linear"
EMBEDDING = "Embedding"
DECODER_BLOCKS = r"re:.*\.(layers|h|blocks)\.\d+\..*"  # GPTQ / AWQ quantize the linears inside the decoder blocks


@dataclass(frozen=True)
class Group:
    """One set of scheme parameters and the modules it applies to."""

    params: Mapping[str, Any]
    targets: tuple[str, ...] = (LINEAR,)


@dataclass(frozen=True)
class QuantConfig:
    """A quantization config in the one shape the scheme files are evaluated against."""

    method: str  # the dialect: selects the scheme files' [[scheme]] entries by `method`
    groups: tuple[Group, ...]
    ignore: tuple[str, ...] = ()
    ignore_style: str = "hf"  # "ct": exact name or re:; "hf": transformers' should_convert_module; "glob"
    overrides: Mapping[str, Mapping[str, Any] | None] = field(default_factory=dict)  # module -> params or None (skip)
    strict: bool = True  # a targeted layer stored in full precision is a finding
    kinds: tuple[str, ...] = (LINEAR, EMBEDDING)  # what regex / name targets may select (Fused: 3-D experts)
    source: str = "config.json quantization_config"

    def is_ignored(self, module: str) -> bool:
        return any(_ignored(self.ignore_style, pattern, module) for pattern in self.ignore)


def read(config: Mapping[str, Any] | None) -> QuantConfig | None:
    """The quantization config of ``config`` (``quantization_config``, or MLX's ``quantization``), if any."""
    if not isinstance(config, Mapping):
        return None
    q = config.get("quantization_config")
    if not isinstance(q, Mapping):
        mlx = config.get("quantization")
        return _mlx(mlx) if isinstance(mlx, Mapping) else None
    method = q.get("quant_method")
    method = method.lower() if isinstance(method, str) else None
    if method is None and "bits" in q and "group_size" in q and "quant_method" not in q:
        return _mlx(q)  # MLX repeats its `quantization` under quantization_config
    reader = READERS.get(method or "")
    return reader(q) if reader is not None else None


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)):
        return tuple(v for v in value if isinstance(v, str))
    return ()


def _compressed_tensors(q: Mapping[str, Any]) -> QuantConfig:
    groups = []
    for group in (q.get("config_groups") or {}).values():
        if not isinstance(group, Mapping):
            continue
        params: dict[str, Any] = {
            "format": group.get("format") or q.get("format") or "",
            "group_size": None,
            "block_structure": None,
            "strategy": None,
            "num_bits": None,
            "type": None,
            "symmetric": True,
        }
        weights = group.get("weights")
        if isinstance(weights, Mapping):
            params.update(weights)
        inputs = group.get("input_activations")
        params.update({f"input_{k}": v for k, v in inputs.items()} if isinstance(inputs, Mapping) else {})
        for key, default in (
            ("input_num_bits", None),
            ("input_strategy", None),
            ("input_dynamic", True),
            ("input_type", None),
            ("input_symmetric", True),
        ):
            params.setdefault(key, default)
        groups.append(Group(params, _strings(group.get("targets")) or (LINEAR,)))
    return QuantConfig("compressed-tensors", tuple(groups), _strings(q.get("ignore")), "ct")


def _bitsandbytes(q: Mapping[str, Any]) -> QuantConfig:
    four = bool(q.get("load_in_4bit") or q.get("_load_in_4bit"))
    params = {
        "load_in_4bit": four,
        "load_in_8bit": not four and bool(q.get("load_in_8bit") or q.get("_load_in_8bit")),
        "quant_type": q.get("bnb_4bit_quant_type") or "fp4",
        "double_quant": bool(q.get("bnb_4bit_use_double_quant")),
        "quant_storage": q.get("bnb_4bit_quant_storage") or "uint8",
    }
    # transformers never converts the output embeddings (get_keys_to_not_convert), whatever the skip list says
    ignore = (*_strings(q.get("llm_int8_skip_modules")), "lm_head")
    return QuantConfig("bitsandbytes", (Group(params),), ignore, "hf")


def _gptq(q: Mapping[str, Any]) -> QuantConfig:
    params = {
        "bits": q.get("bits"),
        "group_size": q.get("group_size", 128),
        "desc_act": bool(q.get("desc_act")),
        "sym": q.get("sym", True),
        "checkpoint_format": str(q.get("checkpoint_format") or q.get("format") or "gptq").lower(),
    }
    if q.get("is_marlin_format"):
        params["checkpoint_format"] = "marlin"
    ignore: list[str] = list(_strings(q.get("modules_to_not_convert")))
    overrides: dict[str, Mapping[str, Any] | None] = {}
    dynamic = q.get("dynamic")
    if isinstance(dynamic, Mapping):  # GPTQModel: "-:regex" skips modules, "+:regex" / "regex" overrides params
        for key, value in dynamic.items():
            if not isinstance(key, str):
                continue
            if key.startswith("-:"):
                ignore.append("re:" + key[2:])
            elif isinstance(value, Mapping):
                overrides["re:" + key.removeprefix("+:")] = value
    return QuantConfig("gptq", (Group(params, (DECODER_BLOCKS,)),), tuple(ignore), "hf", overrides)


def _awq(q: Mapping[str, Any]) -> QuantConfig:
    version = q.get("version", "gemm")
    version = version.lower() if isinstance(version, str) else "gemm"
    params = {
        "bits": q.get("bits", q.get("w_bit")),
        "group_size": q.get("group_size", q.get("q_group_size")),
        "version": "gemm" if version in ("gemm", "exllama", "ipex") else version,
        "zero_point": q.get("zero_point", True),
    }
    return QuantConfig("awq", (Group(params, (DECODER_BLOCKS,)),), _strings(q.get("modules_to_not_convert")), "hf")


def _fp8(q: Mapping[str, Any]) -> QuantConfig:
    block = q.get("weight_block_size")
    ok = isinstance(block, list) and len(block) == 2 and all(isinstance(b, int) and b > 0 for b in block)
    params = {"weight_block_size": block if ok else None, "activation_scheme": q.get("activation_scheme")}
    return QuantConfig("fp8", (Group(params),), _strings(q.get("modules_to_not_convert")), "hf", strict=False)


def _fbgemm_fp8(q: Mapping[str, Any]) -> QuantConfig:
    return QuantConfig("fbgemm_fp8", (Group({}),), _strings(q.get("modules_to_not_convert")), "hf", strict=False)


def _mxfp4(q: Mapping[str, Any]) -> QuantConfig:
    return QuantConfig(
        "mxfp4",
        (Group({}, (r"re:.*experts\..*",)),),
        _strings(q.get("modules_to_not_convert")),
        "hf",
        strict=False,
        kinds=("Fused",),
    )


def modelopt(q: Mapping[str, Any], source: str = "config.json quantization_config") -> QuantConfig:
    """ModelOpt: ``quant_algo`` (NVFP4, FP8, ...), ``group_size``, ``exclude_modules`` as shell patterns."""
    algo = q.get("quant_algo")
    params = {
        "quant_algo": algo.upper() if isinstance(algo, str) else "",
        "group_size": q.get("group_size", 16),
        "kv_cache_quant_algo": q.get("kv_cache_quant_algo"),
    }
    return QuantConfig(
        "modelopt",
        (Group(params),),
        (*_strings(q.get("exclude_modules")), *_strings(q.get("ignore"))),
        "glob",
        source=source,
    )


def _mlx(q: Mapping[str, Any]) -> QuantConfig:
    params = {"bits": q.get("bits", 4), "group_size": q.get("group_size", 64), "mode": q.get("mode", "affine")}
    overrides: dict[str, Mapping[str, Any] | None] = {}
    for key, value in q.items():
        if key in params:
            continue
        if value is False:
            overrides[key] = None
        elif isinstance(value, Mapping):
            overrides[key] = value
    return QuantConfig(
        "mlx",
        (Group(params, (LINEAR, EMBEDDING)),),
        (),
        "hf",
        overrides,
        strict=False,
        source="config.json quantization (MLX)",
    )


READERS: dict[str, Callable[[Mapping[str, Any]], QuantConfig]] = {
    "compressed-tensors": _compressed_tensors,
    "bitsandbytes": _bitsandbytes,
    "gptq": _gptq,
    "awq": _awq,
    "fp8": _fp8,
    "fbgemm_fp8": _fbgemm_fp8,
    "mxfp4": _mxfp4,
    "modelopt": modelopt,
}


@lru_cache(maxsize=4096)
def _regex(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None


def _ignored(style: str, pattern: str, module: str) -> bool:
    if style == "glob":
        return fnmatch.fnmatchcase(module, pattern)
    if pattern.startswith("re:"):
        rx = _regex(pattern[3:])
        return rx is not None and rx.match(module) is not None
    if style == "ct":
        return module == pattern
    # transformers' should_convert_module: from the start to a module boundary, as a regex, or as a suffix
    rx = _regex(rf"(?:{pattern})(?:(?<=\.)|(?=\.|$))")
    return (rx is not None and rx.match(module) is not None) or module.endswith(pattern)


def targeted(target: str, module: str, kind: str) -> bool:
    """Does a compressed-tensors style target (a class name, ``re:`` regex or exact name) select ``module``?"""
    if target in (LINEAR, EMBEDDING):
        return kind == target
    if target.startswith("re:"):
        rx = _regex(target[3:])
        return rx is not None and rx.match(module) is not None
    return module == target
