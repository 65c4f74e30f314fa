"""Evaluating a spec for one config: config scope -> every expected tensor, by stored name.

The order is fixed: config key aliases, then defaults (absent keys; null keys unless ``nullable``), then
derived values; then the spec's own tensors, its stacks layer by layer (per-layer bindings first), the task
class's head tensors, and finally its modules, each expanded in its own config scope and moved under its
prefix. Bounds keep a hostile config a finding rather than a hang.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from types import MappingProxyType
from typing import Any, Mapping

from .builder import Builder, whole
from .expr import ExprError, NoSubSpec, evaluate
from .inherit import rename
from .load import load_all
from .model import Expectation, ExpectedTensor, Module, Spec, Stack, StackInfo, TensorRule

# Bounds on what a config may ask for: no real model comes near them (DeepSeek-V3: 256 experts, 7168-wide).
MAX_LAYERS = 100_000
MAX_EXTRA_LAYERS = 1_000
MAX_MODULE_DEPTH = 4


def environment(spec: Spec, config: Mapping[str, Any], library: Mapping[str, Spec] | None = None) -> dict[str, Any]:
    """Config values with aliases resolved, the family's defaults filled in and derived values computed.

    A default applies when the key is absent, or null unless the spec lists it as ``nullable`` (where null
    means something of its own). A default that is a table fills a nested config object key by key.
    A module's config object (``text_config``) is seen resolved by its own sub-spec, so the parent's
    projector reads ``text_config['hidden_size']`` even where the config leaves it to the class default.
    """
    return _environment(spec, config, library if library is not None else load_all(), 0)[0]


def _environment(
    spec: Spec, config: Mapping[str, Any], library: Mapping[str, Spec], depth: int
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The environment and each module's scope (before its sub-spec's defaults), by module name."""
    if depth > MAX_MODULE_DEPTH:
        raise ExprError(f"{spec.file}: modules nested more than {MAX_MODULE_DEPTH} deep")
    env = dict(config)
    _unify_aliases(spec, env)
    # literal defaults first, then expressions in file order (an expression may read any literal default)
    ordered = sorted(spec.defaults.items(), key=lambda kv: isinstance(kv[1], str))
    for key, value in ordered:
        if isinstance(value, dict):
            nested = env.get(key)
            nested = dict(nested) if isinstance(nested, dict) else {}
            for k, v in value.items():
                if nested.get(k) is None:
                    nested[k] = evaluate(v, env)
            env[key] = nested
        elif key not in env or (env[key] is None and key not in spec.nullable):
            env[key] = evaluate(value, env)
    _unify_aliases(spec, env)
    # each module's scope, its config object seen resolved by its sub-spec; then ``set`` keys, computed where
    # the configs are seen so (llava: the text config's own tie, its class default when absent)
    scopes = {m.name: module_scope(m, env) for m in spec.modules}
    resolved: dict[str, dict[str, Any]] = {}

    own = composite_types(spec, config)

    def resolve(module: Module) -> None:
        sub = spec_for_module(module, scopes[module.name], library, own)
        if module.config and sub is not None:
            resolved[module.config] = _environment(sub, scopes[module.name], library, depth + 1)[0]

    for module in spec.modules:
        resolve(module)
    seen = {**env, **resolved}
    for module in spec.modules:
        if module.set:
            scopes[module.name].update({k: evaluate(v, seen) for k, v in module.set.items()})
            resolve(module)
    env.update(resolved)
    for key, value in spec.derived.items():
        env[key] = evaluate(value, env)
    return env, scopes


def _unify_aliases(spec: Spec, env: dict[str, Any]) -> None:
    """``num_experts`` and ``num_local_experts`` (transformers' attribute_map, renames between releases) are
    one value: the first non-null of the group, visible under every name."""
    for canonical, others in spec.aliases.items():
        group = (canonical, *others)
        value = next((env[k] for k in group if env.get(k) is not None), None)
        if value is not None:
            for k in group:
                env[k] = value


