"""Drift: how one snapshot differs from another (``compare`` -> ``Changes``), and a report from its lock as
``lock-drift`` findings naming the tensors.

The comparison lives here, not in ``diff`` (the command: loading sides, printing), so that ``lock`` (the snapshot
format), ``diff`` and the gates that check a lock (``policy``, ``verify``) import it without importing each other.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..core.findings import Finding, finding, plural
from ..core.names import shown
from ..inventory.groups import fill, ranges, split_name
from ..inventory.patterns import patterns
from ..report.single import Report
from . import lock as lockmod
from .lock import MAX_NAMES, LockFile, LockSnapshot, snapshot


@dataclass
class Changes:
    """The differences from snapshot ``a`` to snapshot ``b``."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    reshaped: list[tuple[str, Any, Any]] = field(default_factory=list)  # (name, shape in a, shape in b)
    retyped: list[tuple[str, Any, Any]] = field(default_factory=list)   # (name, dtype in a, dtype in b)
    totals: tuple[dict[str, Any], dict[str, Any]] = field(default_factory=lambda: ({}, {}))
    meta: list[tuple[str, Any, Any]] = field(default_factory=list)      # model_type, architecture, expected
    components: list[tuple[str, int, int]] = field(default_factory=list)  # (row, params in a, in b)
    templates: list[tuple[str, int, int]] = field(default_factory=list)   # (pattern, params in a, in b)
    dtypes: list[tuple[str, int, int]] = field(default_factory=list)      # (dtype, params in a, in b)
    files_changed: list[str] = field(default_factory=list)
    file_names: list[str] = field(default_factory=list)
    content: list[tuple[str, str, Any, Any]] = field(default_factory=list)  # (file, "sha256"|"size", a, b)
    config: list[tuple[str, Any, Any]] = field(default_factory=list)    # config.json settings (key, a, b)

    @property
    def identical(self) -> bool:
        ta, tb = self.totals
        return not (self.added or self.removed or self.reshaped or self.retyped or self.meta or self.content
                    or self.config or ta.get("parameters") != tb.get("parameters")
                    or ta.get("tensors") != tb.get("tensors"))

    @staticmethod
    def grouped(items: list[tuple[str, Any, Any]]) -> list[tuple[str, Any, Any]]:
        """Per-tensor changes collapsed into (pattern, before, after) rows."""
        rows: dict[tuple[Any, ...], list[str]] = {}
        for name, a, b in items:
            template, _ = split_name(name)
            rows.setdefault((template, _key(a), _key(b)), []).append(name)
        out = []
        for (_, a, b), names in rows.items():
            out.append((patterns(names)[0], _unkey(a), _unkey(b)))
        return out

    def to_dict(self) -> dict[str, Any]:
        ta, tb = self.totals

        def rows(items: list[tuple[str, int, int]], key: str) -> list[dict[str, Any]]:
            return [{key: k, "a": a, "b": b, "delta": b - a} for k, a, b in items]

        return {
            "identical": self.identical,
            "totals": {k: {"a": ta.get(k), "b": tb.get(k), "delta": (tb.get(k) or 0) - (ta.get(k) or 0)}
                       for k in ("tensors", "parameters", "bytes")},
            "added": {"count": len(self.added), "patterns": patterns(self.added), "tensors": self.added},
            "removed": {"count": len(self.removed), "patterns": patterns(self.removed),
                        "tensors": self.removed},
            "shape_changes": [{"tensor": n, "a": list(a), "b": list(b)} for n, a, b in self.reshaped],
            "dtype_changes": [{"tensor": n, "a": a, "b": b} for n, a, b in self.retyped],
            "metadata_changes": [{"field": f, "a": a, "b": b} for f, a, b in self.meta],
            "components": rows(self.components, "component"),
            "patterns": rows(self.templates, "pattern"),
            "dtypes": rows(self.dtypes, "dtype"),
            "file_changes": self.files_changed,
            "content_changes": [{"file": n, "by": how, "a": x, "b": y} for n, how, x, y in self.content],
            "config_changes": [{"key": k, "a": a, "b": b} for k, a, b in self.config],
        }


