"""Quantization schemes as data: ``schemes/*.toml``, one ``[[scheme]]`` per stored layout (format: docs/quant.md).

A scheme says which tensors a quantized linear layer stores instead of ``X.weight [rows, cols]``: their names
(templates over ``{module}`` = the layer, ``{weight}`` = the logical weight's name, and the scheme's parameters),
dtypes and shapes as expressions of ``rows`` / ``cols`` and the parameters (bits, group or block sizes), which
one stands for the weight (``role = "weight"``: it counts as the ``rows * cols`` values it encodes) and which are
bookkeeping. Expressions are evaluated by the specs' safe engine (``auditor.specs.expr``). This module loads and
evaluates; ``assess.py`` compares with what is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from ..core.tomlio import tomllib
from ..specs.expr import ExprError, compile_expr, evaluate

_SCHEME_KEYS = {"name", "method", "when", "applies", "value_bits", "sources", "description", "let", "tensor"}
_TENSOR_KEYS = {"name", "role", "dtype", "shape", "shapes", "required", "note"}
Expr = Any  # a literal or an expression string


class SchemeError(ValueError):
    """A scheme file is malformed (caught by the test that loads every scheme)."""


@dataclass(frozen=True)
class StoredTensorRule:
    """One tensor a quantized layer stores."""

    name: str  # template: {module}, {weight}, scheme parameters
    role: str  # "weight" (stands for the logical weight) or "aux" (bookkeeping)
    dtype: Expr  # a list of dtypes, or an expression giving one
    shapes: tuple[Expr, ...]  # alternatives, each a list of dimension expressions or an expression; () = any
    required: Expr = True
    note: str | None = None


@dataclass(frozen=True)
class Scheme:
    """A stored layout of one quantization method."""

    name: str
    method: str
    when: str
    rules: tuple[StoredTensorRule, ...]
    let: tuple[tuple[str, str], ...]
    value_bits: Expr
    applies: str | None = None
    file: str = ""


class LayerPart(NamedTuple):
    """One rule evaluated for one layer shape; its tensor is ``(module or weight name) + suffix``."""

    rule: StoredTensorRule
    dtypes: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]  # alternatives; () = any shape
    required: bool
    on_module: bool  # the name starts from the layer ({module}) or the weight ({weight})
    suffix: str


@dataclass(frozen=True)
class Resolved:
    """A scheme evaluated for one layer shape: concrete names, dtypes and shapes per rule."""

    scheme: Scheme
    applies: bool
    parts: tuple[LayerPart, ...]
    weight: LayerPart  # the part with role "weight"
    value_bits: int | None
    env: dict[str, Any]

    def name(self, part: LayerPart, module: str, weight: str) -> str:
        return (module if part.on_module else weight) + part.suffix


def _check(expr: Any, where: str) -> None:
    if isinstance(expr, str):
        try:
            compile_expr(expr)
        except ExprError as e:
            raise SchemeError(f"{where}: {e}") from None
    elif isinstance(expr, list):
        for item in expr:
            _check(item, where)


def _scheme(doc: dict[str, Any], file: str) -> Scheme:
    where = f"{file} [{doc.get('name', '?')}]"
    if set(doc) - _SCHEME_KEYS or not {"name", "method", "tensor"} <= set(doc):
        raise SchemeError(f"{where}: keys must be among {sorted(_SCHEME_KEYS)} and include name, method, tensor")
    rules = []
    for t in doc["tensor"]:
        if set(t) - _TENSOR_KEYS or "name" not in t or "dtype" not in t:
            raise SchemeError(f"{where}: tensor keys must be among {sorted(_TENSOR_KEYS)} with name and dtype")
        if not t["name"].startswith(("{module}", "{weight}")):
            raise SchemeError(f"{where}: tensor name {t['name']!r} must start with {{module}} or {{weight}}")
        shapes = t.get("shapes", [t["shape"]] if "shape" in t else [])
        for part in ("dtype", "required"):
            _check(t.get(part), where)
        _check(shapes if isinstance(shapes, list) else [shapes], where)
        rules.append(
            StoredTensorRule(
                t["name"],
                t.get("role", "aux"),
                t["dtype"],
                tuple(shapes) if isinstance(shapes, list) else (shapes,),
                t.get("required", True),
                t.get("note"),
            )
        )
    if sum(r.role == "weight" for r in rules) != 1 or any(r.role not in ("weight", "aux") for r in rules):
        raise SchemeError(f'{where}: exactly one tensor has role = "weight"; the others are "aux"')
    let = tuple((k, v) for k, v in doc.get("let", {}).items())
    for _, v in let:
        _check(v, where)
    for part in ("when", "applies", "value_bits"):
        _check(doc.get(part), where)
    return Scheme(
        doc["name"],
        doc["method"],
        doc.get("when", "True"),
        tuple(rules),
        let,
        doc.get("value_bits"),
        doc.get("applies"),
        file,
    )


@lru_cache(maxsize=1)
def all_schemes() -> tuple[Scheme, ...]:
    """Every scheme of every file, in file then declaration order (the first whose ``when`` holds is used)."""
    out = []
    for entry in sorted((Path(__file__).parent / "schemes").iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".toml"):
            doc = tomllib.loads(entry.read_text(encoding="utf-8"))
            out += [_scheme(s, entry.name) for s in doc.get("scheme", [])]
    return tuple(out)


@lru_cache(maxsize=1)
def packed_forms() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """``packed.toml``: for packed weights (``"weight"``) and bookkeeping (``"bookkeeping"``), the prefixes and
    endings of a last name segment that mark a quantization tensor beyond the schemes' own rule names."""
    doc = tomllib.loads((Path(__file__).parent / "packed.toml").read_text(encoding="utf-8"))
    return {role: (tuple(doc[role]["prefixes"]), tuple(doc[role]["suffixes"])) for role in ("weight", "bookkeeping")}


