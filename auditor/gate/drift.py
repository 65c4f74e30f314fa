"""Drift: how one snapshot differs from another (``compare`` -> ``Changes``), and a report from its lock as
``lock-drift`` findings naming the tensors.

The comparison lives here, not in ``diff`` (the command: loading sides, printing), so that ``lock`` (the snapshot
format), ``diff`` and the gates that check a lock (``policy``, ``verify``) import it without importing each other.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.findings import CODE_DATA, Finding, finding, plural
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
    retyped: list[tuple[str, Any, Any]] = field(default_factory=list)  # (name, dtype in a, dtype in b)
    totals: tuple[dict[str, Any], dict[str, Any]] = field(default_factory=lambda: ({}, {}))
    meta: list[tuple[str, Any, Any]] = field(default_factory=list)  # model_type, architecture, expected
    components: list[tuple[str, int, int]] = field(default_factory=list)  # (row, params in a, in b)
    templates: list[tuple[str, int, int]] = field(default_factory=list)  # (pattern, params in a, in b)
    dtypes: list[tuple[str, int, int]] = field(default_factory=list)  # (dtype, params in a, in b)
    files_changed: list[str] = field(default_factory=list)
    file_names: list[str] = field(default_factory=list)
    content: list[tuple[str, str, Any, Any]] = field(default_factory=list)  # (file, "sha256"|"size", a, b)
    config: list[tuple[str, Any, Any]] = field(default_factory=list)  # config.json settings (key, a, b)
    # files a side could not read (side "a"|"b", file, root code, what it is: read.header.WHAT key or None), and the
    # tensors one side has that the other's unread files may hold: not compared, never "added" or "removed"
    unread: list[tuple[str, str, str, str | None]] = field(default_factory=list)
    not_compared: list[tuple[str, str]] = field(default_factory=list)  # (the side whose files may hold it, tensor)

    def not_compared_in(self, side: str) -> list[str]:
        """The tensors the other side has that ``side``'s unread files may hold."""
        return [name for s, name in self.not_compared if s == side]

    @property
    def complete(self) -> bool:
        """Whether every file of both sides was read (else the comparison cannot call them identical)."""
        return not self.unread

    @property
    def identical(self) -> bool:
        ta, tb = self.totals
        return self.complete and not (
            self.added
            or self.removed
            or self.reshaped
            or self.retyped
            or self.meta
            or self.content
            or self.config
            or ta.get("parameters") != tb.get("parameters")
            or ta.get("tensors") != tb.get("tensors")
        )

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
            "complete": self.complete,
            "unread": [
                {"side": side, "file": name, "code": code, "is": what, "why": unread_reason(code, what)}
                for side, name, code, what in self.unread
            ],
            "not_compared": {
                "count": len(self.not_compared),
                "patterns": patterns(n for _, n in self.not_compared),
                "tensors": [n for _, n in self.not_compared],
            },
            "totals": {
                k: {"a": ta.get(k), "b": tb.get(k), "delta": (tb.get(k) or 0) - (ta.get(k) or 0)}
                for k in ("tensors", "parameters", "bytes")
            },
            "added": {"count": len(self.added), "patterns": patterns(self.added), "tensors": self.added},
            "removed": {"count": len(self.removed), "patterns": patterns(self.removed), "tensors": self.removed},
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


@dataclass(frozen=True)
class Unread:
    """A snapshot's files that could not be read, and which tensors they may hold."""

    files: dict[str, tuple[str, str | None]]  # file -> (root code, what it is)
    tensors: frozenset[str]  # the index's names for their tensors
    unindexed: bool  # a file no index describes: any tensor may be in it

    def holds(self, name: str) -> bool:
        return bool(self.files) and (self.unindexed or name in self.tensors)


def unread_of(doc: LockSnapshot) -> Unread:
    unread = doc.get("unread") or {}
    files = {f["name"]: (f["code"], f.get("is")) for f in unread.get("files", [])}
    names = frozenset(n for entry in unread.get("tensors", []) for n in lockmod.tensors_of(entry))  # type: ignore[arg-type]
    return Unread(files, names, bool(unread.get("unindexed")))


def unread_reason(code: str, what: str | None) -> str:
    """Why a file could not be read, in words: what it is instead (a Git LFS pointer ...), else its root code's
    meaning."""
    from ..core.findings import CODES
    from ..read.header import WHAT

    return WHAT[what] if what in WHAT else f"{CODES[code][1]} ({code})"


