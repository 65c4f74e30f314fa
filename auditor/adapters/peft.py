"""PEFT adapters: what ``adapter_config.json`` plus the base model's architecture say the adapter must hold.

For every module the config targets (``target_modules``: a list matched as name suffixes, a regex matched
whole, or ``all-linear``; ``layers_to_transform``; ``modules_to_save`` never targeted) PEFT saves
``base_model.model.<module>.lora_A.weight [r, in]`` and ``lora_B.weight [out, r]`` (``rank_pattern``
overriding ``r``; Conv1D layers as ``[in, out]``; embeddings as ``lora_embedding_A [r, vocab]`` /
``lora_embedding_B [dim, r]`` plus the full ``base_layer.weight``; DoRA adds ``lora_magnitude_vector [out]``),
full copies of ``modules_to_save``, and biases for ``bias = "all"`` / ``"lora_only"``. With the base model's
config and a formula for it, the shapes are exact; without, the adapter is checked structurally (pairs
complete, ranks as configured, every tensor explained by a target). Ground truth: ``fixtures/peft``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from ..core.conventions import ADAPTER_CONFIG
from ..core.findings import Finding, finding, plural
from ..core.names import shown
from ..inventory.build import Tensor
from ..specs.expr import ExprError, evaluate
from .lora import LoraModule, check_pairs, split
from .peftconfig import (
    BaseModel,
    data,
    expected_rank,
    in_layers,
    module_matches,
    save_names,
    saved_whole,
    target_hits,
    targets_of,
    wrappers,
)

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover
    pass


@dataclass
class AdapterCheck:
    """Findings, the ledger category of each stored tensor, and the summary the report shows."""

    findings: list[Finding] = field(default_factory=list)
    categories: dict[str, str] = field(default_factory=dict)  # tensor -> "model" | "unexplained"
    summary: dict[str, Any] = field(default_factory=dict)


def check_adapter(
    config: dict[str, Any], tensors: dict[str, Tensor], base: BaseModel | None, file: str
) -> AdapterCheck:
    """Reconcile an adapter's stored tensors with its config (and its base model, when known)."""
    result = AdapterCheck()
    peft_type = str(config.get("peft_type") or "LORA").upper()
    prompt = data()["prompt"].get(peft_type)
    stored = sum(t.elements for t in tensors.values())
    result.summary = _summary(config, peft_type, base, stored)
    if prompt is not None:
        _check_prompt(config, prompt, tensors, result, file)
        return result
    prefix = data()["prefix"]
    rel: dict[str, Tensor] = {}
    outside = [n for n in tensors if not n.startswith(prefix)]
    doubled = [n for n in tensors if n.startswith(prefix + prefix)]
    if doubled:
        result.findings.append(
            finding(
                "adapter-tensor-unexplained",
                f"{plural(len(doubled), 'tensor')} saved as {prefix}{prefix}...: the "
                "adapter was saved from a PeftModel wrapped in another PeftModel, so PEFT will not find these modules "
                "on the base model and loads nothing from them",
                tensors=doubled,
                files=[file],
            )
        )
        outside += doubled
    for name, t in tensors.items():
        if name.startswith(prefix) and not name.startswith(prefix + prefix):
            rel[name[len(prefix) :]] = t
    if outside and len(outside) > len(doubled):
        odd = [n for n in outside if n not in doubled]
        result.findings.append(
            finding(
                "adapter-tensor-unexplained",
                f"{plural(len(odd), 'tensor')} without the "
                f"{prefix!r} prefix PEFT saves every key with: {shown(odd, 3)}",
                tensors=odd,
                files=[file],
            )
        )
    for n in outside:
        result.categories[n] = "unexplained"
    modules, other = split(rel)
    if not rel:
        return result  # nothing readable under the prefix: the root cause is already a finding
    targets = targets_of(config)
    save = save_names(config)
    if base is not None and base.tensors is not None:
        base = _aligned(base, [wrappers().sub("", m) for m in modules], result)
    _check_modules(config, modules, targets, save, base, result, file, prefix, rel)
    _check_others(config, other, rel, modules, targets, save, result, file, prefix)
    for name in tensors:
        result.categories.setdefault(name, "model")
    return result


