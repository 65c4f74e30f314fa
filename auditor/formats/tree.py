"""The module tree of a checkpoint, built from its tensor groups (never one node per tensor).

``model.layers.{}.mlp.experts.{}.down_proj.weight`` is the path ``model > layers.{} > mlp > experts.{} >
down_proj > weight``: a numeric segment folds into the segment before it, so the 36 decoder layers are one node
("36 x") and the 256 experts of every layer another. Each node sums the parameters, bytes and tensors of the groups
beneath it, so the root holds the stored totals exactly and every group is one leaf. A DeepSeek-V3 checkpoint
(92k tensors) is a few hundred nodes. The HTML report draws it; ``diff`` builds one per side from lock snapshots.

Findings are then laid on the tree: a tensor a finding names marks its leaf (and, by the worst severity, every
ancestor); tensors reported missing become leaves of their own where they should have been. Tensors that live in a
file that could not be read (named by a root-cause finding, or by a consequence of one: ``caused_by``) are placed
the same way but counted as "not checked", not missing.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..core.findings import SEVERITY_RANK
from ..inventory.groups import Group, ranges, render, split_name
from ..report.rootcause import about_unread_file
from ..report.single import Report


@dataclass
class Node:
    """A module, or a leaf: the tensors of one template, dtype and shape (one group, or the pieces a grid with
    holes was split into)."""

    segment: str  # "layers.{}": the path segment, its index folded in
    path: str = ""  # the segments from the root, joined by "."
    axis: int | None = None  # which "{}" of the template this node's index is (index nodes only)
    values: set[int] = field(default_factory=set)  # stored index values (index nodes)
    missing_values: set[int] = field(default_factory=set)  # index values only missing tensors have
    unchecked_values: set[int] = field(default_factory=set)  # of those, the ones only unread files hold
    parameters: int = 0
    bytes: int = 0
    tensors: int = 0
    children: dict[tuple[Any, ...], Node] = field(default_factory=dict)
    # leaves only
    dtype: str | None = None
    shape: tuple[int, ...] | None = None
    template: str | None = None
    missing: int = 0  # tensors of this leaf reported missing (a leaf holding only missing tensors has tensors == 0)
    unchecked: int = 0  # tensors of this leaf in a file that could not be read (not stored, not missing either)
    missing_pattern: str = ""  # those tensors as a pattern (``model.layers.7.self_attn.k_norm.weight``)
    axes: list[set[int]] = field(default_factory=list)  # the index values at each "{}" of the template, stored or
    # missing: the page's search tells ``layers.40.mlp`` from ``layers.1.mlp`` in a leaf whose layers are 3..60
    categories: Counter[str] = field(default_factory=Counter)  # ledger category -> tensors (non-model only)
    severity: str | None = None  # the worst severity of a finding naming a tensor at or below this node
    codes: set[str] = field(default_factory=set)  # codes of the findings naming this leaf's tensors
    parent: Node | None = field(default=None, repr=False, compare=False)

    @property
    def is_leaf(self) -> bool:
        return self.template is not None

    @property
    def repeat(self) -> int:
        """How many instances an index node stands for (36 for ``layers.{0..35}``), else 0."""
        return len(self.values) if self.axis is not None else 0

    @property
    def label(self) -> str:
        """``layers.{0..35}``; an index node whose only tensors are missing shows the missing indices."""
        if self.axis is None:
            return self.segment
        shown = self.values or self.missing_values
        text = next(iter(shown)) if len(shown) == 1 else "{" + ranges(shown) + "}"
        return self.segment[:-2] + str(text)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children.values():
            yield from child.walk()

    def leaves(self) -> Iterator[Node]:
        return (n for n in self.walk() if n.is_leaf)

    def mark(self, severity: str, missing: int = 0, unchecked: int = 0) -> None:
        """This node and its ancestors get ``severity`` if worse than theirs, and count ``missing`` and
        ``unchecked`` more."""
        node: Node | None = self
        while node is not None:
            if node.severity is None or SEVERITY_RANK[severity] > SEVERITY_RANK[node.severity]:
                node.severity = severity
            node.missing += missing
            node.unchecked += unchecked
            node = node.parent


@dataclass(frozen=True)
class Row:
    """One tensor group as the tree needs it: a report's ``Group`` or a lock snapshot's group entry."""

    template: str
    dtype: str
    shape: tuple[int, ...]
    count: int
    parameters: int
    bytes: int
    axes: tuple[frozenset[int], ...]


def segments(template: str) -> list[tuple[str, int | None]]:
    """``a.layers.{}.w`` -> ``[("a", None), ("layers.{}", 0), ("w", None)]``: each index joins the segment
    before it (a leading index stands alone), numbered by its position among the template's indices."""
    out: list[tuple[str, int | None]] = []
    axis = 0
    for part in template.split("."):
        if part == "{}":
            if out and out[-1][1] is None:
                out[-1] = (out[-1][0] + ".{}", axis)
            else:
                out.append(("{}", axis))
            axis += 1
        else:
            out.append((part, None))
    return out


