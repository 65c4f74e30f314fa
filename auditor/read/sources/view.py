"""A view of part of a source: one folder of it, and optionally only some of its safetensors files.

A diffusers pipeline is several models in one repo (``unet/``, ``vae/``, ``text_encoder/``), a folder of
independent LoRA files is several checkpoints side by side, and ``model.fp16.safetensors`` is an alternative
copy of ``model.safetensors``: each is audited as its own checkpoint through a view, so the ordinary discovery
(``checkpoint.collect``) sees exactly the files that belong together. Works for local and Hub sources alike.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...core.jsonio import loads
from ..header import Header
from .protocol import MAX_TENSORS, Source


class SourceView:
    """``folder`` of ``source`` (``""``: its root), showing only ``weights`` among its safetensors/index files."""

    def __init__(self, source: Source, folder: str = "", weights: tuple[str, ...] | None = None) -> None:
        self.source = source
        self.folder = folder.strip("/")
        self.prefix = f"{self.folder}/" if self.folder else ""
        self.weights = None if weights is None else frozenset(weights)
        self.target = f"{source.target.rstrip('/')}/{self.folder}" if self.folder else source.target
        base = getattr(source, "root", None)  # a local source's folder: verify reads the files from there
        self.root = base / self.folder if base is not None and self.folder else base
        # the Hub's digests of the view's files, named as the view names them (a lock records them)
        self.lfs_sha256 = {name[len(self.prefix):]: digest for name, digest in
                           (getattr(source, "lfs_sha256", None) or {}).items() if name.startswith(self.prefix)}

    def list_files(self) -> dict[str, int | None]:
        files = {}
        for name, size in self.source.list_files().items():
            if not name.startswith(self.prefix):
                continue
            rel = name[len(self.prefix):]
            if self.weights is not None and "/" not in rel and _is_weights(rel) and rel not in self.weights:
                continue
            files[rel] = size
        return files

    def read_small(self, name: str) -> bytes:
        return self.source.read_small(self.prefix + name)

    def read_json(self, name: str) -> Any:
        return self.source.read_json(self.prefix + name)

    def read_headers(self, names: list[str], sizes: dict[str, int | None], tensor_counts: dict[str, int],
                     max_tensors: int = MAX_TENSORS) -> dict[str, Header]:
        full = [self.prefix + n for n in names]
        headers = self.source.read_headers(full, {self.prefix + n: s for n, s in sizes.items()},
                                           {self.prefix + n: c for n, c in tensor_counts.items()}, max_tensors)
        if not self.prefix:
            return headers
        # findings name files as the checkpoint sees them (relative to the folder), so a root cause (a Git LFS
        # pointer) is matched with what it hides; the messages keep the path within the target. Each tensor names
        # its file the same way, as the folder's index does (a sharded component's weight_map)
        out: dict[str, Header] = {}
        for name, h in headers.items():
            rel = name[len(self.prefix):]
            h.findings = [replace(f, files=tuple(x[len(self.prefix):] if x.startswith(self.prefix) else x
                                                 for x in f.files)) for f in h.findings]
            h.tensors = [t._replace(file=rel) for t in h.tensors]
            out[rel] = h
        return out

    def describe(self) -> dict[str, Any]:
        doc = dict(self.source.describe())
        if self.folder:
            doc["folder"] = self.folder
        return doc


class Remembering:
    """A source that reads each small file once: kind discovery and the audit both read config.json, and a Hub
    source would otherwise download it twice."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.target = source.target
        self.single = getattr(source, "single", None)
        self.root = getattr(source, "root", None)
        self._small: dict[str, bytes] = {}

    @property
    def lfs_sha256(self) -> dict[str, str]:
        return getattr(self.source, "lfs_sha256", None) or {}  # filled in when the Hub listing is read

    def list_files(self) -> dict[str, int | None]:
        return self.source.list_files()

    def read_small(self, name: str) -> bytes:
        if name not in self._small:
            self._small[name] = self.source.read_small(name)
        return self._small[name]

    def read_json(self, name: str) -> Any:
        # parsed by the source when not read before (a Hub source starts the shards an index names as it parses)
        return loads(self._small[name]) if name in self._small else self.source.read_json(name)

    def read_headers(self, names: list[str], sizes: dict[str, int | None], tensor_counts: dict[str, int],
                     max_tensors: int = MAX_TENSORS) -> dict[str, Header]:
        return self.source.read_headers(names, sizes, tensor_counts, max_tensors)

    def describe(self) -> dict[str, Any]:
        return self.source.describe()


def _is_weights(name: str) -> bool:
    return name.endswith(".safetensors") or (".safetensors.index" in name and name.endswith(".json"))
