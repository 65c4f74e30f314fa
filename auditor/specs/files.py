"""The spec files on disk: reading one, listing them, and which file claims which model_type, architecture or
diffusers class (read from the files' heads; ``data/_claims.json``, written by ``make coverage``, is a hint the
library confirms, so a stale index costs time, never a wrong answer)."""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from .model import SpecError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DATA = Path(__file__).parent / "data"
# the claiming keys, one array each at the head of a file (before its first table)
_CLAIM_LINES = re.compile(r"^(?:model_types|architectures|diffusers_classes)\s*=\s*\[[^\]]*\]", re.MULTILINE)


def read(name: str) -> dict[str, Any]:
    try:
        return tomllib.loads((DATA / name).read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{name}: {e}") from None


def spec_files() -> list[str]:
    """The spec files, by name (``_common.toml`` and the claims index aside)."""
    return sorted(p.name for p in DATA.iterdir()
                  if p.name.endswith(".toml") and not p.name.startswith("_"))


CLAIMS_INDEX = DATA / "_claims.json"


CLAIM_KEYS = ("model_types", "architectures", "diffusers_classes")


@lru_cache(maxsize=1)
def indexed_claims() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """The claims index as written (empty when absent or unreadable): a hint, confirmed by ``claimant``."""
    try:
        index = json.loads(CLAIMS_INDEX.read_bytes())
        return index["model_types"], index["architectures"], index["diffusers_classes"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}, {}, {}


def head_claims(files: list[str]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """The claims read from each file's head."""
    tables: tuple[dict[str, str], dict[str, str], dict[str, str]] = ({}, {}, {})
    for name in files:
        claims = head(name)
        for table, key in zip(tables, CLAIM_KEYS, strict=True):
            for claimed in claims.get(key, ()):
                if claimed in table:
                    raise SpecError(f"{claimed!r} is claimed by both {table[claimed]} and {name}")
                table[claimed] = name
    return tables


def claims_index() -> str:
    """What ``data/_claims.json`` must hold for the shipped spec files (``make coverage`` writes it)."""
    files = spec_files()
    model_types, architectures, diffusers_classes = head_claims(files)
    return json.dumps({"model_types": model_types, "architectures": architectures,
                       "diffusers_classes": diffusers_classes}, indent=0, sort_keys=True) + "\n"


def head(name: str) -> dict[str, Any]:
    """The claiming keys of a spec file (top-level keys precede its first table), parsed without the rest of the
    file; the whole file when they do not parse on their own."""
    text = (DATA / name).read_text(encoding="utf-8")
    cut = re.search(r"^\[", text, re.MULTILINE)
    try:
        return tomllib.loads("\n".join(_CLAIM_LINES.findall(text, 0, cut.start() if cut else len(text))))
    except tomllib.TOMLDecodeError:
        return read(name)
