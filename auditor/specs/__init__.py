"""Architecture specs: what config.json says a checkpoint must contain, tensor by tensor.

Each family is one TOML file in ``data/`` (format: docs/specs.md). ``select(config)`` picks the spec for a
config (``architectures[0]`` first, then ``model_type``; a diffusers config by its ``_class_name``); ``expand(spec, config)`` evaluates it into an
``Expectation``: every expected tensor name with its shape, component, stack, layer type and role, for the
task class the config names. All architecture knowledge lives in the data files; this package only loads
(``load.py``) and evaluates (``expand.py``, one rule at a time through ``builder.py``) them.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Any, Mapping

from .builder import whole
from .expand import architecture, class_for, environment, expand, module_scope, relabel
from .expr import FUNCTIONS, ExprError, compile_expr, evaluate
from .files import read
from .load import SpecError, buffer_suffixes, build_specs, common, expressions, load_all
from .model import Expectation, ExpectedTensor, Module, Spec, StackInfo, TaskClass, TensorRule

__all__ = [
    "Expectation",
    "ExpectedTensor",
    "Module",
    "Spec",
    "SpecError",
    "StackInfo",
    "TaskClass",
    "TensorRule",
    "all_specs",
    "buffer_suffixes",
    "build_specs",
    "by_class_note",
    "class_for",
    "common",
    "environment",
    "expand",
    "find_spec",
    "missing_keys",
    "module_scope",
    "relabel",
    "select",
    "selection_note",
    "spec_file",
    "whole",
]


@lru_cache(maxsize=1)
def _registry() -> tuple[dict[str, Spec], dict[str, Spec]]:
    """model_type -> spec and architecture class -> spec; a claim made by two files is an error."""
    by_type: dict[str, Spec] = {}
    by_arch: dict[str, Spec] = {}
    for spec in load_all().values():
        for table, keys in ((by_type, spec.model_types), (by_arch, spec.architectures)):
            for key in keys:
                if key in table:
                    raise SpecError(f"{key!r} is claimed by both {table[key].file} and {spec.file}")
                table[key] = spec
    return by_type, by_arch


def all_specs() -> dict[str, Spec]:
    """Every spec shipped in ``data/``, keyed by the model_types it claims."""
    return _registry()[0]


def spec_file(file: str) -> Spec:
    """A spec by its file name (``llama4.toml``)."""
    return load_all()[file]


def find_spec(config: Mapping[str, Any]) -> Spec | None:
    """The spec claiming the config's model_type (no class check); only that file is built."""
    model_type = config.get("model_type")
    return load_all().claiming(model_type) if isinstance(model_type, str) else None


def select(config: Mapping[str, Any]) -> tuple[Spec | None, dict[str, Any]]:
    """The spec for a config and the config it is evaluated on: a spec claiming ``architectures[0]`` wins,
    then one claiming ``model_type``; None when none does, or the class is not one the family has (e.g. the
    original LLaVA repo's remote-code ``LlavaLlamaForCausalLM`` under model_type ``llava``)."""
    cfg = dict(config)
    class_name = cfg.get("_class_name")
    if isinstance(class_name, str) and "model_type" not in cfg:  # a diffusers model: its class is the spec key
        found = _diffusers_spec(class_name)
        found = deferred(found, cfg) if found is not None else None
        return (found if found is not None and applies(found, cfg) else None), cfg
    arch = architecture(cfg)
    library = load_all()
    claimed = library.claimant(1, arch) if arch else None
    spec = library[claimed] if claimed is not None else find_spec(cfg)
    if spec is None and arch is not None:
        spec = class_spec(arch)
        if spec is not None and missing_keys(spec, cfg):
            return None, cfg
    if spec is None or class_for(spec, cfg) is None or not applies(spec, cfg):
        return None, cfg
    return spec, cfg


@lru_cache(maxsize=1)
def _class_types() -> dict[str, str]:
    """transformers class name -> the model_type whose config class builds it (``_classes.toml``, read only when a
    config's model_type is one no spec claims)."""
    return {cls: model_type for model_type, classes in read("_classes.toml")["classes"].items() for cls in classes}


def class_spec(arch: str) -> Spec | None:
    """The spec of the model_type transformers builds class ``arch`` from (``DeepseekV3ForCausalLM``: deepseek_v3),
    None when transformers has no such class or no spec claims its type."""
    model_type = _class_types().get(arch)
    return load_all().claiming(model_type) if model_type is not None else None


