"""PEFT adapters as the real PEFT library wrote them (fixtures/peft, dumped by tools/dump_peft.py), rebuilt
header-only beside their base model's config.json."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from . import build
from .paths import FIXTURES

PEFT = FIXTURES / "peft"


def load(case: str) -> dict[str, Any]:
    return json.loads(gzip.decompress((PEFT / f"{case}.json.gz").read_bytes()))


def make(
    tmp: Path,
    doc: dict[str, Any],
    *,
    tensors: list[Any] | None = None,
    config: dict[str, Any] | None = None,
    with_config: bool = True,
    weights: str = "adapter_model.safetensors",
) -> tuple[Path, Path]:
    adapter = tmp / "adapter"
    base = tmp / "base"
    adapter.mkdir(parents=True)
    base.mkdir()
    (base / "config.json").write_text(json.dumps(doc["base_config"]))
    if with_config:
        (adapter / "adapter_config.json").write_text(json.dumps(config or doc["adapter_config"]))
    build.write_file(adapter / weights, [tuple(t) for t in (tensors or doc["tensors"])])
    return adapter, base
