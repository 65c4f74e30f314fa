"""The header cache of Hub audits: header bytes (and the index and config.json) kept per (repo, commit, file), so
a second audit of a commit makes no request but the listing.

A cache entry must never make a healthy repo look broken, so only what checks out is written, and what is read is
checked again:

* written: only a whole, valid answer for what the listing says -- a header whose length field and JSON agree (all
  its bytes read, parsed without a framing, UTF-8 or JSON finding) and whose size fits the listed file; an index or
  config.json that parses and has the listed size; each fetched from the listing's commit and version (the source
  stops before storing anything when an answer names another, see ``hub.HubSource._check_served``). An HTML error
  page, a short body, a stitched header or a header cut at its first fault is never stored.
* read: every entry is an envelope::

      st-audit-cache 1 {"sha256": ..., "size": ..., "etag": ...}\\n<payload>

  ``sha256`` is the payload's digest, ``size`` and ``etag`` (the LFS sha256, else the git blob id) are what the
  listing said about the file when the payload was fetched; the payload must still be a whole header (or JSON that
  parses). An entry that does not check out against its payload and the current listing (a bit flipped on disk, a
  write cut short, another version of the file, an entry written by an older st-audit) is deleted and reported as a
  miss: the caller fetches it again.

Writes go to a temporary file and are renamed into place, so concurrent audits sharing one cache only ever see whole
entries.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

from huggingface_hub import constants
from huggingface_hub.utils import cached_assets_path

from ..header import NOT_A_HEADER, Header, parse_header, read_header_length

MAGIC = b"st-audit-cache 1 "
LIBRARY = "st-audit"
LISTING = ".listing.json"  # the commit's file list, cached beside its headers (offline mode)
MAX_META = 4096  # the metadata line is tiny; a longer first line is not an entry of ours


class HeaderCache:
    """Checked byte entries in one folder (one commit of one repo); every failure is a miss, never an error."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.discarded = 0  # damaged or stale entries thrown away (fetched again)

    def path(self, name: str) -> Path | None:
        return None if self.folder is None else self.folder / quote(name, safe="")

    def load(self, name: str, *, size: int | None = None, etag: str | None = None) -> bytes | None:
        """The payload stored for ``name`` if it is intact and was fetched for this size and etag."""
        path = self.path(name)
        if path is None:
            return None
        try:
            data = path.read_bytes()
        except OSError:
            return None
        payload = _unwrap(data, size, etag)
        if payload is None:
            self.discarded += 1
            try:
                path.unlink()
            except OSError:
                pass  # read-only or already replaced by a concurrent audit: it is refetched either way
        return payload

    def discard(self, name: str) -> None:
        """Throw an entry away (its payload did not check out): the next read fetches the file again."""
        path = self.path(name)
        if path is not None:
            self.discarded += 1
            try:
                path.unlink()
            except OSError:
                pass

    def store(self, name: str, payload: bytes, *, size: int | None = None, etag: str | None = None) -> None:
        path = self.path(name)
        if path is None:
            return
        meta = json.dumps(
            {"sha256": hashlib.sha256(payload).hexdigest(), "size": size, "etag": etag}, separators=(",", ":")
        )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + meta.encode() + b"\n" + payload)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only cache only costs requests next time


def _unwrap(data: bytes, size: int | None, etag: str | None) -> bytes | None:
    if not data.startswith(MAGIC):
        return None  # an entry of an older layout, or damaged in its first bytes
    end = data.find(b"\n", 0, MAX_META)
    if end < 0:
        return None
    try:
        meta = json.loads(data[len(MAGIC) : end])
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(meta, dict):
        return None
    payload = data[end + 1 :]
    if meta.get("sha256") != hashlib.sha256(payload).hexdigest():
        return None
    if meta.get("size") != size or meta.get("etag") != etag:
        return None  # fetched for another version of the file
    return payload


