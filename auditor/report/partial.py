"""Auditing one file of a sharded checkpoint: "shard 2 of 5".

When the target is a single ``.safetensors`` file and an index beside it maps tensors to it, the file is
checked on its own (header, and its tensors against the formula), and everything the index puts in the
other shards is out of scope: the other shards become "lost" for ``rootcause.fold``, so the layers they hold
are not reported missing. One ``partial-checkpoint`` note says which shard this is and how to audit the
whole model.
"""

from __future__ import annotations

from dataclasses import replace
from fnmatch import fnmatch
from typing import Any

from ..core.conventions import INDEX_NAMES
from ..core.findings import Finding, finding, plural
from ..read.checkpoint import Checkpoint, small_file_limit
from ..read.sources.protocol import Source
from .rootcause import Lost


def sibling_index(source: Source, checkpoint: Checkpoint) -> tuple[str, dict[str, str]] | None:
    """The index beside a single audited file that maps tensors to it, as (index name, weight_map)."""
    if source.single is None or len(checkpoint.audited) != 1:
        return None
    name = checkpoint.audited[0]
    folder = source.folder()
    beside = {n: size for n, size in folder.list_files().items() if "/" not in n and size is not None}
    candidates = [n for n in INDEX_NAMES if n in beside] + sorted(
        n for n in beside if fnmatch(n, "*.safetensors.index*.json") and n not in INDEX_NAMES
    )
    for index_name in candidates:
        if beside[index_name] > small_file_limit(index_name, beside):
            continue
        try:
            doc: Any = folder.read_json(index_name)
        except (OSError, ValueError):
            continue
        weight_map = doc.get("weight_map") if isinstance(doc, dict) else None
        if isinstance(weight_map, dict) and name in weight_map.values():
            return index_name, {str(k): str(v) for k, v in weight_map.items()}
    return None


def one_shard(source: Source, checkpoint: Checkpoint, lost: Lost) -> tuple[Finding | None, Lost]:
    """The ``partial-checkpoint`` note for a lone shard (None for any other target), and ``lost`` with the other
    shards added."""
    found = sibling_index(source, checkpoint)
    if found is None:
        return None, lost
    index_name, weight_map = found
    name = checkpoint.audited[0]
    shards = sorted(set(weight_map.values()))
    others = [s for s in shards if s != name]
    if not others:
        return None, lost
    unread = name in lost.files  # the shard itself could not be read (a Git LFS pointer ...): its root finding says so
    files = {**lost.files, **{shard: "partial-checkpoint" for shard in others if shard not in lost.files}}
    tensors = {
        **lost.tensors,
        **{
            tensor: shard
            for tensor, shard in weight_map.items()
            if (shard != name or unread) and tensor not in lost.tensors
        },
    }
    # the index beside an unread shard says which tensors it should hold: the root finding counts them
    unindexed = any(f not in shards for f in files) if unread else lost.unindexed
    lost = replace(
        lost,
        files=files,
        tensors=tensors,
        unindexed=unindexed,
        index_name=lost.index_name or index_name,
        present_shards=max(lost.present_shards, 1),
    )
    elsewhere = sum(1 for s in weight_map.values() if s != name)
    mine = len(weight_map) - elsewhere
    this = (
        "it could not be read itself (see above), and"
        if unread
        else f"its header and its {plural(mine, 'tensor')} were checked,"
    )
    return finding(
        "partial-checkpoint",
        f"{name} is shard {shards.index(name) + 1} of {len(shards)} "
        f"({index_name}); {this} the {plural(elsewhere, 'tensor')} in the other shards were not: audit "
        "the directory to reconcile the model",
        files=others,
    ), lost