def missing_keys(spec: Spec, config: Mapping[str, Any]) -> list[str]:
    """The config keys ``spec``'s formula reads that ``config`` lacks, where they matter: a key with no default, or
    with a number (a size: ``hidden_size``, ``q_lora_rank``) or list for default. A formula chosen by class for a
    model_type st-audit does not know (Kimi-K2's ``kimi_k2`` with ``DeepseekV3ForCausalLM``) is used only when
    none is missing: its repo's own config class may have other defaults, and keys named otherwise (``n_embd``)
    mean the class name was borrowed, not the architecture. Switches (booleans, null) and expressions
    (``num_key_value_heads = num_attention_heads``) default as the class's config does. A module's own config
    (``vision_config``) is its sub-spec's business, not checked here."""
    local = {
        *spec.derived,
        "layer",
        "is_mtp",
        "task_class",
        "expert",
        *FUNCTIONS,
        *(k for s in spec.stacks for k, _ in s.bind),
        *(k for r in (*spec.rules, *(r for c in spec.classes.values() for r in c.rules)) for k, _ in r.repeat),
    }
    read_ = {n.id for src in expressions(spec) for n in ast.walk(compile_expr(src)) if isinstance(n, ast.Name)}
    present = {k for k, v in config.items() if v is not None}
    for canonical, others in spec.aliases.items():
        if present & {canonical, *others}:
            present |= {canonical, *others}
    missing = []
    for key in sorted(read_ - local - present):
        default = spec.defaults.get(key, ...)
        if default is ... or (not isinstance(default, (bool, str, dict)) and default is not None):
            missing.append(key)
    return missing


def by_class_note(spec: Spec, config: Mapping[str, Any]) -> str | None:
    """When ``select`` took the formula by class (the config's model_type is one no spec claims, architectures[0]
    a class transformers builds from a type one does): one sentence saying so, for the ``formula-by-class`` note;
    None for a spec chosen by its model_type or a class it claims."""
    model_type, arch = config.get("model_type"), architecture(config)
    if arch is None or model_type in spec.model_types or arch in spec.architectures:
        return None
    built_from = _class_types().get(arch, spec.file.removesuffix(".toml"))
    return (
        f"model_type {model_type!r} is not one st-audit knows; architectures[0] {arch!r} is transformers' "
        f"{built_from} class and config.json has every key its formula reads, so the {spec.file} formula was "
        "chosen by class"
    )


def _diffusers_spec(class_name: str) -> Spec | None:
    """The spec claiming a diffusers ``_class_name``, built alone."""
    library = load_all()
    name = library.claimant(2, class_name)
    return library[name] if name is not None else None


def deferred(spec: Spec, config: Mapping[str, Any]) -> Spec:
    """The spec a shared class name means for this config: diffusers' loader remaps a ``Transformer2DModel`` to DiT's
    or PixArt's class by its norm_type, and ``defer_to`` says the same as data (the first condition that holds)."""
    if spec.defer_to:
        try:
            env = environment(spec, config)
            target = next((t for t, when in spec.defer_to.items() if evaluate(when, env)), None)
        except ExprError:  # as in applies: a config that cannot be evaluated is left to expand, which reports it
            target = None
        if target is not None:
            return load_all()[f"{target}.toml"]
    return spec


def applies(spec: Spec, config: Mapping[str, Any]) -> bool:
    """The spec's ``applies`` condition (the configurations its formula covers) holds for this config; a config
    that cannot be evaluated is left to ``expand``, which reports it."""
    if spec.applies is None:
        return True
    try:
        return bool(evaluate(spec.applies, environment(spec, config)))
    except ExprError:
        return True


def selection_note(config: Mapping[str, Any]) -> str:
    """Why ``select`` found no spec, in one sentence (for the unknown-architecture finding)."""
    if isinstance(config.get("_class_name"), str) and "model_type" not in config:
        found = _diffusers_spec(config["_class_name"])
        found = deferred(found, config) if found is not None else None
        if found is not None:
            return (
                f"the {found.file} formula does not cover this {config['_class_name']} configuration ({found.applies})"
            )
        return f"no formula is known for the diffusers class {config['_class_name']!r}"
    model_type, arch = config.get("model_type"), architecture(config)
    spec = find_spec(config)
    by_class = class_spec(arch) if spec is None and arch is not None else None
    if by_class is not None and arch is not None:
        missing = missing_keys(by_class, config)
        if missing:
            return (
                f"no formula is known for model_type {model_type!r}; architectures[0] {arch!r} is transformers' "
                f"{_class_types()[arch]} class, but config.json lacks {len(missing)} of the keys its formula "
                f"({by_class.file}) reads ({', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}), so "
                "it was not used"
            )
    if spec is not None and class_for(spec, config) is not None and not applies(spec, config):
        return f"the {spec.file} formula does not cover this {model_type!r} configuration ({spec.applies})"
    if spec is not None and arch is not None:
        return (
            f"architectures[0] {arch!r} is not a class transformers builds for model_type {model_type!r} "
            f"({spec.file} knows {', '.join(spec.classes)}); remote code?"
        )
    return f"no formula is known for model_type {model_type!r}" + (f" ({arch})" if arch else "")