def architecture(config: Mapping[str, Any]) -> str | None:
    archs = config.get("architectures")
    return archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else None


def class_for(spec: Spec, config: Mapping[str, Any]) -> str | None:
    """The task class ``architectures[0]`` names, as one of the spec's classes (longest suffix match); the
    spec's default class when the config names none; None when it names a class the family does not have."""
    arch = architecture(config)
    if arch is None:
        return spec.default_class
    matches = [c for c in spec.classes if arch.endswith(c)]
    return max(matches, key=len) if matches else None


def class_rules(spec: Spec, cls: str) -> list[tuple[int, TensorRule]]:
    """The rules a task class keeps (the head outside base_prefix only where it has one) plus the ones it
    adds, each with a stable id."""
    task = spec.classes[cls]
    rules = [(i, r) for i, r in enumerate(spec.rules) if task.heads or r.name.startswith(spec.base_prefix)]
    return rules + [(len(spec.rules) + i, r) for i, r in enumerate(task.rules)]


def expand(
    spec: Spec,
    config: Mapping[str, Any],
    cls: str | None = None,
    library: Mapping[str, Spec] | None = None,
    _depth: int = 0,
    reuse: Callable[[list[str]], list[str]] | None = None,
) -> Expectation:
    """Evaluate the spec for this config (and task class): every expected tensor name -> ExpectedTensor.

    ``library``: the specs modules are looked up in, by file name (default: every shipped spec). ``reuse``: the
    same names as the stored string objects where stored (the experts of a million-tensor checkpoint: no second
    copy of their names held while reconciling).
    """
    if _depth > MAX_MODULE_DEPTH:
        raise ExprError(f"{spec.file}: modules nested more than {MAX_MODULE_DEPTH} deep")
    cls = cls or class_for(spec, config) or spec.default_class
    task = spec.classes[cls]
    library = library if library is not None else load_all()
    env, scopes = _environment(spec, config, library, _depth)
    if task.module is not None:
        return _module_alone(spec, task.module, env, config, library, _depth, reuse)
    if task.base_of is not None:
        return _base_of(spec, cls, config, library, _depth, reuse)
    env["task_class"] = cls  # the class being built: a part only some classes have (CLIP's text model) says so
    # what the class builds its base model with (BertForMaskedLM: BertModel(config, add_pooling_layer=False))
    env.update({key: evaluate(value, env) for key, value in task.set.items()})
    rules = class_rules(spec, cls)
    tied = any(r.kind == "head" for _, r in rules) and bool(evaluate(spec.tie, env))
    b = Builder(reuse)
    for i, rule in rules:
        if rule.stack is None and not rule.mtp:
            b.add(rule, i, env, tied)
    main_stacks = [s for s in spec.stacks if not s.mtp]
    for stack in spec.stacks:
        if stack.mtp and not task.heads and not stack.prefix.startswith(spec.base_prefix):
            continue  # the base model saved alone: an MTP block beside it belongs to the task class
        count = whole(evaluate(stack.count, env), f"stack {stack.name} count")
        extra = whole(evaluate(stack.extra, env) or 0, f"stack {stack.name} extra layers")
        mtp_count = count if stack.mtp else extra
        if not 0 <= count <= MAX_LAYERS or not 0 <= extra <= MAX_EXTRA_LAYERS or mtp_count > MAX_EXTRA_LAYERS:
            raise ExprError(
                f"stack {stack.name}: implausible layer count (negative, over {MAX_LAYERS:,}, "
                f"or over {MAX_EXTRA_LAYERS:,} extra or MTP layers)"
            )
        # several own stacks (encoder, decoder): named; an MTP block's stack never counts as the model's own
        label = "MTP" if stack.mtp else "" if len(main_stacks) == 1 else stack.name
        b.stacks.append(StackInfo(stack.name, label, stack.prefix.split("{layer}")[0], count, extra, stack.mtp))
        own = [(i, r) for i, r in rules if r.stack == stack.name] + _like_rules(spec, stack, rules)
        for layer in range(count + extra):
            is_mtp = stack.mtp or layer >= count
            lenv = {**env, "layer": layer, "is_mtp": is_mtp}
            for key, value in stack.bind:
                lenv[key] = evaluate(value, lenv)
            row = "mtp" if is_mtp else (str(evaluate(stack.row, lenv)) if stack.row is not None else stack.name)
            for i, rule in own:
                b.add(rule, i, lenv, tied, layer, row, is_mtp, stack.name)
    if any((s.mtp and s.count) or s.extra for s in b.stacks):  # an MTP block's own tensors come with its layers
        for i, rule in rules:
            if rule.stack is None and rule.mtp:
                b.add(rule, i, env, tied)
    composite = composite_types(spec, config)
    for module in spec.modules:
        if module.when is None or evaluate(module.when, env):
            _add_module(b, spec, module, scopes[module.name], library, _depth, env, composite)
    # a composite model's head is its language model's: its tie is the one reported
    tied = tied or any(
        sub.tied for name, sub in b.modules if any(m.name == name and m.component is None for m in spec.modules)
    )
    expectation = Expectation(
        spec, cls, MappingProxyType(env), b.tensors, tied, tuple(b.stacks), b.tied_names, modules=tuple(b.modules)
    )
    if task.prefix is not None and spec.base_prefix:
        return relabel(expectation, {spec.base_prefix: task.prefix}, layout=expectation.layout)
    return expectation


