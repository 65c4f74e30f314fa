"""Sets of tensor names written exactly as patterns: ``model.layers.{0..35}.mlp.up_proj.weight``.

A set with holes becomes several patterns (``model.layers.{3..39,41..60}.mlp.experts.{0..255}.w`` and
``model.layers.40.mlp.experts.{0..16,18..255}.w``), so no pattern names a tensor that is not meant. Used by
the lock file (index sets), the group table and the JSON findings (which list at most 20 names).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import cast

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


def patterns(names: Iterable[str], groups: Sequence[Group] | None = None) -> list[str]:
    """Names collapsed exactly into patterns, in order of first appearance of each template.

    ``groups``: the report's groups, for findings naming tens of thousands of tensors: a template whose names
    are exactly one full-grid group's takes that group's pattern, and the rest are looked up in the groups
    rather than split again."""
    names = list(names)
    if groups is not None:
        known = _from_groups(names, groups)
        if known is not None:
            return known
    by_template: dict[str, list[tuple[int, ...]]] = {}
    for name in names:
        template, indices = split_name(name)
        by_template.setdefault(template, []).append(indices)
    out: list[str] = []
    for template, index_list in by_template.items():
        out += _encoded(template, index_list)
    return out


def _encoded(template: str, indices: list[tuple[int, ...]]) -> list[str]:
    entries = encode_indices(indices)
    return [fill_entry(template, e) for e in entries] if entries else [template]


def _from_groups(names: list[str], groups: Sequence[Group]) -> list[str] | None:
    """``patterns`` from the groups holding the names (at C speed but for templates only partly named), or None
    when a name is in no group (a missing tensor): then every name is split."""
    wanted = set(names)
    template_of: dict[str, str] = {}
    of_template: dict[str, list[Group]] = defaultdict(list)
    for g in groups:
        if not wanted.isdisjoint(g.names):
            template_of.update(dict.fromkeys(g.names, g.template))
            of_template[g.template].append(g)
    order = dict.fromkeys(map(template_of.get, names))
    if None in order:
        return None
    out: list[str] = []
    for template in cast(dict[str, None], order):
        held = of_template[template]
        if len(held) == 1 and held[0].full_grid and wanted.issuperset(held[0].names):
            out.append(held[0].pattern)  # what encoding its index tuples gives, at once
            continue
        out += _encoded(template, [ix for g in held for name, ix in zip(g.names, g.indices) if name in wanted])
    return out


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
