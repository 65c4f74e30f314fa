"""The exact per-tensor inventory of a checkpoint, cross-checked against its index.

Turns the headers of a ``Checkpoint`` into one table of tensors (name, dtype, shape, elements, bytes, file,
offsets), checks it against the index's weight_map and total_size, and sums it per dtype.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import groupby
from types import MappingProxyType
from typing import NamedTuple

from ..core.findings import Finding, finding, plural
from ..core.names import shown
from ..read.checkpoint import Checkpoint
from ..read.header import DTYPE, DTYPE_BITS, ELEMENTS, END, FILE, NAME, START, Tensor


class DtypeTotals(NamedTuple):
    """The tensors of one dtype: how many, their parameters (elements) and their data bytes."""

    tensors: int
    parameters: int
    bytes: int


@dataclass(frozen=True)
class Totals:
    """Tensor, parameter (element) and byte counts, overall and per dtype."""

    tensors: int = 0
    parameters: int = 0
    bytes: int = 0
    by_dtype: Mapping[str, DtypeTotals] = field(default_factory=lambda: MappingProxyType({}))

    def to_dict(self) -> dict[str, object]:
        order = list(DTYPE_BITS)
        return {
            "tensors": self.tensors,
            "parameters": self.parameters,
            "bytes": self.bytes,
            "by_dtype": {
                d: {"tensors": t, "parameters": p, "bytes": b}
                for d, (t, p, b) in sorted(self.by_dtype.items(), key=lambda kv: order.index(kv[0]))
            },
        }


@dataclass
class FileSummary:
    """One audited file: its size, header length and what it holds."""

    name: str
    size: int | None
    header_length: int | None
    tensors: int
    data_bytes: int
    ok: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "size": self.size,
            "header_length": self.header_length,
            "tensors": self.tensors,
            "data_bytes": self.data_bytes,
            "ok": self.ok,
        }


@dataclass
class Inventory:
    """All stored tensors by name (first occurrence wins when a name is stored twice)."""

    tensors: dict[str, Tensor]
    files: list[FileSummary]
    totals: Totals
    findings: list[Finding]


def build_inventory(checkpoint: Checkpoint) -> Inventory:
    """Merge the headers into one inventory and cross-check it with the index."""
    findings: list[Finding] = list(checkpoint.findings)
    tensors: dict[str, Tensor] = {}
    where: dict[str, list[str]] = {}  # tensor -> every file storing it (only filled for duplicates)
    files: list[FileSummary] = []
    by_dtype: dict[str, list[int]] = {}  # dtype -> [tensors, parameters, bytes], summed in place
    for name in checkpoint.audited:
        header = checkpoint.headers[name]
        findings.extend(header.findings)
        held = header.tensors
        data_bytes = sum(map(END, held)) - sum(map(START, held))
        names = list(map(NAME, held))
        if tensors.keys().isdisjoint(names):  # the usual file: no name stored before, all summed at C speed
            tensors.update(zip(names, held))
            new = held
        else:
            new = []
            for t in held:
                if t.name in tensors:
                    where.setdefault(t.name, [tensors[t.name].file]).append(name)
                else:
                    tensors[t.name] = t
                    new.append(t)
        for dtype in dict.fromkeys(map(DTYPE, new)):  # rows in order of first appearance
            by_dtype.setdefault(dtype, [0, 0, 0])
        for dtype, run in groupby(sorted(new, key=DTYPE), key=DTYPE):
            of_dtype = list(run)
            row = by_dtype[dtype]
            row[0] += len(of_dtype)
            row[1] += sum(map(ELEMENTS, of_dtype))
            row[2] += sum(map(END, of_dtype)) - sum(map(START, of_dtype))
        files.append(
            FileSummary(name, checkpoint.files.get(name), header.header_length, len(held), data_bytes, header.ok)
        )
    totals = Totals(
        sum(r[0] for r in by_dtype.values()),
        sum(r[1] for r in by_dtype.values()),
        sum(r[2] for r in by_dtype.values()),
        MappingProxyType({d: DtypeTotals(*r) for d, r in by_dtype.items()}),
    )
    for tensor_name, stored_in in sorted(where.items()):
        findings.append(
            finding(
                "tensor-duplicated",
                f"{tensor_name} is stored in {len(stored_in)} files "
                f"({', '.join(stored_in)}); loaders disagree on which copy wins",
                tensors=[tensor_name],
                files=stored_in,
            )
        )
    if checkpoint.weight_map is not None:
        findings.extend(_cross_check_index(checkpoint, tensors, where, files))
    return Inventory(tensors, files, totals, findings)


def _cross_check_index(
    checkpoint: Checkpoint, tensors: dict[str, Tensor], where: dict[str, list[str]], files: list[FileSummary]
) -> list[Finding]:
    """weight_map vs headers, both ways, and total_size vs the data bytes actually stored."""
    weight_map = checkpoint.weight_map or {}
    index_name = checkpoint.index_name or "index"
    out: list[Finding] = []
    # the usual checkpoint, decided at C speed: the same names both ways, each in the shard the index says
    agree = weight_map.keys() == tensors.keys() and list(weight_map.values()) == list(
        map(FILE, map(tensors.__getitem__, weight_map))
    )
    if not agree:
        out = _disagreements(checkpoint, weight_map, index_name, tensors, where, files)
    metadata = (checkpoint.index or {}).get("metadata")
    declared = metadata.get("total_size") if isinstance(metadata, dict) else None
    if declared is not None and all(f.ok for f in files):
        data = sum(f.data_bytes for f in files)
        file_bytes = sum(f.size or 0 for f in files)
        if isinstance(declared, str) and declared.isdigit():
            declared = int(declared)
        if declared != data:
            hint = ""
            if declared == file_bytes:
                hint = " (it equals the sum of file sizes, headers included: the mlx convention)"
            elif isinstance(declared, int) and declared > data:
                hint = " (stale after tensors were removed, or counts shared storages)"
            out.append(
                finding(
                    "index-total-size-mismatch",
                    f"{index_name} metadata.total_size is {declared!r} but the "
                    f"shards hold {data:,} bytes of tensor data{hint}",
                    files=[index_name],
                    expected=declared,
                    actual=data,
                )
            )
    return out


def check_total_parameters(checkpoint: Checkpoint, stored: int, model: int, expected: int | None) -> list[Finding]:
    """``metadata.total_parameters`` (transformers' ``num_parameters()``, self-reported) against the counts.

    It may equal the stored total, the model's share of it (ledger ``model``: buffers, copies and bookkeeping
    left out) or the formula's count; anything else is stale or hard-coded (huggingface_hub#4221: 333,312
    declared for a 7.6B model).
    """
    metadata = (checkpoint.index or {}).get("metadata")
    declared = metadata.get("total_parameters") if isinstance(metadata, dict) else None
    if declared is None or declared in (stored, model, expected):
        return []
    index_name = checkpoint.index_name or "index"
    declared_text = f"{declared:,}" if isinstance(declared, int) and not isinstance(declared, bool) else repr(declared)
    formula = f" and config.json implies {expected:,}" if expected is not None else ""
    return [
        finding(
            "index-total-parameters-mismatch",
            f"{index_name} metadata.total_parameters is {declared_text}, but {stored:,} parameters are stored{formula}",
            files=[index_name],
            expected=declared,
            actual=stored,
        )
    ]


def _disagreements(
    checkpoint: Checkpoint,
    weight_map: dict[str, str],
    index_name: str,
    tensors: dict[str, Tensor],
    where: dict[str, list[str]],
    files: list[FileSummary],
) -> list[Finding]:
    """Index entries absent from their shard or stored elsewhere, and stored tensors the index lacks."""
    readable = {f.name for f in files if checkpoint.headers[f.name].header_length is not None}
    missing: dict[str, list[str]] = {}
    misplaced: list[str] = []
    for tensor, shard in weight_map.items():
        if shard not in readable:
            continue  # missing/unsafe/unreadable shard: already a finding of its own
        stored = tensors.get(tensor)
        if stored is None:
            missing.setdefault(shard, []).append(tensor)
        elif stored.file != shard and shard not in where.get(tensor, ()):
            misplaced.append(tensor)
    out: list[Finding] = []
    for shard, names in sorted(missing.items()):
        out.append(
            finding(
                "index-tensor-missing",
                f"{index_name} lists {plural(len(names), 'tensor')} in {shard} "
                f"that {shard} does not contain: {shown(names, 3)}",
                tensors=names,
                files=[shard],
            )
        )
    if misplaced:
        out.append(
            finding(
                "index-tensor-misplaced",
                f"{plural(len(misplaced), 'tensor')} stored in a different shard "
                f"than {index_name} says: "
                + "; ".join(
                    f"{t} in {', '.join(where.get(t, [tensors[t].file]))} (index: {weight_map[t]})"
                    for t in misplaced[:5]
                ),
                tensors=misplaced,
                files=sorted({weight_map[t] for t in misplaced}),
            )
        )
    unlisted = [t for t in tensors if t not in weight_map]
    if unlisted:
        shards = sorted({tensors[t].file for t in unlisted})
        out.append(
            finding(
                "index-tensor-unlisted",
                f"{plural(len(unlisted), 'stored tensor')} missing from "
                f"{index_name}'s weight_map (loaders that follow the index never see them): {shown(unlisted, 3)}",
                tensors=unlisted,
                files=shards,
            )
        )
    return out
