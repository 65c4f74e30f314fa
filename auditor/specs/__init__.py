"""Architecture specs: what config.json says a checkpoint must contain, tensor by tensor.

Each family is one TOML file in ``data/`` (format: docs/specs.md). ``find_spec(config)`` picks the spec for
a config; ``expand(spec, config)`` evaluates it into an ``Expectation``: every expected tensor name with its
shape, component, layer type and role. All architecture knowledge lives in the data files; this module
only evaluates them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from .expr import ExprError, compile_expr, evaluate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KINDS = ("param", "buffer", "head")
# Bounds on what a config may ask for, so a hostile or broken config is a finding, not a hang: no real model
# comes near them (DeepSeek-V3: 256 experts, 7168-wide; safetensors dimensions are 64-bit).
MAX_DIMENSION = 2**63
MAX_EXPERTS = 100_000
MAX_EXPECTED_TENSORS = 5_000_000
_TENSOR_KEYS = {"name", "shape", "component", "when", "experts", "active_experts", "kind", "tied_to", "note",
                "layers"}
_SPEC_KEYS = {"description", "model_types", "base_prefix", "tie", "layers", "mtp_layers", "layer_type",
              "defaults", "derived", "tensor", "sources", "extends", "remove", "extends_prefix"}


class SpecError(ValueError):
    """A spec file is malformed (caught by the test that loads every spec)."""


@dataclass(frozen=True)
class TensorRule:
    """One ``[[tensor]]`` entry of a spec."""

    name: str
    shape: tuple[str | int, ...]
    component: str
    when: str | None = None
    experts: str | int | None = None        # how many experts: {expert} repeats, or the fused leading dim
    active_experts: str | int | None = None  # how many of them are activated per token
    kind: str = "param"
    tied_to: str | None = None
    layers: str | int | None = None  # a tower of its own: {layer} runs over range(this), not the decoder layers

    @property
    def per_layer(self) -> bool:
        """A decoder-layer tensor ({layer} over the spec's ``layers``); tower tensors are not."""
        return "{layer}" in self.name and self.layers is None


@dataclass(frozen=True)
class Spec:
    """A family's declarative description, validated at load time."""

    file: str
    model_types: tuple[str, ...]
    rules: tuple[TensorRule, ...]
    defaults: dict[str, Any]
    derived: dict[str, Any]
    tie: str | bool = "tie_word_embeddings"
    layers: str = "num_hidden_layers"
    mtp_layers: str | int = 0
    layer_type: str | None = None
    base_prefix: str = ""
    description: str = ""
    wraps: str | None = None  # with extends_prefix: the parent spec file, audited alone for a bare checkpoint


@dataclass
class ExpectedTensor:
    """One tensor the architecture implies."""

    shape: tuple[int, ...]
    component: str
    kind: str                 # param | buffer | head
    layer: int | None
    layer_type: str | None
    mtp: bool
    rule: int                 # index of the rule in the spec (groups dtype checks)
    elements: int
    active_fraction: tuple[int, int] = (1, 1)


@dataclass
class Expectation:
    """A spec evaluated against one config."""

    spec: Spec
    env: dict[str, Any]
    tensors: dict[str, ExpectedTensor]
    tied: bool
    num_layers: int
    mtp_layers: int
    layer_prefixes: tuple[str, ...]
    tied_names: dict[str, str] = field(default_factory=dict)  # head name -> the tensor it is tied to


def _resolve(name: str, docs: dict[str, dict[str, Any]], chain: tuple[str, ...] = ()) -> dict[str, Any]:
    """Apply ``extends``: the parent's keys, defaults, derived values and tensors, then the child's.

    A child tensor with a parent tensor's name replaces it in place; ``remove`` drops parent tensors by name.
    model_types are never inherited.
    """
    doc = docs[name]
    parent = doc.get("extends")
    if parent is None:
        return doc
    parent_file = f"{parent}.toml"
    if parent_file not in docs or parent_file in chain:
        raise SpecError(f"{name}: extends {parent!r}, which is {'circular' if parent_file in chain else 'not a spec'}")
    base = _resolve(parent_file, docs, (*chain, name))
    renames = doc.get("extends_prefix")
    if renames is not None:
        if not isinstance(renames, dict) or not all(isinstance(v, str) for v in renames.values()):
            raise SpecError(f"{name}: extends_prefix must map old name prefixes to new ones")
        base = {k: v for k, v in base.items() if k != "base_prefix"}
        base["tensor"] = [{**t, **{k: _rename(t[k], renames) for k in ("name", "tied_to") if k in t}}
                          for t in base.get("tensor", [])]
    merged = {**base, **{k: v for k, v in doc.items() if k not in ("extends", "remove", "extends_prefix")}}
    if renames is not None:
        merged["_wraps"] = parent_file
    merged["model_types"] = doc.get("model_types", [])
    merged["defaults"] = {**base.get("defaults", {}), **doc.get("defaults", {})}
    merged["derived"] = {**base.get("derived", {}), **doc.get("derived", {})}
    removed = set(doc.get("remove", []))
    unknown = removed - {t["name"] for t in base.get("tensor", [])}
    if unknown:
        raise SpecError(f"{name}: remove names tensors {parent} does not have: {sorted(unknown)}")
    own = {t["name"]: t for t in doc.get("tensor", [])}
    inherited = [own.pop(t["name"], t) for t in base.get("tensor", []) if t["name"] not in removed]
    merged["tensor"] = inherited + list(own.values())
    return merged


def _rename(name: str, renames: dict[str, str]) -> str:
    """``extends_prefix``: the longest matching old prefix is replaced; names matching none are kept."""
    for old in sorted(renames, key=len, reverse=True):
        if name.startswith(old):
            return renames[old] + name[len(old):]
    return name


def _build(name: str, doc: dict[str, Any]) -> Spec:
    rules = []
    for i, entry in enumerate(doc.get("tensor", [])):
        bad = set(entry) - _TENSOR_KEYS
        if bad or "name" not in entry or "shape" not in entry or "component" not in entry:
            raise SpecError(f"{name}: tensor #{i} needs name/shape/component and knows only {sorted(_TENSOR_KEYS)}"
                            f"{' (unknown: ' + ', '.join(sorted(bad)) + ')' if bad else ''}")
        if entry.get("kind", "param") not in KINDS:
            raise SpecError(f"{name}: tensor {entry['name']}: kind must be one of {KINDS}")
        if "{expert}" in entry["name"] and "experts" not in entry:
            raise SpecError(f"{name}: tensor {entry['name']} repeats over {{expert}} but has no 'experts' count")
        if "layers" in entry and "{layer}" not in entry["name"]:
            raise SpecError(f"{name}: tensor {entry['name']} has its own 'layers' count but no {{layer}} placeholder")
        rules.append(TensorRule(**{**{k: v for k, v in entry.items() if k != "note"}, "shape": tuple(entry["shape"])}))
    spec = Spec(file=name, model_types=tuple(doc.get("model_types", ())), rules=tuple(rules),
                defaults=doc.get("defaults", {}), derived=doc.get("derived", {}),
                tie=doc.get("tie", "tie_word_embeddings"), layers=doc.get("layers", "num_hidden_layers"),
                mtp_layers=doc.get("mtp_layers", 0), layer_type=doc.get("layer_type"),
                base_prefix=doc.get("base_prefix", ""), description=doc.get("description", ""),
                wraps=doc.get("_wraps"))
    if not spec.model_types:
        raise SpecError(f"{name}: model_types is empty")
    for source in _expressions(spec):
        try:
            compile_expr(source)
        except ExprError as e:
            raise SpecError(f"{name}: {e}") from None
    return spec


def _expressions(spec: Spec) -> list[str]:
    defaults = [w for v in spec.defaults.values() for w in (v.values() if isinstance(v, dict) else (v,))]
    out = [v for v in (*defaults, *spec.derived.values()) if isinstance(v, str)]
    out += [v for v in (spec.tie, spec.layers, spec.mtp_layers, spec.layer_type) if isinstance(v, str)]
    for r in spec.rules:
        out += [v for v in (*r.shape, r.when, r.experts, r.active_experts, r.layers) if isinstance(v, str)]
    return out


@lru_cache(maxsize=1)
def all_specs() -> dict[str, Spec]:
    """Every spec shipped in ``data/``, keyed by model_type (validated; a clash is an error)."""
    return _load()[0]


def spec_file(file: str) -> Spec:
    """A spec by its file name (``llama4.toml``)."""
    return _load()[1][file]


@lru_cache(maxsize=1)
def _load() -> tuple[dict[str, Spec], dict[str, Spec]]:
    docs: dict[str, dict[str, Any]] = {}
    for item in sorted(resources.files(__package__).joinpath("data").iterdir(), key=lambda p: p.name):
        if item.name.endswith(".toml"):
            try:
                docs[item.name] = tomllib.loads(item.read_text(encoding="utf-8"))
            except tomllib.TOMLDecodeError as e:
                raise SpecError(f"{item.name}: {e}") from None
    by_type: dict[str, Spec] = {}
    by_file: dict[str, Spec] = {}
    for name, doc in docs.items():
        unknown = set(doc) - _SPEC_KEYS
        if unknown:
            raise SpecError(f"{name}: unknown keys {sorted(unknown)}")
        if "extends_prefix" in doc and "extends" not in doc:
            raise SpecError(f"{name}: extends_prefix without extends")
        spec = by_file[name] = _build(name, _resolve(name, docs))
        for mt in spec.model_types:
            if mt in by_type:
                raise SpecError(f"model_type {mt!r} is claimed by both {by_type[mt].file} and {name}")
            by_type[mt] = spec
    return by_type, by_file


def text_config(config: dict[str, Any]) -> dict[str, Any]:
    """The language-model part of a config: multimodal configs nest it under ``text_config``.

    Keys of the text config win, but top-level keys it lacks (e.g. ``tie_word_embeddings`` set only at the
    top level) still apply, which is how transformers resolves them.
    """
    nested = config.get("text_config")
    if isinstance(nested, dict) and "num_hidden_layers" not in config:
        return {**{k: v for k, v in config.items() if k != "text_config"}, **nested}
    return config


def find_spec(config: dict[str, Any]) -> Spec | None:
    model_type = config.get("model_type")
    specs = all_specs()
    return specs.get(model_type) if isinstance(model_type, str) else None


def select(config: dict[str, Any]) -> tuple[Spec | None, dict[str, Any]]:
    """The spec for a (possibly multimodal) config and the flattened config it is evaluated on.

    A spec claiming the top-level model_type (``llama4``: the whole multimodal model) wins; otherwise the
    text config's model_type decides (``gemma3`` wrapping ``gemma3_text``), as before.
    """
    cfg = dict(text_config(config))
    spec = find_spec(config)
    if spec is not None:
        cfg["model_type"] = config["model_type"]
        return spec, cfg
    return find_spec(cfg), cfg


def environment(spec: Spec, config: dict[str, Any]) -> dict[str, Any]:
    """Config values with the family's defaults filled in and derived values computed.

    Nested config objects (``vision_config``) are visible as mappings (``vision_config['hidden_size']``); a
    default that is a table fills such an object key by key (missing or null keys only).
    """
    env = dict(config)
    for key, value in spec.defaults.items():
        if isinstance(value, dict):
            nested = env.get(key)
            nested = dict(nested) if isinstance(nested, dict) else {}
            for k, v in value.items():
                if nested.get(k) is None:
                    nested[k] = evaluate(v, env)
            env[key] = nested
        elif env.get(key) is None:
            env[key] = evaluate(value, env)
    for key, value in spec.derived.items():
        env[key] = evaluate(value, env)
    return env


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise ExprError(f"{what} evaluated to {value!r}, not a whole number")
    return value


def expand(spec: Spec, config: dict[str, Any]) -> Expectation:
    """Evaluate the spec for this config: every expected tensor name -> ExpectedTensor."""
    env = environment(spec, config)
    num_layers = _int(evaluate(spec.layers, env), "the layer count")
    mtp = _int(evaluate(spec.mtp_layers, env) or 0, "the MTP layer count")
    if not 0 <= num_layers <= 100_000 or not 0 <= mtp <= 1_000:
        raise ExprError("implausible layer count (negative, over 100,000, or over 1,000 MTP layers)")
    tied = bool(evaluate(spec.tie, env))
    tensors: dict[str, ExpectedTensor] = {}
    tied_names: dict[str, str] = {}
    global_rules = [(i, r) for i, r in enumerate(spec.rules) if not r.per_layer]
    layer_rules = [(i, r) for i, r in enumerate(spec.rules) if r.per_layer]
    for i, rule in global_rules:
        if rule.layers is None:
            _add(tensors, tied_names, i, rule, env, None, None, False)
            continue
        # a tower of its own (vision encoder): outside the decoder stack, so no layer number or layer type
        count = _int(evaluate(rule.layers, env), f"{rule.name} layers")
        if not 0 <= count <= 100_000:
            raise ExprError(f"{rule.name}: implausible layer count (negative or over 100,000)")
        for layer in range(count):
            _add(tensors, tied_names, i, rule, {**env, "layer": layer, "is_mtp": False}, None, None, False,
                 name=rule.name.replace("{layer}", str(layer)))
    for layer in range(num_layers + mtp):
        is_mtp = layer >= num_layers
        lenv = {**env, "layer": layer, "is_mtp": is_mtp}
        layer_type = str(evaluate(spec.layer_type, lenv)) if spec.layer_type else "decoder"
        for i, rule in layer_rules:
            _add(tensors, tied_names, i, rule, lenv, layer, "mtp" if is_mtp else layer_type, is_mtp)
        if len(tensors) > MAX_EXPECTED_TENSORS:
            raise ExprError(f"the config implies over {MAX_EXPECTED_TENSORS:,} tensors")
    prefixes = tuple(dict.fromkeys(r.name.split("{layer}")[0] for _, r in layer_rules))
    return Expectation(spec, env, tensors, tied, num_layers, mtp, prefixes, tied_names)


def _add(tensors: dict[str, ExpectedTensor], tied_names: dict[str, str], index: int, rule: TensorRule,
         env: dict[str, Any], layer: int | None, layer_type: str | None, is_mtp: bool,
         name: str | None = None) -> None:
    if rule.when is not None and not evaluate(rule.when, env):
        return
    shape = tuple(_int(evaluate(d, env), f"{rule.name} shape {d!r}") for d in rule.shape)
    if any(d < 0 or d > MAX_DIMENSION for d in shape):
        raise ExprError(f"{rule.name}: a dimension is negative or larger than 2**63 (implausible config values)")
    elements = 1
    for d in shape:
        elements *= d
    experts = _int(evaluate(rule.experts, env), f"{rule.name} experts") if rule.experts is not None else 1
    if not 0 <= experts <= MAX_EXPERTS:
        raise ExprError(f"{rule.name}: implausible expert count (over {MAX_EXPERTS:,} or negative)")
    active = (_int(evaluate(rule.active_experts, env), f"{rule.name} active_experts")
              if rule.active_experts is not None else experts)
    if name is None:
        name = rule.name.replace("{layer}", str(layer)) if layer is not None else rule.name
    if rule.kind == "head" and rule.tied_to:
        tied_names[name] = rule.tied_to
    expected = ExpectedTensor(shape, rule.component, rule.kind, layer, layer_type, is_mtp, index, elements,
                              (active, experts))
    if "{expert}" not in name:
        tensors[name] = expected
        return
    head, tail = name.split("{expert}", 1)
    for e in range(experts):  # one shared (read-only) ExpectedTensor for all experts of a layer
        tensors[f"{head}{e}{tail}"] = expected