class CachedHeaders:
    """Mixed into ``HubSource``: the cache of one commit's headers and listing (reads ``use_cache``, ``commit``,
    ``repo_id``, ``lfs_sha256`` and the listing)."""

    use_cache: bool
    commit: str | None
    repo_id: str
    lfs_sha256: dict[str, str]
    git_sha1: dict[str, str]
    _files: dict[str, int | None] | None
    _header_cache: HeaderCache | None

    def _cache(self) -> HeaderCache:
        """The checked cache folder of this commit (a cache that stores nothing when there is none)."""
        folder = None
        if self.use_cache and self.commit is not None:
            try:
                folder = cached_assets_path(
                    LIBRARY,
                    namespace=f"headers--{self.repo_id}",
                    subfolder=self.commit,
                    assets_dir=constants.HF_ASSETS_CACHE,
                )
            except (OSError, ValueError):
                folder = None
        if self._header_cache is None or self._header_cache.folder != folder:
            self._header_cache = HeaderCache(folder)
        return self._header_cache

    def _fingerprint(self, name: str) -> dict[str, Any]:
        """What the listing says about a file: a cache entry fetched for anything else is stale."""
        return {"size": (self._files or {}).get(name), "etag": self.lfs_sha256.get(name) or self.git_sha1.get(name)}

    def _listing_store(self, files: dict[str, int | None]) -> None:
        """Keep the commit's file list beside its headers, so offline mode can audit that commit again."""
        self._cache().store(
            LISTING, json.dumps({"files": files, "lfs_sha256": self.lfs_sha256, "git_sha1": self.git_sha1}).encode()
        )

    def _listing_load(self, commit: str) -> dict[str, int | None] | None:
        self.commit = commit
        data = self._cache().load(LISTING)
        self.commit = None
        try:
            doc = json.loads(data) if data is not None else None
        except ValueError:
            return None
        if not isinstance(doc, dict) or not isinstance(doc.get("files"), dict):
            return None
        self.lfs_sha256 = dict(doc.get("lfs_sha256") or {})
        self.git_sha1 = dict(doc.get("git_sha1") or {})  # absent from a listing an older st-audit kept
        return {str(k): (v if isinstance(v, int) else None) for k, v in doc["files"].items()}

    def _cache_load(self, name: str, size: int | None) -> Header | None:
        """The cached header of ``name``, parsed, if its entry checks out: a whole header, as when it was stored."""
        cache = self._cache()
        data = cache.load(name, **self._fingerprint(name))
        if data is None:
            return None
        header = whole_header(name, data, size)
        if header is None:
            cache.discard(name)  # an entry an older st-audit stored, or a bug: fetched again
        return header

    def _cache_store(self, name: str, data: bytes, header: Header) -> None:
        """Keep ``data`` (the 8-byte length and every header byte) if it is a whole header: ``header`` is its parse."""
        if len(data) >= 8 and len(data) == 8 + int.from_bytes(data[:8], "little") and _whole(header):
            self._cache().store(name, data, **self._fingerprint(name))


def whole_header(name: str, data: bytes, size: int | None) -> Header | None:
    """``data`` parsed, when it is a whole header: the 8-byte length, exactly that many bytes, and no finding that
    says they are not a header; else None."""
    n, header = read_header_length(name, data, size)
    if n is None or len(data) != 8 + n:
        return None
    header = parse_header(name, data[8:], size, header, remote=True)
    return header if _whole(header) else None


def _whole(header: Header) -> bool:
    return not any(f.code in NOT_A_HEADER for f in header.findings)


def cached_commits(repo_id: str) -> list[str]:
    """The commits of ``repo_id`` whose headers and listing this cache holds (``CachedHeaders._cache``'s folders),
    so that a short commit pasted back (st-audit prints 12 characters) can be expanded offline."""
    namespace = f"headers--{repo_id}"
    for part in (" ", "/", "\\"):  # as cached_assets_path names its folders
        namespace = namespace.replace(part, "--")
    folder = Path(constants.HF_ASSETS_CACHE).expanduser().resolve() / LIBRARY / namespace
    try:
        return sorted(
            p.name
            for p in folder.iterdir()
            if p.is_dir() and len(p.name) == 40 and all(c in "0123456789abcdef" for c in p.name)
        )
    except OSError:
        return []