def _module_alone(
    spec: Spec,
    name: str,
    env: Mapping[str, Any],
    config: Mapping[str, Any],
    library: Mapping[str, Spec],
    depth: int,
    reuse: Callable[[list[str]], list[str]] | None,
) -> Expectation:
    """A class of a composite config that is one of its modules alone (``[class.X] module = "language_model"``):
    AutoModelForCausalLM.from_config(Qwen3_5Config) builds Qwen3_5ForCausalLM from text_config, named as that class
    saves itself. Its scope is the sub-config alone, as the class gets it (absent or null: the module's
    ``defaults``): not the keys the composite class sets in it (``set``: Qwen3_5Config's own tie_word_embeddings
    ties the composite model's head, not the text model's) nor the top-level keys it inherits. The sub-spec's class
    is the one architectures[0] names there (``Llama4TextModel``: llama4.toml's Model), else the module's."""
    module = next(m for m in spec.modules if m.name == name)
    raw = config.get(module.config) if module.config else None
    scope = dict(raw) if isinstance(raw, dict) else {k: evaluate(v, env) for k, v in module.defaults.items()}
    sub = spec_for_module(module, scope, library, composite_types(spec, config))
    if sub is None:
        raise NoSubSpec(f"{spec.file}: module {name} has no spec for model_type {scope.get('model_type')!r}")
    arch = architecture(config)
    cls = (class_for(sub, {"architectures": [arch]}) if arch else None) or module.cls or sub.default_class
    return expand(sub, scope, cls, library, depth + 1, reuse)


def _base_of(
    spec: Spec,
    cls: str,
    config: Mapping[str, Any],
    library: Mapping[str, Spec],
    depth: int,
    reuse: Callable[[list[str]], list[str]] | None,
) -> Expectation:
    """A composite's base model (``[class.Model] base_of = "ForConditionalGeneration"``: AutoModel builds LlavaModel,
    Qwen2_5_VLModel ... from the composite config): that class's tensors less its LM head (component ``lm_head``)
    and its MTP block, moved by the class's ``rename`` to the names the base class's save_pretrained writes, plus
    the class's own head tensors (Gemma3ForSequenceClassification's ``score``)."""
    task = spec.classes[cls]
    full = expand(spec, config, task.base_of, library, depth, reuse)
    mtp_stacks = {s.name for s in full.stacks if s.mtp}
    tensors = {
        n: e
        for n, e in full.tensors.items()
        if e.component != "lm_head" and not (e.mtp and (e.stack is None or e.stack in mtp_stacks))
    }
    env = {**full.env, "task_class": cls}
    env.update({key: evaluate(value, env) for key, value in task.set.items()})
    b = Builder(reuse)
    for i, rule in enumerate(task.rules):
        b.add(rule, len(spec.rules) + i, env, False)
    tensors.update(b.tensors)
    base = Expectation(
        spec,
        cls,
        MappingProxyType(env),
        tensors,
        False,
        tuple(s for s in full.stacks if not s.mtp),
        {k: v for k, v in {**full.tied_names, **b.tied_names}.items() if k in tensors},
        modules=full.modules,
        headless=True,
    )
    return relabel(base, task.rename) if task.rename else base


