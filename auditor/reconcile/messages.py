"""Messages: the differences ``compare`` found -> one readable finding per kind of difference.

Each finding names the first few tensors and carries the full list; whole missing layers and towers are named as
such rather than tensor by tensor.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping

from ..core.findings import Finding, finding, plural
from ..core.names import shown
from ..inventory.build import Tensor
from ..quant import Quantization
from ..read.header import ELEMENTS
from ..specs import Expectation, ExpectedTensor, StackInfo
from .compare import Sorted
from .result import Reconciliation

MAX_NAMES_IN_MESSAGE = 4
REQUIRED = ("param", "state")  # kinds a checkpoint must store (a missing one is missing-tensor)
MAX_STRUCTURED = 20  # tensor -> shape entries in a finding's expected/actual (as many names as the JSON lists)


def _elements(stored: Mapping[str, Tensor], names: list[str]) -> int:
    return sum(map(ELEMENTS, map(stored.__getitem__, names)))


def findings_of(
    s: Sorted,
    expected: Mapping[str, ExpectedTensor],
    stored: dict[str, Tensor],
    expectation: Expectation,
    quantization: Quantization,
    rec: Reconciliation,
) -> list[Finding]:
    """One readable finding per kind of difference, each with the full tensor list."""
    f: list[Finding] = []
    ledger = rec.ledger
    _report_missing(f, list(s.missing), expected, expectation)
    if s.mtp_missing and len(s.mtp_missing) < sum(1 for e in expected.values() if e.mtp and e.kind in REQUIRED):
        f.append(
            finding(
                "missing-tensor",
                f"the MTP module is incomplete: {plural(len(s.mtp_missing), 'tensor')} "
                f"missing ({shown(s.mtp_missing)})",
                tensors=s.mtp_missing,
                severity="warning",
            )
        )
    if s.mismatched:
        f.append(
            finding(
                "shape-mismatch",
                f"{plural(len(s.mismatched), 'tensor')} with a shape config.json does not "
                "imply: "
                + shown(
                    [f"{n} is {list(a)}, expected {list(e)}" for n, e, a in s.mismatched],
                    MAX_NAMES_IN_MESSAGE,
                    sep="; ",
                ),
                tensors=[n for n, _, _ in s.mismatched],
                expected={n: list(e) for n, e, _ in s.mismatched[:MAX_STRUCTURED]},
                actual={n: list(a) for n, _, a in s.mismatched[:MAX_STRUCTURED]},
            )
        )
    if s.head_missing:
        f.append(
            finding(
                "tied-head",
                f"config.json does not tie the LM head to the embeddings "
                f"(tie_word_embeddings is false), but {shown(s.head_missing)} is not stored: loaders would "
                "leave it randomly initialised",
                tensors=s.head_missing,
                severity="error",
            )
        )
    if s.tied_copies:
        n = sum(stored[c].elements for c in s.tied_copies)
        f.append(
            finding(
                "tied-head",
                f"{shown(s.tied_copies)} is stored although config.json ties it to "
                f"{expectation.tied_names.get(s.tied_copies[0], 'the input embeddings')}: a redundant copy "
                f"of {n:,} parameters (counted under tied_duplicates)",
                tensors=s.tied_copies,
                severity="warning",
            )
        )
    if s.shared_copies:
        n = sum(stored[c].elements for c in s.shared_copies)
        f.append(
            finding(
                "tied-head",
                f"{shown(s.shared_copies)} stored beside "
                f"{expectation.tied_names.get(s.shared_copies[0], 'the tensor it shares')}: the model shares "
                f"one parameter under these names (loaders tie them), so the copies are counted once "
                f"({n:,} elements under tied_duplicates)",
                tensors=s.shared_copies,
                severity="info",
            )
        )
    if s.buffers:
        n = sum(stored[b].elements for b in s.buffers)
        f.append(
            finding(
                "buffer-stored",
                f"{plural(len(s.buffers), 'recomputable buffer')} stored ({n:,} elements, "
                f"not parameters): {shown(s.buffers)}",
                tensors=s.buffers,
            )
        )
    mtp_stored = [n for n, c in rec.categories.items() if c == "mtp"]
    if mtp_stored:
        f.append(
            finding(
                "mtp-module",
                f"{plural(expectation.mtp_layers, 'multi-token-prediction layer')} stored "
                f"({plural(len(mtp_stored), 'tensor')}, {ledger['mtp']:,} parameters) beside the "
                f"{expectation.num_layers}-layer model; inference loaders usually skip it",
                tensors=mtp_stored,
            )
        )
    if s.scales:
        f.append(
            finding(
                "quantization-tensors",
                f"{plural(len(s.scales), 'quantization scale tensor')} "
                f"({_elements(stored, s.scales):,} elements) stored beside the quantized "
                "weights",
                tensors=s.scales,
            )
        )
    for note, names in s.notes.items():
        f.append(
            finding(
                "quantization-tensors",
                f"{plural(len(names), 'tensor')} ({_elements(stored, names):,} elements) {note}: {shown(names)}",
                tensors=names,
            )
        )
    problems = s.scale_problems + quantization.extra_problems()
    if problems:
        f.append(
            finding(
                "quantization-scale-mismatch",
                f"{plural(len(problems), 'quantization tensor')} do not "
                "fit their weights: " + "; ".join(f"{n}: {p}" for n, p in problems[:MAX_NAMES_IN_MESSAGE]),
                tensors=[n for n, _ in problems],
            )
        )
    for stack, by_layer in s.beyond.items():
        layers = sorted(by_layer)
        names = [n for layer in layers for n in by_layer[layer]]
        f.append(
            finding(
                "config-mismatch",
                f"config.json declares {_declared(stack)}"
                + (f" (+{stack.extra} MTP)" if stack.extra else "")
                + f" but layer{'s' if len(layers) > 1 else ''} {_ranges(layers)} "
                f"{'are' if len(layers) > 1 else 'is'} stored too ({plural(len(names), 'tensor')})",
                tensors=names,
            )
        )
    beyond = {n for by_layer in s.beyond.values() for names in by_layer.values() for n in names}
    rest = [n for n in s.unexplained if n not in beyond]
    if rest:
        f.append(
            finding(
                "unexpected-tensor",
                f"{plural(len(rest), 'stored tensor')} that the {expectation.spec.file} "
                f"formula does not explain: {shown(rest)}",
                tensors=rest,
            )
        )
    f.extend(_dtype_outliers(s.by_rule, expected))
    return f


def _report_missing(
    f: list[Finding], missing: list[str], expected: Mapping[str, ExpectedTensor], expectation: Expectation
) -> None:
    """Missing tensors, with whole missing layers of each stack named as such."""
    if not missing:
        return
    per_module: Counter[str] = Counter(e.module for e in expected.values() if e.module and e.kind in REQUIRED)
    gone: Counter[str] = Counter(m for n in missing if (m := expected[n].module))
    for module in [m for m, n in gone.items() if n == per_module[m]]:
        names = [n for n in missing if expected[n].module == module]
        f.append(
            finding(
                "missing-tensor",
                f"the {module} tower is missing entirely ({plural(len(names), 'tensor')}, "
                f"{sum(expected[n].elements for n in names):,} parameters)",
                tensors=names,
            )
        )
        missing = [n for n in missing if expected[n].module != module]
    per_layer_expected: Counter[tuple[str, int]] = Counter()
    per_layer_missing: Counter[tuple[str, int]] = Counter()
    for e in expected.values():
        if e.layer is not None and e.stack is not None and e.kind in REQUIRED:
            per_layer_expected[(e.stack, e.layer)] += 1
    for n in missing:
        e = expected[n]
        if e.layer is not None and e.stack is not None:
            per_layer_missing[(e.stack, e.layer)] += 1
    whole = {key for key, n in per_layer_missing.items() if n == per_layer_expected[key]}
    for stack in expectation.stacks:
        layers = sorted(layer for name, layer in whole if name == stack.name)
        if not layers:
            continue
        names = [
            n for n in missing if (expected[n].stack, expected[n].layer) in whole and expected[n].stack == stack.name
        ]
        what = f"{stack.label} layer" if stack.label else "layer"
        f.append(
            finding(
                "missing-tensor",
                f"{what}{'s' if len(layers) > 1 else ''} {_ranges(layers)} of "
                f"{stack.count} {'are' if len(layers) > 1 else 'is'} missing entirely "
                f"({plural(len(names), 'tensor')})",
                tensors=names,
            )
        )
        declared = [layer for layer in layers if layer < stack.count]
        if declared:
            stored_layers = stack.count - len(declared)
            f.append(
                finding(
                    "config-mismatch",
                    f"config.json declares {_declared(stack)} but only "
                    f"{stored_layers:,} {'is' if stored_layers == 1 else 'are'} stored",
                    tensors=names,
                    files=["config.json"],
                    expected=stack.count,
                    actual=stored_layers,
                )
            )
    missing = [n for n in missing if (expected[n].stack, expected[n].layer) not in whole]
    if missing:
        f.append(
            finding(
                "missing-tensor",
                f"{plural(len(missing), 'tensor')} required by config.json "
                f"{'is' if len(missing) == 1 else 'are'} not stored: {shown(missing)}",
                tensors=missing,
            )
        )


def _declared(stack: StackInfo) -> str:
    """``"34 layers"``, ``"1 layer"``, ``"27 vision layers"``."""
    return plural(stack.count, f"{stack.label} layer" if stack.label else "layer")


def _ranges(values: list[int]) -> str:
    from ..inventory.groups import ranges

    return ranges(values).replace("..", "-")


def _dtype_outliers(by_rule: dict[int, list[Tensor]], expected: Mapping[str, ExpectedTensor]) -> list[Finding]:
    """Within one kind of tensor (one spec rule), dtypes other than the majority's.

    A layer saved in another dtype is one finding naming the layer(s), not one per kind of tensor in it.
    """
    odd: list[tuple[Tensor, str]] = []  # (outlier, majority dtype of its kind)
    for tensors in by_rule.values():
        counts = Counter(t.dtype for t in tensors)
        if len(counts) < 2:
            continue
        majority, _ = counts.most_common(1)[0]
        odd += [(t, majority) for t in tensors if t.dtype != majority]
    by_kind: dict[tuple[str, str, bool], list[Tensor]] = defaultdict(list)
    for t, majority in odd:
        by_kind[(t.dtype, majority, expected[t.name].layer is not None)].append(t)
    out = []
    for (dtype, majority, in_layers), tensors in by_kind.items():
        names = [t.name for t in tensors]
        layers = sorted({layer for n in names if (layer := expected[n].layer) is not None})
        where = f"layer{'s' if len(layers) > 1 else ''} {_ranges(layers)}: " if in_layers else ""
        out.append(
            finding(
                "dtype-outlier",
                f"{where}{plural(len(names), 'tensor')} stored as {dtype} while "
                f"the same kinds of tensor elsewhere are {majority}: {shown(names)}",
                tensors=names,
                expected=majority,
                actual=dtype,
            )
        )
    return out
