"""Reconciliation: what config.json says must be there vs what is stored, every difference explained.

The stages, one module each: ``compare`` (expected x stored -> the ledger and the raw differences), ``messages``
(differences -> findings), ``breakdown`` (expected counts, component rows, formulas), ``fallback`` (no formula:
the structural check). This module picks the spec and layout and runs them; architecture knowledge comes from
the spec files. Every expected tensor that is not stored is a finding; the ledger always sums to the stored
parameter total.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from typing import Any, cast

from ..core.errors import ConfigError
from ..core.findings import Finding, finding, plural
from ..core.names import shown
from ..inventory.build import Inventory
from ..inventory.groups import split_name
from ..quant import Quantization, stands_for
from ..quant.checks import quantization_findings
from ..read.checkpoint import SHARE_NAMES_FROM
from ..read.header import NAME, Tensor
from ..specs import (
    Expectation,
    ExpectedTensor,
    all_specs,
    buffer_suffixes,
    by_class_note,
    expand,
    select,
    selection_note,
)
from ..specs.expr import ExprError, NoSubSpec
from ..specs.layouts import best_layout
from .breakdown import ExpectedSummary, closed_form_text, component_rows, formula_text, summarize
from .compare import sort_expected, sort_the_rest
from .fallback import generic_reconciliation
from .messages import MAX_NAMES_IN_MESSAGE, findings_of
from .parts import KnownPart, known_parts
from .result import LEDGER_KEYS, Component, Reconciliation
from .structural import checked_note

__all__ = [
    "LEDGER_KEYS",
    "Component",
    "ExpectedSummary",
    "Reconciliation",
    "UnknownArchitecture",
    "formula_report",
    "reconcile",
    "summarize",
]


class UnknownArchitecture(ConfigError):
    """``st-audit formula`` on a model_type no spec covers."""


def reconcile(
    inventory: Inventory, config: dict[str, Any] | None, indexed: Mapping[str, str] | None = None
) -> Reconciliation:
    """Compare the inventory with what ``config`` implies; never raises for a bad tensor.

    ``indexed``: the index's weight_map, whose names also say which layout the checkpoint uses when shards
    are absent (an index-only folder, LFS pointers)."""
    if config is None:
        rec = generic_reconciliation(inventory, {})
        rec.findings.append(
            finding(
                "config-missing",
                "no config.json next to the weights: the checkpoint was checked "
                "for consistency only, not against an architecture formula",
            )
        )
        return rec
    spec, cfg = select(config)
    model_type = cfg.get("model_type")
    architectures = config.get("architectures")
    architecture = architectures[0] if isinstance(architectures, list) and architectures else None
    by_class = by_class_note(spec, cfg) if spec is not None else None
    if spec is None:
        rec = generic_reconciliation(inventory, cfg)
        parts = known_parts(cfg, inventory.tensors)
        checked = _check_parts(rec, parts, inventory) if parts else ""
        rec.findings.append(
            finding("unknown-architecture", f"{selection_note(cfg)}; {checked}{checked_note(inventory)}")
        )
    else:
        try:
            expectation = _expanded(spec, cfg, _stored_strings(inventory.tensors))
        except NoSubSpec as e:  # a part no formula covers (VisionEncoderDecoder's Swin encoder): structural check
            rec = generic_reconciliation(inventory, cfg)
            rec.findings.append(finding("unknown-architecture", f"{e}; {checked_note(inventory)}"))
        except ExprError as e:
            rec = generic_reconciliation(inventory, cfg)
            if by_class is not None:  # a borrowed class name's formula is not the config's to fail: no formula
                rec.findings.append(
                    finding(
                        "unknown-architecture",
                        f"{selection_note(cfg)}; architectures[0] names a "
                        f"class whose formula ({spec.file}) cannot evaluate this config.json: "
                        f"{e}; {checked_note(inventory)}",
                    )
                )
            else:
                rec.findings.append(
                    finding(
                        "config-mismatch",
                        f"config.json cannot be evaluated by the {spec.file} formula: {e}",
                        files=["config.json"],
                    )
                )
        else:
            names = (
                inventory.tensors
                if not indexed or indexed.keys() == inventory.tensors.keys()
                else {**indexed, **inventory.tensors}
            )
            expectation = best_layout(expectation, names)
            foreign = _remote_code_layout(config, expectation, names)
            if foreign is not None:
                rec = generic_reconciliation(inventory, cfg)
                rec.findings.append(finding("unknown-architecture", f"{foreign}; {checked_note(inventory)}"))
            else:
                rec = _compare(inventory, expectation, cfg)
                if by_class is not None:
                    rec.findings.append(finding("formula-by-class", by_class))
                if indexed:
                    rec.findings += _unexplained_in_unread_shards(indexed, inventory, expectation)
    rec.model_type = model_type if isinstance(model_type, str) else None
    rec.architecture = architecture if isinstance(architecture, str) else None
    assert sum(rec.ledger.values()) == inventory.totals.parameters + rec.packed_extra, "ledger must cover every tensor"
    return rec


def _check_parts(rec: Reconciliation, parts: list[KnownPart], inventory: Inventory) -> str:
    """The known parts of a checkpoint without a formula, each compared with its own formula, merged into the
    structural reconciliation of the whole. Which differences are the checkpoint's fault is told by where they
    are (``local_differences``): a tensor missing or misshapen in some layers of a part whose other layers hold it
    as the formula says is damage, and an error; a difference in every layer, or outside the layers, is how the
    repo's class builds the part (a composite sets its sub-config's keys, drops or adds a tensor), which no
    formula of the part alone can tell, so that part is left to the structural check with the rest, never an
    error. Returns what the unknown-architecture note says about the parts."""
    stored = inventory.tensors
    said: list[str] = []
    for part in parts:
        names = [n for n in part.expectation.tensors if n in stored]
        sub = _compare(replace(inventory, tensors={n: stored[n] for n in names}), part.expectation, dict(part.config))
        differences = [f for f in sub.findings if f.severity != "info"]
        if differences and not local_differences(differences, part.expectation.tensors, stored):
            said.append(
                f"{part.label} differs from its formula in every layer or outside them "
                f"({'; '.join(f.message for f in differences[:2])}): most likely the repo's own way of "
                "building it, so it is checked structurally"
            )
            continue
        rec.categories.update(sub.categories)
        covered = set(names)  # the structural check's layer findings about the part's tensors alone give way
        rec.findings = [
            f for f in rec.findings if not (f.code in LAYER_CODES and f.tensors and covered.issuperset(f.tensors))
        ] + differences
        summary = summarize(part.expectation, part.expectation.tensors)
        said.append(
            f"{part.label}: {len(names):,} tensors, {summary.parameters:,} parameters, "
            + (
                "exactly as its formula says"
                if not differences
                else f"{plural(len(differences), 'finding')} where some layers differ from the others"
            )
        )
    rec.ledger = dict.fromkeys(LEDGER_KEYS, 0)
    for name, category in rec.categories.items():
        rec.ledger[category] += stored[name].elements
    return f"parts config.json nests with known types, checked by their own formulas: {'; '.join(said)}; the rest: "


# the structural check's findings about layers (a layer lacking a tensor, a shape differing from its siblings)
LAYER_CODES = frozenset({"missing-tensor", "shape-mismatch"})


def local_differences(
    differences: list[Finding], expected: Mapping[str, ExpectedTensor], stored: Mapping[str, Tensor]
) -> bool:
    """Whether every tensor the differences name sits in a layer whose siblings (the same tensor in the part's
    other layers) are stored with the shape the formula gives: a layer lost a tensor or holds a wrong one."""
    named = {n for f in differences for n in f.tensors}
    if not named:
        return False
    siblings: dict[str, list[str]] = {}
    for name in expected:
        template, indices = split_name(name)
        if indices:
            siblings.setdefault(template, []).append(name)
    for name in named:
        template, indices = split_name(name)
        fine = [
            n
            for n in siblings.get(template, ())
            if n not in named and n in stored and stored[n].shape in (expected[n].shape, expected[n].alt_shape)
        ]
        if not indices or not fine:
            return False
    return True


# A fleet audits many checkpoints of one architecture and config (an organisation's fine-tunes, a training run's
# steps) in one process: their expected tensors are the same value, evaluated once. Expectations are immutable;
# only small ones are kept (a DeepSeek-V3 expansion is ~92k entries), and only a few.
_EXPANDED: OrderedDict[tuple[str, int, str], Expectation] = OrderedDict()
_EXPANDED_LOCK = threading.Lock()
EXPANSIONS_KEPT = 16
KEEP_BELOW_TENSORS = 20_000


def _expanded(spec: Any, cfg: Mapping[str, Any], reuse: Callable[[list[str]], list[str]] | None) -> Expectation:
    """``expand(spec, cfg)``, from the process's few recent expansions when the same spec and config were seen."""
    if reuse is not None:  # the stored strings of a giant checkpoint: its own expansion
        return expand(spec, cfg, reuse=reuse)
    try:
        key = (spec.file, id(spec), json.dumps(cfg, sort_keys=True, default=repr))
    except (TypeError, ValueError):
        return expand(spec, cfg)
    with _EXPANDED_LOCK:
        found = _EXPANDED.get(key)
        if found is not None:
            _EXPANDED.move_to_end(key)
            return found
    expectation = expand(spec, cfg)
    if len(expectation.tensors) < KEEP_BELOW_TENSORS:
        with _EXPANDED_LOCK:
            _EXPANDED[key] = expectation
            while len(_EXPANDED) > EXPANSIONS_KEPT:
                _EXPANDED.popitem(last=False)
    return expectation


