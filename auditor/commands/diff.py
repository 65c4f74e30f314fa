"""``st-audit diff A B``: what changed between two checkpoints (or a checkpoint and its lock file).

Each side is a lock file (read as is) or anything ``audit()`` accepts (directory, .safetensors file, Hub
repo id), audited as ``st-audit audit`` audits it and turned into the same snapshot a lock file holds. A pipeline
(or any target of sections) is compared section by section: its unet with the other's unet. The comparison is by
tensor name: added,
removed, reshaped, retyped; then parameter deltas per component, per tensor pattern and in total.
Files present on both sides are compared by content: by sha256 when both sides know it (a Hub listing, a
lock written with hashes, ``--verify``), by size otherwise; a file whose content differs makes the two
checkpoints differ (a truncated shard is not "identical"). Files only added or removed (re-sharding) are
shown as layout but do not by themselves make two checkpoints differ.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from ..gate import lock as lockmod
from ..gate.drift import Changes, compare_sections

# -- loading a side ----------------------------------------------------------------------------------------


def load_side(
    target: str,
    *,
    token: str | None = None,
    use_cache: bool = True,
    progress: Callable[[str], None] | None = None,
    hub: bool = False,
    content: bool = False,
) -> lockmod.LockSnapshot:
    """A snapshot of ``target``: a lock file is read directly, anything else is audited (``content``: verified,
    every byte read, so files are compared by sha256)."""
    path = Path(target)
    if path.is_file() and not path.name.endswith(".safetensors"):
        try:
            json.loads(path.read_bytes())
        except (OSError, ValueError):
            raise UsageError(
                f"{target} is neither a checkpoint (directory, .safetensors file, Hub repo id) nor "
                "an st-audit lock file"
            ) from None
        return lockmod.read(path)
    if content:
        from ..run.options import AuditOptions
        from ..verify import verify

        return lockmod.snapshot(verify(target, AuditOptions(token=token, progress=progress)))
    from ..run.dispatch import audit_target

    # a Hub side may pin its own revision: org/name@v1 against org/name@refs/pr/3
    return lockmod.snapshot(audit_target(target, token=token, use_cache=use_cache, progress=progress, hub=hub))


def diff(a: str, b: str, **kw: Any) -> list[tuple[str, Changes]]:
    """The changes section by section (one checkpoint: the single section ``""``)."""
    return compare_sections(load_side(a, **kw), load_side(b, **kw))
