"""A tiny, safe evaluator for the shape and condition expressions of architecture specs.

Expressions are Python syntax restricted to: names (config keys and loop variables), int/bool/None/str
literals, lists, ``+ - * // % **`` (``/`` too, for ratios), comparisons (incl. ``in``, ``is None``), ``and``/
``or``/``not``, ``a if c else b``, ``x[i]``, ``x[a:b]``, and the functions in ``FUNCTIONS``. Anything else is rejected
when the spec is loaded; ``eval`` is never used. Parsed trees are cached per source string.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any


class ExprError(ValueError):
    """An expression is malformed, or refers to a value that is not there."""


class NoSubSpec(ExprError):
    """A composite model's part (VisionEncoderDecoder's encoder or decoder) has a model_type no spec covers: the
    composite has no formula then (the structural check applies), rather than a config error."""


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _as_list(value: Any) -> list[Any]:
    """A value configs write either alone or as a list (``image_size`` 448 or [448, 448],
    ``vision_feature_layer`` -2 or [-2, -5]) as a list: ``as_list(x)[0]``, ``len(as_list(x))``."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _per_layer(overrides: Mapping[Any, Any] | None, layer: int, key: str, default: Any) -> Any:
    """transformers' ``per_layer_config`` (HeterogeneousConfigMixin): ``{layer index: {key: value}}``, the index
    an int in memory and a zero-padded string in config.json (``"05"``). The layer's value, else ``default``."""
    if overrides is None:
        return default
    if not isinstance(overrides, Mapping):
        raise TypeError(f"per_layer_config must be a mapping, not {type(overrides).__name__}")
    for index, values in overrides.items():
        if str(index).isdigit() and int(index) == layer and isinstance(values, Mapping) and key in values:
            return values[key]
    return default


# A list built from config values (``['mamba'] * num_hidden_layers``, ``list(range(n))``) is bounded, so a
# hostile config is an ExprError (a finding), never a MemoryError or a hang.
MAX_SEQUENCE = 1_000_000


def _list(items: Any) -> list[Any]:
    if len(items) > MAX_SEQUENCE:
        raise ValueError(f"a list of {len(items):,} items (over {MAX_SEQUENCE:,})")
    return list(items)


def _count(items: Any, value: Any) -> int:
    """How often ``value`` occurs (``count(layers_block_type[:layer], 'hybrid')``: a layer's hybrid ordinal)."""
    return _list(items).count(value)


def _repeat(left: Any, right: Any) -> Any:
    seq, times = (left, right) if isinstance(left, (list, str)) else (right, left)
    if isinstance(seq, (list, str)) and isinstance(times, int) and len(seq) * times > MAX_SEQUENCE:
        raise ValueError(f"repeating {len(seq)} items {times:,} times (over {MAX_SEQUENCE:,})")
    return operator.mul(left, right)


# primes_after's bounds: how many primes one call may return, and the largest start it accepts (Miller-Rabin with
# these witnesses is exact below 3.3e24; prime gaps below 2**48 are under 1,000, so the scan always ends).
MAX_PRIMES = 10_000
_MAX_PRIME_START = 2**48
_WITNESSES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    for p in _WITNESSES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in _WITNESSES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _primes_after(start: int, count: int) -> list[int]:
    """The first ``count`` primes greater than ``start``. Qwen4-Exp's n-gram embedding gives head h of PLE layer p a
    vocabulary of the (p * heads + h + 1)-th prime after ``ngram_vocab_size_base - 1`` (``_find_nth_prime_after``);
    its table is their sum, padded. Bounded (``count`` <= MAX_PRIMES, ``start`` < 2**48): a hostile config is a
    finding, not a hang."""
    if not isinstance(start, int) or not isinstance(count, int) or isinstance(start, bool) or isinstance(count, bool):
        raise TypeError("primes_after takes two integers")
    if count < 0 or count > MAX_PRIMES:
        raise ValueError(f"primes_after: {count:,} primes asked for (0 to {MAX_PRIMES:,})")
    if start < 0 or start >= _MAX_PRIME_START:
        raise ValueError(f"primes_after: start {start:,} outside 0 .. 2**48")
    found: list[int] = []
    candidate = start
    while len(found) < count:
        candidate += 1
        if _is_prime(candidate):
            found.append(candidate)
    return found


