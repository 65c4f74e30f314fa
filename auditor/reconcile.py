"""Reconciliation: what config.json says must be there vs what is stored, every difference explained.

Every stored tensor lands in exactly one ledger category (model, mtp, tied_duplicates, buffers,
quantization, unexplained), so the ledger always sums to the stored parameter total. Every expected tensor
that is not stored is a finding. Architecture knowledge comes from the spec files; this module only
compares.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Mapping

from .findings import Finding, finding, plural
from .generic import checked_note, structure
from .inventory import Inventory, Tensor
from .quant import Quantization
from .quant.checks import quantization_findings
from .errors import ConfigError
from .specs import (Expectation, ExpectedTensor, StackInfo, all_specs, buffer_suffixes, common, expand, select,
                    selection_note)
from .specs.expr import ExprError, NoSubSpec
from .specs.layouts import best_layout
from .specs.symbolic import closed_form

LEDGER_KEYS = ("model", "mtp", "tied_duplicates", "buffers", "quantization", "unexplained")
MAX_NAMES_IN_MESSAGE = 4
MAX_STRUCTURED = 20  # tensor -> shape entries in a finding's expected/actual (as many names as the JSON lists)


class UnknownArchitecture(ConfigError):
    """``st-audit formula`` on a model_type no spec covers."""


@dataclass
class Component:
    """One row of the breakdown: a component of one layer type (or of the whole model)."""

    component: str
    layer_type: str | None
    layers: int
    expected: int
    actual: int
    uniform: bool = True  # every layer of this type has the same count (UNet blocks of growing width do not)

    def to_dict(self) -> dict[str, Any]:
        per_layer = self.expected // self.layers if self.layers and self.uniform else None
        return {"component": self.component, "layer_type": self.layer_type, "layers": self.layers,
                "expected_per_layer": per_layer, "expected": self.expected, "actual": self.actual}


@dataclass
class Reconciliation:
    """Expected counts, the ledger, the component breakdown and the findings of the comparison."""

    model_type: str | None = None
    architecture: str | None = None
    expected_parameters: int | None = None
    activated_parameters: int | None = None
    mtp_parameters: int | None = None
    formula: str | None = None
    formula_by_component: str | None = None
    spec: dict[str, str] | None = None  # the spec file, task class and name layout the formula came from
    ledger: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LEDGER_KEYS, 0))
    components: list[Component] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    categories: dict[str, str] = field(default_factory=dict)  # tensor -> ledger category
    # parameters packed weights encode beyond their stored element count, by stored dtype (MXFP4: U8, two per
    # byte; GPTQ/AWQ: I32, 32/bits per element)
    packed_extra_by_dtype: dict[str, int] = field(default_factory=dict)

    @property
    def packed_extra(self) -> int:
        return sum(self.packed_extra_by_dtype.values())


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:MAX_NAMES_IN_MESSAGE])
    return shown + (f" and {len(names) - MAX_NAMES_IN_MESSAGE:,} more" if len(names) > MAX_NAMES_IN_MESSAGE else "")


def reconcile(inventory: Inventory, config: dict[str, Any] | None,
              indexed: Mapping[str, str] | None = None) -> Reconciliation:
    """Compare the inventory with what ``config`` implies; never raises for a bad tensor.

    ``indexed``: the index's weight_map, whose names also say which layout the checkpoint uses when shards
    are absent (an index-only folder, LFS pointers)."""
    if config is None:
        rec = _generic(inventory, {})
        rec.findings.append(finding("config-missing", "no config.json next to the weights: the checkpoint was checked "
                                    "for consistency only, not against an architecture formula"))
        return rec
    spec, cfg = select(config)
    model_type = cfg.get("model_type")
    architectures = config.get("architectures")
    architecture = architectures[0] if isinstance(architectures, list) and architectures else None
    if spec is None:
        rec = _generic(inventory, cfg)
        rec.findings.append(finding("unknown-architecture", f"{selection_note(cfg)}; {checked_note(inventory)}"))
    else:
        try:
            expectation = expand(spec, cfg)
        except NoSubSpec as e:  # a part no formula covers (VisionEncoderDecoder's Swin encoder): structural check
            rec = _generic(inventory, cfg)
            rec.findings.append(finding("unknown-architecture", f"{e}; {checked_note(inventory)}"))
        except ExprError as e:
            rec = _generic(inventory, cfg)
            rec.findings.append(finding("config-mismatch", f"config.json cannot be evaluated by the {spec.file} "
                                        f"formula: {e}", files=["config.json"]))
        else:
            names = inventory.tensors if not indexed else {**indexed, **inventory.tensors}
            expectation = best_layout(expectation, names)
            rec = _compare(inventory, expectation, cfg)
            if indexed:
                rec.findings += _unexplained_in_unread_shards(indexed, inventory, expectation)
    rec.model_type = model_type if isinstance(model_type, str) else None
    rec.architecture = architecture if isinstance(architecture, str) else None
    assert sum(rec.ledger.values()) == inventory.totals.parameters + rec.packed_extra, "ledger must cover every tensor"
    return rec


def _unexplained_in_unread_shards(indexed: Mapping[str, str], inventory: Inventory,
                                  expectation: Expectation) -> list[Finding]:
    """Names the index puts in shards that could not be read and that the formula does not explain, judged by
    name alone: neither an expected tensor, nor stored beside one (a scale or packed form of an expected
    weight: ``q_proj.qweight``, ``q_proj.weight.absmax``, ``gate_up_proj_blocks``), nor a recomputable buffer."""
    read = {f.name for f in inventory.files}
    expected = expectation.tensors
    aliases = {a for e in expected.values() for a in e.aliases}
    suffixes = buffer_suffixes()

    def explained(name: str) -> bool:
        if name in expected or name in aliases or name.endswith(suffixes):
            return True
        parts = name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            if module in expected or f"{module}.weight" in expected or module.rsplit("_", 1)[0] in expected:
                return True
        return name.rsplit("_", 1)[0] in expected

    names = [n for n, shard in indexed.items() if isinstance(shard, str) and shard not in read
             and n not in inventory.tensors and not explained(n)]
    if not names:
        return []
    return [finding("unexpected-tensor", f"{plural(len(names), 'tensor name')} that the index puts in shards that "
                    f"could not be read, and that the {expectation.spec.file} formula does not explain: "
                    f"{_names(names)}", tensors=names)]


@dataclass
class _Sorted:
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
    beyond: dict[StackInfo, dict[int, list[str]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    unexplained: list[str] = field(default_factory=list)
    by_rule: dict[int, list[Tensor]] = field(default_factory=lambda: defaultdict(list))  # for dtype outliers
    actual_by_row: dict[tuple[str | None, str], int] = field(default_factory=lambda: defaultdict(int))


def _compare(inventory: Inventory, expectation: Expectation, cfg: dict[str, Any]) -> Reconciliation:
    stored = inventory.tensors
    expected = expectation.tensors
    rec = Reconciliation()
    rec.spec = {"file": expectation.spec.file, "class": _class_of(expectation, cfg), "layout": expectation.layout}
    quantization = Quantization(cfg)
    quantization.prepare(stored, expected, expectation.tied)
    sorted_ = _sort_expected(expected, stored, rec, quantization)
    _sort_the_rest(expected, stored, expectation, quantization, rec, sorted_)
    rec.findings = _findings(sorted_, expected, stored, expectation, quantization, rec)
    rec.findings += quantization_findings(quantization, stored, expected, rec.categories, cfg)
    summary = summarize(expectation, expected)
    rec.expected_parameters = summary.parameters
    rec.activated_parameters = summary.activated
    rec.mtp_parameters = summary.mtp
    rec.components = _components(summary.rows, sorted_.actual_by_row, summary.layers_by_type, summary.uneven)
    rec.formula_by_component = _formula(rec.components, summary.parameters)
    rec.formula = _closed_form(expectation, summary.parameters) or rec.formula_by_component
    if summary.mtp is not None:  # a row of its own, outside the model's total
        rec.components.append(Component("mtp", None, expectation.mtp_layers, summary.mtp, rec.ledger["mtp"]))
    return rec


def _class_of(expectation: Expectation, cfg: dict[str, Any]) -> str:
    """The task class the formula was built for; for a diffusers model, its class (``UNet2DConditionModel``)."""
    name = cfg.get("_class_name")
    return name if expectation.spec.family == "diffusers" and isinstance(name, str) else expectation.cls


def _sort_expected(expected: Mapping[str, ExpectedTensor], stored: dict[str, Tensor], rec: Reconciliation,
                   quantization: Quantization) -> _Sorted:
    """Walk the expected tensors: matched (model or MTP), wrong shape, tied copy, buffer, or missing."""
    s = _Sorted()
    ledger, categories = rec.ledger, rec.categories
    for name, e in expected.items():
        t = stored.get(name)
        if t is None and e.aliases:  # a legacy name an old exporter wrote for the same weight
            name = next((a for a in e.aliases if a in stored), name)
            t = stored.get(name)
        if e.kind == "shared":  # the same parameter under a second name: never required, counted once
            if t is not None:
                categories[name] = "tied_duplicates"
                ledger["tied_duplicates"] += t.elements
                s.shared_copies.append(name)
                if t.shape != e.shape:
                    s.mismatched.append((name, e.shape, t.shape))
            continue
        if e.kind == "head" and e.tied:
            if t is not None:
                categories[name] = "tied_duplicates"
                ledger["tied_duplicates"] += t.elements
                s.tied_copies.append(name)
            continue
        if e.kind == "buffer":
            if t is not None:
                categories[name] = "buffers"
                ledger["buffers"] += t.elements
                s.buffers.append(name)
                if t.shape != e.shape and t.shape != e.alt_shape:
                    s.mismatched.append((name, e.shape, t.shape))
            continue
        if t is None:
            if e.kind == "head":
                s.head_missing.append(name)
            elif e.mtp:
                s.mtp_missing.append(name)
            else:
                s.missing[name] = None
            continue
        category = "mtp" if e.mtp else "model"
        categories[name] = category
        elements = t.elements
        verdict = quantization.verdict(name)
        if verdict is not None and verdict.category == "packed":  # quantized in place (bitsandbytes, FP8, int8)
            elements = verdict.logical_elements
            extra = rec.packed_extra_by_dtype
            extra[t.dtype] = extra.get(t.dtype, 0) + elements - t.elements
            if verdict.problem:
                s.scale_problems.append((name, verdict.problem))
        elif t.shape != e.shape and t.shape != e.alt_shape:  # alt_shape: a release's transpose of the weight
            s.mismatched.append((name, e.shape, t.shape))
        ledger[category] += elements
        if not e.mtp:
            s.actual_by_row[(e.layer_type, e.component)] += elements
        if verdict is None:  # a quantized-in-place weight beside full-precision ones of its kind is the config's say
            s.by_rule[e.rule].append(t)
    return s


def _sort_the_rest(expected: dict[str, ExpectedTensor], stored: dict[str, Tensor], expectation: Expectation,
                   quantization: Quantization, rec: Reconciliation, s: _Sorted) -> None:
    """Stored tensors the formula did not name: quantization, buffers, layers past the config, or unexplained."""
    ledger, categories = rec.ledger, rec.categories
    suffixes = buffer_suffixes()
    for name, t in stored.items():
        if name in categories:
            continue
        verdict = quantization.classify(t, stored, expected)
        if verdict is not None:
            if verdict.problem:
                s.scale_problems.append((name, verdict.problem))
            if verdict.category == "packed":
                base = expected.get(verdict.base)
                category = "mtp" if base is not None and base.mtp else "model"
                categories[name] = category
                ledger[category] += verdict.logical_elements
                extra = rec.packed_extra_by_dtype
                extra[t.dtype] = extra.get(t.dtype, 0) + verdict.logical_elements - t.elements
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
        place = _stack_layer(name, expectation.stacks)
        if place is not None and place[1] >= place[0].count + place[0].extra:
            s.beyond[place[0]][place[1]].append(name)
        categories[name] = "unexplained"
        ledger["unexplained"] += t.elements
        s.unexplained.append(name)


def _findings(s: _Sorted, expected: dict[str, ExpectedTensor], stored: dict[str, Tensor], expectation: Expectation,
              quantization: Quantization, rec: Reconciliation) -> list[Finding]:
    """One readable finding per kind of difference, each with the full tensor list."""
    f: list[Finding] = []
    ledger = rec.ledger
    _report_missing(f, list(s.missing), expected, expectation)
    if s.mtp_missing and len(s.mtp_missing) < sum(1 for e in expected.values() if e.mtp):
        f.append(finding("missing-tensor", f"the MTP module is incomplete: {plural(len(s.mtp_missing), 'tensor')} "
                         f"missing ({_names(s.mtp_missing)})", tensors=s.mtp_missing, severity="warning"))
    if s.mismatched:
        f.append(finding("shape-mismatch", f"{plural(len(s.mismatched), 'tensor')} with a shape config.json does not "
                         "imply: " + "; ".join(f"{n} is {list(a)}, expected {list(e)}"
                                                for n, e, a in s.mismatched[:MAX_NAMES_IN_MESSAGE])
                         + (f" and {len(s.mismatched) - MAX_NAMES_IN_MESSAGE:,} more"
                            if len(s.mismatched) > MAX_NAMES_IN_MESSAGE else ""),
                         tensors=[n for n, _, _ in s.mismatched],
                         expected={n: list(e) for n, e, _ in s.mismatched[:MAX_STRUCTURED]},
                         actual={n: list(a) for n, _, a in s.mismatched[:MAX_STRUCTURED]}))
    if s.head_missing:
        f.append(finding("tied-head", f"config.json does not tie the LM head to the embeddings "
                         f"(tie_word_embeddings is false), but {_names(s.head_missing)} is not stored: loaders would "
                         "leave it randomly initialised", tensors=s.head_missing, severity="error"))
    if s.tied_copies:
        n = sum(stored[c].elements for c in s.tied_copies)
        f.append(finding("tied-head", f"{_names(s.tied_copies)} is stored although config.json ties it to "
                         f"{expectation.tied_names.get(s.tied_copies[0], 'the input embeddings')}: a redundant copy "
                         f"of {n:,} parameters (counted under tied_duplicates)", tensors=s.tied_copies,
                         severity="warning"))
    if s.shared_copies:
        n = sum(stored[c].elements for c in s.shared_copies)
        f.append(finding("tied-head", f"{_names(s.shared_copies)} stored beside "
                         f"{expectation.tied_names.get(s.shared_copies[0], 'the tensor it shares')}: the model shares "
                         f"one parameter under these names (loaders tie them), so the copies are counted once "
                         f"({n:,} elements under tied_duplicates)", tensors=s.shared_copies, severity="info"))
    if s.buffers:
        n = sum(stored[b].elements for b in s.buffers)
        f.append(finding("buffer-stored", f"{plural(len(s.buffers), 'recomputable buffer')} stored ({n:,} elements, "
                         f"not parameters): {_names(s.buffers)}", tensors=s.buffers))
    mtp_stored = [n for n, c in rec.categories.items() if c == "mtp"]
    if mtp_stored:
        f.append(finding("mtp-module", f"{plural(expectation.mtp_layers, 'multi-token-prediction layer')} stored "
                         f"({plural(len(mtp_stored), 'tensor')}, {ledger['mtp']:,} parameters) beside the "
                         f"{expectation.num_layers}-layer model; inference loaders usually skip it", tensors=mtp_stored))
    if s.scales:
        f.append(finding("quantization-tensors", f"{plural(len(s.scales), 'quantization scale tensor')} "
                         f"({sum(stored[n].elements for n in s.scales):,} elements) stored beside the quantized "
                         "weights", tensors=s.scales))
    for note, names in s.notes.items():
        f.append(finding("quantization-tensors", f"{plural(len(names), 'tensor')} "
                         f"({sum(stored[n].elements for n in names):,} elements) {note}: {_names(names)}", tensors=names))
    problems = s.scale_problems + quantization.extra_problems()
    if problems:
        f.append(finding("quantization-scale-mismatch", f"{plural(len(problems), 'quantization tensor')} do not "
                         "fit their weights: " + "; ".join(f"{n}: {p}" for n, p in problems[:MAX_NAMES_IN_MESSAGE]),
                         tensors=[n for n, _ in problems]))
    for stack, by_layer in s.beyond.items():
        layers = sorted(by_layer)
        names = [n for layer in layers for n in by_layer[layer]]
        f.append(finding("config-mismatch", f"config.json declares {_declared(stack)}"
                         + (f" (+{stack.extra} MTP)" if stack.extra else "")
                         + f" but layer{'s' if len(layers) > 1 else ''} {_ranges(layers)} "
                         f"{'are' if len(layers) > 1 else 'is'} stored too ({plural(len(names), 'tensor')})",
                         tensors=names))
    beyond = {n for by_layer in s.beyond.values() for names in by_layer.values() for n in names}
    rest = [n for n in s.unexplained if n not in beyond]
    if rest:
        f.append(finding("unexpected-tensor", f"{plural(len(rest), 'stored tensor')} that the {expectation.spec.file} "
                         f"formula does not explain: {_names(rest)}", tensors=rest))
    f.extend(_dtype_outliers(s.by_rule, expected))
    return f


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
    """Model parameters (tied weights once; MTP, buffers and bookkeeping excluded), activated and MTP counts."""
    rows: dict[tuple[str | None, str], int] = defaultdict(int)
    layers_by_type: dict[str | None, set[int]] = defaultdict(set)
    per_layer: dict[tuple[str, int], int] = defaultdict(int)
    parameters = activated = mtp = 0
    has_experts = False
    values = (expected or expectation.tensors).values()
    copies = Counter(map(id, values))  # experts of one layer share one ExpectedTensor
    for e in {id(e): e for e in values}.values():
        if e.kind in ("buffer", "shared") or (e.kind == "head" and e.tied):
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
    return ExpectedSummary(parameters, activated if has_experts else None,
                           mtp if expectation.mtp_layers else None, rows, layers_by_type, uneven)


def formula_report(config: dict[str, Any]) -> dict[str, Any]:
    """What ``st-audit formula`` prints: the expected counts from config.json alone."""
    spec, cfg = select(config)
    if spec is None:
        raise UnknownArchitecture(f"{selection_note(cfg)}; known: " + ", ".join(sorted(all_specs())))
    try:
        expectation = expand(spec, cfg)
    except NoSubSpec as e:
        raise UnknownArchitecture(str(e)) from None
    except ExprError as e:
        raise ConfigError(f"config.json cannot be evaluated by the {spec.file} formula: {e}") from None
    summary = summarize(expectation)
    components = _components(summary.rows, {}, summary.layers_by_type, summary.uneven)
    by_component = _formula(components, summary.parameters)
    formula = _closed_form(expectation, summary.parameters) or by_component
    if summary.mtp is not None:
        components.append(Component("mtp", None, expectation.mtp_layers, summary.mtp, 0))
    return {"model_type": cfg.get("model_type"), "spec": spec.file, "class": _class_of(expectation, cfg),
            "parameters": summary.parameters,
            "activated_parameters": summary.activated, "mtp_parameters": summary.mtp,
            "tied_embeddings": expectation.tied, "layers": expectation.num_layers, "formula": formula,
            "formula_by_component": by_component,
            "components": [{k: v for k, v in c.to_dict().items() if k != "actual"} for c in components]}


def _report_missing(f: list[Finding], missing: list[str], expected: Mapping[str, ExpectedTensor],
                    expectation: Expectation) -> None:
    """Missing tensors, with whole missing layers of each stack named as such."""
    if not missing:
        return
    per_module: Counter[str] = Counter(e.module for e in expected.values() if e.module and e.kind == "param")
    gone = Counter(expected[n].module for n in missing if expected[n].module)
    for module in [m for m, n in gone.items() if n == per_module[m]]:
        names = [n for n in missing if expected[n].module == module]
        f.append(finding("missing-tensor", f"the {module} tower is missing entirely ({plural(len(names), 'tensor')}, "
                         f"{sum(expected[n].elements for n in names):,} parameters)", tensors=names))
        missing = [n for n in missing if expected[n].module != module]
    per_layer_expected: Counter[tuple[str, int]] = Counter()
    per_layer_missing: Counter[tuple[str, int]] = Counter()
    for e in expected.values():
        if e.layer is not None and e.stack is not None and e.kind == "param":
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
        names = [n for n in missing if (expected[n].stack, expected[n].layer) in whole
                 and expected[n].stack == stack.name]
        what = f"{stack.label} layer" if stack.label else "layer"
        f.append(finding("missing-tensor", f"{what}{'s' if len(layers) > 1 else ''} {_ranges(layers)} of "
                         f"{stack.count} {'are' if len(layers) > 1 else 'is'} missing entirely "
                         f"({plural(len(names), 'tensor')})", tensors=names))
        declared = [layer for layer in layers if layer < stack.count]
        if declared:
            stored_layers = stack.count - len(declared)
            f.append(finding("config-mismatch", f"config.json declares {_declared(stack)} but only "
                             f"{stored_layers:,} {'is' if stored_layers == 1 else 'are'} stored", tensors=names,
                             files=["config.json"], expected=stack.count, actual=stored_layers))
    missing = [n for n in missing if (expected[n].stack, expected[n].layer) not in whole]
    if missing:
        f.append(finding("missing-tensor", f"{plural(len(missing), 'tensor')} required by config.json "
                         f"{'is' if len(missing) == 1 else 'are'} not stored: {_names(missing)}", tensors=missing))


def _declared(stack: StackInfo) -> str:
    """``"34 layers"``, ``"1 layer"``, ``"27 vision layers"``."""
    return plural(stack.count, f"{stack.label} layer" if stack.label else "layer")


def _stack_layer(name: str, stacks: tuple[StackInfo, ...]) -> tuple[StackInfo, int] | None:
    """The stack and layer number a stored name falls in (``model.layers.61.x`` -> decoder, 61)."""
    for stack in stacks:
        if name.startswith(stack.prefix):
            head = name[len(stack.prefix):].split(".", 1)[0]
            if head.isdigit():
                return stack, int(head)
    return None


def _ranges(values: list[int]) -> str:
    from .groups import ranges
    return ranges(values).replace("..", "-")


def _dtype_outliers(by_rule: dict[int, list[Tensor]], expected: dict[str, ExpectedTensor]) -> list[Finding]:
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
        layers = sorted({expected[n].layer for n in names if expected[n].layer is not None})
        where = (f"layer{'s' if len(layers) > 1 else ''} {_ranges(layers)}: " if in_layers else "")
        out.append(finding("dtype-outlier", f"{where}{plural(len(names), 'tensor')} stored as {dtype} while "
                           f"the same kinds of tensor elsewhere are {majority}: {_names(names)}", tensors=names,
                           expected=majority, actual=dtype))
    return out


COMPONENT_ORDER: tuple[str, ...] = tuple(common()["components"])


def _components(expected: dict[tuple[str | None, str], int], actual: dict[tuple[str | None, str], int],
                layers_by_type: dict[str | None, set[int]], uneven: frozenset[str | None] = frozenset()) -> list[Component]:
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
        rows.append(Component(component, layer_type, layers, expected.get(key, 0), actual.get(key, 0),
                              layer_type not in uneven))
    return rows


def _closed_form(expectation: Expectation, parameters: int) -> str | None:
    """The symbolic form (``N*(2*d*h*h_d + ...) + ...  [N=36, d=4,096, ...] = total``), checked to be exact."""
    form = closed_form(expectation, parameters)
    return None if form is None else f"{form} = {parameters:,}"


def _formula(components: list[Component], total: int) -> str:
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
            parts.append(f"{layers} {c.layer_type} layers x ({inner})")
        elif layers and not c.uniform:  # blocks of different sizes (a UNet's down blocks): their sums
            inner = " + ".join(f"{r.component} {r.expected:,}" for r in rows)
            parts.append(f"{layers} {c.layer_type} layers ({inner})")
        else:
            parts += [f"{r.component} {r.expected:,} ({r.layer_type} layers)" for r in rows]
    return " + ".join(parts) + f" = {total:,}"


def _generic(inventory: Inventory, cfg: dict[str, Any]) -> Reconciliation:
    """No formula: the structural check of ``generic.py``, with its ledger."""
    rec = Reconciliation()
    quantization = Quantization(cfg)
    stored = inventory.tensors
    rec.categories, rec.findings = structure(
        inventory, cfg, lambda t: "quantization" if quantization.classify(t, stored, {}) is not None else None,
        buffer_suffixes())
    for name, category in rec.categories.items():
        rec.ledger[category] += stored[name].elements
    return rec
