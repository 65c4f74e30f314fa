"""Lock files: a deterministic, diff-friendly JSON snapshot of what a checkpoint contains.

``st-audit lock TARGET -o st-audit.lock.json`` writes it; ``st-audit audit TARGET --lock FILE`` compares a
checkpoint against it (``lock-drift`` findings naming the tensors); ``st-audit diff`` reads it as one side.

The snapshot holds no timestamps or paths and every list has a fixed order, so the same checkpoint always
gives the same bytes (for one st-audit version, which it records). Content is recorded when known: each
file's sha256 (the Hub listing's for a Hub repo, computed for ``lock --verify``) and the source repo and
commit; locks written before these keys existed still load, and their files are then compared by size. Tensors are stored grouped: one entry per name template, dtype and
shape, with the exact set of indices written as products of ranges (``"0..35"``, or
``"3..60 x 0..255"`` for layer x expert), which expands back to every tensor name.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from ..core.errors import UsageError
from ..inventory.groups import fill, split_name
from ..inventory.patterns import encode_indices
from ..kinds.discover import COMPONENT, MODEL, PIPELINE
from ..report.single import Report

if TYPE_CHECKING:
    from ..report.composite import CompositeReport

LOCK_VERSION = 1
LOCK_KEY = "st_audit_lock"
MAX_NAMES = 4

TensorMap = dict[str, tuple[str, tuple[int, ...]]]  # name -> (dtype, shape)


class LockGroup(TypedDict, total=False):
    """One name template of one dtype and shape, and the exact indices it covers (``"3..60 x 0..255"``)."""

    pattern: str
    template: str
    dtype: str
    shape: list[int]
    count: int
    parameters: int
    bytes: int
    indices: list[str]


class LockFile(TypedDict, total=False):
    """One weight file: size, tensors, data bytes, and its sha256 when known."""

    name: str
    size: int | None
    tensors: int
    data_bytes: int
    sha256: str


class LockUnread(TypedDict, total=False):
    """The files that could not be read (a Git LFS pointer, an absent shard, a broken header) and the tensors the
    index puts in them: compared with nothing, so a diff says "not compared" rather than "removed"."""

    files: list[dict[str, str]]  # {"name", "code": the root finding's, "is": read.header.WHAT key}
    tensors: list[dict[str, Any]]  # {"template", "count", "indices"}: the index's names for them
    unindexed: bool  # an unread file no index describes: any tensor may be in it


class LockSnapshot(TypedDict, total=False):
    """A lock file's document, and what ``st-audit diff`` compares on either side."""

    st_audit_lock: int
    st_audit_version: str
    source: dict[str, str]
    model_type: str | None
    architecture: str | None
    totals: dict[str, Any]
    expected: dict[str, int | None]
    ledger: dict[str, int]
    components: list[dict[str, Any]]
    files: list[LockFile]
    groups: list[LockGroup]
    config: dict[str, Any]  # config.json's settings (scalars, dotted into sub-configs)
    kind: str  # a composite target's kind (diffusers-pipeline, ...)
    sections: dict[str, LockSnapshot]  # a composite target: one snapshot per section, by section name
    unread: LockUnread  # files that could not be read, when any
    variant: str  # the variant of the counted weights (absent: the default weights)
    variants: dict[str, LockSnapshot]  # the alternate variants beside them (fp16, non_ema), by variant


# -- index sets as products of ranges ----------------------------------------------------------------------


def parse_ranges(text: str) -> list[int]:
    """``"0..3,5"`` -> ``[0, 1, 2, 3, 5]``."""
    out: list[int] = []
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("..")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise ValueError(f"bad range {part!r}")
        out += range(int(lo), int(hi) + 1) if sep else [int(lo)]
    return out


def decode_indices(entries: Sequence[str]) -> list[tuple[int, ...]]:
    import itertools

    out: list[tuple[int, ...]] = []
    for entry in entries:
        out += itertools.product(*(parse_ranges(p) for p in entry.split(" x ")))
    return out


