"""Dump quantized checkpoint layouts written by the real libraries (compressed-tensors, bitsandbytes).

DEV-ONLY TOOL, run with the dev virtualenv (torch 2.13 CPU, transformers 5.23, compressed-tensors 0.20,
bitsandbytes 0.50)::

    $DEVENV/bin/python tools/dump_quantized.py [--only SUBSTR]

For each tiny random model (Llama, Qwen3 with tied embeddings and a 320-wide MLP so groups and blocks do not
divide evenly, Qwen3-MoE) and each scheme it

- builds the model with ``AutoModelForCausalLM.from_config`` on CPU and counts its parameters (the unquantized
  count every quantized copy must reconcile to);
- compressed-tensors: ``apply_quantization_config`` with the library's preset scheme (or a custom
  ``QuantizationArgs`` for strategies no preset uses), fills the scales, ``ModelCompressor.compress_model``,
  ``save_pretrained`` and ``ModelCompressor.update_config`` (the path llm-compressor takes when it saves);
- bitsandbytes: ``save_pretrained`` of the float model, ``from_pretrained(..., quantization_config=
  BitsAndBytesConfig(...), device_map="cpu")`` (bitsandbytes 0.50 quantizes on CPU), ``save_pretrained``;

then keeps only what st-audit reads: every saved tensor's name, dtype and shape (from the safetensors headers),
config.json, and the unquantized parameter count, as ``fixtures/quantized/<case>/layout.json.gz``. Weights are
never kept. Nothing here imports st-audit.

Known library behaviour recorded in the notes: under transformers 5 the MoE experts are fused 3-D parameters and
the router is not an ``nn.Linear``, so neither compressed-tensors (targets ``Linear``) nor bitsandbytes quantizes
them: Qwen3-MoE dumps have quantized attention and full-precision experts and routers.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import transformers
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, LlamaConfig, Qwen3Config, Qwen3MoeConfig

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "quantized"

MODELS = {
    "llama": lambda: LlamaConfig(
        hidden_size=256,
        intermediate_size=512,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=64,
        vocab_size=1024,
        dtype="bfloat16",
    ),
    # differs from defaults: tied embeddings, an MLP width (320) that neither 128-groups nor 128-blocks divide
    "qwen3": lambda: Qwen3Config(
        hidden_size=256,
        intermediate_size=320,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=64,
        vocab_size=1024,
        tie_word_embeddings=True,
        dtype="bfloat16",
    ),
    "qwen3_moe": lambda: Qwen3MoeConfig(
        hidden_size=256,
        intermediate_size=512,
        moe_intermediate_size=128,
        num_experts=4,
        num_experts_per_tok=2,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=64,
        vocab_size=1024,
        dtype="bfloat16",
    ),
}


def _custom_int(bits: int, strategy: str, symmetric: bool = True, group_size: int | None = None):
    from compressed_tensors.quantization import QuantizationArgs, QuantizationScheme

    args = QuantizationArgs(
        num_bits=bits, type="int", strategy=strategy, symmetric=symmetric, group_size=group_size, dynamic=False
    )
    return QuantizationScheme(targets=["Linear"], weights=args)


# case suffix -> (preset name or factory, ignore list)
CT_SCHEMES: dict[str, tuple[str | Callable[[], Any], list[str]]] = {
    "ct-w4a16": ("W4A16", ["lm_head"]),
    "ct-w4a16-asym": ("W4A16_ASYM", ["lm_head"]),
    "ct-w8a16": ("W8A16", ["lm_head"]),
    "ct-w3a16": ("W3A16", ["lm_head"]),
    "ct-w4a16-channel-asym": (lambda: _custom_int(4, "channel", symmetric=False), ["lm_head"]),
    "ct-w4a16-tensor": (lambda: _custom_int(4, "tensor"), ["lm_head"]),
    "ct-w8a8": ("W8A8", ["lm_head"]),
    "ct-fp8": ("FP8", ["lm_head"]),
    "ct-fp8-dynamic": ("FP8_DYNAMIC", ["lm_head"]),
    "ct-fp8-block": ("FP8_BLOCK", ["lm_head"]),
    "ct-nvfp4": ("NVFP4", ["lm_head"]),
    "ct-nvfp4a16": ("NVFP4A16", ["lm_head"]),
    "ct-mxfp4": ("MXFP4", ["lm_head"]),
    # a per-layer override in data: the first layer's MLP stays in full precision
    "ct-w4a16-ignore-mlp0": ("W4A16", ["lm_head", "re:.*layers\\.0\\.mlp\\..*"]),
}
BNB_SCHEMES: dict[str, dict[str, Any]] = {
    "bnb-nf4": dict(load_in_4bit=True, bnb_4bit_quant_type="nf4"),
    "bnb-fp4": dict(load_in_4bit=True, bnb_4bit_quant_type="fp4"),
    "bnb-nf4-dq": dict(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True),
    "bnb-fp4-dq-skip": dict(
        load_in_4bit=True,
        bnb_4bit_quant_type="fp4",
        bnb_4bit_use_double_quant=True,
        llm_int8_skip_modules=["lm_head", "model.layers.0.self_attn"],
    ),
    "bnb-int8": dict(load_in_8bit=True),
    # differs from the default: 4-bit codes packed into bfloat16 storage (FSDP-friendly QLoRA setups)
    "bnb-nf4-storage-bf16": dict(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_quant_storage="bfloat16"),
}


def headers(directory: Path) -> list[list]:
    """Every tensor save_pretrained wrote: [name, dtype, shape], from the safetensors headers."""
    from safetensors import safe_open

    out = []
    for path in sorted(directory.glob("*.safetensors")):
        with safe_open(str(path), "pt") as f:
            for k in f.keys():
                s = f.get_slice(k)
                out.append([k, s.get_dtype(), list(s.get_shape())])
    return sorted(out)


def build(model_name: str) -> tuple[torch.nn.Module, int]:
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(MODELS[model_name](), dtype=torch.bfloat16)
    return model, sum(p.numel() for p in model.parameters())  # parameters() yields a tied weight once


def dump_ct(model_name: str, case: str, tmp: Path) -> dict:
    from compressed_tensors.compressors.model_compressors.model_compressor import ModelCompressor
    from compressed_tensors.quantization import QuantizationConfig, QuantizationStatus, preset_name_to_scheme
    from compressed_tensors.quantization.lifecycle.apply import apply_quantization_config

    preset, ignore = CT_SCHEMES[case]
    model, count = build(model_name)
    scheme = preset_name_to_scheme(preset, ["Linear"]) if isinstance(preset, str) else preset()
    qc = QuantizationConfig(
        config_groups={"group_0": scheme}, ignore=ignore, quantization_status=QuantizationStatus.FROZEN
    )
    apply_quantization_config(model, qc)
    with torch.no_grad():  # calibration stand-in: any positive scale; only layouts are kept
        for n, p in model.named_parameters():
            if n.endswith(("_scale", "global_scale")) and p.dtype.is_floating_point:
                p.fill_(0.01 if not n.endswith("global_scale") else 1.0)
    compressor = ModelCompressor.from_pretrained_model(model)
    compressor.compress_model(model)
    out = tmp / case
    model.save_pretrained(out)
    compressor.update_config(str(out))
    import compressed_tensors

    return {
        "produced_by": f"compressed-tensors {compressed_tensors.__version__} "
        f"(preset {preset if isinstance(preset, str) else 'custom QuantizationArgs'}), "
        f"transformers {transformers.__version__}, torch {torch.__version__}",
        "unquantized_parameters": count,
        "dir": out,
    }


def dump_bnb(model_name: str, case: str, tmp: Path) -> dict:
    import bitsandbytes

    model, count = build(model_name)
    base = tmp / f"{case}-base"
    model.save_pretrained(base)
    kwargs = dict(BNB_SCHEMES[case])
    if kwargs.get("load_in_4bit"):
        kwargs["bnb_4bit_compute_dtype"] = torch.bfloat16
        kwargs["bnb_4bit_quant_storage"] = getattr(torch, kwargs.get("bnb_4bit_quant_storage", "uint8"))
    q = AutoModelForCausalLM.from_pretrained(base, quantization_config=BitsAndBytesConfig(**kwargs), device_map="cpu")
    out = tmp / case
    q.save_pretrained(out)
    return {
        "produced_by": f"bitsandbytes {bitsandbytes.__version__} through transformers {transformers.__version__} "
        f"from_pretrained(quantization_config=BitsAndBytesConfig({BNB_SCHEMES[case]})) on CPU, "
        f"torch {torch.__version__}",
        "unquantized_parameters": count,
        "dir": out,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    try:
        for model_name in MODELS:
            for scheme, dumper in [*((s, dump_ct) for s in CT_SCHEMES), *((s, dump_bnb) for s in BNB_SCHEMES)]:
                case = f"{model_name}-{scheme}"
                if args.only not in case:
                    continue
                try:
                    result = dumper(model_name, scheme, tmp)
                except Exception as e:  # a scheme the library refuses for this model: say so, keep going
                    print(f"{case}: FAILED {type(e).__name__}: {e}", file=sys.stderr)
                    continue
                config = json.loads((result["dir"] / "config.json").read_text())
                doc = {
                    "case": case,
                    "model": model_name,
                    "scheme": scheme,
                    "produced_by": result["produced_by"],
                    "unquantized_parameters": result["unquantized_parameters"],
                    "config": config,
                    "tensors": headers(result["dir"]),
                    "notes": "Written by the library itself (save_pretrained); headers and config.json only. "
                    "transformers 5 keeps MoE experts fused (3-D) and routers as non-Linear modules, "
                    "so the quantizers leave them in full precision.",
                }
                (OUT / case).mkdir(parents=True, exist_ok=True)
                raw = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
                (OUT / case / "layout.json.gz").write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
                print(f"{case}: {len(doc['tensors'])} tensors, unquantized {doc['unquantized_parameters']:,}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