def unread_text(files: list[tuple[str, str, str | None]]) -> str:
    """``a, b and 3 more: each a Git LFS pointer file, not the weights (run `git lfs pull`)``, one clause per reason."""
    by_reason: dict[str, list[str]] = {}
    for name, code, what in files:
        by_reason.setdefault(unread_reason(code, what), []).append(name)
    return "; ".join(
        f"{shown(names, MAX_NAMES)}: {'each ' if len(names) > 1 else ''}{reason}" for reason, names in by_reason.items()
    )


def compare(a: LockSnapshot, b: LockSnapshot) -> Changes:
    """Compare two snapshots (lock documents). A tensor one side has that the other side's unread files may hold
    (by the index, or any tensor when no index describes them) is not compared; unread files are not compared by
    content or layout either: each side names them."""
    ma, mb = lockmod.tensor_map(a), lockmod.tensor_map(b)
    ua, ub = unread_of(a), unread_of(b)
    ch = Changes(totals=(a["totals"], b["totals"]))
    gone = [n for n in ma if n not in mb]
    new = [n for n in mb if n not in ma]
    ch.removed = [n for n in gone if not ub.holds(n)]
    ch.added = [n for n in new if not ua.holds(n)]
    ch.not_compared = [("b", n) for n in gone if ub.holds(n)] + [("a", n) for n in new if ua.holds(n)]
    ch.unread = [
        (side, name, code, what) for side, u in (("a", ua), ("b", ub)) for name, (code, what) in u.files.items()
    ]
    unread_files = set(ua.files) | set(ub.files)
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
    for name in sorted((set(fa) | set(fb)) - unread_files):
        if name not in fb:
            ch.files_changed.append(f"{name} removed")
        elif name not in fa:
            ch.files_changed.append(f"{name} added ({fb[name][0] or 0:,} bytes)")
        elif fa[name] != fb[name]:
            ch.files_changed.append(f"{name} {fa[name][0] or 0:,} -> {fb[name][0] or 0:,} bytes")
        else:
            continue
        ch.file_names.append(name)
    ch.content = [c for c in content_changes(a.get("files", []), b.get("files", [])) if c[0] not in unread_files]
    if "config" in a and "config" in b:  # locks written before settings were kept compare tensors only
        ca, cb = a["config"], b["config"]
        ch.config = [
            (k, ca.get(k), cb.get(k))
            for k in sorted(set(ca) | set(cb))
            if ca.get(k) != cb.get(k) and not k.startswith("_") and k != "transformers_version"
        ]
    return ch


EMPTY: LockSnapshot = {"groups": [], "files": [], "totals": lockmod.EMPTY_TOTALS}


def compare_sections(a: LockSnapshot, b: LockSnapshot) -> list[tuple[str, Changes]]:
    """Section by section (a pipeline's unet with the other's unet), each section's alternate variants after it
    (``unet (fp16)`` with the other's); a section or variant one side lacks is compared with nothing, so all its
    tensors are added or removed. One checkpoint is the single section ``""``, its variants ``(fp16)``."""
    sa, sb = lockmod.checkpoints(a), lockmod.checkpoints(b)
    names = list(sa) + [n for n in sb if n not in sa]
    return [(name, compare(sa.get(name, EMPTY), sb.get(name, EMPTY))) for name in names]


def section_locks(
    lock: LockSnapshot, names: list[str], *, lock_name: str = "the lock"
) -> tuple[dict[str, LockSnapshot], list[Finding]]:
    """What each section of a composite target is held to: its part of the lock (nothing, for a section the
    lock lacks: all its tensors are then drift), and findings for the lock's sections the target lacks."""
    locked = lockmod.sections(lock)
    gone = [n for n in locked if n not in names]
    findings = (
        [
            finding(
                "lock-drift",
                f"{lock_name} holds {plural(len(gone), 'section')} the target does not: "
                f"{', '.join(n or '(one checkpoint)' for n in gone)}",
            )
        ]
        if gone
        else []
    )
    return {n: locked.get(n, EMPTY) for n in names}, findings


