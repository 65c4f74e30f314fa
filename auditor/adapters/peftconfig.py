"""What ``adapter_config.json`` says, read the way PEFT reads it: which modules it targets (``target_modules`` as
name suffixes, a regex matched whole, or ``all-linear``; ``layers_to_transform``), their ranks (``rank_pattern``
over ``r``), which modules are saved whole; and PEFT's own conventions as data (``data/adapters.toml``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.tomlio import tomllib

LAYER = re.compile(r"\.(\d+)(?:\.|$)")


@lru_cache(maxsize=1)
def data() -> dict[str, Any]:
    """``auditor/data/adapters.toml``: PEFT's conventions as data."""
    with open(Path(__file__).parent / "data" / "adapters.toml", "rb") as f:
        return tomllib.load(f)


@lru_cache(maxsize=1)
def wrappers() -> re.Pattern[str]:
    """A ``.<wrapper>`` segment of a stored name (``data()["wrappers"]``), removed to get the base model's module."""
    return re.compile(r"\.(?:" + "|".join(map(re.escape, data()["wrappers"])) + r")(?=\.|$)")


@dataclass(frozen=True)
class BaseModel:
    """The base model as far as it is known: its config, where it came from, and its expected tensors."""

    config: dict[str, Any] | None
    source: str  # "--base DIR", "config.json beside the adapter", "Hub org/name"
    tensors: dict[str, tuple[tuple[int, ...], str]] | None = None  # name -> (shape, component) from a formula
    parameters: int | None = None
    note: str | None = None  # why the base is not (fully) known


def targets_of(config: dict[str, Any]) -> list[str] | str | None:
    t = config.get("target_modules")
    if isinstance(t, str) or t is None:
        return t
    return [str(x) for x in t] if isinstance(t, (list, tuple)) else None


def module_matches(module: str, targets: list[str] | str | None) -> bool:
    if targets is None:
        return False
    if isinstance(targets, str):
        return targets == "all-linear" or re.fullmatch(targets, module) is not None
    return any(module == t or module.endswith("." + t) for t in targets)


def target_hits(target: str, modules: list[str]) -> bool:
    return any(m == target or m.endswith("." + target) for m in modules)


def in_layers(module: str, config: dict[str, Any]) -> bool:
    wanted = config.get("layers_to_transform")
    if wanted is None or wanted == []:
        return True
    wanted = [wanted] if isinstance(wanted, int) else list(wanted)
    pattern = config.get("layers_pattern")
    patterns = [pattern] if isinstance(pattern, str) else list(pattern or [])
    for p in patterns:
        m = re.search(rf"\.{re.escape(p)}\.(\d+)\.", f".{module}.")
        if m:
            return int(m[1]) in wanted
    m = LAYER.search(module)
    return m is None or int(m[1]) in wanted


def save_names(config: dict[str, Any]) -> list[str]:
    names = [str(x) for x in (config.get("modules_to_save") or [])]
    names += data()["task_modules_to_save"].get(str(config.get("task_type")), [])
    return list(dict.fromkeys(names))


def saved_whole(module: str, save: list[str]) -> bool:
    """Inside a module kept whole: PEFT matched modules_to_save as plain suffixes for years ("classifier" wraps
    "pre_classifier" too), and a kept module's children (``classifier.dense``) are saved with it."""
    parts = module.split(".")
    ancestors = [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return any(a.endswith(s) for a in ancestors for s in save)


def expected_rank(module: str, config: dict[str, Any]) -> int | None:
    """``rank_pattern`` entry matching the module (PEFT: ``(.*\\.)?key$``), else ``r``."""
    for key, value in (config.get("rank_pattern") or {}).items():
        if re.match(rf"(.*\.)?({key})$", module) and isinstance(value, int):
            return value
    r = config.get("r")
    return r if isinstance(r, int) and not isinstance(r, bool) else None
