"""Inline SVG charts for the HTML report: a donut, horizontal bars, and one bar per layer.

Plain strings, no library and nothing fetched: the report must open offline. Colours that carry meaning
(severity, missing) are CSS classes the page styles for light and dark; series colours are a fixed palette
readable on both backgrounds. Every mark has a ``<title>`` with the exact number, since a chart rounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.untrusted import html as escape  # control characters shown, then HTML-escaped

# Tableau-10 without its red (red means "error" on this page)
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6")


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def donut(slices: list[tuple[str, int]], centre: str, size: int = 200) -> str:
    """A ring of ``slices`` (label, value; values <= 0 are left out), ``centre`` written in its hole. Slice i
    has ``colour(i)``, so a legend beside it can use the same index."""
    total = sum(v for _, v in slices if v > 0)
    r, hole = size / 2, size * 0.30
    out = [
        f'<svg class="donut" viewBox="0 0 {size} {size}" width="{size}" height="{size}" role="img" '
        f'aria-label="{escape(centre)}">'
    ]
    if total > 0:
        angle = -math.pi / 2
        for i, (label, value) in enumerate(slices):
            if value <= 0:
                continue
            share = value / total
            title = f"<title>{escape(label)}: {value:,} ({share:.2%})</title>"
            if share >= 0.99999:
                out.append(
                    f'<circle cx="{r}" cy="{r}" r="{(r + hole) / 2:.2f}" fill="none" stroke="{colour(i)}" '
                    f'stroke-width="{r - hole:.2f}">{title}</circle>'
                )
                continue
            end = angle + 2 * math.pi * share
            out.append(f'<path d="{_arc(r, hole, angle, end)}" fill="{colour(i)}">{title}</path>')
            angle = end
    else:
        out.append(
            f'<circle cx="{r}" cy="{r}" r="{(r + hole) / 2:.2f}" fill="none" class="empty" '
            f'stroke-width="{r - hole:.2f}"/>'
        )
    out.append(
        f'<text x="{r}" y="{r}" class="centre" text-anchor="middle" dominant-baseline="middle">'
        f"{escape(centre)}</text></svg>"
    )
    return "".join(out)


def _arc(r: float, hole: float, start: float, end: float) -> str:
    """The path of one ring slice from angle ``start`` to ``end`` (radians, clockwise)."""
    large = 1 if end - start > math.pi else 0

    def at(radius: float, a: float) -> str:
        return f"{r + radius * math.cos(a):.2f},{r + radius * math.sin(a):.2f}"

    return (
        f"M{at(r, start)} A{r},{r} 0 {large} 1 {at(r, end)} L{at(hole, end)} "
        f"A{hole},{hole} 0 {large} 0 {at(hole, start)} Z"
    )


def hbars(rows: list[tuple[str, int, str]], width: int = 420) -> str:
    """Horizontal bars: (label, value, text shown after the bar); bar i has ``colour(i)``."""
    top = max((v for _, v, _ in rows), default=0) or 1
    line, label_w, text_w = 24, 90, 150
    room = width - label_w - text_w
    out = [f'<svg class="hbars" viewBox="0 0 {width} {line * len(rows) + 4}" width="{width}" role="img">']
    for i, (label, value, text) in enumerate(rows):
        y = i * line + 2
        w = max(1.0, room * value / top) if value > 0 else 0
        out.append(
            f'<text x="0" y="{y + 15}" class="lbl">{escape(label)}</text>'
            f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{line - 8}" rx="3" fill="{colour(i)}">'
            f"<title>{escape(label)}: {escape(text)}</title></rect>"
            f'<text x="{label_w + w + 6:.1f}" y="{y + 15}" class="val">{escape(text)}</text>'
        )
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True)
class LayerBar:
    """One layer: what is stored, what its kind's formula expects (None: unknown), and how it looks."""

    index: int
    stored: int
    expected: int | None
    status: str  # ok | differs | missing | unchecked | error | warning | info | beyond
    kind: str = ""  # the layer kind it was matched to (hybrid stacks)


