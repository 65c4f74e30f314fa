"""The config.json of a target, for ``st-audit formula``: a config file, a checkpoint directory holding one, or
a Hub repo (one small request); every failure is one ``ConfigError`` / ``UsageError`` sentence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import ConfigError, UsageError
from ..core.jsonio import json_object


def read_config(target: str, revision: str | None, token: str | None, hub: bool = False) -> dict[str, Any]:
    path = Path(target)
    if path.is_dir() and not hub:
        if not (path / "config.json").exists():
            raise ConfigError(f"{path} is a directory without a config.json; pass the config file or the "
                              "checkpoint directory that holds it")
        path = path / "config.json"
    if path.exists() and not hub:
        if revision is not None:
            raise UsageError("--revision applies to Hub repos only")
        if path.is_dir():
            raise ConfigError(f"{path} is a directory, not a file")
        from ..read.targets import describe_special
        problem = describe_special(path)
        if problem is not None:
            raise ConfigError(problem)
        try:
            return json_object(path.read_bytes(), str(path))
        except (OSError, ValueError) as e:
            raise ConfigError(f"cannot read {path}: {e}") from None
    from .audit import open_source
    source = open_source(target, revision=revision, token=token, hub=hub, prefetch=False)  # config.json alone
    # the listing first, as audit does: it resolves the commit (so config.json is one plain GET, not
    # huggingface_hub's download with its own retries) and an unreachable Hub fails at once, in one sentence
    if "config.json" not in source.list_files():
        raise ConfigError(f"{target} has no config.json")
    try:
        return json_object(source.read_small("config.json"), f"config.json of {target}")
    except (OSError, ValueError) as e:
        raise ConfigError(f"cannot read config.json of {target}: {e}") from None
