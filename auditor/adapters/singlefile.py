"""Single-file checkpoints in their original layout (``v1-5-pruned-emaonly.safetensors``, ``sd_xl_base_1.0``,
``flux1-dev.safetensors``, ``ae.safetensors``), reconciled through the mapping diffusers' single-file loaders use.

Why: such a file holds several diffusers components under the names the original training code gave them; only
the loader's key conversion says which stored tensor becomes which component tensor. The conversion is data
(``data/single_file.toml``): how a type is recognised, its components with the config the loader builds them
with, and rules turning each diffusers name the component's formula expects into the original name (and shape:
fused qkv, 1x1 convs, transposes). The formula (``expected.expected_layout``) gives the diffusers layout; this
module maps it to the original one and compares names and shapes, so every finding names the stored tensor.
Format and truth: docs/single-file.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.findings import finding, plural
from ..core.names import shown
from ..core.tomlio import tomllib
from ..inventory.build import Inventory
from ..read.header import Tensor
from ..reconcile.expected import expected_layout
from ..reconcile.result import Component, Reconciliation
from ..specs.expr import ExprError, evaluate

MAX_NAMES = 8
_EXPR = re.compile(r"\{([^{}]+)\}")


@dataclass(frozen=True)
class Rule:
    """One rewrite: ``sub`` (a regex substitution) or ``match`` + ``to`` with ``{expr}`` fields."""

    pattern: re.Pattern[str]
    to: str
    computed: bool  # `to` holds {expr} fields (match rules) rather than \\1 references (sub rules)
    fuse: int | None  # the part of a fused original tensor (concatenated along dim 0)
    shape: str | None  # "conv1x1" | "transpose"


@dataclass(frozen=True)
class Expected:
    """One original tensor a component implies: its shape and the diffusers names it is read into."""

    shape: tuple[int, ...]
    component: str
    sources: tuple[str, ...]
    buffer: bool = False  # a persistent buffer the loader reads (SD3's pos_embed): no parameters


@lru_cache(maxsize=1)
def data() -> dict[str, Any]:
    with open(Path(__file__).parent / "data" / "single_file.toml", "rb") as f:
        return tomllib.load(f)


@lru_cache(maxsize=None)
def rules(name: str) -> tuple[tuple[Rule, ...], ...]:
    stages = data()["rules"][name]["stages"]
    return tuple(
        tuple(
            Rule(
                re.compile(r["sub"] if "sub" in r else r["match"]), r["to"], "match" in r, r.get("fuse"), r.get("shape")
            )
            for r in stage
        )
        for stage in stages
    )


def detect(tensors: dict[str, Tensor]) -> tuple[dict[str, Any], str] | None:
    """The first type whose recognition keys hold (as ``infer_diffusers_model_type`` tests them), and the prefix
    its names are stored under."""
    for kind in data()["type"]:
        for prefix in kind.get("prefixes", [""]):
            if all(_holds(test, tensors, prefix) for test in kind["detect"]):
                return kind, prefix
    return None


def _holds(test: dict[str, Any], tensors: dict[str, Tensor], prefix: str) -> bool:
    t = tensors.get(prefix + test["name"])
    if test.get("absent"):
        return t is None
    if t is None:
        return False
    if "dim" in test:
        return len(t.shape) > test["dim"] and t.shape[test["dim"]] == test["equals"]
    return True


def original_name(name: str, stages: tuple[tuple[Rule, ...], ...], config: dict[str, Any]) -> tuple[str, Rule | None]:
    """A diffusers name as the original file stores it, and the last rule that rewrote it (fuse / shape)."""
    last: Rule | None = None
    for stage in stages:
        for rule in stage:
            m = rule.pattern.search(name)
            if m is None:
                continue
            if rule.computed:
                new = _fill(rule.to, {**config, **{k: int(v) if v.isdigit() else v for k, v in m.groupdict().items()}})
                name = name[: m.start()] + new + name[m.end() :]
            else:
                name = rule.pattern.sub(rule.to, name, count=1)
            last = rule
            break
    return name, last


def _fill(template: str, env: dict[str, Any]) -> str:
    """``{expr}`` fields of a rule's target, evaluated by the spec expression language (no eval)."""
    return _EXPR.sub(lambda f: str(evaluate(f.group(1), env)), template)


def original_layout(kind: dict[str, Any], prefix: str = "") -> tuple[dict[str, Expected], dict[str, int]]:
    """Every original tensor the type implies (names with ``prefix``) and each component's parameter count."""
    out: dict[str, Expected] = {}
    parts: dict[str, list[tuple[int, str, tuple[int, ...]]]] = {}
    counts: dict[str, int] = {}
    for comp in kind["component"]:
        config = comp["config"]
        got = expected_layout(dict(config))
        if got is None:
            raise ExprError(f"no formula for {comp['name']} ({config.get('_class_name') or config.get('model_type')})")
        layout, counts[comp["name"]], buffers = got
        for name in comp.get("supplied", []):  # set by the loader itself, not read from the file
            shape, _ = layout.pop(name)
            counts[comp["name"]] -= math.prod(shape)
        for name in comp.get("tied", []):  # another tensor's tie, stored once (already counted once)
            layout.pop(name)
        stages = rules(comp["rules"])
        env = dict(config)
        for name, shape in [*((n, s) for n, (s, _) in layout.items()), *buffers.items()]:
            new, rule = original_name(name, stages, env)
            new = prefix + comp["prefix"] + new
            shape = tuple(shape)
            if rule is not None and rule.shape == "conv1x1" and len(shape) == 2:
                shape = (*shape, 1, 1)
            elif rule is not None and rule.shape == "transpose":
                shape = shape[::-1]
            if rule is not None and rule.fuse is not None:
                parts.setdefault(new, []).append((rule.fuse, name, shape))
                out[new] = Expected((), comp["name"], ())
            else:
                out[new] = Expected(shape, comp["name"], (name,), name in buffers)
    for new, pieces in parts.items():
        pieces.sort()
        first = pieces[0][2]
        out[new] = Expected((sum(p[2][0] for p in pieces), *first[1:]), out[new].component, tuple(p[1] for p in pieces))
    return out, counts


