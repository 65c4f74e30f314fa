"""Sets of tensor names written exactly as patterns: ``model.layers.{0..35}.mlp.up_proj.weight``.

A set with holes becomes several patterns (``model.layers.{3..39,41..60}.mlp.experts.{0..255}.w`` and
``model.layers.40.mlp.experts.{0..16,18..255}.w``), so no pattern names a tensor that is not meant. Used by
the lock file (index sets), the group table and the JSON findings (which list at most 20 names).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable

from .groups import Group, fill, ranges, split_name


def encode_indices(indices: Iterable[tuple[int, ...]]) -> list[str]:
    """A set of index tuples as a union of products: ``["3..39,41..60 x 0..255", "40 x 0..16,18..255"]``."""
    tuples = sorted(set(indices))
    if not tuples or not tuples[0]:
        return []
    if len(tuples[0]) == 1:
        return [ranges(t[0] for t in tuples)]
    ndim = len(tuples[0])
    if all(len(t) == ndim for t in tuples):
        axes = [{t[k] for t in tuples} for k in range(ndim)]
        size = 1
        for axis in axes:
            size *= len(axis)
        if size == len(tuples):  # a full grid (the usual case): what the recursion below returns for it, at once
            return [" x ".join(ranges(axis) for axis in axes)]
    tails: dict[int, list[tuple[int, ...]]] = defaultdict(list)
    for t in tuples:
        tails[t[0]].append(t[1:])
    by_code: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for first, rest in tails.items():
        by_code[tuple(encode_indices(rest))].append(first)
    out = []
    for code, firsts in sorted(by_code.items(), key=lambda kv: min(kv[1])):
        head = ranges(firsts)
        out += [f"{head} x {c}" for c in code]
    return out


def fill_entry(template: str, entry: str) -> str:
    """One ``encode_indices`` entry written into its template: ``"40 x 0..16,18..255"`` ->
    ``...layers.40...experts.{0..16,18..255}...``."""
    parts: list[object] = [p if p.isdigit() else "{" + p + "}" for p in entry.split(" x ")]
    return fill(template, parts)


def patterns(names: Iterable[str], known: Splits | None = None) -> list[str]:
    """Names collapsed exactly into patterns, in order of first appearance of each template.

    ``known``: names already split (``splits`` of the report's groups), looked up rather than split again."""
    by_template: dict[str, list[tuple[int, ...]]] = {}
    if known is None:
        for name in names:
            template, indices = split_name(name)
            by_template.setdefault(template, []).append(indices)
    else:
        templates, index_of = known
        for name in names:
            grouped = templates.get(name)
            template, indices = split_name(name) if grouped is None else (grouped, index_of[name])
            by_template.setdefault(template, []).append(indices)
    out: list[str] = []
    for template, index_list in by_template.items():
        entries = encode_indices(index_list)
        out += [fill_entry(template, e) for e in entries] if entries else [template]
    return out


Splits = tuple[dict[str, str], dict[str, tuple[int, ...]]]


def splits(groups: Iterable[Group], names: set[str]) -> Splits:
    """The ``split_name`` of every name of the groups holding any of ``names``, as the groups hold it (template;
    indices), for ``patterns`` of findings naming tens of thousands of tensors (built at C speed, no tuple per
    name)."""
    templates: dict[str, str] = {}
    index_of: dict[str, tuple[int, ...]] = {}
    for g in groups:
        if names.isdisjoint(g.names):
            continue
        templates.update(dict.fromkeys(g.names, g.template))
        index_of.update(zip(g.names, g.indices))
    return templates, index_of


def split_holes(groups: list[Group]) -> list[Group]:
    """Groups whose indices do not fill their grid, split into full-grid parts so that each pattern shows
    its holes (``experts.{0..16,18..255}`` in layer 40) and its count is exactly the pattern's size."""
    out: list[Group] = []
    for g in groups:
        if g.width < 2 or g.full_grid:
            out.append(g)
            continue
        indices = g.indices
        entries = encode_indices(indices)
        if len(entries) <= 1:
            out.append(g)
            continue
        by_index = dict(zip(indices, g.names))
        for entry in entries:
            part = Group(g.template, g.dtype, g.shape, g.width)
            for combo in itertools.product(*(_values(p) for p in entry.split(" x "))):
                part.add(combo, by_index[combo])
            out.append(part)
    return out


def _values(text: str) -> list[int]:
    out: list[int] = []
    for piece in text.split(","):
        lo, _, hi = piece.partition("..")
        out += range(int(lo), int(hi or lo) + 1)
    return out