def choose(method: str, params: dict[str, Any]) -> Scheme | None:
    """The first scheme of ``method`` whose ``when`` holds for ``params``."""
    for scheme in all_schemes():
        if scheme.method != method:
            continue
        try:
            if evaluate(scheme.when, params):
                return scheme
        except ExprError:
            continue
    return None


def _shape(expr: Any, env: dict[str, Any]) -> tuple[int, ...]:
    value = evaluate(expr, env) if isinstance(expr, str) else [evaluate(d, env) for d in expr]
    if not isinstance(value, (list, tuple)) or not all(isinstance(d, int) and not isinstance(d, bool) for d in value):
        raise ExprError(f"{expr!r} is not a list of integers ({value!r})")
    return tuple(value)


def resolve(scheme: Scheme, params: dict[str, Any], rows: int, cols: int) -> Resolved:
    """Evaluate ``scheme`` for a ``[rows, cols]`` layer; raises ExprError when the parameters do not fit."""
    env: dict[str, Any] = {**params, "rows": rows, "cols": cols}
    for key, expr in scheme.let:
        env[key] = evaluate(expr, env)
    applies = bool(evaluate(scheme.applies, env)) if scheme.applies else True
    rules = []
    for rule in scheme.rules:
        dtypes = evaluate(rule.dtype, env)
        alternatives: list[tuple[int, ...]] = []
        for alt in rule.shapes:
            value = evaluate(alt, env) if isinstance(alt, str) else alt
            if isinstance(value, list) and value and all(isinstance(a, list) for a in value):
                alternatives += [_shape(a, env) for a in value]  # an expression giving several alternatives
            else:
                alternatives.append(_shape(alt, env))
        on_module = rule.name.startswith("{module}")
        suffix = rule.name[len("{module}") :].format_map(_Params(env))  # "{weight}" has the same length
        rules.append(
            LayerPart(rule, tuple(dtypes), tuple(alternatives), bool(evaluate(rule.required, env)), on_module, suffix)
        )
    bits = evaluate(scheme.value_bits, env)
    weight = next(p for p in rules if p.rule.role == "weight")
    return Resolved(scheme, applies, tuple(rules), weight, bits if isinstance(bits, int) and bits > 0 else None, env)


class _Params(dict):  # type: ignore[type-arg]
    """``str.format_map`` over the scheme parameters; an unknown field stays as written."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
