"""A view of part of a source: one folder of it, and optionally only some of its safetensors files.

A diffusers pipeline is several models in one repo (``unet/``, ``vae/``, ``text_encoder/``), a folder of
independent LoRA files is several checkpoints side by side, and ``model.fp16.safetensors`` is an alternative
copy of ``model.safetensors``: each is audited as its own checkpoint through a view, so the ordinary discovery
(``checkpoint.collect``) sees exactly the files that belong together. Works for local and Hub sources alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...core.jsonio import loads
from ..header import Header
from .protocol import MAX_TENSORS, Source


class SourceView(Source):
    """``folder`` of ``source`` (``""``: its root), showing only ``weights`` among its safetensors/index files."""

    def __init__(self, source: Source, folder: str = "", weights: tuple[str, ...] | None = None) -> None:
        self.source = source
        self.part = folder.strip("/")
        self.prefix = source.prefix + (f"{self.part}/" if self.part else "")
        self._own = f"{self.part}/" if self.part else ""  # the view's files within ``source``
        self.weights = None if weights is None else frozenset(weights)
        self.target = f"{source.target.rstrip('/')}/{self.part}" if self.part else source.target
        self.single = source.single if not self.part else None
        base = source.root  # a local source's folder: verify reads the files from there
        self.root = base / self.part if base is not None and self.part else base

    @property
    def lfs_sha256(self) -> Mapping[str, str]:  # type: ignore[override]
        """The digests of the view's files, named as the view names them (a lock records them); read when asked:
        a Hub source fills its digests in when it lists the repo."""
        own = self._own
        return {name[len(own) :]: digest for name, digest in self.source.lfs_sha256.items() if name.startswith(own)}

    def list_files(self) -> dict[str, int | None]:
        files = {}
        own = self._own
        for name, size in self.source.list_files().items():
            if not name.startswith(own):
                continue
            rel = name[len(own) :]
            if self.weights is not None and "/" not in rel and _is_weights(rel) and rel not in self.weights:
                continue
            files[rel] = size
        return files

    def read_small(self, name: str) -> bytes:
        return self.source.read_small(self._own + name)

    def read_json(self, name: str) -> Any:
        return self.source.read_json(self._own + name)

    def read_headers(
        self,
        names: list[str],
        sizes: dict[str, int | None],
        tensor_counts: dict[str, int],
        max_tensors: int = MAX_TENSORS,
    ) -> dict[str, Header]:
        own = self._own
        full = [own + n for n in names]
        headers = self.source.read_headers(
            full, {own + n: s for n, s in sizes.items()}, {own + n: c for n, c in tensor_counts.items()}, max_tensors
        )
        if not own:
            return headers
        # findings name files as the checkpoint sees them (relative to the folder), so a root cause (a Git LFS
        # pointer) is matched with what it hides; the messages keep the path within the target. Each tensor names
        # its file the same way, as the folder's index does (a sharded component's weight_map)
        out: dict[str, Header] = {}
        for name, h in headers.items():
            rel = name[len(own) :]
            h.findings = [
                replace(f, files=tuple(x[len(own) :] if x.startswith(own) else x for x in f.files)) for f in h.findings
            ]
            h.tensors = [t._replace(file=rel) for t in h.tensors]
            out[rel] = h
        return out

    def describe(self) -> dict[str, Any]:
        doc = dict(self.source.describe())
        if self.part:
            doc["folder"] = f"{doc['folder']}/{self.part}" if doc.get("folder") else self.part
        return doc

    def folder(self) -> Source:
        return self.source.folder() if self.single is not None else self

    def identity(self) -> dict[str, Any]:
        return self.source.identity()


class Remembering(Source):
    """A source that reads each small file once: kind discovery and the audit both read config.json, and a Hub
    source would otherwise download it twice."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.target = source.target
        self._small: dict[str, bytes] = {}

    # read from the source when asked: a remote source learns them when it lists (an object-store URL that names
    # one object, a Hub listing's digests)
    @property
    def single(self) -> str | None:  # type: ignore[override]
        return self.source.single

    @property
    def root(self) -> Path | None:  # type: ignore[override]
        return self.source.root

    @property
    def prefix(self) -> str:  # type: ignore[override]
        return self.source.prefix

    @property
    def lfs_sha256(self) -> Mapping[str, str]:  # type: ignore[override]
        return self.source.lfs_sha256

    def list_files(self) -> dict[str, int | None]:
        return self.source.list_files()

    def read_small(self, name: str) -> bytes:
        if name not in self._small:
            self._small[name] = self.source.read_small(name)
        return self._small[name]

    def read_json(self, name: str) -> Any:
        # parsed by the source when not read before (a Hub source starts the shards an index names as it parses)
        return loads(self._small[name]) if name in self._small else self.source.read_json(name)

    def read_headers(
        self,
        names: list[str],
        sizes: dict[str, int | None],
        tensor_counts: dict[str, int],
        max_tensors: int = MAX_TENSORS,
    ) -> dict[str, Header]:
        return self.source.read_headers(names, sizes, tensor_counts, max_tensors)

    def describe(self) -> dict[str, Any]:
        return self.source.describe()

    def folder(self) -> Source:
        return self.source.folder()

    def identity(self) -> dict[str, Any]:
        return self.source.identity()


def _is_weights(name: str) -> bool:
    return name.endswith(".safetensors") or (".safetensors.index" in name and name.endswith(".json"))