def _template(g: Any) -> str:
    return g.template if isinstance(g.template, str) else ".".join(g.template)


# -- snapshot ----------------------------------------------------------------------------------------------

EMPTY_TOTALS = {"tensors": 0, "parameters": 0, "bytes": 0, "by_dtype": {}}


def snapshot(report: Report | CompositeReport, *, alternates: bool = True) -> LockSnapshot:
    """The lock document of ``report`` (see the module docstring); a pipeline, a sentence-transformers model or a
    folder of independent files is locked section by section (``sections``), each as a checkpoint of its own, and
    each checkpoint's alternate variants under ``variants`` (``alternates=False``: the counted weights alone)."""
    if not isinstance(report, Report):
        from ..core.version import __version__

        return {
            "st_audit_lock": LOCK_VERSION,
            "st_audit_version": __version__,
            "kind": report.kind.kind,
            "totals": report.total_counts(),
            "files": [],
            "groups": [],
            "sections": {s.part.name: snapshot(s.report) for s in report.sections},
        }
    return _checkpoint_snapshot(report, alternates)


def sections(doc: LockSnapshot) -> dict[str, LockSnapshot]:
    """A snapshot's sections by name; one checkpoint is the single section ``""``."""
    return doc["sections"] if "sections" in doc else {"": doc}


def alternate_name(section: str, variant: str) -> str:
    """How an alternate variant goes in a diff: ``unet (fp16)``, ``(fp16)`` beside one checkpoint's weights."""
    return f"{section} ({variant})" if section else f"({variant})"


def under(target: str, name: str) -> str:
    """A checkpoint name under its target, for people: ``sd/unet``, ``sd/unet (fp16)``, ``unet (fp16)`` for the
    variant of the one checkpoint ``unet``."""
    if not name:
        return target
    return f"{target} {name}" if name.startswith("(") else f"{target}/{name}"


def label(name: str) -> str:
    """A checkpoint name alone, for people: ``unet``, ``unet (fp16)``, ``variant fp16`` (of the one checkpoint)."""
    return f"variant {name[1:-1]}" if name.startswith("(") else name


def checkpoints(doc: LockSnapshot) -> dict[str, LockSnapshot]:
    """Every checkpoint of a snapshot by name: each section's counted weights under the section's name, then its
    alternate variants (``unet (fp16)``)."""
    out: dict[str, LockSnapshot] = {}
    for name, section in sections(doc).items():
        out[name] = section
        for variant, alternate in section.get("variants", {}).items():
            out[alternate_name(name, variant)] = alternate
    return out


def _checkpoint_snapshot(report: Report, alternates: bool = True) -> LockSnapshot:
    rec = report.reconciliation
    groups: list[LockGroup] = []
    for g in report.groups:
        elements = math.prod(g.shape)
        entry: LockGroup = {
            "pattern": g.pattern,
            "template": _template(g),
            "dtype": g.dtype,
            "shape": list(g.shape),
            "count": g.count,
            "parameters": elements * g.count,
            "bytes": report.tensors[g.names[0]].nbytes * g.count,
        }
        codes = encode_indices(g.indices)
        if codes:
            entry["indices"] = codes
        groups.append(entry)
    groups.sort(key=lambda e: (e["template"], e["dtype"], e["shape"]))
    from ..core.version import __version__

    source = {k: report.source[k] for k in ("repo", "revision", "commit") if report.source.get(k) is not None}
    files: list[LockFile] = sorted(
        (
            {
                "name": f.name,
                "size": f.size,
                "tensors": f.tensors,
                "data_bytes": f.data_bytes,
                **({"sha256": report.file_sha256[f.name]} if f.name in report.file_sha256 else {}),
            }  # type: ignore[typeddict-item]
            for f in report.files
        ),
        key=lambda f: f["name"],
    )
    doc: LockSnapshot = {
        "st_audit_lock": LOCK_VERSION,
        "st_audit_version": __version__,
        **({"source": source} if source else {}),
        "model_type": rec.model_type,
        "architecture": rec.architecture,
        "totals": report.totals.to_dict(),
        "expected": {
            "parameters": rec.expected_parameters,
            "activated_parameters": rec.activated_parameters,
            "mtp_parameters": rec.mtp_parameters,
        },
        "ledger": dict(rec.ledger),
        "components": [
            {
                "component": c.component,
                "layer_type": c.layer_type,
                "layers": c.layers,
                "expected": c.expected,
                "actual": c.actual,
            }
            for c in rec.components
        ],
        "files": files,
        "groups": groups,
    }
    if report.config is not None:
        doc["config"] = settings(report.config)
    unread = _unread(report)
    if unread:
        doc["unread"] = unread
    if report.variant is not None:
        doc["variant"] = report.variant
    if report.alternates and alternates:  # each with its own unread files, if any
        doc["variants"] = {a.variant: _checkpoint_snapshot(a.report) for a in report.alternates}
    return doc