def _like_rules(spec: Spec, stack: Stack, rules: list[tuple[int, TensorRule]]) -> list[tuple[int, TensorRule]]:
    """A stack declared ``like`` another holds that stack's layer tensors under its own prefix (an MTP block's
    layers are decoder layers stored as ``mtp.layers.N``); the rule ids are shared (one dtype group)."""
    if stack.like is None:
        return []
    head = next(s for s in spec.stacks if s.name == stack.like).prefix.split("{layer}")[0]
    own = stack.prefix.split("{layer}")[0]
    moved = []
    for i, r in rules:
        if r.stack == stack.like:
            name = own + r.name[len(head) :]
            aliases = tuple(own + a[len(head) :] if a.startswith(head) else a for a in r.aliases)
            moved.append((i, replace(r, name=name, aliases=aliases, stack=stack.name)))
    return moved


def _add_module(
    b: Builder,
    parent: Spec,
    module: Module,
    scope: Mapping[str, Any],
    library: Mapping[str, Spec],
    depth: int,
    env: Mapping[str, Any],
    own: Collection[str],
) -> None:
    sub_spec = spec_for_module(module, scope, library, own)
    if sub_spec is None:
        raise NoSubSpec(f"{parent.file}: module {module.name} has no spec for model_type {scope.get('model_type')!r}")
    raw = expand(sub_spec, scope, module.cls or sub_spec.default_class, library, depth + 1)
    index, count = module.repeat or ("", 1)  # a repeated tower: one copy per index, {index} in its prefix
    for i in range(whole(evaluate(count, env), f"{parent.file}: module {module.name}'s repeat")):
        _add_copy(
            b,
            module,
            raw,
            {old: new.replace(f"{{{index}}}", str(i)) for old, new in module.prefix.items()}
            if index
            else module.prefix,
            depth,
        )


def _add_copy(b: Builder, module: Module, raw: Expectation, prefix: Mapping[str, str], depth: int) -> None:
    """One stored copy of a module's tensors under ``prefix``."""
    b.modules.append((module.name, raw))
    sub = relabel(raw, prefix) if prefix else raw
    base = len(b.modules) * 10 ** (6 * (depth + 1))  # rule ids unique across modules and copies (dtype grouping)
    for name, e in sub.tensors.items():
        if module.component is not None:  # a tower: one breakdown row, its layers not decoder layers
            e = ExpectedTensor(
                e.shape,
                module.component,
                e.kind,
                e.layer,
                None,
                False,
                base + e.rule,
                e.elements,
                (1, 1),
                f"{module.name}.{e.stack}" if e.stack else None,
                e.tied,
                e.aliases,
                module.name,
                e.alt_shape,
                e.alt_group,
            )
        else:
            e = replace(e, rule=base + e.rule)
        b.tensors[name] = e
    b.tied_names.update(sub.tied_names)
    for s in sub.stacks:
        if module.component is not None:
            label = f"{module.name} {s.name}" if s.name != "layers" else module.name
            b.stacks.append(StackInfo(f"{module.name}.{s.name}", label, s.prefix, s.count, s.extra, s.mtp))
        else:
            b.stacks.append(s)


