"""Spec inheritance: ``extends`` a parent file, with ``remove`` and ``rename``, after each file's includes
(``use`` / ``from``: ``blocks.py``) are expanded (documents in, a merged document out; building and validation are
``load.py``'s)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .blocks import expand_doc, rename
from .model import SpecError


def resolve(
    name: str,
    docs: Callable[[str], dict[str, Any] | None],
    chain: tuple[str, ...] = (),
    cache: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Apply ``extends``: the parent's keys, tables and tensors, then the child's.

    Tables (defaults, derived, aliases, stacks, classes, layouts) merge key by key; a child tensor or module
    with an inherited one's name replaces it in place; ``remove`` drops inherited tensors by name; ``rename``
    moves every inherited name (tensors, tied_to, stack prefixes) under new prefixes. model_types and
    architectures are never inherited.

    ``cache``: documents already resolved from the same ``docs`` (a library resolves a parent or a ``from``
    source once, not once per file that takes from it; results are never mutated). Only successes are kept, so a
    cycle is still found from wherever it is entered.
    """
    if cache is None:
        cache = {}
    done = cache.get(name)
    if done is not None:
        return done
    raw = docs(name)
    assert raw is not None, name

    def resolved(other: str) -> dict[str, Any]:  # a spec whose entries an include takes (``from``)
        if docs(other) is None or other in chain or other == name:
            raise SpecError(
                f"{name}: from {other.removesuffix('.toml')!r}, which is "
                f"{'circular' if other in (*chain, name) else 'not a spec'}"
            )
        return resolve(other, docs, (*chain, name), cache)

    doc = expand_doc(name, texts(name, raw), resolved)
    cache[name] = _extended(name, doc, docs, chain, cache)
    return cache[name]


def _extended(
    name: str,
    doc: dict[str, Any],
    docs: Callable[[str], dict[str, Any] | None],
    chain: tuple[str, ...],
    cache: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """``doc`` (its includes expanded) merged over the parent it extends, if any."""
    parent = doc.get("extends")
    if parent is None:
        return doc
    parent_file = f"{parent}.toml"
    if docs(parent_file) is None or parent_file in chain:
        raise SpecError(f"{name}: extends {parent!r}, which is {'circular' if parent_file in chain else 'not a spec'}")
    base = dict(resolve(parent_file, docs, (*chain, name), cache))
    renames = doc.get("rename")
    if renames is not None:
        if not isinstance(renames, dict) or not all(isinstance(v, str) for v in renames.values()):
            raise SpecError(f"{name}: rename must map old name prefixes to new ones")
        base.pop("base_prefix", None)
        base["tensor"] = [
            {**t, **{k: rename(t[k], renames) for k in ("name", "tied_to") if k in t}} for t in base.get("tensor", [])
        ]
        base["stacks"] = {
            k: {**s, "prefix": rename(s["prefix"], renames)} if "prefix" in s else s
            for k, s in base.get("stacks", {}).items()
        }
    merged = {**base, **{k: v for k, v in doc.items() if k not in ("extends", "remove", "rename")}}
    merged["model_types"] = doc.get("model_types", [])
    merged["architectures"] = doc.get("architectures", [])
    merged["diffusers_classes"] = doc.get("diffusers_classes", [])
    for table in ("defaults", "derived", "aliases", "layouts"):
        merged[table] = {**base.get(table, {}), **doc.get(table, {})}
    merged["class"] = {
        k: {**base.get("class", {}).get(k, {}), **doc.get("class", {}).get(k, {})}
        for k in {**base.get("class", {}), **doc.get("class", {})}
    }
    merged["stacks"] = {
        k: {**base.get("stacks", {}).get(k, {}), **doc.get("stacks", {}).get(k, {})}
        for k in {**base.get("stacks", {}), **doc.get("stacks", {})}
    }
    merged["nullable"] = sorted({*base.get("nullable", []), *doc.get("nullable", [])})
    removed = set(doc.get("remove", []))
    unknown = removed - {t.get("name") for t in base.get("tensor", [])}
    if unknown:
        raise SpecError(f"{name}: remove names tensors {parent} does not have: {sorted(unknown)}")
    own = {t.get("name"): t for t in doc.get("tensor", [])}
    inherited = [own.pop(t["name"], t) for t in base.get("tensor", []) if t["name"] not in removed]
    merged["tensor"] = inherited + list(own.values())
    own_modules = {m.get("name"): m for m in doc.get("module", [])}
    merged["module"] = [own_modules.pop(m["name"], m) for m in base.get("module", [])] + list(own_modules.values())
    return merged


def texts(name: str, doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with the defaults of the keys its ``text`` lists read as text: ``norm_type = "ada_norm_single"``
    is the string, as config.json writes it (every other string default is an expression, so text would otherwise
    be quoted twice: ``"'ada_norm_single'"``). The list applies to this file's own ``[defaults]``; a child that
    extends it says its own."""
    keys = doc.get("text")
    if keys is None:
        return doc
    defaults = doc.get("defaults", {})
    if not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)) or not isinstance(defaults, dict):
        raise SpecError(f"{name}: text lists config keys whose defaults are text")
    out = dict(defaults)
    for key in keys:
        value = defaults.get(key)
        if not isinstance(value, str):
            raise SpecError(f"{name}: text names {key!r}, which has no string default")
        if value[:1] in ("'", '"') or "'" in value or "\\" in value:
            raise SpecError(f"{name}: the default of text key {key!r} is written as is, without quotes: {value!r}")
        out[key] = f"'{value}'"
    return {**{k: v for k, v in doc.items() if k != "text"}, "defaults": out}
