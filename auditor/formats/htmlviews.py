"""The pictures of one checkpoint's HTML report: where the parameters go (components, dtypes), one bar per layer,
and the module tree. Each function takes the report (and its tree) and returns an HTML fragment; ``html.py``
puts them on the page."""

from __future__ import annotations

from ..core.untrusted import html as escape  # control characters shown, then HTML-escaped
from ..report.composite import CompositeReport
from ..report.single import Report
from .charts import LayerBar, colour, donut, hbars, layer_bars
from .numbers import human
from .tree import Node, layer_params, layer_severities, mtp_layers, stacks


def size(n: int) -> str:
    """Bytes for people: 16.38 GB, 9.22 kB (decimal units, as the Hub shows file sizes)."""
    for unit, step in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= step:
            return f"{n / step:.2f} {unit}"
    return f"{n:,} B"


MAX_STACKS = 3  # per-layer charts per checkpoint: the decoder, a vision tower, an encoder ...


def component_slices(report: Report) -> list[tuple[str, int, int]]:
    """(label, expected, stored) per component row as ``by component`` prints them (layer rows name their type
    and count); the MTP module is left out, as from the formula. Empty when no formula applies."""
    out = []
    for c in report.reconciliation.components:
        if c.component == "mtp":
            continue
        label = c.component + (f" ({c.layers} {c.layer_type} layers)" if c.layer_type else "")
        out.append((label, c.expected, c.actual))
    return out


def module_slices(root: Node) -> list[tuple[str, int, int]]:
    """Without a formula: the top modules (below any single-child chain such as ``base_model.model``) by stored
    parameters, as (label, stored, stored)."""
    node = root
    while len(node.children) == 1 and not next(iter(node.children.values())).is_leaf:
        node = next(iter(node.children.values()))
    return [(c.label, c.parameters, c.parameters) for c in node.children.values()]


def _num(n: int) -> str:
    return f"{n:,}"


def _delta(d: int) -> str:
    return "" if d == 0 else f'<span class="{"diffneg" if d < 0 else "diffpos"}">{d:+,}</span>'


def where_parameters_go(report: Report, root: Node, anchor: str = "") -> str:
    """A donut of the formula's components (expected, with stored beside each) and bars of bytes per dtype.
    Without a formula the donut is of the top modules, and its table has no expected or difference column: there
    is nothing they could say."""
    slices = component_slices(report)
    title = "Parameters by component (the formula's, expected)"
    formula = bool(slices)
    if not slices:
        slices, title = module_slices(root), "Parameters by module (stored; no formula applies)"
    total = sum(e for _, e, _ in slices)

    def row(i: int, label: str, e: int, s: int) -> str:
        compared = (
            f'<td class="n">{_num(e)}</td><td class="n">{_num(s)}</td><td class="n">{_delta(s - e)}</td>'
            if formula
            else f'<td class="n">{_num(s)}</td>'
        )
        return (
            f'<tr><td><span class="swatch" style="background:{colour(i)}"></span>{escape(label)}</td>{compared}'
            f'<td class="n">{e / total if total else 0:.1%}</td></tr>'
        )

    rows = "".join(row(i, label, e, s) for i, (label, e, s) in enumerate(slices))
    head = (
        '<th class="n">expected</th><th class="n">stored</th><th class="n">difference</th>'
        if formula
        else '<th class="n">stored</th>'
    )
    legend = f'<table class="legend"><tr><th></th>{head}<th class="n">share</th></tr>{rows}</table>'
    parts = [
        f'<div class="chart"><h3>{title}</h3><div class="donutbox">'
        f"{donut([(label, e) for label, e, _ in slices], human(total))}{legend}</div></div>"
    ]
    by_dtype = report.totals.by_dtype
    if by_dtype:
        bars = [(d, row.bytes, f"{size(row.bytes)}, {row.tensors:,} tensors") for d, row in by_dtype.items()]
        parts.append(f'<div class="chart"><h3>Bytes by dtype</h3>{hbars(bars)}</div>')
    return f'<h2{_id(anchor)}>Where the parameters go</h2><div class="charts">{"".join(parts)}</div>'


def _id(anchor: str) -> str:
    return f' id="{anchor}"' if anchor else ""