def _aligned(base: BaseModel, stored: list[str], result: AdapterCheck) -> BaseModel:
    """The base layout under the names the adapter uses.

    A formula describes one class (``model.layers...`` of a causal LM, ``encoder.layer...`` of a bare encoder);
    the adapter was made on the task class PEFT wrapped (``bert.encoder...`` for sequence classification). The
    prefix difference is read off the first stored module that a base module ends with (or the reverse); when
    none lines up, the formula describes another class and the adapter is checked structurally instead.
    """
    assert base.tensors is not None
    modules = {n.rsplit(".", 1)[0] for n in base.tensors}
    if not stored or any(m in modules for m in stored):
        return base
    for m in stored:
        for b in modules:
            if m.endswith("." + b) or b.endswith("." + m):
                add, drop = (m[: len(m) - len(b)], "") if m.endswith("." + b) else ("", b[: len(b) - len(m)])
                renamed = {add + n[len(drop) :]: v for n, v in base.tensors.items() if n.startswith(drop)}
                return BaseModel(base.config, base.source, renamed, base.parameters, base.note)
    result.findings.append(
        finding(
            "adapter-base-unknown",
            f"the base formula ({base.source}) names its layers "
            f"like {sorted(modules)[0]!r}, the adapter like {stored[0]!r}: checked "
            "structurally, not against the base layers",
        )
    )
    return BaseModel(base.config, base.source, None, base.parameters, base.note)


def _check_modules(
    config: dict[str, Any],
    modules: dict[str, LoraModule],
    targets: list[str] | str | None,
    save: list[str],
    base: BaseModel | None,
    result: AdapterCheck,
    file: str,
    prefix: str,
    rel: dict[str, Tensor],
) -> None:
    unexplained: list[str] = []
    want_rank: dict[str, int] = {}
    for module, mod in modules.items():
        plain = wrappers().sub("", module)
        if not (module_matches(plain, targets) and in_layers(plain, config)):
            unexplained += [t.name for t in mod.tensors.values()]
            continue
        r = expected_rank(plain, config)
        if r is not None:
            want_rank[module] = r
    if unexplained:
        names = unexplained  # Tensor.name: the stored name, prefix included
        result.findings.append(
            finding(
                "adapter-tensor-unexplained",
                f"{plural(len(names), 'adapter tensor')} on "
                f"modules that target_modules does not select: {shown(names, 3)}; PEFT does "
                "not create these layers and ignores the tensors",
                tensors=names,
                files=[file],
            )
        )
        for n in names:
            result.categories[n] = "unexplained"
    if str(config.get("peft_type") or "LORA").upper() in data()["pairs"]["peft_types"]:
        result.findings += check_pairs(modules, expected_rank=want_rank, file=file)
    stored_modules = [wrappers().sub("", m) for m in modules]
    universe = stored_modules
    if base is not None and base.tensors is not None:
        universe = sorted({n.rsplit(".", 1)[0] for n in base.tensors})
        _check_against_base(config, modules, base, targets, save, result, file, prefix)
        _check_biases(config, rel, base, targets, save, result, file, prefix)
    if isinstance(targets, list):
        dead = [t for t in targets if not target_hits(t, universe)]
        if dead:
            where = "the base model" if universe is not stored_modules else "the adapter"
            result.findings.append(
                finding(
                    "adapter-target-unmatched",
                    f"target_modules {', '.join(repr(t) for t in dead)} "
                    f"match{'es' if len(dead) == 1 else ''} no module of {where} (a typo, or copied from another "
                    "architecture): nothing is adapted there",
                    files=[ADAPTER_CONFIG],
                )
            )
    elif isinstance(targets, str) and targets != "all-linear" and not modules:
        result.findings.append(
            finding(
                "adapter-target-unmatched",
                f"target_modules regex {targets!r} matches no stored module",
                files=[ADAPTER_CONFIG],
            )
        )