def composite_types(spec: Spec, config: Mapping[str, Any]) -> frozenset[str]:
    """The model types that name the composite itself: the ones its spec claims and its config's own."""
    own = config.get("model_type")
    return frozenset((*spec.model_types, *((own,) if isinstance(own, str) else ())))


def spec_for_module(
    module: Module, scope: Mapping[str, Any], library: Mapping[str, Spec], composite: Collection[str] = ()
) -> Spec | None:
    """A module's sub-spec: the one claiming its scope's architectures[0] (when ``by_class``: VisionEncoderDecoder's
    decoder is its model_type's causal-LM class, BertLMHeadModel), then its model_type (when ``select``), else its
    fixed spec.

    A nested model_type that names the composite itself (``composite``: Qwen2-VL checkpoints saved by transformers
    4.45-4.46 write ``vision_config: {"model_type": "qwen2_vl", ...}``, Qwen3-VL releases ``"qwen3_vl"``) selects
    nothing: transformers builds that sub-config as the class the parent declares for it and ignores the nested
    type, so the module's own spec applies rather than the whole composite read as one of its parts."""
    model_type = scope.get("model_type")
    if model_type in composite:
        model_type = None
    arch = architecture(scope) if module.by_class else None
    if arch is not None:
        found = next((s for s in library.values() if arch in s.architectures), None)
        if found is not None:
            return found
    if module.select and isinstance(model_type, str):
        claiming = getattr(library, "claiming", None)  # the shipped library: build only the claiming spec
        found = (
            claiming(model_type)
            if claiming is not None
            else next((s for s in library.values() if model_type in s.model_types), None)
        )
        if found is not None:
            return found
    return library.get(f"{module.spec}.toml") if module.spec else None


def module_scope(module: Module, env: Mapping[str, Any]) -> dict[str, Any]:
    """The config a module is evaluated in: its nested config object (absent or null: the module's
    ``defaults``, what the composite config class builds then; the sub-spec's defaults do the rest),
    falling back to top-level keys where the module inherits them. ``set`` keys are added on top by
    ``environment`` (Gemma3Config.tie_word_embeddings decides the tie, not text_config's own)."""
    nested = env.get(module.config) if module.config else env
    nested = dict(nested) if isinstance(nested, dict) else {k: evaluate(v, env) for k, v in module.defaults.items()}
    if module.inherit and module.config:
        nested = {**{k: v for k, v in env.items() if not isinstance(v, dict) and k != "model_type"}, **nested}
    return nested


def relabel(
    expectation: Expectation, renames: Mapping[str, str], drop_heads: bool = False, layout: str | None = None
) -> Expectation:
    """The same expectation under other stored names (a module's prefix, an on-disk layout, the base model
    saved alone); with ``drop_heads``, tensors outside the renamed prefixes (the LM head) are left out."""
    tensors: dict[str, ExpectedTensor] = {}
    for name, e in expectation.tensors.items():
        new = rename(name, renames)
        if drop_heads and new == name and "" not in renames:
            continue
        if e.aliases:
            e = ExpectedTensor(
                e.shape,
                e.component,
                e.kind,
                e.layer,
                e.layer_type,
                e.mtp,
                e.rule,
                e.elements,
                e.active_fraction,
                e.stack,
                e.tied,
                tuple(rename(a, renames) for a in e.aliases),
                e.module,
                e.alt_shape,
                e.alt_group,
            )
        tensors[new] = e
    tied_names = {
        rename(k, renames): rename(v, renames)
        for k, v in expectation.tied_names.items()
        if rename(k, renames) in tensors
    }
    stacks = tuple(
        StackInfo(s.name, s.label, rename(s.prefix, renames), s.count, s.extra, s.mtp) for s in expectation.stacks
    )
    return Expectation(
        expectation.spec,
        expectation.cls,
        expectation.env,
        tensors,
        expectation.tied,
        stacks,
        tied_names,
        layout or expectation.layout,
        expectation.modules,
        expectation.headless,
    )
