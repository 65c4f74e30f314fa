"""Loading spec files: TOML -> inheritance -> shorthands -> strictly validated ``Spec`` values.

Every key, placeholder, component, stack and class name is checked here, so a typo in a spec file is an
error when the specs load (the test suite loads them all), never a silently ignored rule.
``_common.toml`` holds what all families share: the component names, the task classes and families,
recomputable buffer suffixes and config defaults every model has (``num_labels``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from .expr import ExprError, compile_expr
from .files import Claims
from .files import claims as _claims
from .files import read as _read
from .files import spec_files as _files
from .inherit import resolve
from .model import Expr, Module, Spec, SpecError, Stack, TaskClass, TensorRule

KINDS = ("param", "buffer", "state", "unsaved", "head", "shared")
PLACEHOLDERS = ("{layer}", "{expert}")
SPEC_KEYS = {
    "description",
    "model_types",
    "architectures",
    "diffusers_classes",
    "applies",
    "sources",
    "family",
    "extends",
    "remove",
    "rename",
    "tie",
    "base_prefix",
    "nullable",
    "text",
    "aliases",
    "defaults",
    "derived",
    "stacks",
    "module",
    "class",
    "layouts",
    "tensor",
    "defer_to",
}
TENSOR_KEYS = {
    "name",
    "shape",
    "linear",
    "norm",
    "bias",
    "component",
    "when",
    "experts",
    "active_experts",
    "kind",
    "tied_to",
    "note",
    "aliases",
    "repeat",
    "alt_shape",
    "alt_group",
    "mtp",
    "tie",
}
STACK_KEYS = {"count", "prefix", "extra", "row", "bind", "note", "mtp", "like"}
MODULE_KEYS = {
    "name",
    "spec",
    "config",
    "class",
    "prefix",
    "component",
    "when",
    "inherit",
    "select",
    "set",
    "defaults",
    "note",
    "by_class",
    "repeat",
}
CLASS_KEYS = {"prefix", "heads", "tensor", "set", "note", "module", "base_of", "rename"}
COMMON_KEYS = {
    "description",
    "components",
    "buffer_suffixes",
    "decoder_prefixes",
    "embedding_names",
    "head_names",
    "defaults",
    "derived",
    "family",
    "class",
    "legacy_names",
}
FAMILY_KEYS = {"default", "classes", "class", "stored_as", "note"}
_PLACEHOLDER = re.compile(r"\{[^}]*\}")


@lru_cache(maxsize=1)
def common() -> dict[str, Any]:
    """``_common.toml``, validated."""
    doc = _read("_common.toml")
    _known(doc, COMMON_KEYS, "_common.toml")
    for fam, body in doc.get("family", {}).items():
        _known(body, FAMILY_KEYS, f"_common.toml family {fam}")
    return doc


def buffer_suffixes() -> tuple[str, ...]:
    """Name endings of recomputable buffers some exporters save (rotary inv_freq, causal masks ...)."""
    return tuple(common().get("buffer_suffixes", ()))


@lru_cache(maxsize=1)
def load_all() -> SpecLibrary:
    """Every spec in ``data/`` by file name, inheritance resolved and validated (each one on first use)."""
    return SpecLibrary(_files())


class SpecLibrary(Mapping[str, Spec]):
    """The shipped specs by file name, each read, resolved and built the first time it is looked up.

    An audit needs one family (and the specs it extends or embeds), not all ~190: reading and building every
    file costs more than the rest of a small audit's start-up. Iterating builds them all, exactly as an eager
    load would (the test that loads every spec goes through here). Which file claims a model_type or an
    architecture class is read from the top-level keys at the head of each file (``claims``), without
    building anything.
    """

    def __init__(self, files: list[str]) -> None:
        self._files = files
        self._names = frozenset(files)
        self._docs: dict[str, dict[str, Any]] = {}
        self._specs: dict[str, Spec] = {}
        self._claims: Claims | None = None
        self._resolved: dict[str, dict[str, Any]] = {}  # resolve()'s cache: parents and ``from`` sources once

    def __getitem__(self, name: str) -> Spec:
        spec = self._specs.get(name)
        if spec is None:
            if name not in self._names:
                raise KeyError(name)
            spec = self._specs[name] = _build(name, resolve(name, self._doc_or_none, cache=self._resolved))
        return spec

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def doc(self, name: str) -> dict[str, Any]:
        """One file's TOML document, checked for unknown keys."""
        doc = self._docs.get(name)
        if doc is None:
            doc = _read(name)
            _known(doc, SPEC_KEYS, name)
            if "rename" in doc and "extends" not in doc:
                raise SpecError(f"{name}: rename without extends")
            self._docs[name] = doc
        return doc

    def _doc_or_none(self, name: str) -> dict[str, Any] | None:
        return self.doc(name) if name in self._names else None

    def claims(self) -> Claims:
        """model_type -> file, architecture class -> file and diffusers ``_class_name`` -> file, read from every
        file's head (or the user's cache of them); a claim made by two files is an error."""
        if self._claims is None:
            self._claims = _claims(self._files)
        return self._claims

    def claimant(self, table: int, key: str) -> str | None:
        """The file claiming ``key`` in claims table ``table`` (0 model_type, 1 architecture, 2 diffusers class)."""
        return self.claims()[table].get(key)

    def claiming(self, model_type: str) -> Spec | None:
        """The spec claiming a model_type, built alone."""
        name = self.claimant(0, model_type)
        return self[name] if name is not None else None