STATUS_TEXT = {
    "ok": "as expected",
    "differs": "differs from the formula",
    "missing": "missing",
    "unchecked": "not checked (its file could not be read)",
    "error": "error",
    "warning": "warning",
    "info": "note",
    "beyond": "beyond config.json's count",
}
UNCOMPARED = "no per-layer count to compare with"  # a layer with no formula (an adapter's), never "as expected"


def layer_bars(
    bars: list[LayerBar], kinds: list[str], uid: str = "l", height: int = 150, width: int = 900, counted: str = "stored"
) -> str:
    """One vertical bar per layer, its parameters (``counted`` says which: stored, or encoded by packed weights);
    the expected count is a tick across the bar. A missing layer is an outlined, hatched empty bar, so it shows
    even at zero height; colours by status and kind."""
    if not bars:
        return ""
    top = max(max(b.stored for b in bars), max((b.expected or 0) for b in bars)) or 1
    n = len(bars)
    step = max(3.0, min(28.0, (width - 40) / n))
    gap = step * 0.2 if step >= 6 else 0.5
    plot_w = step * n
    bottom = height - 18
    out = [
        f'<svg class="layers" viewBox="0 0 {plot_w + 40:.0f} {height}" width="{plot_w + 40:.0f}" '
        f'height="{height}" role="img"><defs><pattern id="hatch-{uid}" width="6" height="6" '
        'patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="2" height="6" '
        'class="hatch"/></pattern></defs>'
    ]
    every = max(1, math.ceil(n / 20))
    for i, b in enumerate(bars):
        x = 30 + i * step
        w = step - gap
        h = (bottom - 6) * b.stored / top
        kind_i = kinds.index(b.kind) if b.kind in kinds else 0
        tip = (
            f"layer {b.index}{' (' + b.kind + ')' if b.kind else ''}: {counted} {b.stored:,}"
            + (f", expected {b.expected:,}" if b.expected is not None else "")
            + f"; {STATUS_TEXT[b.status] if b.status != 'ok' or b.expected is not None else UNCOMPARED}"
        )
        if b.status == "unchecked":  # a dashed outline; what was read of the layer, muted inside it
            out.append(
                f'<rect x="{x:.1f}" y="6" width="{w:.1f}" height="{bottom - 6}" class="bar unchecked">'
                f"<title>{escape(tip)}</title></rect>"
            )
            if h:
                out.append(
                    f'<rect x="{x:.1f}" y="{bottom - h:.1f}" width="{w:.1f}" height="{h:.1f}" '
                    f'class="bar read"><title>{escape(tip)}</title></rect>'
                )
        elif b.status == "missing":
            out.append(
                f'<rect x="{x:.1f}" y="6" width="{w:.1f}" height="{bottom - 6}" class="bar missing" '
                f'fill="url(#hatch-{uid})"><title>{escape(tip)}</title></rect>'
            )
        else:
            fill = f' fill="{colour(kind_i)}"' if b.status == "ok" else ""
            out.append(
                f'<rect x="{x:.1f}" y="{bottom - h:.1f}" width="{w:.1f}" height="{h:.1f}" '
                f'class="bar {b.status}"{fill}><title>{escape(tip)}</title></rect>'
            )
        if b.expected is not None:
            y = bottom - (bottom - 6) * b.expected / top
            out.append(f'<line x1="{x - 1:.1f}" x2="{x + w + 1:.1f}" y1="{y:.1f}" y2="{y:.1f}" class="expected"/>')
        if i % every == 0 or i == n - 1:
            out.append(f'<text x="{x + w / 2:.1f}" y="{height - 4}" class="tick" text-anchor="middle">{b.index}</text>')
    out.append(f'<line x1="28" x2="{plot_w + 32:.1f}" y1="{bottom}" y2="{bottom}" class="axis"/></svg>')
    return "".join(out)