def build(rows: Iterable[Row]) -> Node:
    """The tree of ``rows``; children keep the order of first appearance (header order)."""
    root = Node("")
    for row in rows:
        node = root
        _add(node, row)
        parts = segments(row.template)
        for segment, axis in parts[:-1]:
            node = _child(node, segment, axis)
            _add(node, row)
            if axis is not None and axis < len(row.axes):
                node.values |= row.axes[axis]
        segment, axis = parts[-1]
        leaf = node.children.get((segment, row.dtype, row.shape))
        if leaf is None:
            leaf = node.children[(segment, row.dtype, row.shape)] = Node(
                segment,
                _join(node.path, segment),
                axis,
                dtype=row.dtype,
                shape=row.shape,
                template=row.template,
                parent=node,
            )
        _add(leaf, row)
        _widen(leaf, row.axes)
        if axis is not None and axis < len(row.axes):
            leaf.values |= row.axes[axis]
    return root


def _widen(leaf: Node, axes: Iterable[Iterable[int]]) -> None:
    """Add ``axes`` (the index values at each ``{}``) to the leaf's."""
    for k, values in enumerate(axes):
        if k == len(leaf.axes):
            leaf.axes.append(set())
        leaf.axes[k].update(values)


def _join(path: str, segment: str) -> str:
    return f"{path}.{segment}" if path else segment


def _child(node: Node, segment: str, axis: int | None) -> Node:
    child = node.children.get((segment,))
    if child is None:
        child = node.children[(segment,)] = Node(segment, _join(node.path, segment), axis, parent=node)
    return child


def _add(node: Node, row: Row) -> None:
    node.parameters += row.parameters
    node.bytes += row.bytes
    node.tensors += row.count


def report_rows(report: Report) -> list[Row]:
    """The report's groups as rows (stored elements: packed weights count what they store here)."""
    rows = []
    for g in report.groups:
        elements = math.prod(g.shape)
        rows.append(
            Row(
                g.template,
                g.dtype,
                g.shape,
                g.count,
                elements * g.count,
                report.tensors[g.names[0]].nbytes * g.count,
                tuple(frozenset(a) for a in g.axes()),
            )
        )
    return rows


def snapshot_rows(doc: dict[str, Any]) -> list[Row]:
    """A lock snapshot's groups as rows (``st-audit diff`` draws both sides)."""
    from ..gate.lock import decode_indices

    rows = []
    for g in doc.get("groups", []):
        tuples = decode_indices(g["indices"]) if g.get("indices") else []
        width = len(tuples[0]) if tuples else 0
        axes = tuple(frozenset(t[k] for t in tuples) for k in range(width))
        rows.append(Row(g["template"], g["dtype"], tuple(g["shape"]), g["count"], g["parameters"], g["bytes"], axes))
    return rows