def _unread(report: Report) -> LockUnread | None:
    lost = report.lost
    if not lost.files:
        return None
    doc: LockUnread = {
        "files": [
            {"name": name, "code": code, **({"is": lost.what[name]} if name in lost.what else {})}
            for name, code in sorted(lost.files.items())
        ]
    }
    if lost.tensors:
        doc["tensors"] = name_groups(lost.tensors)
    if lost.unindexed:
        doc["unindexed"] = True
    return doc


def name_groups(names: Iterable[str]) -> list[dict[str, Any]]:
    """Tensor names as ``{"template", "count", "indices"}`` entries (``tensors_of`` expands each back)."""
    by_template: dict[str, list[tuple[int, ...]]] = {}
    for name in names:
        template, index = split_name(name)
        by_template.setdefault(template, []).append(index)
    out: list[dict[str, Any]] = []
    for template, indices in sorted(by_template.items()):
        codes = encode_indices(indices)
        out.append({"template": template, "count": len(indices), **({"indices": codes} if codes else {})})
    return out


def settings(config: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """config.json's scalar settings, sub-configs dotted (``text_config.num_hidden_layers``): what a diff can say
    changed beside the tensors (lists and maps of ids are left out: they are not the architecture's shape)."""
    out: dict[str, Any] = {}
    for key, value in sorted(config.items()):
        if isinstance(value, dict) and key.endswith("_config"):
            out.update(settings(value, f"{prefix}{key}."))
        elif value is None or isinstance(value, (bool, int, float, str)):
            out[f"{prefix}{key}"] = value
    return out


_NUMBER_LIST = re.compile(r"\[\n\s*(-?\d+(?:,\n\s*-?\d+)*)\n\s*\]")


def dumps(doc: LockSnapshot) -> str:
    """Indented JSON with number lists (shapes) on one line; raw newlines never occur inside JSON strings,
    so the collapsing cannot touch a tensor name."""
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text) + "\n"


def read(path: str | os.PathLike[str]) -> LockSnapshot:
    """Load and sanity-check a lock file; a missing or malformed one is a usage error (exit 2)."""
    p = Path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"lock file {p} does not exist (create it with: st-audit lock TARGET -o {p})") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise UsageError(f"lock file {p} cannot be read: {e}") from None
    if not is_lock(doc):
        raise UsageError(f'{p} is not an st-audit lock file (no "{LOCK_KEY}": {LOCK_VERSION})')
    try:
        doc = _variants_as_alternates(doc)
        for section in [doc, *checkpoints(doc).values()]:
            if not is_lock({**section, LOCK_KEY: LOCK_VERSION}):
                raise ValueError("a section is not a snapshot")
            for g in [*section["groups"], *section.get("unread", {}).get("tensors", [])]:
                tensors_of(g)
            section["totals"]["parameters"] + section["totals"]["tensors"]
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        raise UsageError(f"lock file {p} is malformed: {type(e).__name__}: {e}") from None
    return doc  # type: ignore[no-any-return]


