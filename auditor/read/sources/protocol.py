"""What a checkpoint source is: everything the stages above ask of where a checkpoint's bytes come from.

``local.py`` (a folder or file on disk, a Hugging Face cache snapshot), ``hub.py`` (a Hub repo) and ``objstore.py``
(an object-store prefix read through fsspec: ``s3://``, ``gs://``, ``az://`` ...) implement it; ``view.py`` narrows
one to a sub-folder (a pipeline component). Discovery (``checkpoint.py``), kind discovery, the audit, the partial
("shard 2 of 5") note and verify only ever see this interface: nothing reaches around it with ``getattr``.

A new source is one class that subclasses ``Source`` (the defaults below are then inherited: PEP 544) and
implements ``list_files``, ``read_small``, ``read_headers`` and ``describe``; the defaults suit any source that is
a whole folder, not on the local disk, with no known digests.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from ...core.jsonio import loads
from ..header import Header

# Past this many tensors beyond those the index names, headers stop being read (memory stays bounded even for a
# crafted repo of many 100 MB headers; a healthy checkpoint of any size is read whole).
MAX_TENSORS = 2_000_000

NO_DIGESTS: Mapping[str, str] = MappingProxyType({})

# The ``kind`` of a source's ``describe()`` whose files are the stored originals (a Hub repo, an object-store prefix),
# not a local copy: a file that is short there is short for everyone, so "download it again" is no remedy.
REMOTE_KINDS = frozenset({"hub", "object-store"})


class Source(Protocol):
    """Where a checkpoint's bytes come from (a local directory, a Hub repo, an object-store prefix)."""

    target: str
    # The one file the target names (its name in ``list_files``), when the target is a file rather than a folder:
    # kind discovery and the "shard 2 of 5" note then look at the folder around it (``folder()``). Known once
    # ``list_files`` has been called (a remote URL says whether it names one object when it is listed).
    single: str | None = None
    # The local folder the listed files are in, when they are on this machine's disk (verify reads the bytes from
    # there); None for a remote source.
    root: Path | None = None
    # Where this source's files sit within the target (a pipeline component's ``unet/``); "" for the whole target.
    prefix: str = ""
    # The sha256 each file is known to have without reading it (a Hub listing's LFS digests, a Hugging Face cache
    # snapshot's blob names), named as ``list_files`` names them; a lock records them.
    lfs_sha256: Mapping[str, str] = NO_DIGESTS

    def list_files(self) -> dict[str, int | None]:
        """Every file of the checkpoint (posix path relative to its root) with its size in bytes."""
        ...

    def read_small(self, name: str) -> bytes:
        """The whole content of a small file (index, config); raises OSError when it cannot be read."""
        ...

    def read_json(self, name: str) -> Any:
        """A small file parsed as JSON (the index, config.json); raises OSError when it cannot be read and
        ValueError (UnicodeDecodeError included) with the parser's message when it is not JSON."""
        return loads(self.read_small(name))

    def read_headers(
        self,
        names: list[str],
        sizes: dict[str, int | None],
        tensor_counts: dict[str, int],
        max_tensors: int = MAX_TENSORS,
    ) -> dict[str, Header]:
        """Parsed headers of the given safetensors files (``tensor_counts``: hints from the index).

        Stops reading further files once ``max_tensors`` tensors have been parsed; those are left out.
        """
        ...

    def describe(self) -> dict[str, Any]:
        """The ``source`` object of the JSON report."""
        ...

    def finished(self) -> None:
        """The audit of the target is over: a remote source says on its progress callback what reading it cost (one
        ``hub: ...`` line per target, however many parts were read). A view of part of a target (a pipeline's
        component) inherits this no-op: the audit of the whole calls its source's."""
        return None

    def folder(self) -> Source:
        """The source of the folder around the target: itself for a folder; for a single file (``single``), its
        folder (where its index, adapter_config.json and config.json would be)."""
        return self

    def identity(self) -> dict[str, Any]:
        """What makes two reads of this target the same checkpoint without reading it again (a fleet's resume):
        by default every listed file's size; a local folder adds modification times, an object store the ETag or
        version of each object, a Hub repo its commit."""
        return {"files": {name: [size] for name, size in sorted(self.list_files().items())}}
