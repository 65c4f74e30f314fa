"""Which base model a PEFT adapter belongs to, and what it is known to contain.

In order: ``--base DIR_OR_REPO``; ``base_model_name_or_path`` when it is a local folder; a ``config.json``
saved beside the adapter (Trainer does that); ``base_model_name_or_path`` as a Hub repo id (only its
``config.json`` is fetched, honouring ``HF_HUB_OFFLINE``). When none can be had, or no formula covers it, the
adapter is checked structurally and a note says why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.conventions import ADAPTER_CONFIG
from ..core.errors import AuditError, ConfigError
from ..core.jsonio import json_object
from ..read.targets import CacheTarget, HubTarget, LocalTarget, is_repo_id, resolve
from ..reconcile.expected import expected_layout
from .peftconfig import BaseModel, data


def _read_base(base: str, token: str | None) -> tuple[dict[str, Any], str]:
    """``--base``'s config.json and where it came from: whatever the target resolver makes of it (a folder or
    config file, a Hugging Face cache snapshot, ``org/name[@rev]`` on the Hub, an object-store folder)."""
    target = resolve(base, hub=not Path(base).expanduser().exists())  # a bare legacy id (gpt2) is a Hub repo here
    if isinstance(target, (LocalTarget, CacheTarget)):
        return _read_local(target.path), f"--base {base}"
    if isinstance(target, HubTarget):
        from ..read.sources.hub import fetch_json

        return fetch_json(target.repo, token=token, revision=target.revision), f"--base {base} (Hub config.json)"
    source = target.open(token=token)
    return json_object(source.read_small("config.json"), f"{base}/config.json"), f"--base {base}"


def _read_local(path: Path) -> dict[str, Any]:
    if path.is_dir():
        path = path / "config.json"
    return json_object(path.read_bytes(), str(path))


def _looks_like_model_config(doc: Any) -> bool:
    return isinstance(doc, dict) and ("model_type" in doc or "architectures" in doc)


def resolve_base(
    adapter_config: dict[str, Any] | None,
    beside: dict[str, Any] | None,
    *,
    base: str | None = None,
    token: str | None = None,
) -> BaseModel:
    """The base model: its config (when found), where it came from, and its formula layout (when known)."""
    name = (adapter_config or {}).get("base_model_name_or_path")
    name = name if isinstance(name, str) and name.strip() else None
    config: dict[str, Any] | None = None
    source = ""
    why: str | None = None
    if base is not None:
        try:
            config, source = _read_base(base, token)
        except (OSError, ValueError, UnicodeDecodeError, AuditError) as e:
            raise ConfigError(f"cannot read the base model's config.json from --base {base}: {e}") from None
    if config is None and name is not None and Path(name).expanduser().is_dir():
        try:
            config, source = _read_local(Path(name).expanduser()), f"{name} (local)"
        except (OSError, ValueError, UnicodeDecodeError) as e:
            why = f"{name}/config.json cannot be read: {e}"
    if config is None and _looks_like_model_config(beside):
        config, source = beside, "config.json beside the adapter"
    if config is None and name is not None and why is None:
        if is_repo_id(name):
            try:
                from ..read.sources.hub import fetch_json

                config, source = fetch_json(name, token=token), f"Hub {name} (config.json)"
            except (OSError, ValueError) as e:
                why = f"the config.json of {name} could not be fetched ({e}); pass --base DIR_OR_REPO"
        else:
            why = f"base_model_name_or_path {name!r} is neither a local folder nor a Hub repo id; pass --base"
    if config is None:
        return BaseModel(
            None,
            "",
            note=why
            or f"{ADAPTER_CONFIG} names no base model "
            "(base_model_name_or_path); pass --base DIR_OR_REPO for exact shapes",
        )
    task = (adapter_config or {}).get("task_type")
    layout = expected_layout(config, data()["task_class"].get(task) if isinstance(task, str) else None)
    if layout is None:
        what = config.get("model_type") or config.get("_class_name") or "this base"
        return BaseModel(
            config,
            source,
            note=f"no formula for {what!r} yet: the adapter's structure was checked, "
            "not its shapes against the base layers",
        )
    return BaseModel(config, source, layout.tensors, layout.parameters)
