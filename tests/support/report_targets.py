"""The targets whose reports the HTML tests render (tests/test_formats_html.py, in a real browser
tests/test_formats_html_browser.py): a dense LLM, an MoE, a VLM, a pipeline, an adapter, a broken checkpoint, one
whose shards could not be read (a Git LFS pointer, a shard missing), a pipeline with a failing section, one whose
fp16 unet variant lost a tensor, and a GPTQ
export (packed int32 weights), healthy and with one layer's ``qweight`` lost."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import auditor
from auditor.report.composite import AnyReport

from . import build, gptq
from .peft import load, make
from .truth import CASES, write_case

BROKEN_DROP = "model.layers.7.self_attn.k_norm.weight"
GPTQ_LAYOUT = "meta-llama__Meta-Llama-3-8B"
GPTQ_DROP = "model.layers.5.mlp.down_proj.qweight"  # layer 5 of 32 loses a packed weight


def _dense(dest: Path) -> Path:
    return write_case(CASES / "qwen3" / "Qwen3ForCausalLM-small", dest)


def _moe(dest: Path) -> Path:
    return write_case(CASES / "qwen3_moe" / "Qwen3MoeForCausalLM-small", dest)


def _vlm(dest: Path) -> Path:
    return write_case(CASES / "qwen2_5_vl" / "Qwen2_5_VLForConditionalGeneration-small", dest)


def _pipeline(dest: Path) -> Path:
    return build.build_folder_dump("tiny-sd-pipeline", dest)


def _adapter(dest: Path) -> Path:
    doc = load("llama-qv")
    adapter, _ = make(dest, doc, tensors=[tuple(t) for t in doc["tensors"]])
    return adapter


def _broken(dest: Path) -> Path:
    """The demo's accidents: a lost k_norm, rotary buffers saved, the last shard truncated."""
    ckpt = build.build_layout(
        dest,
        "Qwen__Qwen3-8B",
        shards=5,
        drop=[BROKEN_DROP],
        extra=[(f"model.layers.{i}.self_attn.rotary_emb.inv_freq", "F32", [64]) for i in range(36)],
    )
    last = sorted(ckpt.glob("model-*.safetensors"))[-1]
    os.truncate(last, last.stat().st_size - 1000)  # sparse: never read
    return ckpt


LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 12\n"


def _unread(dest: Path) -> Path:
    """Files that could not be read: the second shard a Git LFS pointer, the fourth not there at all."""
    ckpt = build.build_layout(dest, "Qwen__Qwen3-8B", shards=5)
    shards = sorted(ckpt.glob("model-*.safetensors"))
    shards[1].write_bytes(LFS_POINTER)
    shards[3].unlink()
    return ckpt


def _broken_pipeline(dest: Path) -> Path:
    """A pipeline whose VAE weights are Git LFS pointers: that section fails, the others pass."""
    pipeline = build.build_folder_dump("tiny-sd-pipeline", dest)
    for weights in (pipeline / "vae").glob("*.safetensors"):
        weights.write_bytes(LFS_POINTER)
    return pipeline


VARIANT_DROP = "conv_out.weight"


def _broken_variant(dest: Path) -> Path:
    """A pipeline with default + fp16 weights in every component whose fp16 unet lost one tensor: the unet's
    default weights pass, its fp16 alternate fails."""
    pipeline = build.build_folder_dump("tiny-sd-pipeline", dest)
    rel = "unet/diffusion_pytorch_model.fp16.safetensors"
    kept = [
        tuple(t) for t in build.load_folder_dump("tiny-sd-pipeline")["files"][rel]["tensors"] if t[0] != VARIANT_DROP
    ]
    build.write_file(pipeline / rel, kept)
    return pipeline


def _gptq(dest: Path) -> Path:
    return gptq.gptq_checkpoint(dest, GPTQ_LAYOUT)


def _gptq_broken(dest: Path) -> Path:
    return gptq.gptq_checkpoint(dest, GPTQ_LAYOUT, drop=[GPTQ_DROP])


TARGETS: dict[str, Callable[[Path], Path]] = {
    "dense": _dense,
    "moe": _moe,
    "vlm": _vlm,
    "pipeline": _pipeline,
    "adapter": _adapter,
    "broken": _broken,
    "unread": _unread,
    "broken-pipeline": _broken_pipeline,
    "broken-variant": _broken_variant,
    "gptq": _gptq,
    "gptq-broken": _gptq_broken,
}


def audit_targets(root: Path) -> dict[str, tuple[Path, AnyReport]]:
    """Every target built under ``root`` and audited: ``{name: (path, report)}``."""
    out = {}
    for name, make_target in TARGETS.items():
        path = make_target(root / name)
        out[name] = (path, auditor.audit(str(path)))
    return out
