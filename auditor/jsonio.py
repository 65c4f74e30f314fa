"""Small JSON documents (config.json, adapter_config.json, a Hub file) read as one JSON object, or one sentence
saying why not. Headers have their own strict parser (``header.py``); this is for everything beside them."""

from __future__ import annotations

import json
from typing import Any


def json_object(raw: bytes | str, what: str) -> dict[str, Any]:
    """``raw`` parsed as a JSON object; ``ValueError("<what> is not valid JSON: ...")`` or ``"... is not a JSON
    object"`` otherwise (bytes must be UTF-8)."""
    try:
        doc = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    except (UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"{what} is not valid JSON: {e}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{what} is not a JSON object")
    return doc