def _check_against_base(
    config: dict[str, Any],
    modules: dict[str, LoraModule],
    base: BaseModel,
    targets: list[str] | str | None,
    save: list[str],
    result: AdapterCheck,
    file: str,
    prefix: str,
) -> None:
    """Exact expectations: every targeted base layer has its pair, with the shapes its weight implies."""
    assert base.tensors is not None and base.config is not None
    conv1d = base.config.get("model_type") in data()["conv1d"]["model_types"]
    pairs = str(config.get("peft_type") or "LORA").upper() in data()["pairs"]["peft_types"]
    dora = bool(config.get("use_dora"))
    embeddings = data()["embeddings"]["names"]
    missing: list[str] = []
    wrong: list[str] = []
    for name, (shape, component) in base.tensors.items():
        module, _, leaf = name.rpartition(".")
        if (
            leaf != "weight"
            or len(shape) != 2
            or saved_whole(module, save)
            or not module_matches(module, targets)
            or not in_layers(module, config)
        ):
            continue
        if targets == "all-linear" and (
            component in ("embedding", "position_embedding", "lm_head") or module.rsplit(".", 1)[-1] in embeddings
        ):
            continue  # the shorthand means every linear layer except the output layer
        r = expected_rank(module, config)
        if r is None:
            continue
        mod = modules.get(module)
        if component == "embedding" or module.rsplit(".", 1)[-1] in embeddings[:1]:  # nn.Embedding, not a head
            want: dict[str, tuple[int, ...]] = {"emb_down": (r, shape[0]), "emb_up": (shape[1], r)}
        else:
            out_f, in_f = (shape[1], shape[0]) if conv1d else shape
            want = {"down": (r, in_f), "up": (out_f, r)}
            if dora:
                want["magnitude"] = (out_f,)
        if not pairs:
            if mod is None:
                missing.append(module)
            continue
        for role, expected in want.items():
            t = mod.tensors.get(role) if mod is not None else None
            if t is None and mod is not None and role in ("down", "up", "emb_down", "emb_up"):
                continue  # half a pair: lora-pair-incomplete already names it (one root cause, one error)
            if t is None:
                missing.append(f"{module} ({role})" if mod is not None else module)
                if mod is None:
                    break
            elif tuple(t.shape) != expected:
                wrong.append(f"{t.name} {list(t.shape)}, expected {list(expected)}")
    if missing:
        result.findings.append(
            finding(
                "missing-tensor",
                f"{plural(len(missing), 'adapter tensor')} the config and "
                f"the base model require {'is' if len(missing) == 1 else 'are'} not stored: "
                f"{shown(missing, 3)} (those layers keep their initial, no-op update)",
                tensors=[prefix + m.split(" ")[0] for m in missing],
                files=[file],
            )
        )
    if wrong:
        result.findings.append(
            finding(
                "shape-mismatch",
                f"{plural(len(wrong), 'adapter tensor')} with a shape the "
                f"base model's layers do not allow: {shown(wrong, 3)}",
                files=[file],
            )
        )


def _check_biases(
    config: dict[str, Any],
    rel: dict[str, Tensor],
    base: BaseModel,
    targets: list[str] | str | None,
    save: list[str],
    result: AdapterCheck,
    file: str,
    prefix: str,
) -> None:
    """bias = "all": every bias of the base; "lora_only": those of targeted layers (as X.base_layer.bias)."""
    bias = str(config.get("bias") or "none")
    if bias not in ("all", "lora_only") or base.tensors is None:
        return
    missing: list[str] = []
    wrong: list[str] = []
    for name, (shape, _) in base.tensors.items():
        module, _, leaf = name.rpartition(".")
        if leaf != "bias" or saved_whole(module, save):
            continue
        targeted = module_matches(module, targets) and in_layers(module, config)
        if bias == "lora_only" and not targeted:
            continue
        stored = rel.get(f"{module}.base_layer.bias") or rel.get(f"{module}.bias")
        if stored is None:
            missing.append(f"{prefix}{module}.{'base_layer.' if targeted else ''}bias")
        elif tuple(stored.shape) != tuple(shape):
            wrong.append(f"{stored.name} {list(stored.shape)}, expected {list(shape)}")
    if missing:
        result.findings.append(
            finding(
                "missing-tensor",
                f"bias={bias!r} trains {_biases(len(missing))} that "
                f"{'is' if len(missing) == 1 else 'are'} not stored: {shown(missing, 3)} (the "
                "trained values are lost; the base biases are used)",
                tensors=missing,
                files=[file],
            )
        )
    if wrong:
        result.findings.append(
            finding(
                "shape-mismatch",
                f"{_biases(len(wrong))} with a shape the base model does not have: {shown(wrong, 3)}",
                files=[file],
            )
        )


