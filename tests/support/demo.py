"""The demo checkpoints `make demo` builds (tools/demo.py) and the README shows: the Qwen/Qwen3-8B layout transformers
saves (fixtures/layouts), in 5 shards with the real config.json, header-only (every byte of tensor data a sparse
hole), and the same after three accidents."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.build import build_layout

LAYOUT = "Qwen__Qwen3-8B"
LOST = "model.layers.7.self_attn.k_norm.weight"  # the tensor a bad export lost
BUFFERS = [f"model.layers.{i}.self_attn.rotary_emb.inv_freq" for i in range(36)]  # saved by an old exporter
CUT = 1_000_000  # bytes an interrupted download left out of the last shard


def clean(dest: Path) -> Path:
    """The healthy checkpoint alone, at ``dest`` (a checkpoint is built, never copied: a copy would write every
    sparse byte, 16 GB)."""
    return build_layout(dest, LAYOUT, shards=5)


def build(out: Path) -> tuple[Path, Path]:
    """``out/Qwen3-8B`` and ``out/Qwen3-8B-broken``: a k_norm lost in layer 7, rotary inv_freq buffers saved by an old
    exporter, and the last shard truncated by an interrupted download."""
    healthy = clean(out / "Qwen3-8B")
    broken = build_layout(
        out / "Qwen3-8B-broken", LAYOUT, shards=5, drop=[LOST], extra=[(name, "F32", [64]) for name in BUFFERS]
    )
    last = sorted(broken.glob("model-*.safetensors"))[-1]
    os.truncate(last, last.stat().st_size - CUT)
    return healthy, broken
