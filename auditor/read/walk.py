"""Every model folder under a root, for ``--recursive`` and a fleet: one walk for a local tree and for an object
store's flat listing (``targets.under`` picks which)."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable, Iterator

from ..core.conventions import OWNING_MANIFESTS


def model_folders(
    root: str, listdir: Callable[[str], tuple[list[str], list[str]]], max_folders: int | None = None
) -> Iterator[str]:
    """Every folder under ``root`` that holds something to audit, depth first in name order, as found.

    ``listdir(path) -> (subfolders, files)``. A folder that is a pipeline or sentence-transformers model owns
    its subfolders (they are its components), so the walk does not descend into it; hidden folders are skipped.
    ``max_folders``: list at most this many folders (a hint need not walk a whole home directory).
    """
    stack = [root]
    listed = 0
    while stack and (max_folders is None or listed < max_folders):
        listed += 1
        path = stack.pop()
        subdirs, names = listdir(path)
        owns = any(m in names for m in OWNING_MANIFESTS)
        if owns or any(_weights(n) for n in names):
            yield path
        if not owns:
            stack.extend(
                posixpath.join(path, d) if "/" in path else f"{path}/{d}"
                for d in sorted(subdirs, reverse=True)
                if not d.startswith(".")
            )


def folders_in_listing(root: str, names: Iterable[str]) -> Iterator[str]:
    """``model_folders`` over a flat listing (every file below ``root``, relative posix names, as an object store
    lists a prefix in one paginated request): the same folders in the same order."""
    tree: dict[str, tuple[set[str], list[str]]] = {"": (set(), [])}
    for name in names:
        parts = name.strip("/").split("/")
        for depth in range(len(parts) - 1):
            parent, child = "/".join(parts[:depth]), parts[depth]
            tree.setdefault(parent, (set(), []))[0].add(child)
            tree.setdefault("/".join(parts[: depth + 1]), (set(), []))
        tree["/".join(parts[:-1])][1].append(parts[-1])
    base = root.rstrip("/")

    def listdir(path: str) -> tuple[list[str], list[str]]:
        rel = path[len(base) :].strip("/")
        dirs, files = tree.get(rel, (set(), []))
        return sorted(dirs), files

    return model_folders(base, listdir)


def _weights(name: str) -> bool:
    return name.endswith(".safetensors") or name.endswith(".safetensors.index.json")


def local_listdir(path: str) -> tuple[list[str], list[str]]:
    """A local folder's (subfolders, files), for ``model_folders``: what cannot be listed holds nothing."""
    dirs: list[str] = []
    files: list[str] = []
    try:
        with os.scandir(path) as it:
            for entry in it:
                (dirs if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
    except OSError:
        pass
    return dirs, files