def build_specs(docs: dict[str, dict[str, Any]]) -> dict[str, Spec]:
    """Specs from parsed TOML documents keyed by file name (``llama.toml``), validated."""
    for name, doc in docs.items():
        _known(doc, SPEC_KEYS, name)
        if "rename" in doc and "extends" not in doc:
            raise SpecError(f"{name}: rename without extends")
    cache: dict[str, dict[str, Any]] = {}
    return {name: _build(name, resolve(name, docs.get, cache=cache)) for name in docs}


def _known(doc: dict[str, Any], keys: set[str], where: str) -> None:
    unknown = set(doc) - keys
    if unknown:
        raise SpecError(f"{where}: unknown keys {sorted(unknown)} (known: {sorted(keys)})")


# -- building --------------------------------------------------------------------------------------------


def _build(name: str, doc: dict[str, Any]) -> Spec:
    shared = common()
    components = set(shared.get("components", ()))
    stacks = tuple(_stack(name, k, v) for k, v in doc.get("stacks", {}).items())
    for s in stacks:
        if s.like is not None and (s.like == s.name or s.like not in {o.name for o in stacks if o.like is None}):
            raise SpecError(f"{name}: stack {s.name} is like {s.like!r}, which is not another stack of its own")
    rules = tuple(
        _legacy(r, shared.get("legacy_names", {}))
        for i, entry in enumerate(doc.get("tensor", []))
        for r in _rules(name, f"tensor #{i}", entry, components, stacks)
    )
    twice = sorted({r.name for r in rules if sum(1 for o in rules if o.name == r.name) > 1})
    if twice:
        raise SpecError(f"{name}: tensors named twice (replace an inherited entry by its entry name): {twice}")
    family = doc.get("family", "decoder")
    families = shared.get("family", {})
    if family not in families:
        raise SpecError(f"{name}: family must be one of {sorted(families)}, not {family!r}")
    own_classes = doc.get("class", {})
    # a family's own definition of a class replaces the shared one whole; the spec's own keys go on top
    shared_classes = {**shared.get("class", {}), **families.get(family, {}).get("class", {})}
    templates = {k: {**shared_classes.get(k, {}), **own_classes.get(k, {})} for k in {**shared_classes, **own_classes}}
    allowed = list(dict.fromkeys([*families[family].get("classes", []), *doc.get("class", {})]))
    classes = {}
    for cls in allowed:
        body = templates.get(cls, {})
        _known(body, CLASS_KEYS, f"{name}: class {cls}")
        extra = tuple(
            r
            for i, entry in enumerate(body.get("tensor", []))
            for r in _rules(name, f"class {cls} tensor #{i}", entry, components, stacks)
        )
        settings = body.get("set", {})
        if not isinstance(settings, dict):
            raise SpecError(f"{name}: class {cls}: set must be a table of config keys")
        renames = body.get("rename", {})
        if not (isinstance(renames, dict) and all(isinstance(v, str) for v in renames.values())):
            raise SpecError(f"{name}: class {cls}: rename must map old name prefixes to new ones")
        classes[cls] = TaskClass(
            cls,
            body.get("prefix"),
            bool(body.get("heads", True)),
            extra,
            MappingProxyType(dict(settings)),
            body.get("module"),
            body.get("base_of"),
            MappingProxyType(dict(renames)),
        )
    modules = tuple(_module(name, m, components) for m in doc.get("module", []))
    for cls in classes.values():  # a class that is one module alone: a module of this spec, with a config scope
        if cls.module is not None and not any(m.name == cls.module and m.config and m.repeat is None for m in modules):
            raise SpecError(
                f"{name}: class {cls.name}: module {cls.module!r} is not a module of this spec with "
                f"its own config scope"
            )
    for cls in classes.values():  # the base model of another class: one of this spec's own, itself complete
        base = classes.get(cls.base_of) if cls.base_of is not None else None
        if cls.base_of is not None and (
            base is None or base.base_of is not None or base.module is not None or cls.module is not None
        ):
            raise SpecError(
                f"{name}: class {cls.name}: base_of {cls.base_of!r} must name another class of this "
                f"spec that is neither a base_of nor a module class (and the class no module itself)"
            )
        if cls.rename and cls.base_of is None:
            raise SpecError(f"{name}: class {cls.name}: rename without base_of")
    aliases = {k: tuple(v) for k, v in doc.get("aliases", {}).items()}
    if not all(isinstance(v, str) for alts in aliases.values() for v in alts):
        raise SpecError(f"{name}: aliases must map a config key to a list of other key names")
    layouts = {k: MappingProxyType(dict(v)) for k, v in doc.get("layouts", {}).items()}
    spec = Spec(
        file=name,
        model_types=tuple(doc.get("model_types", ())),
        architectures=tuple(doc.get("architectures", ())),
        rules=rules,
        stacks=stacks,
        modules=modules,
        classes=MappingProxyType(classes),
        family=family,
        default_class=families[family]["default"],
        defaults=MappingProxyType({**shared.get("defaults", {}), **doc.get("defaults", {})}),
        derived=MappingProxyType({**shared.get("derived", {}), **doc.get("derived", {})}),
        aliases=MappingProxyType(aliases),
        nullable=frozenset(doc.get("nullable", ())),
        layouts=MappingProxyType(layouts),
        tie=doc.get("tie", "tie_word_embeddings"),
        base_prefix=doc.get("base_prefix", ""),
        description=doc.get("description", ""),
        diffusers_classes=tuple(doc.get("diffusers_classes", ())),
        applies=doc.get("applies"),
        stored_as=tuple(c for c in families[family].get("stored_as", ()) if c in classes),
        defer_to=MappingProxyType(_defer_to(name, doc.get("defer_to", {}))),
    )
    if not spec.model_types and not spec.architectures and not spec.diffusers_classes and family != "tower":
        raise SpecError(f"{name}: claims no model_types, architectures or diffusers_classes")
    for source in expressions(spec):
        try:
            compile_expr(source)
        except ExprError as e:
            raise SpecError(f"{name}: {e}") from None
    return spec


