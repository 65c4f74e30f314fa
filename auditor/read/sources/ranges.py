"""How many bytes the first read of a remote header asks for: enough for the whole header in the usual case.

A shard's header holds one entry per tensor the index maps to it: ``"name":{"dtype":"BF16","shape":[4096,4096],
"data_offsets":[a,b]},``. From the index we know each shard's tensor names (their bytes, quoted) and count, so the
first range is sized to the header almost exactly; a short guess costs one more request for exactly the missing
bytes, a long one a few bytes of tensor data. The object-store source uses this; the Hub source sizes its ranges
the same way (``hub.py``, with the same constants).
"""

from __future__ import annotations

import posixpath
from typing import Any

from ..header import MAX_HEADER_BYTES

DEFAULT_FIRST_RANGE = 64 * 1024  # a single file with no index to size its first range from
ENTRY_BYTES = 84  # header bytes per tensor beyond its quoted name
ENTRY_BYTES_BLIND = 160  # per tensor when only the count is known
HEADER_SLACK = 256  # __metadata__ and padding


class RangePlan:
    """Per shard: the bytes of its quoted tensor names and its tensor count, learnt from the index."""

    def __init__(self) -> None:
        self.name_bytes: dict[str, int] = {}
        self.counts: dict[str, int] = {}

    def learn_index(self, index_name: str, doc: Any) -> None:
        """Read an index's weight_map (once, as it is parsed for the audit) into per-shard sizes."""
        weight_map = doc.get("weight_map") if isinstance(doc, dict) else None
        if not isinstance(weight_map, dict):
            return
        per_shard: dict[Any, list[int]] = {}
        for tensor, shard in weight_map.items():
            entry = per_shard.get(shard)
            if entry is None:
                entry = per_shard[shard] = [0, 0]
            entry[0] += len(tensor)
            entry[1] += 1
        base = posixpath.dirname(index_name)
        for shard, (chars, count) in per_shard.items():
            if not isinstance(shard, str):
                continue
            path = posixpath.join(base, shard) if base else shard
            # quoted names; non-ASCII names take more bytes than characters, which the slack absorbs
            self.name_bytes[path] = chars + 2 * count
            self.counts[path] = count

    def first_range(self, name: str, size: int | None, count: int | None = None) -> int:
        """Bytes to ask for first (never more than the file, nor more than the largest header allowed)."""
        count = self.counts.get(name) or count
        if name in self.name_bytes and count:
            want = 8 + HEADER_SLACK + self.name_bytes[name] + count * ENTRY_BYTES
        elif count:
            want = 8 + HEADER_SLACK + count * ENTRY_BYTES_BLIND
        else:
            want = DEFAULT_FIRST_RANGE
        want = min(want, 8 + MAX_HEADER_BYTES)
        return max(1, min(want, size)) if size else want