def variant_locks(
    lock: LockSnapshot, variants: list[str], *, lock_name: str = "the lock"
) -> tuple[dict[str, LockSnapshot], list[Finding]]:
    """What each alternate variant of a checkpoint is held to: the lock's snapshot of that variant (nothing, for a
    variant the lock lacks: all its tensors are then drift), and a finding for the variants the lock holds that
    the checkpoint no longer has."""
    locked = lock.get("variants", {})
    gone = [v for v in locked if v not in variants]
    findings = (
        [
            finding(
                "lock-drift",
                f"{lock_name} holds {'variant' if len(gone) == 1 else 'variants'} "
                f"{', '.join(gone)} of these weights; the target has no such files",
                files=[f["name"] for v in gone for f in locked[v].get("files", [])],
            )
        ]
        if gone
        else []
    )
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


# which tensor-level drift a finding of the audit already states (core/codes.toml ``drift``): missing-tensor says a
# tensor is not stored ("removed"), unexpected-tensor and a policy rule that a stored tensor breaks say it is stored
# ("added"), shape-mismatch that its shape is not the expected one ("reshaped")
SAYS_DRIFT: dict[str, tuple[str, ...]] = {code: tuple(d["drift"]) for code, d in CODE_DATA.items() if "drift" in d}


def drift(
    lock: LockSnapshot, report: Report, *, lock_name: str = "the lock", said: Sequence[Finding] = ()
) -> list[Finding]:
    """``lock-drift`` findings: how ``report`` (one checkpoint) differs from the locked snapshot, naming the
    tensors. ``said``: the checkpoint's other findings (the audit's, the policy's): a change of tensors that an error
    among them already names (the ``missing-tensor`` for the tensor no longer stored) is one accident, so its drift
    is ``info`` with ``caused_by`` that code rather than a second error."""
    out: list[Finding] = []
    if "sections" in lock:
        out.append(
            finding(
                "lock-drift",
                f"{lock_name} describes a {lock.get('kind', 'composite target')} of "
                f"{plural(len(lock['sections']), 'section')}; this target is one checkpoint",
            )
        )
    changes = compare(lock, snapshot(report, alternates=False))
    errors = [
        f
        for f in said
        if f.severity == "error" and f.code in SAYS_DRIFT and f.tensors and f.code not in report.ignored_codes
    ]
    if changes.removed:
        out += _tensor_drift(
            changes.removed,
            "removed",
            errors,
            lambda names: (
                f"{plural(len(names), 'tensor')} in {lock_name} {'is' if len(names) == 1 else 'are'} no longer stored: "
                f"{shown(patterns(names), MAX_NAMES, sep='; ')}"
            ),
        )
    if changes.added:
        out += _tensor_drift(
            changes.added,
            "added",
            errors,
            lambda names: (
                f"{plural(len(names), 'stored tensor')} not in {lock_name}: {shown(patterns(names), MAX_NAMES, sep='; ')}"
            ),
        )
    if changes.reshaped:
        shapes = {n: (a, b) for n, a, b in changes.reshaped}
        out += _tensor_drift(
            [n for n, _, _ in changes.reshaped],
            "reshaped",
            errors,
            lambda names: (
                f"{plural(len(names), 'tensor')} changed shape since {lock_name}: "
                + shown(
                    [f"{p} {list(a)} -> {list(b)}" for p, a, b in changes.grouped([(n, *shapes[n]) for n in names])],
                    MAX_NAMES,
                    sep="; ",
                )
            ),
        )
    if changes.retyped:
        out.append(
            finding(
                "lock-drift",
                f"{plural(len(changes.retyped), 'tensor')} changed dtype since "
                f"{lock_name}: "
                + shown([f"{p} {a} -> {b}" for p, a, b in changes.grouped(changes.retyped)], MAX_NAMES, sep="; "),
                tensors=[n for n, _, _ in changes.retyped],
            )
        )
    root = _root(changes)
    if changes.unread:
        out += _not_compared(changes, lock_name, root)
    (ta, tb) = changes.totals
    if ta["parameters"] != tb["parameters"] or ta["tensors"] != tb["tensors"]:
        itemised = bool(changes.added or changes.removed or changes.reshaped or changes.retyped)
        counts = finding(
            "lock-drift",
            f"counts changed since {lock_name}" + (" (with the tensor changes above)" if itemised else "") + ": "
            f"{ta['tensors']:,} -> {tb['tensors']:,} tensors, {ta['parameters']:,} -> "
            f"{tb['parameters']:,} parameters ({tb['parameters'] - ta['parameters']:+,})",
            severity="info" if itemised else None,
        )  # the sum of the changes named above: said there
        # files that could not be read hold tensors: counts of what was read cannot be compared
        out.append(
            replace(
                counts,
                severity="info",
                caused_by=root,
                message=f"not compared (files could not be read): {counts.message}",
            )
            if root
            else counts
        )
    for key, a, b in changes.meta:
        out.append(
            finding("lock-drift", f"{key} changed since {lock_name}: {value(a)} -> {value(b)}", severity="warning")
        )
    if changes.content:
        # the sole sign of retrained or corrupted weights when the inventory is unchanged; otherwise a consequence
        explained = bool(changes.added or changes.removed or changes.reshaped or changes.retyped)
        out.append(
            finding(
                "lock-drift",
                f"{plural(len(changes.content), 'file')} changed content since {lock_name}"
                + (" (with the tensor changes above)" if explained else "")
                + ": "
                + shown(
                    [f"{n} ({how} {_short(x)} -> {_short(y)})" for n, how, x, y in changes.content], MAX_NAMES, sep="; "
                ),
                files=[n for n, _, _, _ in changes.content],
                severity="info" if explained else None,
            )
        )
    changed = {n for n, _, _, _ in changes.content}
    layout = [(line, n) for line, n in zip(changes.files_changed, changes.file_names) if n not in changed]
    if layout:
        out.append(
            finding(
                "lock-drift",
                f"the file layout differs from {lock_name}: {shown([line for line, _ in layout], MAX_NAMES, sep='; ')}",
                files=[n for _, n in layout],
                severity="info",
            )
        )
    return out