def _stack(spec: str, name: str, body: dict[str, Any]) -> Stack:
    _known(body, STACK_KEYS, f"{spec}: stack {name}")
    prefix = body.get("prefix")
    if not isinstance(prefix, str) or prefix.count("{layer}") != 1 or "count" not in body:
        raise SpecError(f"{spec}: stack {name} needs a count and a prefix with one {{layer}}")
    bind = body.get("bind", {})
    mtp, like = body.get("mtp", False), body.get("like")
    if not isinstance(mtp, bool) or not (like is None or isinstance(like, str)):
        raise SpecError(f"{spec}: stack {name}: mtp must be true or false, like the name of another stack")
    return Stack(name, body["count"], prefix, body.get("extra", 0), body.get("row"), tuple(bind.items()), mtp, like)


def _defer_to(spec: str, table: object) -> dict[str, str]:
    if not (isinstance(table, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in table.items())):
        raise SpecError(f"{spec}: defer_to must map spec file stems to conditions")
    return dict(table)


def _module(spec: str, body: dict[str, Any], components: set[str]) -> Module:
    where = f"{spec}: module {body.get('name')!r}"
    _known(body, MODULE_KEYS, where)
    if "name" not in body or ("spec" not in body and not body.get("select", True)):
        raise SpecError(f"{where} needs a name and a spec (or select = true)")
    prefix = body.get("prefix", {})
    if isinstance(prefix, str):
        prefix = {"": prefix}
    if body.get("component") is not None and body["component"] not in components:
        raise SpecError(f"{where}: unknown component {body['component']!r}")
    for key in ("set", "defaults"):
        if not isinstance(body.get(key, {}), dict):
            raise SpecError(f"{where}: {key} must be a table of config keys")
    repeat = body.get("repeat")
    if repeat is not None:  # one index over a count; only towers (one breakdown row, no layout of their own)
        if not (
            isinstance(repeat, dict)
            and len(repeat) == 1
            and body.get("component") is not None
            and any(f"{{{next(iter(repeat))}}}" in stored for stored in prefix.values())
        ):
            raise SpecError(
                f"{where}: repeat must be one {{index = count}} of a module with a component, whose "
                f"prefix holds {{index}}"
            )
        repeat = next(iter(repeat.items()))
    return Module(
        body["name"],
        body.get("spec"),
        body.get("config"),
        body.get("class"),
        MappingProxyType(prefix),
        body.get("component"),
        body.get("when"),
        bool(body.get("inherit", False)),
        bool(body.get("select", True)),
        MappingProxyType(dict(body.get("set", {}))),
        MappingProxyType(dict(body.get("defaults", {}))),
        bool(body.get("by_class", False)),
        repeat,
    )


