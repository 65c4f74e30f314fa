"""Group tensor names by module pattern: numeric path segments collapse into index ranges.

``model.layers.7.mlp.experts.12.down_proj.weight`` belongs to the template
``model.layers.{}.mlp.experts.{}.down_proj.weight``; tensors of one template, dtype and shape form a group
shown as ``model.layers.{0..35}.mlp.experts.{0..127}.down_proj.weight x4608 BF16 [2048, 768]``.
Holes in a multi-index template (expert 17 missing in layer 40) become a ``range-gap`` finding.
"""

from __future__ import annotations

import itertools
import re
from array import array
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from ..core.findings import Finding, finding, plural
from .build import Tensor

MAX_LISTED_GAPS = 50


@dataclass
class Group:
    """Tensors sharing one name template, dtype and shape.

    Each name's indices are kept flat, one after the other (``width`` per name), in a 64-bit array: ~70 bytes per
    tensor less than a tuple of ints each (~65 MB at 1M tensors); ``indices`` rebuilds the tuples for the rare
    reader that needs them (the lock file, holes in a grid)."""

    template: str  # the name with each numeric path segment replaced by "{}"
    dtype: str
    shape: tuple[int, ...]
    width: int = 0  # numeric segments per name: the template's "{}" count
    flat: array[int] | list[int] = field(default_factory=lambda: array("q"))
    names: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.names)

    @property
    def indices(self) -> list[tuple[int, ...]]:
        k = self.width
        return list(zip(*(self.flat[i::k] for i in range(k)))) if k else [()] * len(self.names)

    def axes(self) -> list[set[int]]:
        """The values seen at each index position."""
        return [set(self.flat[i :: self.width]) for i in range(self.width)]

    def add(self, indices: Iterable[int], name: str) -> None:
        try:
            self.flat.extend(indices)
        except OverflowError:  # an index past 64 bits (a crafted name): plain ints from here on
            self.flat = [i for n in self.names for i in split_name(n)[1]]
            self.flat.extend(split_name(name)[1])
        self.names.append(name)

    @property
    def full_grid(self) -> bool:
        """Whether the names are every combination of the values seen at each position (the usual case; names
        are unique, so no combination repeats)."""
        size = 1
        for axis in self.axes():
            size *= len(axis)
        return size == len(self.names)

    @property
    def pattern(self) -> str:
        return render(self.template, self.axes())

    def to_dict(self, elements: int, nbytes: int) -> dict[str, object]:
        return {
            "pattern": self.pattern,
            "count": self.count,
            "dtype": self.dtype,
            "shape": list(self.shape),
            "parameters": elements * self.count,
            "bytes": nbytes * self.count,
        }


_INDEX = re.compile(r"\.(0|[1-9][0-9]*)(?=\.)")


def split_name(name: str) -> tuple[str, tuple[int, ...]]:
    """``"a.3.b.10.w"`` -> ``("a.{}.b.{}.w", (3, 10))``: numeric path segments become indices."""
    parts = _INDEX.split(f".{name}.")  # padded so leading and trailing segments match too
    if len(parts) == 1:
        return name, ()
    return ".{}".join(parts[0::2])[1:-1], tuple(map(int, parts[1::2]))


def ranges(values: Iterable[int]) -> str:
    """``[0,1,2,3,5,7,8]`` -> ``"0..3,5,7..8"``."""
    out = []
    ordered = sorted(set(values))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}..{ordered[j]}")
        i = j + 1
    return ",".join(out)


def render(template: str, axes: Sequence[Collection[int]]) -> str:
    """Fill each ``{}`` of the template with the range of the distinct values seen at that position (``axes``)."""
    if not axes:
        return template
    return fill(template, [str(next(iter(v))) if len(v) == 1 else "{" + ranges(v) + "}" for v in axes])


def group_tensors(tensors: Iterable[Tensor]) -> list[Group]:
    """Groups in order of first appearance (header order of the first file)."""
    groups: dict[tuple[object, ...], Group] = {}
    split = _INDEX.split  # split_name inlined: it runs once per tensor
    for t in tensors:
        name, dtype, shape = t.name, t.dtype, t.shape
        parts = split(f".{name}.")
        if len(parts) == 1:
            template = name
        else:
            template = ".{}".join(parts[0::2])[1:-1]
        key = (template, dtype, shape)
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(template, dtype, shape, len(parts) // 2)
        if len(parts) > 1:
            try:
                g.flat.extend(map(int, parts[1::2]))
            except OverflowError:
                g.add(map(int, parts[1::2]), name)
                continue
        g.names.append(name)
    return list(groups.values())


def find_range_gaps(groups: Iterable[Group]) -> list[Finding]:
    """Templates with two or more indices whose index sets do not form a full grid."""
    by_template: dict[str, set[tuple[int, ...]]] = {}
    for g in groups:
        if g.width >= 2:
            by_template.setdefault(g.template, set()).update(g.indices)
    out = []
    for template, present in by_template.items():
        ndim = len(next(iter(present)))
        axes = [sorted({ix[k] for ix in present}) for k in range(ndim)]
        grid = 1
        for axis in axes:
            grid *= len(axis)
        if grid == len(present):
            continue
        missing: list[str] = []
        if grid <= 10 * len(present) + 10_000:
            for combo in itertools.product(*axes):
                if combo not in present:
                    missing.append(fill(template, combo))
                    if len(missing) >= MAX_LISTED_GAPS:
                        break
        pattern = render(template, axes)
        shown = "; ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        # a lost tensor leaves a few holes in an otherwise full grid; many holes are a layout of its own
        # (experts only in some blocks, blocks of several sizes): noted, not warned about
        sparse = (grid - len(present)) * 100 > grid
        out.append(
            finding(
                "range-gap",
                f"{pattern}: {plural(grid - len(present), 'combination')} of the index "
                f"ranges {'is' if grid - len(present) == 1 else 'are'} absent"
                + (f", e.g. {shown}" if shown else "")
                + ("; so many that it is likely the architecture's own layout" if sparse else ""),
                tensors=missing,
                severity="info" if sparse else "warning",
            )
        )
    return out


def fill(template: str, values: Sequence[object]) -> str:
    """Replace each ``{}`` in turn (names may contain other braces, so no str.format)."""
    pieces = template.split("{}")
    if len(pieces) != len(values) + 1:
        raise ValueError(f"template {template!r} has {len(pieces) - 1} placeholders, not {len(values)}")
    out = [pieces[0]]
    for value, piece in zip(values, pieces[1:]):
        out.append(str(value))
        out.append(piece)
    return "".join(out)