def _kinds(report: Report) -> dict[str, tuple[int, int | None]]:
    """Layer type -> (layers, expected parameters per layer; None when its layers differ in size)."""
    out: dict[str, tuple[int, int | None]] = {}
    for c in report.reconciliation.components:
        if not c.layer_type or c.component == "mtp":
            continue
        layers, per = out.get(c.layer_type, (c.layers, 0))
        ok = per is not None and c.uniform and c.layers > 0
        out[c.layer_type] = (layers, per + c.expected // c.layers if ok and per is not None else None)
    return out


def per_layer(report: Report, root: Node, uid: str, anchor: str = "") -> str:
    """One bar per layer of each stack, stored against what its kind's formula expects. The formula's layer types
    go to the stacks of their count: one type, or all of them together (a hybrid stack, each layer matched to the
    type whose count it equals). Below each chart, which layers differ and how many (indices, never an index
    read as a count); a layer beyond config.json's count with no finding of its own (DeepSeek-V3's
    multi-token-prediction layer 61) is grey and said apart, not a difference."""
    assigned = _assign(stacks(root), _kinds(report))
    if not assigned:
        return ""
    out = [f"<h2{_id(anchor)}>Per layer</h2>"]
    # packed weights (a GPTQ qweight: 8 4-bit values per int32) count the parameters they encode, as the ledger does
    encoded = bool(report.reconciliation.encoded)
    counted = "parameters (packed weights: the values they encode)" if encoded else "stored parameters"
    for n, (stack, mine) in enumerate(assigned):
        declared = sum(v[0] for v in mine.values()) or max(stack.values | stack.missing_values) + 1
        stored, every = layer_params(report, stack)
        severities, unread_layers = layer_severities(report, stack)
        names = list(mine)
        bars = []
        for i in range(max(declared, max(every, default=-1) + 1)):
            value = stored.get(i, 0) if i < declared else every.get(i, 0)
            kind, expected = _match(value, mine)
            if i >= declared:  # beyond config.json's count: a difference only when a finding says so
                status = severities[i] if severities.get(i) in ("error", "warning") else "beyond"
            elif value == 0:
                status = "unchecked" if i in unread_layers else "missing"
            elif i in unread_layers:
                status = "unchecked"
            elif i in severities and severities[i] != "info":
                status = severities[i]
            elif expected is not None and value != expected:
                status = "differs"
            else:
                status = "ok"  # a note (scales stored, buffers) does not make a layer wrong
            bars.append(LayerBar(i, value, expected if i < declared else None, status, kind))
        legend = "".join(
            f'<span><span class="swatch" style="background:{colour(k)}"></span>{escape(name)}: '
            f"{layers:,} layers x {'varies' if per is None else _num(per)}</span>"
            for k, (name, (layers, per)) in enumerate(mine.items())
        )
        flagged = sorted({b.index for b in bars if b.status in DIFFERS})
        unread = [b.index for b in bars if b.status == "unchecked"]
        beyond = [b.index for b in bars if b.status == "beyond"]
        note = (
            f'<p class="tag-unchecked">Layers not checked (their file could not be read): {_ranges(set(unread))}</p>'
            if unread
            else ""
        )
        if flagged:
            one = len(flagged) == 1
            note += (
                f'<p class="differ">{len(flagged):,} of {declared:,} layers {"differs" if one else "differ"}: '
                f"{'layer' if one else 'layers'} <b>{_ranges(set(flagged))}</b></p>"
            )
        elif not unread and names:
            note += '<p class="muted">Every layer holds what its formula expects.</p>'
        if beyond:
            mtp = mtp_layers(report, stack)
            what = (
                "the multi-token-prediction module, counted apart" if set(beyond) <= mtp else "no finding is about them"
            )
            note += (
                f'<p class="muted">{"Layer" if len(beyond) == 1 else "Layers"} {_ranges(set(beyond))} '
                f"{'is' if len(beyond) == 1 else 'are'} beyond config.json's {declared:,} layers: {what}.</p>"
            )
        line = " (the line: expected)" if any(b.expected is not None for b in bars) else ""
        out.append(
            f'<div class="chart"><h3><code>{escape(stack.label)}</code>: {len(bars):,} layers, {counted}'
            f"{line}</h3>{layer_bars(bars, names, uid=f'{uid}-{n}', counted='encoded' if encoded else 'stored')}"
            f'<div class="legend">{legend}{_bar_key({b.status for b in bars})}</div>{note}</div>'
        )
    return "".join(out)


# the looks of a layer that does not hold what its formula expects (a grey layer beyond the count is not one)
DIFFERS = frozenset({"differs", "missing", "error", "warning"})


# what a bar's look means, said only for the looks a chart has
BAR_KEY = (
    ("missing", "hatched: missing"),
    ("unchecked", "dashed: not checked"),
    ("differs|warning", "amber: differs or warning"),
    ("error", "red: error"),
    ("beyond", "grey: beyond config.json"),
)


def _bar_key(statuses: set[str]) -> str:
    said = [text for looks, text in BAR_KEY if statuses & set(looks.split("|"))]
    return f'<span class="muted">{"; ".join(said)}</span>' if said else ""


def _assign(
    found: list[Node], kinds: dict[str, tuple[int, int | None]]
) -> list[tuple[Node, dict[str, tuple[int, int | None]]]]:
    """(stack, its layer types), the stacks with types first, at most ``MAX_STACKS``. A type goes to the largest
    stack of its count; the types left, together, to the largest stack of their summed count (hybrid), else to
    the largest stack. Index runs with holes no type explains (``mlp.{0,2}``: a Sequential around an activation)
    are not layers."""
    sizes = {id(s): len(s.values | s.missing_values) for s in found}
    found = [s for s in found if (s.values | s.missing_values) == set(range(sizes[id(s)]))]
    mine: dict[int, dict[str, tuple[int, int | None]]] = {}
    left = dict(kinds)
    for name, (count, per) in kinds.items():
        # of the stacks of that count (a decoder and a vision tower may both have 2), the one holding the
        # formula's parameters first
        same = sorted((s for s in found if sizes[id(s)] == count), key=lambda s: s.parameters != count * (per or 0))
        match = same[0] if same else None
        if match is not None and not mine.get(id(match)):
            mine[id(match)] = {name: (count, per)}
            del left[name]
    if left:
        total = sum(count for count, _ in left.values())
        match = next((s for s in found if sizes[id(s)] == total and id(s) not in mine), None)
        if match is None:
            match = next((s for s in found if id(s) not in mine), None)
        if match is not None:
            mine[id(match)] = left
    layered = [s for s in found if id(s) in mine]
    plain = [s for s in found if id(s) not in mine]
    return [(s, mine.get(id(s), {})) for s in layered + plain][:MAX_STACKS]


def _match(value: int, kinds: dict[str, tuple[int, int | None]]) -> tuple[str, int | None]:
    """The layer type a layer of ``value`` parameters is (equal count first, else the closest)."""
    known = [(k, per) for k, (_, per) in kinds.items() if per is not None]
    if not known:
        return (next(iter(kinds)) if len(kinds) == 1 else ""), None
    for k, per in known:
        if per == value:
            return k, per
    return min(known, key=lambda kp: abs((kp[1] or 0) - value))


def node_anchors(root: Node, uid: str) -> dict[int, str]:
    """id(node) -> the HTML id of its row (``r-n12``), so findings above the tree can link to where they land."""
    return {id(node): f"{uid}-n{k}" for k, node in enumerate(root.walk()) if node is not root}


def tree_view(root: Node, total: int, anchors: dict[int, str] | None = None, anchor: str = "") -> str:
    """The module tree as nested ``<details>`` (two levels open), one row per node: parameters, share of the
    stored total, bytes, tensors; missing tensors where they belong, findings as severity dots. Each row has the
    id ``anchors`` gives it, and each leaf its template and index values (``data-t``, ``data-ix``) for the page's
    search over tensor names."""
    anchors = anchors or {}
    head = (
        '<div class="row head"><span>module</span><span class="n">parameters</span><span>share</span>'
        '<span class="n">bytes</span><span class="n">tensors</span></div>'
    )
    body = "".join(_node(c, total, 1, anchors) for c in root.children.values())
    return (
        f'<h2{_id(anchor)}>Module tree</h2><div class="treebox"><div class="toolbar"><button data-tree="all">'
        'expand all</button><button data-tree="none">collapse all</button><button data-tree="findings">open '
        'findings</button><span class="muted">numbers are stored parameters; n x: a repeated module; the search '
        f'box at the top filters it by tensor name</span></div><div class="tree">{head}{body}</div></div>'
    )


def _row(node: Node, total: int, extra: str = "") -> str:
    share = node.parameters / total if total else 0
    rep = f'<span class="rep">{node.repeat:,} x</span>' if node.repeat > 1 else ""
    dot = f'<span class="dot {node.severity}" title="{node.severity}"></span>' if node.severity else ""
    missing = f'<span class="tag-missing"> {node.missing:,} missing</span>' if node.missing else ""
    if node.missing_pattern and node.dtype is not None:
        missing += f' <code class="tag-missing">{escape(node.missing_pattern)}</code>'
    absent = node.missing_values - node.unchecked_values
    if absent and node.values:
        missing += f'<span class="tag-missing"> (index {_ranges(absent)} absent)</span>'
    if node.unchecked and (node.dtype is not None or not node.is_leaf):
        missing += (
            f'<span class="tag-unchecked" title="{UNREAD}"> {node.unchecked:,} not checked'
            + (f" (index {_ranges(node.unchecked_values)})" if node.unchecked_values and node.values else "")
            + "</span>"
        )
    return (
        f'<div class="name"><code>{escape(node.label)}</code>{rep}{extra}{missing}{dot}</div>'
        f'<span class="n">{_num(node.parameters)}</span>'
        f'<div class="share"><i style="width:{share * 100:.2f}%"></i><b>{share:.2%}</b></div>'
        f'<span class="n">{size(node.bytes)}</span><span class="n">{_num(node.tensors)}</span>'
    )


def _ranges(values: set[int]) -> str:
    from ..inventory.groups import ranges

    return ranges(values)


UNREAD = "in a file that could not be read: see Files"


def _node(node: Node, total: int, depth: int, anchors: dict[int, str]) -> str:
    unread = node.tensors == 0 and node.unchecked and not node.missing  # only tensors of unread files
    ident = f' id="{anchors[id(node)]}"' if id(node) in anchors else ""
    if node.is_leaf:
        if node.dtype is None:
            extra = (
                f' <span class="tag-unchecked" title="{UNREAD}">not checked</span>'
                if unread
                else ' <span class="tag-missing">missing</span>'
            )
        else:
            extra = f' <span class="badge">{node.dtype} [{", ".join(map(str, node.shape or ()))}]</span>' + "".join(
                f' <span class="{"tag-unexplained" if c == "unexplained" else "badge"}">{escape(c)} x{n:,}</span>'
                for c, n in node.categories.items()
            )
        codes = f' title="{escape(", ".join(sorted(node.codes)))}"' if node.codes else ""
        cls = "row leaf" + ((" unchecked" if unread else " missing") if node.dtype is None else "")
        search = f' data-t="{escape(node.template or "")}" data-ix="{"|".join(_ranges(a) for a in node.axes)}"'
        return f'<div class="{cls}"{ident}{search}{codes}>{_row(node, total, extra)}</div>'
    flagged = " flagged" if node.severity else ""
    # open: the first two levels, a module that is its parent's only child (``base_model.model.model``), and the
    # way to every error or warning (a missing tensor shows where it belongs)
    only = node.parent is not None and len(node.parent.children) == 1
    opened = depth <= 2 or only or node.severity in ("error", "warning")
    missing = (" unchecked" if unread else " missing") if node.tensors == 0 else ""
    kids = "".join(_node(c, total, depth + 1, anchors) for c in node.children.values())
    return (
        f'<details class="node{flagged}"{ident}{" open" if opened else ""}><summary class="row{missing}">'
        f'{_row(node, total)}</summary><div class="kids">{kids}</div></details>'
    )


def section_slices(report: CompositeReport) -> str:
    """A pipeline's donut: each section's stored parameters."""
    slices = [(s.part.name, int(s.report.total_counts()["parameters"])) for s in report.sections]
    total = sum(v for _, v in slices)
    rows = "".join(
        f'<tr><td><span class="swatch" style="background:{colour(i)}"></span>{escape(name)}</td>'
        f'<td class="n">{_num(v)}</td><td class="n">{v / total if total else 0:.1%}</td></tr>'
        for i, (name, v) in enumerate(slices)
    )
    return (
        f'<h2>Where the parameters go</h2><div class="charts"><div class="chart"><h3>Parameters by section '
        f'(stored)</h3><div class="donutbox">{donut(slices, human(total))}<table><tr><th></th><th class="n">'
        f'parameters</th><th class="n">share</th></tr>{rows}</table></div></div></div>'
    )
