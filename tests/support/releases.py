"""Real releases as derived facts (``fixtures/releases/<slug>.json.gz``), rebuilt header-only at release shape.

Each fixture holds what a real release's config.json and index say and what its own modeling code makes of them
(tools/derive_release.py writes the shapes by hand from the code and checks them against the index): ``config``,
``tensors`` (``[name, shard, shape]`` in index order, a fourth item where a tensor's dtype is not the release's
``dtype``), ``total_size`` (the bytes of those shapes, equal to the index's; where the index says more and nothing
in the code explains it, the index's own is ``index_total_size`` beside a ``note``), ``parameters`` (what the
code's ``num_parameters()`` counts: a stored tied copy or buffer is not one, a quantized weight the values it packs;
``index_total_parameters`` where the real index also said it) and ``provenance`` (mirror
repository, commit, paths, the modeling files). Never st-audit's specs: they are what the fixtures test.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from . import build
from .paths import FIXTURES

RELEASES = FIXTURES / "releases"


def slugs() -> list[str]:
    return sorted(p.name.removesuffix(".json.gz") for p in RELEASES.glob("*.json.gz"))


def load(slug: str) -> dict[str, Any]:
    return json.loads(gzip.decompress((RELEASES / f"{slug}.json.gz").read_bytes()))  # type: ignore[no-any-return]


def shard_name(name: str) -> str:
    """The safetensors file a shard name stands for: a release first published as ``pytorch_model-*.bin``
    (its index is the one public mirrors hold) is audited as the safetensors conversion, same stems."""
    if name.endswith(".bin"):
        return name.replace("pytorch_model", "model").removesuffix(".bin") + ".safetensors"
    return name


def layout(doc: dict[str, Any]) -> list[tuple[str, str, list[int]]]:
    """``(name, dtype, shape)`` per tensor in index order."""
    return [(n, t[0] if t else doc["dtype"], s) for n, _, s, *t in doc["tensors"]]


def data_bytes(doc: dict[str, Any]) -> int:
    """The bytes of every tensor at its derived shape in its dtype."""
    return sum(build.nbytes(dtype, shape) for _, dtype, shape in layout(doc))


def build_release(doc: dict[str, Any], dest: Path, config: dict[str, Any] | None = None) -> Path:
    """The release header-only: every tensor in the shard its index names, the index, config.json (the
    release's unless ``config`` is given). The bytes written equal the fixture's total_size (checked)."""
    path = build_variant(doc, dest, config=config)
    index = json.loads((path / "model.safetensors.index.json").read_text())
    if index["metadata"]["total_size"] != doc["total_size"]:
        raise AssertionError(
            f"{dest.name}: the derived shapes hold {index['metadata']['total_size']:,} bytes, "
            f"the release's index {doc['total_size']:,}"
        )
    return path


def build_variant(
    doc: dict[str, Any],
    dest: Path,
    *,
    drop: frozenset[str] | set[str] = frozenset(),
    reshape: dict[str, list[int]] | None = None,
    config: dict[str, Any] | None = None,
) -> Path:
    """The release header-only with tensors dropped or given another shape (a broken variant), real sharding."""
    reshape = reshape or {}
    tensors = [(n, dtype, reshape.get(n, s)) for n, dtype, s in layout(doc) if n not in drop]
    weight_map = {n: shard_name(f) for n, f, *_ in doc["tensors"] if n not in drop}
    # an index written by transformers >= 4.53 also says num_parameters() (kept where the real one did)
    metadata = {"total_parameters": doc["index_total_parameters"]} if "index_total_parameters" in doc else None
    return build.build_checkpoint(
        dest,
        tensors,
        config=config if config is not None else doc["config"],
        weight_map=weight_map,
        index_metadata=metadata,
    )


def error_tensors(report: Any) -> dict[str, set[str]]:
    """The tensors each error code of ``report`` names: what a broken release's test expects to be caught."""
    out: dict[str, set[str]] = {}
    for f in report.findings:
        if f.severity == "error":
            out.setdefault(f.code, set()).update(f.tensors)
    return out
