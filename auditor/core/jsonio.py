"""Small JSON documents (config.json, an index, adapter_config.json, a Hub file) read as one JSON object, or one
sentence saying why not. Headers have their own strict parser (``header.py``); this is for everything beside them.

orjson parses the common document (a DeepSeek-V3 index, 8.9 MB: 39 ms against the stdlib's 57); anything it
refuses (NaN, integers beyond 64 bits, invalid text) goes to the stdlib, which accepts it or says why not in its
usual words, so results and messages are the stdlib's either way.
"""

from __future__ import annotations

import json
from typing import Any

try:  # the one import of orjson (the header parser uses it too)
    import orjson
except ImportError:  # pragma: no cover - a dependency, but the stdlib path is complete on its own
    orjson = None  # type: ignore[assignment]


def loads(raw: bytes) -> Any:
    """``raw`` (UTF-8) parsed; ``UnicodeDecodeError`` or ``ValueError`` (the stdlib's message) otherwise."""
    if orjson is not None:
        try:
            return orjson.loads(raw)
        except ValueError:
            pass
    return json.loads(raw.decode("utf-8"))


def json_object(raw: bytes | str, what: str) -> dict[str, Any]:
    """``raw`` parsed as a JSON object; ``ValueError("<what> is not valid JSON: ...")`` or ``"... is not a JSON
    object"`` otherwise (bytes must be UTF-8)."""
    try:
        doc = json.loads(raw) if isinstance(raw, str) else loads(raw)
    except (UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"{what} is not valid JSON: {e}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{what} is not a JSON object")
    return doc