def _rules(
    spec: str, where: str, entry: dict[str, Any], components: set[str], stacks: tuple[Stack, ...]
) -> list[TensorRule]:
    """One ``[[tensor]]`` entry as rules: ``linear = [out, in]`` is a weight plus an optional bias (``bias``),
    ``norm = dim`` a vector weight plus an optional bias; ``shape`` is one tensor."""
    name = entry.get("name")
    where = f"{spec}: {where} ({name})"
    _known(entry, TENSOR_KEYS, where)
    forms = [k for k in ("shape", "linear", "norm") if k in entry]
    if not isinstance(name, str) or len(forms) != 1 or "component" not in entry:
        raise SpecError(f"{where}: needs a name, a component and exactly one of shape / linear / norm")
    if entry["component"] not in components:
        raise SpecError(f"{where}: unknown component {entry['component']!r} (known: {sorted(components)})")
    if entry.get("kind", "param") not in KINDS:
        raise SpecError(f"{where}: kind must be one of {KINDS}")
    repeat = entry.get("repeat", {})
    if not isinstance(repeat, dict) or any(not k.isidentifier() or k in ("layer", "expert") for k in repeat):
        raise SpecError(f"{where}: repeat must map index names (not layer / expert) to counts")
    if entry.get("kind") == "shared" and not entry.get("tied_to"):
        raise SpecError(f"{where}: kind = 'shared' names the tensor it shares with (tied_to)")
    if "tie" in entry and entry.get("kind") != "shared":
        raise SpecError(f"{where}: tie goes with kind = 'shared' (a head follows the spec's tie)")
    allowed = (*PLACEHOLDERS, *(f"{{{k}}}" for k in repeat))
    bad = [p for p in _PLACEHOLDER.findall(name) if p not in allowed]
    if bad:
        raise SpecError(f"{where}: unknown placeholder {bad[0]} (only {', '.join(allowed)})")
    unused = [k for k in repeat if f"{{{k}}}" not in name]
    if unused:
        raise SpecError(f"{where}: repeat index {unused[0]!r} does not appear in the name")
    if "{expert}" in name and "experts" not in entry:
        raise SpecError(f"{where}: repeats over {{expert}} but has no 'experts' count")
    stack = None
    if "{layer}" in name:
        owners = [s.name for s in stacks if name.startswith(s.prefix)]
        if len(owners) != 1:
            raise SpecError(
                f"{where}: a {{layer}} name must start with exactly one stack's prefix "
                f"({', '.join(s.prefix for s in stacks) or 'no stacks declared'})"
            )
        stack = owners[0]
    common_fields: dict[str, Any] = {
        "component": entry["component"],
        "when": entry.get("when"),
        "experts": entry.get("experts"),
        "active_experts": entry.get("active_experts"),
        "kind": entry.get("kind", "param"),
        "tied_to": entry.get("tied_to"),
        "stack": stack,
        "repeat": tuple(repeat.items()),
        "mtp": entry.get("mtp", False),
        "tie": entry.get("tie"),
    }
    if not isinstance(common_fields["mtp"], bool):
        raise SpecError(f"{where}: mtp must be true or false")
    aliases = tuple(entry.get("aliases", ()))
    if "alt_shape" in entry and (
        "shape" not in entry
        or not isinstance(entry["alt_shape"], list)
        or len(entry["alt_shape"]) != len(entry["shape"])
    ):
        raise SpecError(f"{where}: alt_shape goes with shape and has as many dimensions")
    if "alt_group" in entry and ("alt_shape" not in entry or not isinstance(entry["alt_group"], str)):
        raise SpecError(f"{where}: alt_group is a name and goes with alt_shape")
    if "shape" in entry:
        if "bias" in entry:
            raise SpecError(f"{where}: bias goes with linear or norm, not shape")
        return [
            TensorRule(
                name,
                tuple(entry["shape"]),
                aliases=aliases,
                alt_shape=tuple(entry.get("alt_shape", ())),
                alt_group=entry.get("alt_group"),
                **common_fields,
            )
        ]
    if "linear" in entry:
        out_in = entry["linear"]
        if not isinstance(out_in, list) or len(out_in) != 2:
            raise SpecError(f"{where}: linear must be [out, in]")
        weight_shape: tuple[Expr, ...] = tuple(out_in)
        bias_shape: tuple[Expr, ...] = (out_in[0],)
    else:
        weight_shape = bias_shape = (entry["norm"],)
    rules = [TensorRule(f"{name}.weight", weight_shape, aliases=tuple(f"{a}.weight" for a in aliases), **common_fields)]
    bias = entry.get("bias", False)
    if bias is not False:
        when = entry.get("when")
        condition = bias if when is None else (when if bias is True else f"({when}) and ({bias})")
        rules.append(
            TensorRule(
                f"{name}.bias",
                bias_shape,
                aliases=tuple(f"{a}.bias" for a in aliases),
                **{**common_fields, "when": condition, "tied_to": None},
            )
        )
    return rules