def module_tree(report: Report) -> Node:
    """The report's tree with its findings laid on it: missing tensors where they should be, every named tensor's
    leaf (and its ancestors) marked with the finding's severity, and the ledger categories other than "model"."""
    root = build(report_rows(report))
    by_template: dict[str, list[Node]] = {}
    for leaf in root.leaves():
        by_template.setdefault(leaf.template or "", []).append(leaf)
    members: dict[int, set[str]] = {}  # id(leaf) -> its names, built only where a template has several leaves
    # a leaf is one (template, dtype, shape): usually one group, several where a grid with holes was split
    groups: dict[tuple[str, str, tuple[int, ...]], list[Group]] = {}
    for g in report.groups:
        groups.setdefault((g.template, g.dtype, g.shape), []).append(g)
    categories = report.reconciliation.categories
    if categories:
        for leaf in root.leaves():
            for g in groups.get((leaf.template or "", leaf.dtype or "", leaf.shape or ()), []):
                leaf.categories.update(c for c in map(categories.get, g.names) if c and c != "model")
    unread: set[str] = set()  # tensors already placed as not checked (roots and consequences name the same)
    for f in report.active_findings:
        if not f.tensors:
            continue
        if about_unread_file(f):
            lost = [n for n in f.tensors if n not in report.tensors]
            if lost:
                _add_missing(root, lost, by_template, f.severity, f.code, unread)
            if len(lost) == len(f.tensors):
                continue
        elif f.code == "missing-tensor":
            _add_missing(root, f.tensors, by_template, f.severity)
            continue
        for name in f.tensors:
            if name in unread:
                continue
            template, _ = split_name(name)
            leaves = by_template.get(template, [])
            if len(leaves) > 1:
                for leaf in leaves:
                    if id(leaf) not in members:
                        members[id(leaf)] = {
                            n for g in groups.get((template, leaf.dtype or "", leaf.shape or ()), []) for n in g.names
                        }
                leaves = [leaf for leaf in leaves if name in members[id(leaf)]]
            for leaf in leaves:
                leaf.codes.add(f.code)
                leaf.mark(f.severity)
    return root


def _add_missing(
    root: Node,
    names: Iterable[str],
    by_template: dict[str, list[Node]],
    severity: str,
    code: str = "missing-tensor",
    unread: set[str] | None = None,
) -> None:
    """Missing tensors grouped by template, each template one leaf where its stored siblings would be. With
    ``unread`` (the names placed so far), the tensors are not checked rather than missing: each counted once."""
    found: dict[str, list[tuple[int, ...]]] = {}
    new: Counter[str] = Counter()  # template -> names not placed before
    for name in names:
        template, indices = split_name(name)
        found.setdefault(template, []).append(indices)
        if unread is not None and name not in unread:
            unread.add(name)
            new[template] += 1
    for template, index_list in found.items():
        parts = segments(template)
        node = root
        for segment, axis in parts[:-1]:
            node = _child(node, segment, axis)
            if axis is not None:
                absent = {ix[axis] for ix in index_list if ix[axis] not in node.values}
                node.missing_values |= absent
                if unread is not None:
                    node.unchecked_values |= absent
        segment, axis = parts[-1]
        leaf = next((n for n in by_template.get(template, []) if n.path == _join(node.path, segment)), None)
        if leaf is None:
            leaf = node.children[(segment, "missing")] = Node(
                segment, _join(node.path, segment), axis, template=template, parent=node
            )
            by_template.setdefault(template, []).append(leaf)
        if axis is not None:
            absent = {ix[axis] for ix in index_list if ix[axis] not in leaf.values}
            leaf.missing_values |= absent
            if unread is not None:
                leaf.unchecked_values |= absent
        leaf.codes.add(code)
        width = len(index_list[0])
        _widen(leaf, [{ix[k] for ix in index_list} for k in range(width)])
        if unread is not None:
            leaf.mark(severity, unchecked=new[template])
            continue
        leaf.missing_pattern = render(template, [{ix[k] for ix in index_list} for k in range(width)])
        leaf.mark(severity, missing=len(index_list))