# a section st-audit wrote for a variant before variants were alternates (``unet (fp16)``, ``. (fp16)``: the name
# of discovery's part, ``f"{folder} ({variant})"``, with the variant as weight file names spell it)
_OLD_VARIANT_SECTION = re.compile(r"^(?P<base>.+) \((?P<variant>[A-Za-z0-9_]+)\)$")
_SPLIT_KINDS = (PIPELINE, COMPONENT, MODEL)


def _variants_as_alternates(doc: Any) -> Any:
    """A lock written when each variant was a section of its own (``unet`` and ``unet (fp16)``; a component folder
    as sections ``.`` and ``. (fp16)``), as the lock of the same target is written now: each folder's variants as
    one checkpoint, the default weights counted (else the first variant by name) and the others under
    ``variants``; a component folder alone as one checkpoint; totals counting each once. Any other lock as it is."""
    if (
        doc.get("kind") not in _SPLIT_KINDS
        or not isinstance(doc.get("sections"), dict)
        or any(isinstance(s, dict) and ("variant" in s or "variants" in s) for s in doc["sections"].values())
    ):
        return doc
    grouped: dict[str, dict[str | None, Any]] = {}
    for name, section in doc["sections"].items():
        m = _OLD_VARIANT_SECTION.match(name)
        base, variant = (m["base"], m["variant"]) if m else (name, None)
        grouped.setdefault(base, {})[variant] = section
    if all(len(g) == 1 and None in g for g in grouped.values()):
        return doc
    sections: dict[str, Any] = {}
    for base, by_variant in grouped.items():
        counted = None if None in by_variant else min(v for v in by_variant if v is not None)
        others = {
            v: {**s, "variant": v}
            for v, s in sorted(by_variant.items(), key=lambda kv: kv[0] or "")
            if v is not None and v != counted
        }
        sections[base] = {
            **by_variant[counted],
            **({"variant": counted} if counted is not None else {}),
            **({"variants": others} if others else {}),
        }
    if list(sections) == ["."]:  # a component folder alone: one checkpoint now
        return {**sections["."], LOCK_KEY: doc[LOCK_KEY], "st_audit_version": doc.get("st_audit_version")}
    return {**doc, "sections": sections, "totals": _summed([s["totals"] for s in sections.values()])}


def _summed(totals: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"tensors": 0, "parameters": 0, "bytes": 0, "by_dtype": {}}
    for t in totals:
        for key in ("tensors", "parameters", "bytes"):
            out[key] += t[key]
        for dtype, row in t.get("by_dtype", {}).items():
            mine = out["by_dtype"].setdefault(dtype, {"tensors": 0, "parameters": 0, "bytes": 0})
            for key in mine:
                mine[key] += row[key]
    out["by_dtype"] = dict(sorted(out["by_dtype"].items()))
    return out


def is_lock(doc: Any) -> bool:
    return isinstance(doc, dict) and doc.get(LOCK_KEY) == LOCK_VERSION and isinstance(doc.get("groups"), list)


def tensors_of(group: LockGroup) -> list[str]:
    template = group["template"]
    entries = group.get("indices")
    if not entries:
        return [template]
    names = [fill(template, combo) for combo in decode_indices(entries)]
    if len(names) != group.get("count", len(names)):
        raise ValueError(
            f"group {group.get('pattern', template)} lists {len(names)} tensors, count says {group['count']}"
        )
    return names


def tensor_map(doc: LockSnapshot) -> TensorMap:
    """Every tensor of a snapshot: name -> (dtype, shape)."""
    out: TensorMap = {}
    for g in doc["groups"]:
        value = (g["dtype"], tuple(g["shape"]))
        for name in tensors_of(g):
            out[name] = value
    return out
