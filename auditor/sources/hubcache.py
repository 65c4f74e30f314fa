"""The header cache of Hub audits: header bytes kept per (repo, commit, file), so a second audit of a commit
makes no header requests.

A cache entry must never make a healthy repo look broken: a bit flipped on disk, a write cut short, or an
entry fetched for a different file (another size or LFS sha256 under the same name) would otherwise be
parsed as the repo's header and reported as the repo's fault. So every entry is an envelope::

    st-audit-cache 1 {"sha256": ..., "size": ..., "etag": ...}\\n<payload>

``sha256`` is the payload's digest, ``size`` and ``etag`` (the LFS sha256) are what the listing said about the
file when the payload was fetched. An entry that does not check out against the payload and the current
listing is deleted and reported as a miss: the caller fetches it again. Writes go to a temporary file and are
renamed into place, so concurrent audits sharing one cache only ever see whole entries.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from urllib.parse import quote

MAGIC = b"st-audit-cache 1 "
LIBRARY = "st-audit"
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

    def store(self, name: str, payload: bytes, *, size: int | None = None, etag: str | None = None) -> None:
        path = self.path(name)
        if path is None:
            return
        meta = json.dumps({"sha256": hashlib.sha256(payload).hexdigest(), "size": size, "etag": etag},
                          separators=(",", ":"))
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
        meta = json.loads(data[len(MAGIC):end])
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(meta, dict):
        return None
    payload = data[end + 1:]
    if meta.get("sha256") != hashlib.sha256(payload).hexdigest():
        return None
    if meta.get("size") != size or meta.get("etag") != etag:
        return None  # fetched for another version of the file
    return payload
