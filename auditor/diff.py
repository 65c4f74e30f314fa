"""``st-audit diff A B``: what changed between two checkpoints (or a checkpoint and its lock file).

Each side is a lock file (read as is) or anything ``audit()`` accepts (directory, .safetensors file, Hub
repo id), turned into the same snapshot a lock file holds. The comparison is by tensor name: added,
removed, reshaped, retyped; then parameter deltas per component, per tensor pattern and in total.
The file layout (shard names and sizes) is shown but does not by itself make two checkpoints differ.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import lock as lockmod
from .errors import UsageError
from .findings import plural
from .groups import fill, ranges, split_name

MAX_LISTED = 50


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

    @property
    def identical(self) -> bool:
        ta, tb = self.totals
        return not (self.added or self.removed or self.reshaped or self.retyped or self.meta
                    or ta.get("parameters") != tb.get("parameters") or ta.get("tensors") != tb.get("tensors"))

    @staticmethod
    def grouped(items: list[tuple[str, Any, Any]]) -> list[tuple[str, Any, Any]]:
        """Per-tensor changes collapsed into (pattern, before, after) rows."""
        rows: dict[tuple[Any, ...], list[str]] = {}
        for name, a, b in items:
            template, _ = split_name(name)
            rows.setdefault((template, _key(a), _key(b)), []).append(name)
        out = []
        for (_, a, b), names in rows.items():
            out.append((lockmod.patterns(names)[0], _unkey(a), _unkey(b)))
        return out

    def to_dict(self) -> dict[str, Any]:
        ta, tb = self.totals

        def rows(items: list[tuple[str, int, int]], key: str) -> list[dict[str, Any]]:
            return [{key: k, "a": a, "b": b, "delta": b - a} for k, a, b in items]

        return {
            "identical": self.identical,
            "totals": {k: {"a": ta.get(k), "b": tb.get(k), "delta": (tb.get(k) or 0) - (ta.get(k) or 0)}
                       for k in ("tensors", "parameters", "bytes")},
            "added": {"count": len(self.added), "patterns": lockmod.patterns(self.added), "tensors": self.added},
            "removed": {"count": len(self.removed), "patterns": lockmod.patterns(self.removed),
                        "tensors": self.removed},
            "shape_changes": [{"tensor": n, "a": list(a), "b": list(b)} for n, a, b in self.reshaped],
            "dtype_changes": [{"tensor": n, "a": a, "b": b} for n, a, b in self.retyped],
            "metadata_changes": [{"field": f, "a": a, "b": b} for f, a, b in self.meta],
            "components": rows(self.components, "component"),
            "patterns": rows(self.templates, "pattern"),
            "dtypes": rows(self.dtypes, "dtype"),
            "file_changes": self.files_changed,
        }


def _key(v: Any) -> Any:
    return tuple(v) if isinstance(v, (list, tuple)) else v


def _unkey(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def compare(a: dict[str, Any], b: dict[str, Any]) -> Changes:
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
    for key in ("model_type", "architecture"):
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
    return ch


def _component_params(doc: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for c in doc.get("components", []):
        label = c["component"] + (f" [{c['layer_type']}]" if c.get("layer_type") else "")
        out[label] += c["actual"]
    return dict(out)


def _template_params(doc: dict[str, Any]) -> dict[str, tuple[int, list[tuple[int, ...]]]]:
    """template -> (parameters, indices) over all groups of that template."""
    out: dict[str, tuple[int, list[tuple[int, ...]]]] = {}
    for g in doc["groups"]:
        params, indices = out.get(g["template"], (0, []))
        out[g["template"]] = (params + g["parameters"], indices + lockmod.decode_indices(g.get("indices") or []))
    return out


def _template_deltas(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, int, int]]:
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


# -- loading a side ----------------------------------------------------------------------------------------

def load_side(target: str, *, token: str | None = None, use_cache: bool = True,
              progress: Callable[[str], None] | None = None, hub: bool = False) -> dict[str, Any]:
    """A snapshot of ``target``: a lock file is read directly, anything else is audited."""
    path = Path(target)
    if path.is_file() and not path.name.endswith(".safetensors"):
        try:
            json.loads(path.read_bytes())
        except (OSError, ValueError):
            raise UsageError(f"{target} is neither a checkpoint (directory, .safetensors file, Hub repo id) nor "
                             "an st-audit lock file") from None
        return lockmod.read(path)
    from .audit import audit
    # a Hub side may pin its own revision: org/name@v1 against org/name@refs/pr/3
    return lockmod.snapshot(audit(target, token=token, use_cache=use_cache, progress=progress, hub=hub))


def diff(a: str, b: str, **kw: Any) -> Changes:
    return compare(load_side(a, **kw), load_side(b, **kw))


# -- formats -----------------------------------------------------------------------------------------------

def _shape(s: Any) -> str:
    return "[" + ", ".join(str(d) for d in s) + "]"


def _limited(lines: list[str], limit: int = MAX_LISTED) -> list[str]:
    return lines[:limit] + ([f"... and {len(lines) - limit:,} more"] if len(lines) > limit else [])


def format_diff(changes: Changes, a: str, b: str, fmt: str = "table") -> str:
    if fmt == "json":
        return json.dumps({"a": a, "b": b, **changes.to_dict()}, indent=2, ensure_ascii=False) + "\n"
    md = fmt == "markdown"
    from tabulate import tabulate
    tablefmt = "github" if md else "simple"
    ta, tb = changes.totals
    verdict = "identical" if changes.identical else "different"
    code = (lambda s: f"`{s}`") if md else (lambda s: s)
    out = [f"## st-audit diff: `{a}` -> `{b}` ({verdict})" if md else f"st-audit diff: {a} -> {b}: {verdict}", ""]
    total_rows = [[k, f"{ta.get(k) or 0:,}", f"{tb.get(k) or 0:,}", _signed((tb.get(k) or 0) - (ta.get(k) or 0))]
                  for k in ("tensors", "parameters", "bytes")]
    out += [tabulate(total_rows, headers=["total", "a", "b", "delta"], tablefmt=tablefmt, disable_numparse=True,
                     colalign=("left", "right", "right", "right")), ""]

    def section(title: str, lines: list[str]) -> None:
        if lines:
            out.extend([f"### {title}", ""] if md else [f"{title}:"])
            out.extend(_limited([f"- {line}" if md else f"  {line}" for line in lines]))
            out.append("")

    section(f"added ({plural(len(changes.added), 'tensor')})", [code(p) for p in lockmod.patterns(changes.added)])
    section(f"removed ({plural(len(changes.removed), 'tensor')})", [code(p) for p in lockmod.patterns(changes.removed)])
    section(f"shape changes ({plural(len(changes.reshaped), 'tensor')})",
            [f"{code(p)} {_shape(x)} -> {_shape(y)}" for p, x, y in changes.grouped(changes.reshaped)])
    section(f"dtype changes ({plural(len(changes.retyped), 'tensor')})",
            [f"{code(p)} {x} -> {y}" for p, x, y in changes.grouped(changes.retyped)])
    section("metadata changes", [f"{f}: {value(x)} -> {value(y)}" for f, x, y in changes.meta])
    for title, head, rows in (("parameters by component", "component", changes.components),
                              ("parameters by dtype", "dtype", changes.dtypes),
                              ("parameters by tensor pattern", "pattern", changes.templates)):
        if rows:
            table = [[code(k) if head == "pattern" else k, f"{x:,}", f"{y:,}", _signed(y - x)]
                     for k, x, y in rows[:MAX_LISTED]]
            out += [f"### {title}", ""] if md else [f"{title}:"]
            out += [tabulate(table, headers=[head, "a", "b", "delta"], tablefmt=tablefmt, disable_numparse=True,
                             colalign=("left", "right", "right", "right")), ""]
            if len(rows) > MAX_LISTED:
                out += [f"... and {len(rows) - MAX_LISTED:,} more", ""]
    section("file layout (informational)", changes.files_changed)
    return "\n".join(out).rstrip("\n") + "\n"


def value(v: Any) -> str:
    """A metadata value for people: counts with separators, strings quoted, None as "none"."""
    if v is None:
        return "none"
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else repr(v)


def _signed(n: int) -> str:
    return "0" if n == 0 else f"{n:+,}"
