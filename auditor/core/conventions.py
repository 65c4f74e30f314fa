"""File-name conventions of the libraries that save and load checkpoints, from ``conventions.toml`` (read once).

Which names loaders look for (``model.safetensors``, the indexes in the order they are preferred, the stems whose
variants are picked by name), the manifests that make a folder a pipeline, a sentence-transformers model or a PEFT
adapter, and the kinds of target with their labels. Every module that needs one of these names takes it from here:
a fixed file name written anywhere else in ``auditor/`` fails ``tests/test_house.py`` (docs/design.md, "The house").
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .tomlio import tomllib


def _load() -> dict[str, Any]:
    with open(Path(__file__).with_name("conventions.toml"), "rb") as f:
        return tomllib.load(f)


_DATA = _load()
_WEIGHTS: dict[str, Any] = _DATA["weights"]
_KINDS: dict[str, dict[str, Any]] = _DATA["kinds"]

# -- weight files --
MAIN_STEM: str = _WEIGHTS["main_stem"]
VARIANT_STEMS: tuple[str, ...] = tuple(_WEIGHTS["variant_stems"])
INDEX_NAMES: tuple[str, ...] = tuple(_WEIGHTS["indexes"])  # in the order loaders prefer them
LOADER_NAMES: tuple[str, ...] = tuple(_WEIGHTS["loaders"])

# -- side files of one exporter --
MISTRAL_PARAMS: str = _DATA["mistral"]["params"]
MISTRAL_NATIVE: re.Pattern[str] = re.compile(_DATA["mistral"]["native"])
MODELOPT_CONFIG: str = _DATA["modelopt"]["quant_config"]

# -- kinds of target and their manifests --
KIND_LABELS: dict[str, str] = {kind: d["label"] for kind, d in _KINDS.items()}
PIPELINE_INDEX: str = _KINDS["diffusers-pipeline"]["manifest"]
ST_MODULES: str = _KINDS["sentence-transformers"]["manifest"]
ADAPTER_CONFIG: str = _KINDS["peft-adapter"]["manifest"]
ADAPTER_WEIGHTS: str = _KINDS["peft-adapter"]["weights"]
OWNING_MANIFESTS: tuple[str, ...] = tuple(d["manifest"] for d in _KINDS.values() if d.get("owns_subfolders"))
WEIGHTLESS_CLASSES: tuple[str, ...] = tuple(_KINDS["diffusers-pipeline"]["weightless_classes"])


def main_file(variant: str | None = None) -> str:
    """The single file save_pretrained writes a model (of ``variant``) to: ``model.safetensors``,
    ``model.fp16.safetensors``."""
    return f"{MAIN_STEM}.{variant}.safetensors" if variant else f"{MAIN_STEM}.safetensors"


def main_index(variant: str) -> str:
    """The index of a sharded model of ``variant``: ``model.safetensors.index.fp16.json``."""
    return f"{MAIN_STEM}.safetensors.index.{variant}.json"