def _ema_name(name: str) -> str:
    """``model.diffusion_model.a.0.b`` -> ``model_ema.diffusion_modela0b`` (ldm's LitEma buffer names, which
    convert_ldm_unet_checkpoint reads with extract_ema; the prefix is the data's ``ema_prefix``)."""
    return data()["ema_prefix"] + "".join(name.split(".")[1:])


def reconcile_single_file(inventory: Inventory) -> Reconciliation | None:
    """The reconciliation of a recognised single-file checkpoint; None when the file is no known type."""
    stored = inventory.tensors
    found = detect(stored)
    if found is None:
        return None
    kind, prefix = found
    rec = Reconciliation()
    try:
        expected, counts = original_layout(kind, prefix)
    except ExprError as error:  # a broken data file, never the checkpoint's fault: structural check only
        from ..reconcile.engine import reconcile

        structural = reconcile(inventory, None)
        structural.detail = f"{kind['label']}: no formula ({error})"
        return structural
    ignored = [(re.compile(v["pattern"]), v["why"]) for v in data()["ignored"].values()]
    ema = {}
    if kind.get("ema"):
        comp = next(c for c in kind["component"] if c["name"] == kind["ema"])
        ema = {_ema_name(n): e for n, e in expected.items() if e.component == comp["name"]}
    missing: dict[str, list[str]] = {}
    wrong: list[str] = []
    wrong_names: list[str] = []
    actual = dict.fromkeys(counts, 0)
    for name, e in expected.items():
        t = stored.get(name)
        if t is None:
            missing.setdefault(e.component, []).append(name)
        elif tuple(t.shape) != e.shape:
            wrong.append(f"{name} {list(t.shape)}, expected {list(e.shape)}")
            wrong_names.append(name)
    extra: list[str] = []
    ignored_by: dict[str, list[str]] = {}
    ema_seen: list[str] = []
    for name, t in stored.items():
        here = expected.get(name)
        if here is not None and here.buffer:
            rec.categories[name] = "buffers"
            continue
        if here is not None:
            rec.categories[name] = "model"
            actual[here.component] += t.elements
            continue
        if name in ema and tuple(t.shape) == ema[name].shape:
            rec.categories[name] = "buffers"
            ema_seen.append(name)
            continue
        why = next((w for p, w in ignored if p.search(name)), None)
        if why is not None:
            rec.categories[name] = "buffers"
            ignored_by.setdefault(why, []).append(name)
            continue
        rec.categories[name] = "unexplained"
        extra.append(name)
    for name, category in rec.categories.items():
        rec.ledger[category] += stored[name].elements
    label = kind["label"]
    for comp, names in missing.items():
        whole = len(names) == sum(1 for e in expected.values() if e.component == comp)
        what = (
            f"the {comp} component is missing entirely ({plural(len(names), 'tensor')})"
            if whole
            else f"{plural(len(names), 'tensor')} of the {comp} component {'is' if len(names) == 1 else 'are'} not stored"
        )
        rec.findings.append(finding("missing-tensor", f"{label}: {what}: {shown(names, MAX_NAMES)}", tensors=names))
    if wrong:
        rec.findings.append(
            finding(
                "shape-mismatch",
                f"{label}: {plural(len(wrong), 'tensor')} with another shape "
                f"than the loader's config implies: {shown(wrong, MAX_NAMES, sep='; ')}",
                tensors=wrong_names,
            )
        )
    if extra:
        rec.findings.append(
            finding(
                "unexpected-tensor",
                f"{label}: {plural(len(extra), 'stored tensor')} that "
                f"diffusers' single-file loader does not read: {shown(extra, MAX_NAMES)}",
                tensors=extra,
            )
        )
    if ema_seen:
        rec.findings.append(
            finding(
                "buffer-stored",
                f"{plural(len(ema_seen), 'tensor')} under {data()['ema_prefix']}: ldm's "
                f"EMA copy of the {kind['ema']} (LitEma buffers, each of its weight's shape; "
                "diffusers loads the non-EMA weights unless extract_ema)",
                tensors=ema_seen,
            )
        )
    for why, names in ignored_by.items():
        rec.findings.append(
            finding("buffer-stored", f"{plural(len(names), 'tensor')}: {why}: {shown(names, 4)}", tensors=names)
        )
    rec.architecture = label
    rec.expected_parameters = sum(counts.values())
    rec.components = [Component(c, None, 1, n, actual[c]) for c, n in counts.items()]
    rec.formula_by_component = " + ".join(f"{c} {n:,}" for c, n in counts.items()) + f" = {rec.expected_parameters:,}"
    rec.formula = rec.formula_by_component
    rec.spec = {"file": "single_file.toml", "class": kind["name"], "layout": "original"}
    where = f" (diffusers model type {kind['model_type']})" if kind.get("model_type") else ""
    rec.detail = (
        f"single-file {label}{where}, read as diffusers' from_single_file does with "
        f"{kind['pipeline']}'s configs: {rec.formula_by_component}"
    )
    rec.extra["single_file"] = {
        "type": kind["name"],
        "model_type": kind.get("model_type"),
        "prefix": prefix,
        "components": {c: {"expected": n, "actual": actual[c]} for c, n in counts.items()},
    }
    return rec