def _tensor_drift(
    names: list[str], kind: str, errors: list[Finding], message: Callable[[list[str]], str]
) -> list[Finding]:
    """One change of tensors (``kind``: removed, added, reshaped) as ``lock-drift``: an error for the tensors no error in
    ``errors`` already names as such, ``info`` caused by that error's code for those one does (each its own finding)."""
    out: list[Finding] = []
    left = names
    for f in errors:
        if kind not in SAYS_DRIFT[f.code]:
            continue
        named = set(f.tensors)
        covered = [n for n in left if n in named]
        if not covered:
            continue
        left = [n for n in left if n not in named]
        out.append(
            replace(
                finding(
                    "lock-drift",
                    f"{message(covered)} (the {f.code} above: one change, not a separate problem)",
                    tensors=covered,
                    severity="info",
                ),
                caused_by=f.code,
            )
        )
    if left:
        out.insert(0, finding("lock-drift", message(left), tensors=left))
    return out


def _root(changes: Changes) -> str | None:
    """The root code the report's unread files share most (what the lock-drift they cause is a consequence of)."""
    codes = [code for _, _, code, _ in changes.unread]
    return max(set(codes), key=codes.count) if codes else None


def _not_compared(changes: Changes, lock_name: str, root: str | None) -> list[Finding]:
    """Tensors of one side that the other side's unread files may hold: not compared (a consequence of the
    files that could not be read, never "no longer stored")."""
    out: list[Finding] = []
    for side, whose in (("b", "this checkpoint"), ("a", lock_name)):
        files = [(name, code, what) for s, name, code, what in changes.unread if s == side]
        if not files:
            continue
        names = changes.not_compared_in(side)
        held = (
            f"{plural(len(names), 'tensor')} of {lock_name if side == 'b' else 'this checkpoint'} not compared"
            if names
            else "nothing compared in them"
        )
        message = f"{plural(len(files), 'file')} of {whose} could not be read ({unread_text(files)}): {held}" + (
            f": {shown(patterns(names), MAX_NAMES, sep='; ')}" if names else ""
        )
        out.append(
            replace(
                finding("lock-drift", message, tensors=names, files=[n for n, _, _ in files], severity="info"),
                caused_by=root,
            )
        )
    return out


def _short(v: Any) -> str:
    """A digest shortened for messages (the full ones are in the lock and in verify's JSON), or a size."""
    return f"{v[:12]}..." if isinstance(v, str) and len(v) == 64 else (f"{v:,} bytes" if isinstance(v, int) else str(v))