def _stored_strings(stored: Mapping[str, Tensor]) -> Callable[[list[str]], list[str]] | None:
    """For a checkpoint large enough to matter: expected names as the stored string objects when all of them are
    stored (``expand``'s ``reuse``), at C speed."""
    if len(stored) < SHARE_NAMES_FROM:
        return None
    get = stored.get

    def reuse(names: list[str]) -> list[str]:
        found = list(map(get, names))
        return names if None in found else list(map(NAME, cast(list[Tensor], found)))

    return reuse


def _explainer(expectation: Expectation) -> Callable[[str], bool]:
    """Whether the formula explains a tensor name by name alone: an expected tensor (or a legacy alias of one), a
    quantized form of one (``quant.stands_for``: ``q_proj.qweight``, ``q_proj.weight.absmax``,
    ``gate_up_proj_blocks``), or a recomputable buffer."""
    expected = expectation.tensors
    aliases = {a for e in expected.values() for a in e.aliases}
    suffixes = buffer_suffixes()

    def explained(name: str) -> bool:
        return name in expected or name in aliases or name.endswith(suffixes) or stands_for(name, expected) is not None

    return explained


def _remote_code_layout(config: Mapping[str, Any], expectation: Expectation, names: Collection[str]) -> str | None:
    """Why the formula is not this checkpoint's, when config.json's ``auto_map`` loads it with the repo's own
    code and that code names most tensors its own way (microsoft/Florence-2's ``language_model.model.*`` and
    ``vision_tower.*``, written before transformers had the class as ``model.language_model.*``): reconciling
    would report every tensor missing and every stored one unexpected, a wall of false errors. Judged by the
    share of stored names the formula explains (scales and packed forms count), so a truncated or quantized
    checkpoint of a remote-code model is still reconciled; None when the formula applies."""
    if not isinstance(config.get("auto_map"), dict) or not names:
        return None
    expected = expectation.tensors
    if 2 * sum(map(expected.__contains__, names)) >= len(names):  # the common case, without the explainer
        return None
    explained = _explainer(expectation)
    matched = sum(1 for n in names if explained(n))
    if 2 * matched >= len(names):
        return None
    return (
        f"config.json's auto_map loads the repo's own code, whose tensor names are not transformers' "
        f"{expectation.cls} layout in {expectation.spec.file} ({matched:,} of {len(names):,} names match), "
        "so no formula was applied"
    )


