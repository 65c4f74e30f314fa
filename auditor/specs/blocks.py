"""Shared blocks: tensor entries written once and included in place (``use`` a block, ``from`` another spec).

A family is mostly parts other families have too: the Llama attention, a gated MLP, the embedding and its tied
head, a diffusers ResnetBlock2D. Each is a block in ``data/blocks/<group>.toml`` (``use = "decoder.attention"``),
and a spec may also take another spec's entries (``from = "diffusers_unet_2d_condition"``, ``only`` some name
prefixes). An include is expanded where it stands in the ``[[tensor]]`` list, so rule order (and with it every
report) is what writing the entries out would give; then it is adjusted as data, in this order:

1. ``with``: config names the block reads are read as other expressions (``{ hidden_size = "d_model" }``; a
   boolean or number replaces an expression that is only that name: ``{ attention_bias = true }``);
2. ``at`` / ``rename``: names moved (``at`` puts every name under a prefix; ``rename`` maps old name prefixes to
   new ones, longest first, as ``extends`` does; ``tied_to`` and ``aliases`` move too);
3. ``drop``: entries left out, by their name after the move;
4. ``when``: and-ed into every entry's own condition; any other tensor key (``component``, ``kind``, ``repeat``
   ...) set on every entry.

A later plain entry naming an included tensor overrides it in place, key by key (a shape form given replaces the
included one: ``linear`` for ``shape``). Expanding is pure document work before inheritance and validation, so an
included entry is checked exactly as a written one.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from .files import read_block_group
from .model import SpecError

INCLUDE_KEYS = {"use", "from", "only", "drop", "at", "rename", "with", "note"}
# tensor keys an include may set on every entry it brings (``when`` is and-ed rather than replaced)
OVERRIDE_KEYS = {
    "component",
    "when",
    "experts",
    "active_experts",
    "kind",
    "tied_to",
    "repeat",
    "mtp",
    "tie",
    "bias",
    "aliases",
    "alt_group",
}
FORMS = ("shape", "linear", "norm")
# keys holding expressions (``with`` rewrites them); lists hold one expression per dimension
_EXPRESSION_KEYS = ("shape", "alt_shape", "linear", "norm", "bias", "when", "experts", "active_experts", "tie")
_TOKEN = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\d[\w.]*)|([A-Za-z_]\w*)""")

Resolver = Callable[[str], dict[str, Any]]


def is_include(entry: Any) -> bool:
    return isinstance(entry, dict) and ("use" in entry or "from" in entry)


def expand_doc(name: str, doc: dict[str, Any], resolved: Resolver) -> dict[str, Any]:
    """``doc`` with the includes of its tensor lists (the spec's own and each class's) expanded; the document
    itself when it has none. ``resolved``: another spec's document, inheritance and includes applied."""
    lists = [doc.get("tensor", [])] + [
        c.get("tensor", []) for c in doc.get("class", {}).values() if isinstance(c, dict)
    ]
    if not any(is_include(e) for entries in lists if isinstance(entries, list) for e in entries):
        return doc
    out = {**doc, "tensor": expand_entries(name, doc.get("tensor", []), resolved)}
    if "class" in doc:
        out["class"] = {
            k: {**c, "tensor": expand_entries(f"{name}: class {k}", c["tensor"], resolved)}
            if isinstance(c, dict) and "tensor" in c
            else c
            for k, c in doc["class"].items()
        }
    return out


def expand_entries(where: str, entries: Any, resolved: Resolver, chain: tuple[str, ...] = ()) -> list[Any]:
    """A tensor list with every include replaced by the entries it brings, overridden by later plain entries."""
    if not isinstance(entries, list):
        return entries  # type: ignore[no-any-return]  # the loader reports the malformed list
    out: list[Any] = []
    included: dict[Any, int] = {}  # name -> position, for entries an include brought
    for entry in entries:
        if is_include(entry):
            for brought in _include(where, entry, resolved, chain):
                tensor = brought.get("name")
                if tensor in included or any(isinstance(e, dict) and e.get("name") == tensor for e in out):
                    raise SpecError(f"{where}: {_what(entry)} brings {tensor!r} a second time")
                included[tensor] = len(out)
                out.append(brought)
        elif isinstance(entry, dict) and entry.get("name") in included:
            at = included.pop(entry["name"])
            base = out[at]
            if any(k in entry for k in FORMS):
                base = {k: v for k, v in base.items() if k not in (*FORMS, "alt_shape", "alt_group", "bias")}
            out[at] = {**base, **entry}
        else:
            out.append(entry)
    return out


def _what(entry: dict[str, Any]) -> str:
    return f"use = {entry['use']!r}" if "use" in entry else f"from = {entry['from']!r}"