def _legacy(rule: TensorRule, legacy: dict[str, str]) -> TensorRule:
    """A rule whose name ends as a legacy name transformers still loads (``LayerNorm.gamma`` for
    ``LayerNorm.weight``: BERT checkpoints converted from TensorFlow) also accepts that name."""
    for current, old in legacy.items():
        if rule.name.endswith(current):
            alias = rule.name[: -len(current)] + old
            return replace(rule, aliases=(*rule.aliases, alias))
    return rule


def expressions(spec: Spec) -> list[str]:
    """Every expression of a spec (checked for syntax at load time)."""
    values: list[Any] = []
    for v in (*spec.defaults.values(), *spec.derived.values()):
        values += list(v.values()) if isinstance(v, dict) else [v]
    values += [spec.tie, spec.applies]
    for s in spec.stacks:
        values += [s.count, s.extra, s.row, *(v for _, v in s.bind)]
    values += list(spec.defer_to.values())
    for m in spec.modules:
        values += [m.when, *m.set.values(), m.repeat[1] if m.repeat else None]
    for c in spec.classes.values():
        values += list(c.set.values())
    rules = [*spec.rules, *(r for c in spec.classes.values() for r in c.rules)]
    for r in rules:
        values += [*r.shape, *r.alt_shape, r.when, r.experts, r.active_experts, r.tie, *(c for _, c in r.repeat)]
    return [v for v in values if isinstance(v, str)]
