"""Quantization plans, and sorting a rule instance's weights in one batch.

A plan is what a scheme stores for one kind of layer (computed once per scheme and leading dimensions, not per
layer). When the scheme depends on the shape alone, the weights sharing one ExpectedTensor (the 256 experts of a
layer) are sorted together if every one is stored exactly as planned: what ``assess._layer`` would conclude for
each, with C-level maps over the names. Any deviation sends the instance back to ``assess._layer``, which
explains it weight by weight.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import chain
from typing import Any, NamedTuple, cast

from ..read.header import FORM, NAME, Tensor
from .schemes import LayerPart, Resolved
from .verdicts import FLOAT_DTYPES, SORTED, Assessment, QuantVerdict

verdict = tuple.__new__  # QuantVerdict(...) minus the Python frame of NamedTuple.__new__ (~46k verdicts)


class AuxPart(NamedTuple):
    """One bookkeeping tensor of a plan (a scale, zero point, absmax ...), its fields unpacked for the hot loop."""

    part: LayerPart
    on_module: bool
    suffix: str
    shapes: tuple[tuple[int, ...], ...]  # with the layer's leading dimensions (fused experts)
    dtypes: tuple[str, ...]
    required: bool
    note: str | None


class Plan(NamedTuple):
    """What a scheme stores for one kind of layer (a scheme and the weight's leading dimensions), computed once
    for all the layers of that kind rather than once per layer."""

    want: tuple[tuple[int, ...], ...]  # the packed weight's accepted shapes
    aux: tuple[AuxPart, ...]


def make_plan(r: Resolved, lead: tuple[int, ...]) -> Plan:
    want = tuple((*lead, *s) for s in r.weight.shapes) if lead else r.weight.shapes
    aux = tuple(
        AuxPart(
            p,
            p.on_module,
            p.suffix,
            tuple((*lead, *s) for s in p.shapes) if lead else p.shapes,
            p.dtypes,
            p.required,
            p.rule.note,
        )
        for p in r.parts
        if p is not r.weight
    )
    return Plan(want, aux)


class Lacking(Mapping[str, list[str]]):
    """The stored names the architecture lacks: by parent (``a.b.scale`` under ``a.b``, in stored order), and whether
    one may end with a suffix (never False when one does). Both read the distinct last name segments (a handful),
    collected on first use; a parent's names are its candidates (the parent and each last segment) that are among
    them, so no map of every name by parent is built."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self._lasts: frozenset[str] | None = None
        self._position: dict[str, int] | None = None

    def _segments(self) -> frozenset[str]:
        if self._lasts is None:
            self._lasts = frozenset(n.rpartition(".")[2] for n in self.names)
        return self._lasts

    def may_end_with(self, suffix: str) -> bool:
        _, dot, last = suffix.rpartition(".")
        if dot:  # the name's last segment is exactly the suffix's
            return last in self._segments()
        return any(seg.endswith(suffix) for seg in self._segments())

    def __getitem__(self, parent: str) -> list[str]:
        if self._position is None:
            self._position = dict(zip(self.names, range(len(self.names))))
        position = self._position
        found = [n for n in (f"{parent}.{last}" if parent else last for last in self._segments()) if n in position]
        if not found:
            raise KeyError(parent)
        return sorted(found, key=position.__getitem__)

    def _parents(self) -> dict[str, None]:
        return dict.fromkeys(n.rpartition(".")[0] for n in self.names)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parents())

    def __len__(self) -> int:
        return len(self._parents())


def all_as_planned(
    out: Assessment,
    r: Resolved,
    plan: Plan,
    weights: list[str],
    e: Any,
    stored: Mapping[str, Tensor],
    expected: Mapping[str, Any],
    lacking: Lacking,
    batched: list[tuple[list[str], Resolved]],
) -> bool:
    """Sort every weight of one rule instance (the 256 experts of a layer) at once when each is stored exactly as
    the plan says: what ``assess._layer`` concludes for each, at C speed. False, with nothing recorded, when any weight
    or part differs (``assess._layer`` then explains each). An optional part that no stored name the architecture lacks ends with
    is absent for every weight (``lacking``). Strays beside the layers are left to ``strays``."""
    wpart, want = r.weight, plan.want
    # the names of one instance differ only before their common ending (the expert number): one cut fits all
    modules = [w[: -len(".weight")] for w in weights] if weights[0].endswith(".weight") else weights
    in_place = not wpart.on_module and not wpart.suffix
    if not in_place and not stored.keys().isdisjoint(weights):  # an unpacked copy beside a packed form
        return False
    found = list(
        map(
            stored.get,
            weights if in_place else [(m if wpart.on_module else w) + wpart.suffix for m, w in zip(modules, weights)],
        )
    )
    if None in found:
        return False
    packed = cast(list[Tensor], found)
    logical_shapes = (tuple(e.shape), e.alt_shape)
    for dtype, shape in set(map(FORM, packed)):  # a float weight of the logical shape in place is not packed
        if dtype not in wpart.dtypes or (
            shape not in want if want else in_place and dtype in FLOAT_DTYPES and shape in logical_shapes
        ):
            return False
    sorted_parts = []
    for part in plan.aux:
        if not part.required and not lacking.may_end_with(part.suffix):
            continue
        names = [(m if part.on_module else w) + part.suffix for m, w in zip(modules, weights)]
        if not expected.keys().isdisjoint(names) or (part.note is not None and any(n.endswith(".bias") for n in names)):
            return False
        present = [a for a in map(stored.get, names) if a is not None]
        if (part.required and len(present) < len(names)) or any(
            dtype not in part.dtypes or (part.shapes and shape not in part.shapes)
            for dtype, shape in set(map(FORM, present))
        ):
            return False
        sorted_parts.append(present)
    verdicts = out.verdicts
    for present in sorted_parts:
        verdicts.update(dict.fromkeys(map(NAME, present), SORTED))
    logical = e.elements
    if in_place:  # each stands for itself: one verdict for all (no base name needed)
        verdicts.update(dict.fromkeys(map(NAME, packed), QuantVerdict("packed", "", None, logical)))
    else:
        verdicts.update(
            zip(map(NAME, packed), [verdict(QuantVerdict, ("packed", w, None, logical, None)) for w in weights])
        )
    batched.append((weights, r))
    return True


def strays(out: Assessment, batched: list[tuple[list[str], Resolved]], siblings: Lacking) -> None:
    """Tensors stored beside a layer sorted in a batch but no part of its scheme, once all layers are sorted (one
    pass over the unsorted names rather than a check per batch)."""
    verdicts = out.verdicts
    parents = {n.rpartition(".")[0] for n in siblings.names if n not in verdicts}
    if not parents:
        return
    for weights, r in batched:
        for weight in weights:
            module = weight[: -len(".weight")] if weight.endswith(".weight") else weight
            if module in parents or weight in parents:
                for name in chain(siblings.get(module, ()), siblings.get(weight, ())):
                    if name not in verdicts:
                        verdicts[name] = QuantVerdict(
                            "quantization",
                            weight,
                            f"not a tensor of the {r.scheme.name} "
                            f"layout (it stores {', '.join(suffixes(r, module, weight))})",
                        )


def suffixes(r: Resolved, module: str, weight: str) -> list[str]:
    names = [r.name(p, module, weight) for p in r.parts]
    return sorted(n[len(module) + 1 :] if n.startswith(module + ".") else n for n in names)