def _include(where: str, entry: dict[str, Any], resolved: Resolver, chain: tuple[str, ...]) -> list[dict[str, Any]]:
    what = _what(entry)
    unknown = set(entry) - INCLUDE_KEYS - OVERRIDE_KEYS
    if unknown or ("use" in entry) == ("from" in entry):
        raise SpecError(
            f"{where}: {what}: an include has use or from (one of them) and keys "
            f"{sorted(INCLUDE_KEYS | OVERRIDE_KEYS)}; not {sorted(unknown)}"
        )
    if "use" in entry:
        ref = entry["use"]
        if not isinstance(ref, str) or ref in chain:
            raise SpecError(f"{where}: {what} is {'circular' if ref in chain else 'not a block name'}")
        try:
            body = block(ref)
        except SpecError as e:
            raise SpecError(f"{where}: {e}") from None
        entries = expand_entries(f"block {ref}", body, resolved, (*chain, ref))
    else:
        source = entry["from"]
        if not isinstance(source, str):
            raise SpecError(f"{where}: from must name a spec file (its stem)")
        entries = resolved(f"{source}.toml").get("tensor", [])
    only = entry.get("only")
    if only is not None:
        if not (isinstance(only, list) and all(isinstance(p, str) for p in only)):
            raise SpecError(f"{where}: {what}: only is a list of name prefixes")
        entries = [e for e in entries if any(e.get("name", "").startswith(p) for p in only)]
    mapping = entry.get("with", {})
    if not isinstance(mapping, dict) or not all(isinstance(k, str) and k.isidentifier() for k in mapping):
        raise SpecError(f"{where}: {what}: with maps config names to expressions")
    moves = dict(entry.get("rename", {}))
    if "at" in entry:
        moves[""] = entry["at"]
    if not all(isinstance(v, str) for v in moves.values()):
        raise SpecError(f"{where}: {what}: at is a name prefix and rename maps old name prefixes to new ones")
    brought = [_moved(substituted(e, mapping), moves) for e in entries]
    drop = entry.get("drop", [])
    missing = set(drop) - {e.get("name") for e in brought}
    if missing:
        raise SpecError(f"{where}: {what}: drop names tensors it does not bring: {sorted(missing)}")
    overrides = {k: v for k, v in entry.items() if k in OVERRIDE_KEYS}
    return [_overridden(e, overrides) for e in brought if e.get("name") not in drop]


@lru_cache(maxsize=None)
def _group(group: str) -> dict[str, Any]:
    return read_block_group(group)


def block(ref: str) -> list[dict[str, Any]]:
    """The entries of block ``group.name`` (``data/blocks/group.toml``, table ``name``)."""
    group, _, name = ref.partition(".")
    try:
        body = _group(group)[name] if name else None
    except (FileNotFoundError, KeyError):
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("tensor"), list) or set(body) - {"description", "tensor"}:
        raise SpecError(
            f"use = {ref!r}: no such block (data/blocks/{group}.toml, a table {name or '?'} with "
            "a description and [[{name}.tensor]] entries)"
        )
    return body["tensor"]  # type: ignore[no-any-return]


def _moved(entry: dict[str, Any], moves: dict[str, str]) -> dict[str, Any]:
    if not moves:
        return entry
    out = dict(entry)
    for key in ("name", "tied_to"):
        if isinstance(out.get(key), str):
            out[key] = rename(out[key], moves)
    if isinstance(out.get("aliases"), list):
        out["aliases"] = [rename(a, moves) if isinstance(a, str) else a for a in out["aliases"]]
    return out


def _overridden(entry: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    if not overrides:
        return entry
    out = {**entry, **{k: v for k, v in overrides.items() if k != "when"}}
    outer = overrides.get("when")
    if outer is not None:
        inner = entry.get("when")
        out["when"] = outer if inner is None else f"({outer}) and ({inner})"
    return out


def substituted(entry: dict[str, Any], mapping: dict[str, Any]) -> dict[str, Any]:
    """An entry whose expressions read ``mapping``'s names as its values (names in strings are left alone)."""
    if not mapping:
        return entry
    out = dict(entry)
    for key in _EXPRESSION_KEYS:
        if key in out:
            value = out[key]
            out[key] = (
                [substitute(v, mapping) for v in value] if isinstance(value, list) else substitute(value, mapping)
            )
    if isinstance(out.get("repeat"), dict):
        out["repeat"] = {k: substitute(v, mapping) for k, v in out["repeat"].items()}
    return out


def substitute(source: Any, mapping: dict[str, Any]) -> Any:
    """One expression with names replaced: ``heads * head_dim`` with ``{heads: "n_head"}`` is ``n_head * head_dim``;
    a replacement that is not atomic is parenthesized inside a larger expression; an expression that is only a
    replaced name becomes the replacement itself (a boolean or number stays one)."""
    if not isinstance(source, str):
        return source
    if source.strip() in mapping:
        return mapping[source.strip()]

    def one(match: re.Match[str]) -> str:
        name = match.group(2)
        if name is None or name not in mapping:
            return match.group(0)
        return _text(mapping[name])

    return _TOKEN.sub(one, source)


def _text(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    text = str(value)
    return text if _atomic(text) else f"({text})"


@lru_cache(maxsize=1024)
def _atomic(text: str) -> bool:
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, (ast.Name, ast.Constant, ast.Subscript, ast.Call, ast.List, ast.Attribute))


def rename(name: str, renames: dict[str, str] | Any) -> str:
    """The longest matching old prefix is replaced; names matching none are kept."""
    for old in sorted(renames, key=len, reverse=True):
        if name.startswith(old):
            return renames[old] + name[len(old) :]
    return name
