"""A checkpoint on disk: a directory, or a single .safetensors file (a Hugging Face cache snapshot is one too, with
the Hub's digests of its files and where it came from: ``origin``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...core.errors import AuditError, TargetNotFound
from ..header import Header, parse_header, read_header_length
from .protocol import MAX_TENSORS, Source

FIRST_READ = 64 * 1024  # one read covers most headers and is enough to sniff non-safetensors files


class LocalSource(Source):
    """Reads only the 8-byte length and the JSON header of each file; never the tensor data."""

    def __init__(
        self, path: str | os.PathLike[str], digests: dict[str, str] | None = None, origin: dict[str, Any] | None = None
    ) -> None:
        """``digests``: the files' known sha256 (a Hugging Face cache snapshot's blob names), kept like a Hub
        listing's so that a report and a lock record them; ``origin``: what the report's source block adds to the
        path (a cache snapshot's kind, repo and commit)."""
        self.lfs_sha256 = dict(digests or {})
        self.origin = dict(origin or {})
        p = Path(path)
        problem = describe_special(p) if os.path.lexists(p) else f"{path}: no such file or directory"
        if problem is not None:
            raise TargetNotFound(problem)
        if not (p.is_file() or p.is_dir()):
            raise TargetNotFound(f"{path} is neither a regular file nor a directory")
        self.target = str(path)
        self._file = p if p.is_file() else None
        self.single = p.name if p.is_file() else None
        self._root: Path = p.parent if p.is_file() else p
        self.root = self._root
        self._folder: LocalSource | None = None
        self._files: dict[str, int | None] | None = None
        self.special: dict[str, str] = {}  # weights-like entries that are not readable files -> why

    def list_files(self) -> dict[str, int | None]:
        if self._files is None:
            try:
                self._files = self._scan()
            except OSError as e:
                raise AuditError(f"cannot list {self._root}: {e.strerror or e}") from None
        return self._files

    def _scan(self) -> dict[str, int | None]:
        """Top-level files, plus .safetensors/.json one folder down (reported as ignored subfolders)."""
        files: dict[str, int | None] = {}
        if self._file is not None:
            files[self._file.name] = self._file.stat().st_size
            config = self._root / "config.json"
            if config.is_file():
                files["config.json"] = config.stat().st_size
            return files
        for entry in os.scandir(self._root):
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
        return (self._root / name).read_bytes()

    def read_headers(
        self,
        names: list[str],
        sizes: dict[str, int | None],
        tensor_counts: dict[str, int],
        max_tensors: int = MAX_TENSORS,
    ) -> dict[str, Header]:
        headers = {}
        total = 0
        for name in names:
            if total > max_tensors:
                break
            if name in self.special:
                headers[name] = header = Header(name)
                header.fail("file-unreadable", self.special[name].replace(str(self._root / name), "it", 1))
                continue
            headers[name] = header = read_local_header(self._root / name, name)
            total += len(header.tensors)
        return headers

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "local",
            "path": str(self._root.resolve() if self._file is None else self._file.resolve()),
            **self.origin,
        }

    def folder(self) -> Source:
        if self._file is None:
            return self
        if self._folder is None:
            self._folder = LocalSource(self._root)
        return self._folder

    def identity(self) -> dict[str, Any]:
        """Each file's size and modification time (ns): a file rewritten in place is another checkpoint."""
        out: dict[str, list[int | None]] = {}
        for name, size in sorted(self.list_files().items()):
            try:
                out[name] = [size, (self._root / name).stat().st_mtime_ns]
            except OSError:
                out[name] = [size, None]
        return {"files": out}


WEIGHT_NAMES = (".safetensors", ".safetensors.index.json", "config.json")


def _kind(entry: os.DirEntry[str]) -> str | None:
    """ "file", "dir", or None for anything else (symlink loops and dangling links raise or say neither)."""
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
            raw = first[8 : 8 + n]
            if len(raw) < n:
                raw += f.read(n - len(raw))
    except OSError as e:
        header = Header(name)
        header.fail("file-unreadable", f"could not read: {e.strerror or e}")
        return header
    return parse_header(name, raw, size, header)


def symlink_problem(path: Path) -> str:
    """The exact trouble with a symlink whose target cannot be reached."""
    try:
        path.stat()
    except OSError as e:
        if e.errno == 40 or "loop" in str(e).lower():  # ELOOP
            return f"{path} is a symbolic link loop (it points back at itself through {os.readlink(path)})"
    return f"{path} is a dangling symbolic link: its target {os.readlink(path)} does not exist"


def describe_special(path: Path) -> str | None:
    """Why ``path`` (a directory entry) is not a regular file or directory we can read, or None when it is."""
    if path.is_symlink():
        try:
            path.stat()
        except OSError:
            return symlink_problem(path)
    try:
        mode = path.stat().st_mode
    except OSError as e:
        return f"{path}: {e.strerror or e}"
    import stat

    if stat.S_ISFIFO(mode):
        return f"{path} is a named pipe (FIFO), not a file: it was not opened"
    if stat.S_ISSOCK(mode):
        return f"{path} is a socket, not a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return f"{path} is a device, not a file"
    return None