def layer_params(report: Report, stack: Node) -> tuple[dict[int, int], dict[int, int]]:
    """Parameters per index of an index node at its template's first axis (``model.layers.{}``), for the
    per-layer bars: (the model's, every tensor's). The model's are the tensors the ledger counts as the formula's
    (no buffers, scales, copies), a packed weight as the parameters it encodes (a GPTQ ``qweight``: 32 / bits per
    stored int32), so a healthy layer equals its formula's count; every tensor's (stored elements) shows a layer
    beyond config.json's count (an MTP layer) at its size."""
    model: Counter[int] = Counter()
    every: Counter[int] = Counter()
    categories = report.reconciliation.categories
    encoded = report.reconciliation.encoded
    for g in _under(report, stack):
        elements = math.prod(g.shape)
        firsts = g.flat[0 :: g.width]
        for index, n in Counter(firsts).items():
            every[index] += n * elements
        if categories:
            for index, name in zip(firsts, g.names):
                if categories.get(name, "model") == "model":
                    model[index] += encoded.get(name, elements)
    return dict(sorted((model if categories else every).items())), dict(sorted(every.items()))


def layer_severities(report: Report, stack: Node) -> tuple[dict[int, str], set[int]]:
    """Index -> the worst severity of the findings naming a tensor of that layer (missing ones included), and the
    layers with a tensor in a file that could not be read (not checked: those findings do not count)."""
    out: dict[int, str] = {}
    unread: set[int] = set()
    prefix = stack.path + "."
    for f in report.active_findings:
        if about_unread_file(f):
            for name in f.tensors:
                template, indices = split_name(name)
                if template.startswith(prefix) and indices and name not in report.tensors:
                    unread.add(indices[0])
            continue
        for name in f.tensors:
            template, indices = split_name(name)
            if template.startswith(prefix) and indices:
                old = out.get(indices[0])
                if old is None or SEVERITY_RANK[f.severity] > SEVERITY_RANK[old]:
                    out[indices[0]] = f.severity
    return out, unread


def _under(report: Report, stack: Node) -> Iterator[Any]:
    prefix = stack.path + "."  # the templates of the groups under it start with the node's path
    return (g for g in report.groups if g.width and g.template.startswith(prefix))


def stacks(root: Node) -> list[Node]:
    """Index nodes at their template's first axis with two or more instances (decoder layers, vision blocks),
    largest first."""
    out = [n for n in root.walk() if n.axis == 0 and not n.is_leaf and len(n.values | n.missing_values) >= 2]
    return sorted(out, key=lambda n: -n.parameters)


def by_template(root: Node) -> dict[str, list[Node]]:
    """Template -> its leaves (a template stored in two dtypes or shapes has two; a missing one, its own)."""
    out: dict[str, list[Node]] = {}
    for leaf in root.leaves():
        out.setdefault(leaf.template or "", []).append(leaf)
    return out


def where(leaves: dict[str, list[Node]], names: Iterable[str]) -> Node | None:
    """The deepest node holding every tensor of ``names`` (``leaves``: ``by_template`` of the tree), so a link
    from a finding lands where its tensors are: the lost ``k_norm.weight`` leaf, the ``layers`` of a missing
    shard's tensors. None when they share only the root, or one is not in the tree."""
    common: list[Node] | None = None  # the path from the root to the deepest node shared so far
    for template in {split_name(name)[0] for name in names}:
        found = leaves.get(template)
        if not found:
            return None
        for leaf in found:
            path = []
            node: Node | None = leaf
            while node is not None:
                path.append(node)
                node = node.parent
            path.reverse()
            if common is None:
                common = path
            else:
                shared = 0
                while shared < min(len(common), len(path)) and common[shared] is path[shared]:
                    shared += 1
                common = common[:shared]
            if len(common) <= 1:
                return None
    return common[-1] if common and len(common) > 1 else None


def mtp_layers(report: Report, stack: Node) -> set[int]:
    """The indices of a stack whose tensors the ledger counts as the multi-token-prediction module (DeepSeek-V3's
    layer 61 beside its 61 decoder layers): stored beyond config.json's count on purpose, not a difference."""
    categories = report.reconciliation.categories
    if not categories:
        return set()
    out: set[int] = set()
    for g in _under(report, stack):
        for index, name in zip(g.flat[0 :: g.width], g.names):
            if categories.get(name) == "mtp":
                out.add(index)
    return out
