"""Breakdown: what the formula predicts before looking at any stored tensor, and how it is shown.

The totals (parameters, activated, MTP), the rows per component and layer type, the by-component formula and the
closed form people can check by hand (``specs/symbolic.py``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from ..specs import Expectation, ExpectedTensor, common
from ..specs.symbolic import closed_form
from .result import Component


@dataclass
class ExpectedSummary:
    """The counts the formula predicts, before looking at any stored tensor."""

    parameters: int
    activated: int | None
    mtp: int | None
    rows: dict[tuple[str | None, str], int]
    layers_by_type: dict[str | None, set[int]]
    uneven: frozenset[str | None] = frozenset()  # layer types whose layers differ in size


def summarize(expectation: Expectation, expected: Mapping[str, ExpectedTensor] | None = None) -> ExpectedSummary:
    """Model parameters (tied weights once; MTP, buffers and bookkeeping excluded; ``unsaved`` parameters
    included, as num_parameters() counts them), activated and MTP counts."""
    rows: dict[tuple[str | None, str], int] = defaultdict(int)
    layers_by_type: dict[str | None, set[int]] = defaultdict(set)
    per_layer: dict[tuple[str, int], int] = defaultdict(int)
    parameters = activated = mtp = 0
    has_experts = False
    values = (expected or expectation.tensors).values()
    copies = Counter(map(id, values))  # experts of one layer share one ExpectedTensor
    for e in {id(e): e for e in values}.values():
        if e.kind in ("buffer", "state", "shared") or (e.kind == "head" and e.tied):
            continue
        elements = e.elements * copies[id(e)]
        if e.mtp:
            mtp += elements
            continue
        parameters += elements
        rows[(e.layer_type, e.component)] += elements
        active, total = e.active_fraction
        activated += elements * active // total
        has_experts = has_experts or active != total
        if e.layer is not None and e.layer_type is not None:
            layers_by_type[e.layer_type].add(e.layer)
            per_layer[(e.layer_type, e.layer)] += elements
    sizes: dict[str, set[int]] = defaultdict(set)
    for (layer_type, _), elements in per_layer.items():
        sizes[layer_type].add(elements)
    uneven = frozenset(t for t, seen in sizes.items() if len(seen) > 1)
    return ExpectedSummary(
        parameters,
        activated if has_experts else None,
        mtp if expectation.mtp_layers else None,
        rows,
        layers_by_type,
        uneven,
    )


COMPONENT_ORDER: tuple[str, ...] = tuple(common()["components"])


def component_rows(
    expected: dict[tuple[str | None, str], int],
    actual: dict[tuple[str | None, str], int],
    layers_by_type: dict[str | None, set[int]],
    uneven: frozenset[str | None] = frozenset(),
) -> list[Component]:
    """Rows in reading order: embeddings, each layer type's components, then the final norm and head."""
    keys = list(expected) + [k for k in actual if k not in expected]
    type_order = list(dict.fromkeys(k[0] for k in keys if k[0] is not None))

    def order(key: tuple[str | None, str]) -> tuple[int, int, int]:
        layer_type, component = key
        rank = COMPONENT_ORDER.index(component) if component in COMPONENT_ORDER else len(COMPONENT_ORDER)
        if layer_type is None:
            return (0 if component in ("embedding", "position_embedding") else 2, 0, rank)
        return (1, type_order.index(layer_type), rank)

    rows = []
    for key in sorted(keys, key=order):
        layer_type, component = key
        layers = len(layers_by_type.get(layer_type, ())) if layer_type is not None else 0
        rows.append(
            Component(component, layer_type, layers, expected.get(key, 0), actual.get(key, 0), layer_type not in uneven)
        )
    return rows


def closed_form_text(expectation: Expectation, parameters: int) -> str | None:
    """The symbolic form (``N*(2*d*h*h_d + ...) + ...  [N=36, d=4,096, ...] = total``), checked to be exact."""
    form = closed_form(expectation, parameters)
    return None if form is None else f"{form} = {parameters:,}"


def formula_text(components: list[Component], total: int) -> str:
    """The closed form with the values: embeddings + layers x (per-layer terms) per layer type + the rest."""
    parts: list[str] = []
    done: set[str | None] = set()
    for c in components:
        if c.layer_type is None:
            if c.expected:
                parts.append(f"{c.component} {c.expected:,}")
            continue
        if c.layer_type in done:
            continue
        done.add(c.layer_type)
        rows = [r for r in components if r.layer_type == c.layer_type and r.expected]
        layers = c.layers
        if layers and c.uniform and all(r.expected % layers == 0 for r in rows):
            inner = " + ".join(f"{r.component} {r.expected // layers:,}" for r in rows)
            kind = "" if c.layer_type in ("layer", "layers") else f"{c.layer_type} "  # not "12 layers layers x"
            parts.append(f"{layers} {kind}layers x ({inner})")
        elif layers and not c.uniform:  # blocks of different sizes (a UNet's down blocks): their sums
            inner = " + ".join(f"{r.component} {r.expected:,}" for r in rows)
            parts.append(f"{layers} {c.layer_type} layers ({inner})")
        else:
            parts += [f"{r.component} {r.expected:,} ({r.layer_type} layers)" for r in rows]
    return " + ".join(parts) + f" = {total:,}"