def _biases(n: int) -> str:
    return f"{n:,} bias" + ("" if n == 1 else "es")


def _check_others(
    config: dict[str, Any],
    other: list[str],
    rel: dict[str, Tensor],
    modules: dict[str, LoraModule],
    targets: list[str] | str | None,
    save: list[str],
    result: AdapterCheck,
    file: str,
    prefix: str,
) -> None:
    """Full tensors: modules_to_save copies, biases (bias = all / lora_only), embedding base layers."""
    bias = str(config.get("bias") or "none")
    embeddings = tuple(data()["embeddings"]["names"])
    unexplained: list[str] = []
    for name in other:
        module, _, leaf = name.rpartition(".")
        plain = wrappers().sub("", module)
        if saved_whole(plain, save):
            continue
        if leaf == "bias" and (bias == "all" or (bias == "lora_only" and module_matches(plain, targets))):
            continue
        if plain.endswith(embeddings) and (module.endswith(".base_layer") or leaf == "weight"):
            continue  # targeted embeddings keep their base layer; a resized vocabulary saves the full matrix
        unexplained.append(prefix + name)
    if unexplained:
        result.findings.append(
            finding(
                "adapter-tensor-unexplained",
                f"{plural(len(unexplained), 'tensor')} that neither target_modules, "
                f"modules_to_save nor bias={bias!r} explain: {shown(unexplained, 3)}; PEFT ignores them when loading "
                "(if they were trained, list their modules in modules_to_save)",
                tensors=unexplained,
                files=[file],
            )
        )
        for n in unexplained:
            result.categories[n] = "unexplained"


def _check_prompt(
    config: dict[str, Any], prompt: dict[str, Any], tensors: dict[str, Tensor], result: AdapterCheck, file: str
) -> None:
    name = prompt["tensor"]
    try:
        shape = tuple(int(evaluate(e, config)) for e in prompt["shape"])
    except (ExprError, TypeError, ValueError):
        shape = None
    t = tensors.get(name)
    if t is None:
        result.findings.append(
            finding(
                "missing-tensor",
                f"{name} is not stored: a {config.get('peft_type')} adapter is nothing but that tensor",
                tensors=[name],
                files=[file],
            )
        )
    elif shape is not None and tuple(t.shape) != shape:
        result.findings.append(
            finding(
                "shape-mismatch",
                f"{name} is {list(t.shape)} but {ADAPTER_CONFIG} implies {list(shape)}",
                tensors=[name],
                files=[file],
            )
        )
    extra = [n for n in tensors if n != name]
    if extra:
        result.findings.append(
            finding(
                "adapter-tensor-unexplained",
                f"{plural(len(extra), 'tensor')} beside {name} "
                f"that a {config.get('peft_type')} adapter does not have: {shown(extra, 3)}",
                tensors=extra,
                files=[file],
            )
        )
    for n in tensors:
        result.categories[n] = "unexplained" if n in extra else "model"


def _summary(config: dict[str, Any], peft_type: str, base: BaseModel | None, stored: int) -> dict[str, Any]:
    share = None
    if base is not None and base.parameters:
        share = stored / base.parameters
    targets = targets_of(config)
    return {
        "peft_type": peft_type,
        "task_type": config.get("task_type"),
        "r": config.get("r"),
        "lora_alpha": config.get("lora_alpha"),
        "use_dora": bool(config.get("use_dora")),
        "use_rslora": bool(config.get("use_rslora")),
        "target_modules": targets if targets is None or isinstance(targets, str) else sorted(targets),
        "modules_to_save": config.get("modules_to_save"),
        "bias": config.get("bias"),
        "rank_pattern": config.get("rank_pattern") or None,
        "base_model": config.get("base_model_name_or_path") or None,
        "base_class": _auto_mapping(config),
        "base_source": base.source if base is not None else None,
        "base_note": base.note if base is not None else None,
        "base_parameters": base.parameters if base is not None else None,
        "adapter_parameters": stored,
        "share_of_base": share,
    }


def _auto_mapping(config: dict[str, Any]) -> str | None:
    """PEFT records the base class of non-transformers models (timm, diffusers) in auto_mapping."""
    m = config.get("auto_mapping")
    if isinstance(m, dict) and m.get("base_model_class"):
        return f"{m.get('parent_library', '?')}.{m['base_model_class']}"
    return None
