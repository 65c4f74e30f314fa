"""Real remote-code releases (``fixtures/releases/*.json.gz``, written by the dev-only tools/derive_release.py):
the release's config, every tensor its real index names with the shard it is in and the shape the release's own
modeling code gives it (derived by hand, checked against the index's total_size), the dtype and the provenance.
``build`` writes one header-only at release shape with the real sharding."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import Any

from .build import build_checkpoint, nbytes
from .paths import FIXTURES

RELEASES = FIXTURES / "releases"


def names() -> list[str]:
    """The slugs of every release fixture, sorted."""
    return sorted(p.name.removesuffix(".json.gz") for p in RELEASES.glob("*.json.gz"))


def load(slug: str) -> dict[str, Any]:
    """{"family", "hub", "provenance": {"repo", "commit", "paths", "modeling"}, "dtype", "dtypes" (optional: name ->
    another dtype), "total_size", "config", "tensors": [[name, shard, shape], ...]}."""
    return json.loads(gzip.decompress((RELEASES / f"{slug}.json.gz").read_bytes()))  # type: ignore[no-any-return]


def dtype(release: dict[str, Any], name: str) -> str:
    """A tensor's dtype: the release's, unless the fixture names another for it (``dtypes``: an int64 buffer)."""
    return release.get("dtypes", {}).get(name, release["dtype"])  # type: ignore[no-any-return]


def data_bytes(release: dict[str, Any]) -> int:
    """The bytes of every tensor at its derived shape in its dtype."""
    return sum(nbytes(dtype(release, name), shape) for name, _, shape in release["tensors"])


def parameters(release: dict[str, Any]) -> int:
    return sum(math.prod(shape) for _, _, shape in release["tensors"])


def build(release: dict[str, Any], dest: Path, *, drop: set[str] = frozenset(),  # type: ignore[assignment]
          reshape: dict[str, list[int]] | None = None) -> Path:
    """The release header-only under ``dest`` (real shards from the index's weight_map, the real config.json),
    optionally with tensors dropped or given another shape (a broken variant)."""
    reshape = reshape or {}
    kept = [(n, f, s) for n, f, s in release["tensors"] if n not in drop]
    tensors = [(n, dtype(release, n), reshape.get(n, s)) for n, f, s in kept]
    return build_checkpoint(dest, tensors, config=release["config"], weight_map={n: f for n, f, _ in kept})