def _key(v: Any) -> Any:
    return tuple(v) if isinstance(v, (list, tuple)) else v


def _unkey(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def compare(a: LockSnapshot, b: LockSnapshot) -> Changes:
    """Compare two snapshots (lock documents)."""
    ma, mb = lockmod.tensor_map(a), lockmod.tensor_map(b)
    ch = Changes(totals=(a["totals"], b["totals"]))
    ch.removed = [n for n in ma if n not in mb]
    ch.added = [n for n in mb if n not in ma]
    for name, (dtype_a, shape_a) in ma.items():
        other = mb.get(name)
        if other is None:
            continue
        dtype_b, shape_b = other
        if shape_a != shape_b:
            ch.reshaped.append((name, shape_a, shape_b))
        if dtype_a != dtype_b:
            ch.retyped.append((name, dtype_a, dtype_b))
    for key in ("model_type", "architecture", "variant"):
        if a.get(key) != b.get(key):
            ch.meta.append((key, a.get(key), b.get(key)))
    ea, eb = a.get("expected") or {}, b.get("expected") or {}
    for key in ("parameters", "activated_parameters", "mtp_parameters"):
        if ea.get(key) != eb.get(key):
            ch.meta.append((f"expected {key.replace('_', ' ')}", ea.get(key), eb.get(key)))
    ch.components = _deltas(_component_params(a), _component_params(b))
    ch.templates = _template_deltas(a, b)
    da = {d: v["parameters"] for d, v in a["totals"].get("by_dtype", {}).items()}
    db = {d: v["parameters"] for d, v in b["totals"].get("by_dtype", {}).items()}
    ch.dtypes = _deltas(da, db)
    fa = {f["name"]: (f.get("size"), f.get("tensors")) for f in a.get("files", [])}
    fb = {f["name"]: (f.get("size"), f.get("tensors")) for f in b.get("files", [])}
    for name in sorted(set(fa) | set(fb)):
        if name not in fb:
            ch.files_changed.append(f"{name} removed")
        elif name not in fa:
            ch.files_changed.append(f"{name} added ({fb[name][0] or 0:,} bytes)")
        elif fa[name] != fb[name]:
            ch.files_changed.append(f"{name} {fa[name][0] or 0:,} -> {fb[name][0] or 0:,} bytes")
        else:
            continue
        ch.file_names.append(name)
    ch.content = content_changes(a.get("files", []), b.get("files", []))
    if "config" in a and "config" in b:  # locks written before settings were kept compare tensors only
        ca, cb = a["config"], b["config"]
        ch.config = [(k, ca.get(k), cb.get(k)) for k in sorted(set(ca) | set(cb))
                     if ca.get(k) != cb.get(k) and not k.startswith("_") and k != "transformers_version"]
    return ch


EMPTY: LockSnapshot = {"groups": [], "files": [], "totals": lockmod.EMPTY_TOTALS}


def compare_sections(a: LockSnapshot, b: LockSnapshot) -> list[tuple[str, Changes]]:
    """Section by section (a pipeline's unet with the other's unet), each section's alternate variants after it
    (``unet (fp16)`` with the other's); a section or variant one side lacks is compared with nothing, so all its
    tensors are added or removed. One checkpoint is the single section ``""``, its variants ``(fp16)``."""
    sa, sb = lockmod.checkpoints(a), lockmod.checkpoints(b)
    names = list(sa) + [n for n in sb if n not in sa]
    return [(name, compare(sa.get(name, EMPTY), sb.get(name, EMPTY))) for name in names]


def section_locks(lock: LockSnapshot, names: list[str], *,
                  lock_name: str = "the lock") -> tuple[dict[str, LockSnapshot], list[Finding]]:
    """What each section of a composite target is held to: its part of the lock (nothing, for a section the
    lock lacks: all its tensors are then drift), and findings for the lock's sections the target lacks."""
    locked = lockmod.sections(lock)
    gone = [n for n in locked if n not in names]
    findings = [finding("lock-drift", f"{lock_name} holds {plural(len(gone), 'section')} the target does not: "
                        f"{', '.join(n or '(one checkpoint)' for n in gone)}")] if gone else []
    return {n: locked.get(n, EMPTY) for n in names}, findings


def variant_locks(lock: LockSnapshot, variants: list[str], *,
                  lock_name: str = "the lock") -> tuple[dict[str, LockSnapshot], list[Finding]]:
    """What each alternate variant of a checkpoint is held to: the lock's snapshot of that variant (nothing, for a
    variant the lock lacks: all its tensors are then drift), and a finding for the variants the lock holds that
    the checkpoint no longer has."""
    locked = lock.get("variants", {})
    gone = [v for v in locked if v not in variants]
    findings = [finding("lock-drift", f"{lock_name} holds {'variant' if len(gone) == 1 else 'variants'} "
                        f"{', '.join(gone)} of these weights; the target has no such files",
                        files=[f["name"] for v in gone for f in locked[v].get("files", [])])] if gone else []
    return {v: locked.get(v, EMPTY) for v in variants}, findings


def content_changes(a: list[LockFile], b: list[LockFile]) -> list[tuple[str, str, Any, Any]]:
    """Files on both sides whose content differs: by sha256 when both know it, else by size."""
    fa, fb = {f["name"]: f for f in a}, {f["name"]: f for f in b}
    out: list[tuple[str, str, Any, Any]] = []
    for name in sorted(set(fa) & set(fb)):
        ha, hb = fa[name].get("sha256"), fb[name].get("sha256")
        if ha and hb:
            if ha != hb:
                out.append((name, "sha256", ha, hb))
        elif fa[name].get("size") != fb[name].get("size"):
            out.append((name, "size", fa[name].get("size"), fb[name].get("size")))
    return out


def _component_params(doc: LockSnapshot) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for c in doc.get("components", []):
        label = c["component"] + (f" [{c['layer_type']}]" if c.get("layer_type") else "")
        out[label] += c["actual"]
    return dict(out)


def _template_params(doc: LockSnapshot) -> dict[str, tuple[int, list[tuple[int, ...]]]]:
    """template -> (parameters, indices) over all groups of that template."""
    out: dict[str, tuple[int, list[tuple[int, ...]]]] = {}
    for g in doc["groups"]:
        params, indices = out.get(g["template"], (0, []))
        out[g["template"]] = (params + g["parameters"], indices + lockmod.decode_indices(g.get("indices") or []))
    return out


def _template_deltas(a: LockSnapshot, b: LockSnapshot) -> list[tuple[str, int, int]]:
    """Parameter deltas per name template, labelled by the union of both sides' index ranges."""
    ta, tb = _template_params(a), _template_params(b)
    rows = []
    for template in list(ta) + [t for t in tb if t not in ta]:
        pa, ia = ta.get(template, (0, []))
        pb, ib = tb.get(template, (0, []))
        if pa == pb:
            continue
        indices = ia + ib
        parts = []
        if indices and indices[0]:
            for k in range(len(indices[0])):
                values = {ix[k] for ix in indices}
                parts.append(str(next(iter(values))) if len(values) == 1 else "{" + ranges(values) + "}")
        rows.append((fill(template, parts) if parts else template, pa, pb))
    return rows


def _deltas(a: dict[str, int], b: dict[str, int]) -> list[tuple[str, int, int]]:
    keys = list(a) + [k for k in b if k not in a]
    return [(k, a.get(k, 0), b.get(k, 0)) for k in keys if a.get(k, 0) != b.get(k, 0)]


def value(v: Any) -> str:
    """A metadata value for people: counts with separators, strings quoted, None as "none"."""
    if v is None:
        return "none"
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else repr(v)


def _shown(items: list[str]) -> str:
    return shown(items, MAX_NAMES, sep="; ")


def drift(lock: LockSnapshot, report: Report, *, lock_name: str = "the lock") -> list[Finding]:
    """``lock-drift`` findings: how ``report`` (one checkpoint) differs from the locked snapshot, naming the
    tensors."""
    out: list[Finding] = []
    if "sections" in lock:
        out.append(finding("lock-drift", f"{lock_name} describes a {lock.get('kind', 'composite target')} of "
                           f"{plural(len(lock['sections']), 'section')}; this target is one checkpoint"))
    changes = compare(lock, snapshot(report, alternates=False))
    if changes.removed:
        out.append(finding("lock-drift", f"{plural(len(changes.removed), 'tensor')} in {lock_name} "
                           f"{'is' if len(changes.removed) == 1 else 'are'} no longer stored: "
                           f"{_shown(patterns(changes.removed))}", tensors=changes.removed))
    if changes.added:
        out.append(finding("lock-drift", f"{plural(len(changes.added), 'stored tensor')} not in {lock_name}: "
                           f"{_shown(patterns(changes.added))}", tensors=changes.added))
    if changes.reshaped:
        out.append(finding("lock-drift", f"{plural(len(changes.reshaped), 'tensor')} changed shape since "
                           f"{lock_name}: " + _shown([f"{p} {list(a)} -> {list(b)}"
                                                     for p, a, b in changes.grouped(changes.reshaped)]),
                           tensors=[n for n, _, _ in changes.reshaped]))
    if changes.retyped:
        out.append(finding("lock-drift", f"{plural(len(changes.retyped), 'tensor')} changed dtype since "
                           f"{lock_name}: " + _shown([f"{p} {a} -> {b}"
                                                     for p, a, b in changes.grouped(changes.retyped)]),
                           tensors=[n for n, _, _ in changes.retyped]))
    (ta, tb) = changes.totals
    if ta["parameters"] != tb["parameters"] or ta["tensors"] != tb["tensors"]:
        out.append(finding("lock-drift", f"counts changed since {lock_name}: "
                           f"{ta['tensors']:,} -> {tb['tensors']:,} tensors, {ta['parameters']:,} -> "
                           f"{tb['parameters']:,} parameters ({tb['parameters'] - ta['parameters']:+,})"))
    for key, a, b in changes.meta:
        out.append(finding("lock-drift", f"{key} changed since {lock_name}: {value(a)} -> {value(b)}",
                           severity="warning"))
    if changes.content:
        # the sole sign of retrained or corrupted weights when the inventory is unchanged; otherwise a consequence
        explained = bool(changes.added or changes.removed or changes.reshaped or changes.retyped)
        out.append(finding("lock-drift", f"{plural(len(changes.content), 'file')} changed content since {lock_name}"
                           + (" (with the tensor changes above)" if explained else "") + ": "
                           + _shown([f"{n} ({how} {_short(x)} -> {_short(y)})" for n, how, x, y in changes.content]),
                           files=[n for n, _, _, _ in changes.content], severity="info" if explained else None))
    changed = {n for n, _, _, _ in changes.content}
    layout = [(line, n) for line, n in zip(changes.files_changed, changes.file_names) if n not in changed]
    if layout:
        out.append(finding("lock-drift", f"the file layout differs from {lock_name}: "
                           f"{_shown([line for line, _ in layout])}", files=[n for _, n in layout], severity="info"))
    return out


def _short(v: Any) -> str:
    """A digest shortened for messages (the full ones are in the lock and in verify's JSON), or a size."""
    return f"{v[:12]}..." if isinstance(v, str) and len(v) == 64 else (f"{v:,} bytes" if isinstance(v, int) else str(v))