def _unexplained_in_unread_shards(
    indexed: Mapping[str, str], inventory: Inventory, expectation: Expectation
) -> list[Finding]:
    """Names the index puts in shards that could not be read and that the formula does not explain, judged by
    name alone: neither an expected tensor, nor stored beside one (a scale or packed form of an expected
    weight: ``q_proj.qweight``, ``q_proj.weight.absmax``, ``gate_up_proj_blocks``), nor a recomputable buffer."""
    read = {f.name for f in inventory.files}
    try:
        if read.issuperset(indexed.values()):  # the usual case: every shard the index names was read
            return []
    except TypeError:  # an unhashable shard name: judged entry by entry below
        pass
    explained = _explainer(expectation)
    names = [
        n
        for n, shard in indexed.items()
        if isinstance(shard, str) and shard not in read and n not in inventory.tensors and not explained(n)
    ]
    if not names:
        return []
    return [
        finding(
            "unexpected-tensor",
            f"{plural(len(names), 'tensor name')} that the index puts in shards that "
            f"could not be read, and that the {expectation.spec.file} formula does not explain: "
            f"{shown(names, MAX_NAMES_IN_MESSAGE)}",
            tensors=names,
        )
    ]


def _compare(inventory: Inventory, expectation: Expectation, cfg: dict[str, Any]) -> Reconciliation:
    stored = inventory.tensors
    expected = expectation.tensors
    rec = Reconciliation()
    rec.spec = {"file": expectation.spec.file, "class": _class_of(expectation, cfg), "layout": expectation.layout}
    rec.heads = [n for n, e in expected.items() if (e.kind == "head" or e.component == "lm_head") and n in stored]
    quantization = Quantization.of(cfg, stored, expected, expectation.tied)
    sorted_ = sort_expected(expected, stored, rec, quantization)
    sort_the_rest(expected, stored, expectation, quantization, rec, sorted_)
    rec.findings = findings_of(sorted_, expected, stored, expectation, quantization, rec)
    rec.findings += quantization_findings(quantization, stored, expected, rec.categories, cfg)
    summary = summarize(expectation, expected)
    rec.expected_parameters = summary.parameters
    rec.activated_parameters = summary.activated
    rec.mtp_parameters = summary.mtp
    rec.components = component_rows(summary.rows, sorted_.actual_by_row, summary.layers_by_type, summary.uneven)
    rec.formula_by_component = formula_text(rec.components, summary.parameters)
    rec.formula = closed_form_text(expectation, summary.parameters) or rec.formula_by_component
    if summary.mtp is not None:  # a row of its own, outside the model's total
        rec.components.append(Component("mtp", None, expectation.mtp_layers, summary.mtp, rec.ledger["mtp"]))
    return rec


def _class_of(expectation: Expectation, cfg: dict[str, Any]) -> str:
    """The task class the formula was built for; for a diffusers model, its class (``UNet2DConditionModel``)."""
    name = cfg.get("_class_name")
    return name if expectation.spec.family == "diffusers" and isinstance(name, str) else expectation.cls


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
    components = component_rows(summary.rows, {}, summary.layers_by_type, summary.uneven)
    by_component = formula_text(components, summary.parameters)
    formula = closed_form_text(expectation, summary.parameters) or by_component
    if summary.mtp is not None:
        components.append(Component("mtp", None, expectation.mtp_layers, summary.mtp, 0))
    return {
        "model_type": cfg.get("model_type"),
        "spec": spec.file,
        "class": _class_of(expectation, cfg),
        "parameters": summary.parameters,
        "activated_parameters": summary.activated,
        "mtp_parameters": summary.mtp,
        "tied_embeddings": expectation.tied,
        "layers": expectation.num_layers,
        "formula": formula,
        "formula_by_component": by_component,
        "components": [{k: v for k, v in c.to_dict().items() if k != "actual"} for c in components],
    }
