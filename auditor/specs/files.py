"""The spec files on disk: reading one, listing them, and which file claims which model_type, architecture or
diffusers class (read from the files' heads, kept in the user's cache while no spec file changes)."""

from __future__ import annotations

import json
import os
import re
import zlib
from pathlib import Path
from typing import Any

from ..core.tomlio import tomllib
from .model import SpecError

DATA = Path(__file__).parent / "data"
# the claiming keys, one array each at the head of a file (before its first table)
_CLAIM_LINES = re.compile(r"^(?:model_types|architectures|diffusers_classes)\s*=\s*\[[^\]]*\]", re.MULTILINE)


def read(name: str) -> dict[str, Any]:
    try:
        return tomllib.loads((DATA / name).read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{name}: {e}") from None


def read_block_group(group: str) -> dict[str, Any]:
    """One file of shared blocks (``data/blocks/<group>.toml``: a table per block)."""
    if not group.isidentifier():
        raise FileNotFoundError(group)
    try:
        return tomllib.loads((DATA / "blocks" / f"{group}.toml").read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"blocks/{group}.toml: {e}") from None


def spec_files() -> list[str]:
    """The spec files, by name (``_common.toml`` and the claims index aside)."""
    return sorted(p.name for p in DATA.iterdir() if p.name.endswith(".toml") and not p.name.startswith("_"))


CLAIM_KEYS = ("model_types", "architectures", "diffusers_classes")
Claims = tuple[dict[str, str], dict[str, str], dict[str, str]]


def cache_file() -> Path | None:
    """Where the claims of this install's spec files are kept between runs (the user's cache, one file per
    data folder: two installs side by side do not share it); None without a home."""
    try:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except (RuntimeError, KeyError):
        return None
    return root / "st-audit" / f"claims-{zlib.crc32(str(DATA).encode()):08x}.json"


def _stamp() -> list[list[Any]]:
    """Every spec file's name, size and modification time: any edit, addition or removal changes it (~1 ms)."""
    with os.scandir(DATA) as entries:
        return sorted(
            [e.name, (st := e.stat()).st_size, st.st_mtime_ns]
            for e in entries
            if e.name.endswith(".toml") and not e.name.startswith("_")
        )


def claims(files: list[str]) -> Claims:
    """model_type -> file, architecture class -> file and diffusers ``_class_name`` -> file, from every spec
    file's head. Reading ~700 heads costs ~20 ms at each start, so the answer is kept in the user's cache with the
    files' stamp and reused while the stamp holds: an edited spec file (even to the same size) is read again,
    never answered from a stale copy. A cache that cannot be read or written only costs the time."""
    path, stamp = cache_file(), _stamp()
    if path is None:
        return head_claims(files)
    try:
        kept = json.loads(path.read_bytes())
        tables = kept["claims"]
        if (
            kept["stamp"] == stamp
            and kept["files"] == files
            and len(tables) == len(CLAIM_KEYS)
            and all(isinstance(t, dict) and all(isinstance(v, str) for v in t.values()) for t in tables)
        ):
            return tuple(tables)  # type: ignore[return-value]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    tables = head_claims(files)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}")
        partial.write_text(json.dumps({"stamp": stamp, "files": files, "claims": tables}))
        os.replace(partial, path)  # whole or not at all, with concurrent runs
    except OSError:
        pass
    return tables


def head_claims(files: list[str]) -> Claims:
    """The claims read from each file's head; a claim made by two files is an error."""
    tables: Claims = ({}, {}, {})
    for name in files:
        found = head(name)
        for table, key in zip(tables, CLAIM_KEYS, strict=True):
            for claimed in found.get(key, ()):
                if claimed in table:
                    raise SpecError(f"{claimed!r} is claimed by both {table[claimed]} and {name}")
                table[claimed] = name
    return tables


def head(name: str) -> dict[str, Any]:
    """The claiming keys of a spec file (top-level keys precede its first table), parsed without the rest of the
    file; the whole file when they do not parse on their own."""
    text = (DATA / name).read_text(encoding="utf-8")
    cut = re.search(r"^\[", text, re.MULTILINE)
    try:
        return tomllib.loads("\n".join(_CLAIM_LINES.findall(text, 0, cut.start() if cut else len(text))))
    except tomllib.TOMLDecodeError:
        return read(name)
