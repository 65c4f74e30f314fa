"""``st-audit diff A B -f html``: the two module trees side by side in one self-contained page.

Both sides are lock snapshots (what ``diff`` compares), so each tree is built from the snapshot's groups
(``tree.snapshot_rows``) and the two are walked together: one row per module with A's and B's parameters and bytes,
a node only one side has highlighted as added or removed, one whose numbers differ as changed. A pipeline is shown
section by section (its unet against the other's unet), as the text diff does.
"""

from __future__ import annotations

from typing import Any

from ..core.untrusted import html as escape  # control characters shown, then HTML-escaped
from ..gate.drift import Changes, unread_reason
from ..gate.lock import checkpoints as snapshot_sections
from .htmlstyle import CSS, JS
from .htmlviews import size
from .tree import Node, build, snapshot_rows

MAX_LISTED = 50


def format_diff_html(
    a_doc: dict[str, Any], b_doc: dict[str, Any], changes: list[tuple[str, Changes]], a: str, b: str
) -> str:
    """The page: totals and the lists of changes per section, then the merged tree with both sides' numbers."""
    sa, sb = snapshot_sections(a_doc), snapshot_sections(b_doc)  # type: ignore[arg-type]
    identical = all(c.identical for _, c in changes)
    verdict = "pass" if identical else "fail"
    word = "IDENTICAL" if identical else "DIFFERENT" if all(c.complete for _, c in changes) else "INCOMPLETE"
    out = [
        f'<h1><span class="verdict {verdict}">{word}</span>'
        f"<code>{escape(a)}</code> &rarr; <code>{escape(b)}</code></h1>"
    ]
    for name, ch in changes:
        title = f"section <code>{escape(name)}</code>" if name else ""
        body = _totals(ch) + _lists(ch) + _tree(sa.get(name), sb.get(name))
        if name:
            state = "identical" if ch.identical else "different" if ch.complete else "incomplete"
            out.append(f'<section class="part"><h2>{title}: {state}</h2>{body}</section>')
        else:
            out.append(body)
    from ..core.version import __version__

    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" '
        f'content="light dark"><title>st-audit diff: {escape(a)} -&gt; {escape(b)}</title><style>{CSS}</style>'
        f"</head><body>{''.join(out)}<footer>st-audit {escape(__version__)} diff; this page is self-contained."
        f"</footer><script>{JS}</script></body></html>\n"
    )


def _totals(ch: Changes) -> str:
    ta, tb = ch.totals
    rows = "".join(
        f'<tr><td>{k}</td><td class="n">{ta.get(k) or 0:,}</td><td class="n">{tb.get(k) or 0:,}</td>'
        f'<td class="n">{_signed((tb.get(k) or 0) - (ta.get(k) or 0))}</td></tr>'
        for k in ("tensors", "parameters", "bytes")
    )
    return (
        f'<table><tr><th>total</th><th class="n">a</th><th class="n">b</th><th class="n">delta</th></tr>{rows}</table>'
    )


def _signed(n: int) -> str:
    return "0" if n == 0 else f"{n:+,}"


def _lists(ch: Changes) -> str:
    from ..inventory.patterns import patterns

    out = []

    def part(title: str, lines: list[str]) -> None:
        if lines:
            shown = lines[:MAX_LISTED] + (
                [f"... and {len(lines) - MAX_LISTED:,} more"] if len(lines) > MAX_LISTED else []
            )
            out.append(
                f"<h3>{escape(title)}</h3><ul>{''.join(f'<li><code>{escape(x)}</code></li>' for x in shown)}</ul>"
            )

    for side, name, code, what in ch.unread:  # named as what they are; their tensors "not compared", not removed
        part(f"could not be read in {side}: {name}", [unread_reason(code, what)])
    for side in ("b", "a"):
        names = ch.not_compared_in(side)
        part(f"not compared ({len(names):,} tensors: {side}'s unread files may hold them)", patterns(names))
    part(f"added ({len(ch.added):,} tensors)", patterns(ch.added))
    part(f"removed ({len(ch.removed):,} tensors)", patterns(ch.removed))
    part(
        f"shape changes ({len(ch.reshaped):,} tensors)",
        [f"{p} {list(x)} -> {list(y)}" for p, x, y in ch.grouped(ch.reshaped)],
    )
    part(f"dtype changes ({len(ch.retyped):,} tensors)", [f"{p} {x} -> {y}" for p, x, y in ch.grouped(ch.retyped)])
    part("metadata changes", [f"{f}: {x} -> {y}" for f, x, y in ch.meta])
    part("content changes", [f"{n} {how} {x} -> {y}" for n, how, x, y in ch.content])
    return "".join(out)


def _tree(a_doc: Any, b_doc: Any) -> str:
    ta = build(snapshot_rows(a_doc or {}))
    tb = build(snapshot_rows(b_doc or {}))
    head = (
        '<div class="drow head"><span>module</span><span class="n">a: parameters</span><span class="n">a: bytes'
        '</span><span class="n">b: parameters</span><span class="n">b: bytes</span><span class="n">delta</span>'
        "</div>"
    )
    body = _children(ta, tb, 1)
    return (
        '<h2>Module trees, a | b</h2><div class="treebox"><div class="toolbar"><button data-tree="all">expand all'
        '</button><button data-tree="none">collapse all</button><button data-tree="findings">open changes'
        '</button><span class="muted">green: only in b; red: only in a; amber: changed</span></div>'
        f'<div class="tree">{head}{body}</div></div>'
    )


def _children(a: Node | None, b: Node | None, depth: int) -> str:
    keys = list(a.children) if a else []
    keys += [k for k in (b.children if b else {}) if k not in keys]
    return "".join(_pair(a.children.get(k) if a else None, b.children.get(k) if b else None, depth) for k in keys)


def _state(a: Node | None, b: Node | None) -> str:
    if a is None:
        return "added"
    if b is None:
        return "removed"
    same = (a.parameters, a.bytes, a.tensors, a.label) == (b.parameters, b.bytes, b.tensors, b.label)
    return "" if same else "changed"


def _side(n: Node | None) -> str:
    if n is None:
        return '<span class="n muted">-</span><span class="n muted">-</span>'
    return f'<span class="n">{n.parameters:,}</span><span class="n">{size(n.bytes)}</span>'


def _pair(a: Node | None, b: Node | None, depth: int) -> str:
    node = a or b
    assert node is not None
    state = _state(a, b)
    label = escape(node.label)
    if a is not None and b is not None and a.label != b.label:
        label = f"{escape(a.label)} &rarr; {escape(b.label)}"
    rep = f'<span class="rep">{node.repeat:,} x</span>' if node.repeat > 1 else ""
    badge = (
        f' <span class="badge">{node.dtype} [{", ".join(map(str, node.shape or ()))}]</span>'
        if node.dtype is not None
        else ""
    )
    delta = (b.parameters if b else 0) - (a.parameters if a else 0)
    row = (
        f'<div class="name"><code>{label}</code>{rep}{badge}</div>{_side(a)}{_side(b)}'
        f'<span class="n">{_signed(delta) if delta else ""}</span>'
    )
    if node.is_leaf:
        return f'<div class="drow leaf {state}">{row}</div>'
    flagged = " flagged" if state else ""
    opened = " open" if depth <= 2 or state else ""
    return (
        f'<details class="node{flagged}"{opened}><summary class="drow {state}">{row}</summary>'
        f'<div class="kids">{_children(a, b, depth + 1)}</div></details>'
    )
