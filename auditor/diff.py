"""``st-audit diff A B``: what changed between two checkpoints (or a checkpoint and its lock file).

Each side is a lock file (read as is) or anything ``audit()`` accepts (directory, .safetensors file, Hub
repo id), turned into the same snapshot a lock file holds. The comparison is by tensor name: added,
removed, reshaped, retyped; then parameter deltas per component, per tensor pattern and in total.
Files present on both sides are compared by content: by sha256 when both sides know it (a Hub listing, a
lock written with hashes, ``--verify``), by size otherwise; a file whose content differs makes the two
checkpoints differ (a truncated shard is not "identical"). Files only added or removed (re-sharding) are
shown as layout but do not by themselves make two checkpoints differ.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import lock as lockmod
from .drift import Changes, compare, value
from .errors import UsageError
from .findings import plural
from .patterns import patterns

MAX_LISTED = 50


# -- loading a side ----------------------------------------------------------------------------------------

def load_side(target: str, *, token: str | None = None, use_cache: bool = True,
              progress: Callable[[str], None] | None = None, hub: bool = False,
              content: bool = False) -> dict[str, Any]:
    """A snapshot of ``target``: a lock file is read directly, anything else is audited (``content``: verified,
    every byte read, so files are compared by sha256)."""
    path = Path(target)
    if path.is_file() and not path.name.endswith(".safetensors"):
        try:
            json.loads(path.read_bytes())
        except (OSError, ValueError):
            raise UsageError(f"{target} is neither a checkpoint (directory, .safetensors file, Hub repo id) nor "
                             "an st-audit lock file") from None
        return lockmod.read(path)
    if content:
        from .verify import verify
        return lockmod.snapshot(verify(target, token=token, progress=progress))
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

    section(f"added ({plural(len(changes.added), 'tensor')})", [code(p) for p in patterns(changes.added)])
    section(f"removed ({plural(len(changes.removed), 'tensor')})", [code(p) for p in patterns(changes.removed)])
    section(f"shape changes ({plural(len(changes.reshaped), 'tensor')})",
            [f"{code(p)} {_shape(x)} -> {_shape(y)}" for p, x, y in changes.grouped(changes.reshaped)])
    section(f"dtype changes ({plural(len(changes.retyped), 'tensor')})",
            [f"{code(p)} {x} -> {y}" for p, x, y in changes.grouped(changes.retyped)])
    section("metadata changes", [f"{f}: {value(x)} -> {value(y)}" for f, x, y in changes.meta])
    section(f"content changes ({len(changes.content):,} files)",
            [f"{code(n)} {how} {value(x) if how == 'size' else x} -> {value(y) if how == 'size' else y}"
             for n, how, x, y in changes.content])
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


def _signed(n: int) -> str:
    return "0" if n == 0 else f"{n:+,}"
