"""Compare: the expected tensors x the stored ones -> where each tensor went (the ledger and the raw differences).

Every stored tensor lands in exactly one ledger category (model, mtp, tied_duplicates, buffers, quantization,
unexplained), so the ledger always sums to the stored parameter total. ``messages`` turns the differences into
findings; nothing here writes a sentence.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import NamedTuple, cast

from ..inventory.build import Tensor
from ..quant import Quantization, QuantVerdict
from ..quant.verdicts import SORTED
from ..read.header import DTYPE, ELEMENTS, SHAPE
from ..specs import Expectation, ExpectedTensor, StackInfo, buffer_suffixes
from ..specs.model import rule_instances
from .result import Reconciliation

_LOGICAL = attrgetter("logical_elements")


@dataclass
class Sorted:
    """Where each tensor went while comparing: the raw material of the findings."""

    missing: dict[str, None] = field(default_factory=dict)  # ordered set: packed weights remove their base
    mtp_missing: list[str] = field(default_factory=list)
    head_missing: list[str] = field(default_factory=list)
    mismatched: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    tied_copies: list[str] = field(default_factory=list)
    shared_copies: list[str] = field(default_factory=list)  # second names of one shared parameter (kind shared)
    buffers: list[str] = field(default_factory=list)
    scales: list[str] = field(default_factory=list)
    notes: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # bookkeeping with its own note
    scale_problems: list[tuple[str, str]] = field(default_factory=list)
    # layers past the config's, per stack
    beyond: dict[StackInfo, dict[int, list[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    unexplained: list[str] = field(default_factory=list)
    by_rule: dict[int, list[Tensor]] = field(default_factory=lambda: defaultdict(list))  # for dtype outliers
    actual_by_row: dict[tuple[str | None, str], int] = field(default_factory=lambda: defaultdict(int))


def sort_expected(
    expected: Mapping[str, ExpectedTensor], stored: dict[str, Tensor], rec: Reconciliation, quantization: Quantization
) -> Sorted:
    """Walk the expected tensors: matched (model or MTP), wrong shape, tied copy, buffer, or missing."""
    s = Sorted()
    # alt_group: {group: {True: [(name, expected shape, stored shape)] matched by alt_shape only, False: by shape}}
    ways: dict[str, dict[bool, list[tuple[str, tuple[int, ...], tuple[int, ...]]]]] = defaultdict(
        lambda: {True: [], False: []}
    )
    verdict_of = quantization.assessment.verdicts.get  # quantization.verdict, minus a call per tensor
    for e, names in rule_instances(expected):
        if len(names) > 1 and _all_matched(e, names, stored, verdict_of, rec, s):
            continue
        for name in names:
            _record(_sort_one(name, e, stored, verdict_of), rec, s, ways)
    for way in ways.values():  # one release's layout or the other's, not half of each (Molmo2's embedding rows)
        if way[True] and way[False]:
            s.mismatched.extend(way[True] if len(way[True]) <= len(way[False]) else way[False])
    return s


def _all_matched(
    e: ExpectedTensor,
    names: list[str],
    stored: dict[str, Tensor],
    verdict_of: Callable[[str], QuantVerdict | None],
    rec: Reconciliation,
    s: Sorted,
) -> bool:
    """Sort every name of one rule instance (the 256 experts of a layer) at once when each is stored under its
    own name in its expected shape, all in full precision or all packed in place without a problem: what
    ``_sort_one`` concludes for each, at C speed. False, with nothing recorded, otherwise."""
    if e.kind not in ("param", "unsaved") or e.aliases or e.alt_group is not None:
        return False
    found = list(map(stored.get, names))
    if None in found:
        return False
    tensors = cast(list[Tensor], found)
    found_verdicts = list(map(verdict_of, names))
    first = found_verdicts[0]
    uniform = found_verdicts.count(first) == len(found_verdicts)  # identity first: C speed for a shared verdict
    if uniform and first is None:  # all in full precision
        if not {e.shape, e.alt_shape}.issuperset(map(SHAPE, tensors)):
            return False
        elements = sum(map(ELEMENTS, tensors))
        s.by_rule[e.rule].extend(tensors)
    else:  # all packed, each as planned: in place (one shared verdict) or under names of their own
        if None in found_verdicts:
            return False
        verdicts = cast(list[QuantVerdict], found_verdicts)
        if any(v.category != "packed" or v.problem is not None for v in ([verdicts[0]] if uniform else verdicts)):
            return False
        elements = verdicts[0].logical_elements * len(verdicts) if uniform else sum(map(_LOGICAL, verdicts))
        dtypes = set(map(DTYPE, tensors))
        if len(dtypes) == 1:  # rec.count_packed at once for a rule's hundreds of tensors (a layer's 256 experts)
            dtype, stored_elements = dtypes.pop(), sum(map(ELEMENTS, tensors))
            extra = rec.packed_extra_by_dtype
            extra[dtype] = extra.get(dtype, 0) + elements - stored_elements
            if elements != stored_elements:  # packed (not FP8 or int8 in place: one value per element)
                rec.encoded.update(
                    dict.fromkeys(names, verdicts[0].logical_elements)
                    if uniform
                    else zip(names, map(_LOGICAL, verdicts))
                )
        else:
            for name, t, v in zip(names, tensors, verdicts):
                rec.count_packed(name, t.dtype, v.logical_elements, t.elements)
    category = "mtp" if e.mtp else "model"
    rec.categories.update(dict.fromkeys(names, category))
    rec.ledger[category] += elements
    if not e.mtp:
        s.actual_by_row[(e.layer_type, e.component)] += elements
    return True


class Placement(NamedTuple):
    """Where one expected tensor went (``_sort_one``'s answer; ``_record`` adds it to the ledger and the lists)."""

    name: str  # as stored (a legacy alias), or as expected when not stored
    category: str | None = None  # the ledger category it is counted in (None: not counted)
    elements: int = 0  # what it counts: the values a packed weight encodes
    listed: str | None = None  # the ``Sorted`` list naming it (tied_copies, missing, ...)
    mismatch: tuple[tuple[int, ...], tuple[int, ...]] | None = None  # (expected, stored) shape
    # (alt_group, matched by alt_shape, expected shape, stored shape): one release's layout or the other's
    way: tuple[str, bool, tuple[int, ...], tuple[int, ...]] | None = None
    tensor: Tensor | None = None  # the stored tensor, when packed or a dtype-outlier candidate
    packed: bool = False  # quantized in place: counted as the values it encodes
    problem: str | None = None  # what does not fit its quantization rule
    row: tuple[str | None, str] | None = None  # the component row whose actual count it adds to
    rule: int | None = None  # the rule whose dtypes it is compared with (outliers)


def _sort_one(
    name: str, e: ExpectedTensor, stored: dict[str, Tensor], verdict_of: Callable[[str], QuantVerdict | None]
) -> Placement:
    """One expected tensor: matched (model or MTP), wrong shape, tied copy, buffer, or missing."""
    t = stored.get(name)
    if t is None and e.aliases:  # a legacy name an old exporter wrote for the same weight
        name = next((a for a in e.aliases if a in stored), name)
        t = stored.get(name)
    if e.kind == "shared":  # the same parameter under a second name: never required, counted once
        if t is None:
            return Placement(name)
        return Placement(
            name, "tied_duplicates", t.elements, "shared_copies", (e.shape, t.shape) if t.shape != e.shape else None
        )
    if e.kind == "head" and e.tied:
        return Placement(name, "tied_duplicates", t.elements, "tied_copies") if t is not None else Placement(name)
    if e.kind == "state" and t is not None:  # a persistent buffer the model needs: required, not a parameter
        return Placement(
            name,
            "buffers",
            t.elements,
            mismatch=(e.shape, t.shape) if t.shape != e.shape and t.shape != e.alt_shape else None,
        )
    if e.kind == "unsaved" and t is None:  # counted by num_parameters(), never written: nothing to miss
        return Placement(name)
    if e.kind == "buffer":
        if t is None:
            return Placement(name)
        return Placement(
            name,
            "buffers",
            t.elements,
            "buffers",
            (e.shape, t.shape) if t.shape != e.shape and t.shape != e.alt_shape else None,
        )
    if t is None:
        return Placement(name, listed="head_missing" if e.kind == "head" else "mtp_missing" if e.mtp else "missing")
    category = "mtp" if e.mtp else "model"
    row = None if e.mtp else (e.layer_type, e.component)
    verdict = verdict_of(name)
    if verdict is not None and verdict.category == "packed":  # quantized in place (bitsandbytes, FP8, int8)
        return Placement(
            name, category, verdict.logical_elements, tensor=t, packed=True, problem=verdict.problem, row=row
        )
    mismatch = way = None
    if t.shape != e.shape and t.shape != e.alt_shape:  # alt_shape: a release's transpose of the weight
        mismatch = (e.shape, t.shape)
    elif e.alt_group is not None and e.shape != e.alt_shape:
        way = (e.alt_group, t.shape == e.alt_shape, e.shape, t.shape)
    # a quantized-in-place weight beside full-precision ones of its kind is the config's say: no outlier
    return Placement(
        name,
        category,
        t.elements,
        mismatch=mismatch,
        way=way,
        tensor=t,
        row=row,
        rule=e.rule if verdict is None else None,
    )


def _record(
    p: Placement,
    rec: Reconciliation,
    s: Sorted,
    ways: dict[str, dict[bool, list[tuple[str, tuple[int, ...], tuple[int, ...]]]]],
) -> None:
    """Add one placement to what the comparison builds: the ledger and categories, the raw differences."""
    name = p.name
    if p.category is not None:
        rec.categories[name] = p.category
        rec.ledger[p.category] += p.elements
    if p.listed == "missing":
        s.missing[name] = None
    elif p.listed is not None:
        getattr(s, p.listed).append(name)
    if p.packed and p.tensor is not None:
        rec.count_packed(name, p.tensor.dtype, p.elements, p.tensor.elements)
    if p.problem:
        s.scale_problems.append((name, p.problem))
    if p.mismatch is not None:
        s.mismatched.append((name, *p.mismatch))
    if p.way is not None:
        group, alternative, expected, found = p.way
        ways[group][alternative].append((name, expected, found))
    if p.row is not None:
        s.actual_by_row[p.row] += p.elements
    if p.rule is not None and p.tensor is not None:
        s.by_rule[p.rule].append(p.tensor)


def sort_the_rest(
    expected: Mapping[str, ExpectedTensor],
    stored: dict[str, Tensor],
    expectation: Expectation,
    quantization: Quantization,
    rec: Reconciliation,
    s: Sorted,
) -> None:
    """Stored tensors the formula did not name: quantization, buffers, layers past the config, or unexplained."""
    ledger, categories = rec.ledger, rec.categories
    suffixes = buffer_suffixes()
    verdict_of = quantization.assessment.verdicts.get  # what classify() answers first, minus a call per tensor
    rest = [name for name in stored if name not in categories]
    verdicts = list(map(verdict_of, rest))
    if _all_bookkeeping(rest, verdicts, stored, rec, s):
        return
    for name, verdict in zip(rest, verdicts):
        t = stored[name]
        verdict = verdict or quantization.classify(t, stored, expected)
        if verdict is not None:
            if verdict.problem:
                s.scale_problems.append((name, verdict.problem))
            if verdict.category == "packed":
                base = expected.get(verdict.base)
                category = "mtp" if base is not None and base.mtp else "model"
                categories[name] = category
                ledger[category] += verdict.logical_elements
                rec.count_packed(name, t.dtype, verdict.logical_elements, t.elements)
                s.missing.pop(verdict.base, None)
                if base is not None and not base.mtp:
                    s.actual_by_row[(base.layer_type, base.component)] += verdict.logical_elements
            else:
                categories[name] = "quantization"
                ledger["quantization"] += t.elements
                (s.notes[verdict.note] if verdict.note else s.scales).append(name)
            continue
        if name.endswith(suffixes):
            categories[name] = "buffers"
            ledger["buffers"] += t.elements
            s.buffers.append(name)
            continue
        place = stack_layer(name, expectation.stacks)
        if place is not None and place[1] >= place[0].count + place[0].extra:
            s.beyond[place[0]][place[1]].append(name)
        categories[name] = "unexplained"
        ledger["unexplained"] += t.elements
        s.unexplained.append(name)


def _all_bookkeeping(
    rest: list[str], verdicts: list[QuantVerdict | None], stored: dict[str, Tensor], rec: Reconciliation, s: Sorted
) -> bool:
    """Sort the tensors left after the walk at once when every one is bookkeeping its rule sorted in bulk (the
    46k FP8 scales of DeepSeek-V3): what ``sort_the_rest`` concludes for each, at C speed. False, with nothing
    recorded, otherwise."""
    if not verdicts or verdicts.count(SORTED) != len(verdicts):
        return False
    rec.categories.update(dict.fromkeys(rest, "quantization"))
    rec.ledger["quantization"] += sum(map(ELEMENTS, map(stored.__getitem__, rest)))
    s.scales.extend(rest)
    return True


def stack_layer(name: str, stacks: tuple[StackInfo, ...]) -> tuple[StackInfo, int] | None:
    """The stack and layer number a stored name falls in (``model.layers.61.x`` -> decoder, 61)."""
    for stack in stacks:
        if name.startswith(stack.prefix):
            head = name[len(stack.prefix) :].split(".", 1)[0]
            if head.isdigit():
                return stack, int(head)
    return None
