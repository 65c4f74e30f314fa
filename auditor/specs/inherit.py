"""Spec inheritance: ``extends`` a parent file, with ``remove`` and ``rename`` (documents in, a merged document
out; building and validation are ``load.py``'s)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .model import SpecError


def resolve(name: str, docs: Callable[[str], dict[str, Any] | None], chain: tuple[str, ...] = ()) -> dict[str, Any]:
    """Apply ``extends``: the parent's keys, tables and tensors, then the child's.

    Tables (defaults, derived, aliases, stacks, classes, layouts) merge key by key; a child tensor or module
    with an inherited one's name replaces it in place; ``remove`` drops inherited tensors by name; ``rename``
    moves every inherited name (tensors, tied_to, stack prefixes) under new prefixes. model_types and
    architectures are never inherited.
    """
    doc = docs(name)
    assert doc is not None, name
    parent = doc.get("extends")
    if parent is None:
        return doc
    parent_file = f"{parent}.toml"
    if docs(parent_file) is None or parent_file in chain:
        raise SpecError(f"{name}: extends {parent!r}, which is {'circular' if parent_file in chain else 'not a spec'}")
    base = dict(resolve(parent_file, docs, (*chain, name)))
    renames = doc.get("rename")
    if renames is not None:
        if not isinstance(renames, dict) or not all(isinstance(v, str) for v in renames.values()):
            raise SpecError(f"{name}: rename must map old name prefixes to new ones")
        base.pop("base_prefix", None)
        base["tensor"] = [{**t, **{k: rename(t[k], renames) for k in ("name", "tied_to") if k in t}}
                          for t in base.get("tensor", [])]
        base["stacks"] = {k: {**s, "prefix": rename(s["prefix"], renames)} if "prefix" in s else s
                          for k, s in base.get("stacks", {}).items()}
    merged = {**base, **{k: v for k, v in doc.items() if k not in ("extends", "remove", "rename")}}
    merged["model_types"] = doc.get("model_types", [])
    merged["architectures"] = doc.get("architectures", [])
    merged["diffusers_classes"] = doc.get("diffusers_classes", [])
    for table in ("defaults", "derived", "aliases", "layouts"):
        merged[table] = {**base.get(table, {}), **doc.get(table, {})}
    merged["class"] = {k: {**base.get("class", {}).get(k, {}), **doc.get("class", {}).get(k, {})}
                       for k in {**base.get("class", {}), **doc.get("class", {})}}
    merged["stacks"] = {k: {**base.get("stacks", {}).get(k, {}), **doc.get("stacks", {}).get(k, {})}
                        for k in {**base.get("stacks", {}), **doc.get("stacks", {})}}
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


def rename(name: str, renames: dict[str, str] | Any) -> str:
    """The longest matching old prefix is replaced; names matching none are kept."""
    for old in sorted(renames, key=len, reverse=True):
        if name.startswith(old):
            return renames[old] + name[len(old):]
    return name
