"""The config.json of a target, for ``st-audit formula``: a config file, a checkpoint directory holding one, or
a Hub repo (one small request); every failure is one ``ConfigError`` / ``UsageError`` sentence."""

from __future__ import annotations

from typing import Any

from ..core.errors import ConfigError
from ..core.jsonio import json_object


def read_config(target: str, revision: str | None, token: str | None, hub: bool = False) -> dict[str, Any]:
    from ..read.targets import CacheTarget, LocalTarget, describe_special, resolve

    resolved = resolve(target, revision=revision, hub=hub)
    if isinstance(resolved, (LocalTarget, CacheTarget)):
        path = resolved.path
        if path.is_dir():
            if not (path / "config.json").exists():
                raise ConfigError(
                    f"{path} is a directory without a config.json; pass the config file or the "
                    "checkpoint directory that holds it"
                )
            path = path / "config.json"
        if path.is_dir():
            raise ConfigError(f"{path} is a directory, not a file")
        problem = describe_special(path)
        if problem is not None:
            raise ConfigError(problem)
        try:
            return json_object(path.read_bytes(), str(path))
        except (OSError, ValueError) as e:
            raise ConfigError(f"cannot read {path}: {e}") from None
    source = resolved.open(token=token, prefetch=False)  # config.json alone
    # the listing first, as audit does: it resolves the commit (so config.json is one plain GET, not
    # huggingface_hub's download with its own retries) and an unreachable Hub fails at once, in one sentence
    if "config.json" not in source.list_files():
        raise ConfigError(f"{target} has no config.json")
    try:
        return json_object(source.read_small("config.json"), f"config.json of {target}")
    except (OSError, ValueError) as e:
        raise ConfigError(f"cannot read config.json of {target}: {e}") from None