def _index_of(items: Any, value: Any) -> int:
    """Where ``value`` first occurs in ``items`` (Qwen4-Exp: a layer's position among ``ple_layer_ids``)."""
    return _list(items).index(value)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "len": len,
    "int": int,
    "bool": bool,
    "abs": abs,
    "sum": sum,
    "ceil_div": _ceil_div,
    "ceil": math.ceil,
    "round": round,
    "range": range,
    "any": any,
    "all": all,
    "as_list": _as_list,
    "isqrt": math.isqrt,  # floor(sqrt(n)): Doge's product-key router has 2 * isqrt(num_experts) keys
    "per_layer": _per_layer,  # Gemma 4's per-layer head_dim / kv heads
    "list": _list,
    "count": _count,
    "primes_after": _primes_after,
    "index_of": _index_of,  # Qwen4-Exp's n-gram embedding tables
    "sorted": lambda items: sorted(_list(items)),  # Qwen4-Exp sorts ple_layer_ids on load
}

_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: _repeat,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.Div: operator.truediv,
}
_CMPOPS: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
_ALLOWED = (
    ast.Expression,
    ast.Constant,
    ast.Name,
    ast.Load,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Call,
    ast.Subscript,
    ast.Slice,
    ast.List,
    ast.Tuple,
    ast.And,
    ast.Or,
    ast.Not,
    ast.USub,
    ast.UAdd,
    *_BINOPS,
    *_CMPOPS,
)


@lru_cache(maxsize=None)
def compile_expr(source: str) -> ast.Expression:
    """Parse and vet an expression once; raises ExprError for anything outside the small language."""
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as e:
        raise ExprError(f"cannot parse expression {source!r}: {e.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise ExprError(f"{type(node).__name__} is not allowed in expression {source!r}")
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS and not node.keywords
        ):
            raise ExprError(f"only {', '.join(sorted(FUNCTIONS))} may be called in {source!r}")
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Pow)
            and not (
                isinstance(node.right, ast.Constant) and isinstance(node.right.value, int) and node.right.value <= 8
            )
        ):
            raise ExprError(f"'**' needs a small constant exponent in {source!r}")
    return tree


def evaluate(source: str | int | float | bool | None, env: Mapping[str, Any]) -> Any:
    """Evaluate an expression (or pass a literal through) against ``env``."""
    if not isinstance(source, str):
        return source
    return _eval(compile_expr(source).body, env, source)


def _eval(node: ast.AST, env: Mapping[str, Any], source: str) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        try:
            return env[node.id]
        except KeyError:
            raise ExprError(f"config has no {node.id!r} (needed by {source!r})") from None
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, env, source), _eval(node.right, env, source)
        try:
            return _BINOPS[type(node.op)](left, right)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError) as e:
            raise ExprError(f"{source!r}: {e} (values {left!r}, {right!r})") from None
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env, source)
        if isinstance(node.op, ast.Not):
            return not value
        try:
            return -value if isinstance(node.op, ast.USub) else +value
        except TypeError as e:
            raise ExprError(f"{source!r}: {e}") from None
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            result: Any = True
            for v in node.values:
                result = _eval(v, env, source)
                if not result:
                    return result
            return result
        result = False
        for v in node.values:
            result = _eval(v, env, source)
            if result:
                return result
        return result
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env, source)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, env, source)
            try:
                if not _CMPOPS[type(op)](left, right):
                    return False
            except TypeError as e:
                raise ExprError(f"{source!r}: {e} (values {left!r}, {right!r})") from None
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, env, source) else node.orelse, env, source)
    if isinstance(node, ast.Call):
        args = [_eval(a, env, source) for a in node.args]
        try:
            return FUNCTIONS[node.func.id](*args)  # type: ignore[attr-defined]
        except (TypeError, ValueError, ZeroDivisionError, OverflowError) as e:
            raise ExprError(f"{source!r}: {e}") from None
    if isinstance(node, ast.Subscript):
        container = _eval(node.value, env, source)
        if isinstance(node.slice, ast.Slice):  # x[a:b]: 'hybrid' not in layers_block_type[:layer]
            key: Any = slice(
                *(
                    None if part is None else _eval(part, env, source)
                    for part in (node.slice.lower, node.slice.upper, node.slice.step)
                )
            )
        else:
            key = _eval(node.slice, env, source)
        try:
            return container[key]
        except (TypeError, IndexError, KeyError) as e:
            raise ExprError(f"{source!r}: cannot index {container!r} with {key!r} ({e})") from None
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_eval(e, env, source) for e in node.elts]
    raise ExprError(f"unsupported expression {source!r}")  # unreachable: compile_expr vetted the tree
