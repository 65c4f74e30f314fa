"""A checkpoint on disk: a directory, or a single .safetensors file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...core.errors import AuditError, TargetNotFound
from ...core.jsonio import loads
from ..header import Header, parse_header, read_header_length
from ..targets import describe_special
from .protocol import MAX_TENSORS

FIRST_READ = 64 * 1024  # one read covers most headers and is enough to sniff non-safetensors files


class LocalSource:
    """Reads only the 8-byte length and the JSON header of each file; never the tensor data."""

    def __init__(self, path: str | os.PathLike[str], digests: dict[str, str] | None = None) -> None:
        """``digests``: the files' known sha256 (a Hugging Face cache snapshot's blob names), kept like a Hub
        listing's so that a report and a lock record them."""
        self.lfs_sha256 = dict(digests or {})
        p = Path(path)
        problem = describe_special(p) if os.path.lexists(p) else f"{path}: no such file or directory"
        if problem is not None:
            raise TargetNotFound(problem)
        if not (p.is_file() or p.is_dir()):
            raise TargetNotFound(f"{path} is neither a regular file nor a directory")
        self.target = str(path)
        self.single = p if p.is_file() else None
        self.root = p.parent if p.is_file() else p
        self._files: dict[str, int | None] | None = None
        self.special: dict[str, str] = {}  # weights-like entries that are not readable files -> why

    def list_files(self) -> dict[str, int | None]:
        if self._files is None:
            try:
                self._files = self._scan()
            except OSError as e:
                raise AuditError(f"cannot list {self.root}: {e.strerror or e}") from None
        return self._files

    def _scan(self) -> dict[str, int | None]:
        """Top-level files, plus .safetensors/.json one folder down (reported as ignored subfolders)."""
        files: dict[str, int | None] = {}
        if self.single is not None:
            files[self.single.name] = self.single.stat().st_size
            config = self.root / "config.json"
            if config.is_file():
                files["config.json"] = config.stat().st_size
            return files
        for entry in os.scandir(self.root):
            kind = _kind(entry)
            if kind == "file":
                files[entry.name] = _size(entry)
            elif kind == "dir" and entry.name == "config.json":
                self.special[entry.name] = f"{entry.path} is a directory, not a file"
                files[entry.name] = None
            elif kind == "dir" and not entry.name.startswith("."):
                try:
                    subs = list(os.scandir(entry.path))
                except OSError:
                    continue  # an unreadable subfolder holds nothing we would audit anyway
                for sub in subs:
                    if _kind(sub) == "file" and sub.name.endswith((".safetensors", ".json")):
                        files[f"{entry.name}/{sub.name}"] = _size(sub)
            elif entry.name.endswith(WEIGHT_NAMES):
                # a dangling symlink, a loop or a FIFO under a weights name: named as a finding, never opened;
                # any other odd entry (a loop in an unrelated file) is not ours to judge
                self.special[entry.name] = describe_special(Path(entry.path)) or "not a regular file"
                files[entry.name] = None
        return files

    def read_small(self, name: str) -> bytes:
        if name in self.special:  # never open a FIFO (it would block) or follow a broken link
            raise OSError(self.special[name])
        return (self.root / name).read_bytes()

    def read_json(self, name: str) -> Any:
        return loads(self.read_small(name))

    def read_headers(self, names: list[str], sizes: dict[str, int | None], tensor_counts: dict[str, int],
                     max_tensors: int = MAX_TENSORS) -> dict[str, Header]:
        headers = {}
        total = 0
        for name in names:
            if total > max_tensors:
                break
            if name in self.special:
                headers[name] = header = Header(name)
                header.fail("file-unreadable", self.special[name].replace(str(self.root / name), "it", 1))
                continue
            headers[name] = header = read_local_header(self.root / name, name)
            total += len(header.tensors)
        return headers

    def describe(self) -> dict[str, Any]:
        return {"kind": "local", "path": str(self.root.resolve() if self.single is None else self.single.resolve())}


WEIGHT_NAMES = (".safetensors", ".safetensors.index.json", "config.json")


def _kind(entry: os.DirEntry[str]) -> str | None:
    """"file", "dir", or None for anything else (symlink loops and dangling links raise or say neither)."""
    try:
        if entry.is_file():
            return "file"
        if entry.is_dir():
            return "dir"
    except OSError:
        pass
    return None


def _size(entry: os.DirEntry[str]) -> int | None:
    try:
        return entry.stat().st_size
    except OSError:
        return None


def read_local_header(path: Path, name: str) -> Header:
    """Read and validate one file's header; I/O problems become a finding, not an exception."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            first = f.read(FIRST_READ)
            n, header = read_header_length(name, first, size)
            if n is None:
                return header
            raw = first[8:8 + n]
            if len(raw) < n:
                raw += f.read(n - len(raw))
    except OSError as e:
        header = Header(name)
        header.fail("file-unreadable", f"could not read: {e.strerror or e}")
        return header
    return parse_header(name, raw, size, header)
