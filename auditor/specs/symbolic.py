"""The parameter formula in closed form, in the notation of the hand computations people publish.

``N*(2*d*h*h_d + 2*d*h_kv*h_d + 3*d*d_ff + 2*d + 2*h_d) + 2*d*|V| + d`` for Qwen3-8B. Built from the same
spec rules the count comes from: each rule's shape expressions are turned into polynomials over config
names (sums and products stay symbolic; anything else, such as ``//`` or ``min``, becomes one opaque
factor), conditions are decided with the config's actual values, and equal terms are collected.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from typing import Any

from . import Expectation, TensorRule
from .expr import compile_expr, evaluate

# config name -> symbol in the published hand computations (names without one are shown as they are)
NOTATION: dict[str, str] = {
    "num_hidden_layers": "N", "n_layer": "N", "hidden_size": "d", "n_embd": "d", "intermediate_size": "d_ff",
    "n_inner": "d_ff", "num_attention_heads": "h", "n_head": "h", "num_key_value_heads": "h_kv",
    "head_dim": "h_d", "vocab_size": "|V|", "moe_intermediate_size": "d_moe", "num_experts": "E",
    "num_local_experts": "E", "n_routed_experts": "E", "n_shared_experts": "E_s",
    "max_position_embeddings": "n_ctx", "n_positions": "n_ctx",
}

Monomial = tuple[str, ...]
Poly = dict[Monomial, int]


def _add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = defaultdict(int, a)
    for m, c in b.items():
        out[m] += sign * c
    return {m: c for m, c in out.items() if c}


def _mul(a: Poly, b: Poly) -> Poly:
    out: dict[Monomial, int] = defaultdict(int)
    for ma, ca in a.items():
        for mb, cb in b.items():
            out[tuple(sorted(ma + mb, key=_symbol_order))] += ca * cb
    return {m: c for m, c in out.items() if c}


def _symbol_order(symbol: str) -> tuple[int, str]:
    order = list(NOTATION.values())
    return (order.index(symbol), symbol) if symbol in order else (len(order), symbol)


class _Symbolic:
    """Turns the expressions of one spec into polynomials, given the config values for decisions."""

    def __init__(self, expectation: Expectation) -> None:
        self.env = expectation.env
        self.derived = expectation.spec.derived
        self.used: dict[str, Any] = {}

    def poly(self, source: str | int, env: dict[str, Any], depth: int = 0) -> Poly:
        if not isinstance(source, str):
            return {(): int(source)} if source else {}
        return self._node(compile_expr(source).body, env, depth)

    def _node(self, node: ast.AST, env: dict[str, Any], depth: int) -> Poly:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return {(): node.value} if node.value else {}
        if isinstance(node, ast.Name):
            name = node.id
            derived = self.derived.get(name)
            if isinstance(derived, str) and depth < 8 and name not in NOTATION:
                return self.poly(derived, env, depth + 1)
            value = env.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and name not in ("layer",):
                symbol = NOTATION.get(name, name)
                self.used[symbol] = value
                return {(symbol,): 1}
            return self._opaque(node, env)
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)):  # vision_config['hidden_size'] -> vision.hidden_size
            value = evaluate(ast.unparse(node), env)
            if isinstance(value, int) and not isinstance(value, bool):
                symbol = f"{node.value.id.removesuffix('_config')}.{node.slice.value}"
                self.used[symbol] = value
                return {(symbol,): 1}
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            left, right = self._node(node.left, env, depth), self._node(node.right, env, depth)
            if isinstance(node.op, ast.Mult):
                return _mul(left, right)
            return _add(left, right, 1 if isinstance(node.op, ast.Add) else -1)
        if isinstance(node, ast.IfExp):  # decided by this config's values
            return self._node(node.body if evaluate(ast.unparse(node.test), env) else node.orelse, env, depth)
        return self._opaque(node, env)

    def _opaque(self, node: ast.AST, env: dict[str, Any]) -> Poly:
        """A factor the notation cannot split (``h_d//2``, ``min(...)``): shown as itself, valued from env."""
        value = evaluate(ast.unparse(node), env)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"{ast.unparse(node)} is not a whole number")
        if isinstance(node, ast.Constant):
            return {(): value} if value else {}
        renamed = ast.parse(ast.unparse(node), mode="eval")
        for n in ast.walk(renamed):
            if isinstance(n, ast.Name):
                n.id = NOTATION.get(n.id, n.id)
        text = re.sub(r"(\w+)_config\['(\w+)'\]", r"\1.\2", ast.unparse(renamed.body))
        symbol = text if isinstance(node, ast.Name) else f"({text})"
        self.used[symbol] = value
        return {(symbol,): 1}

    def rule(self, rule: TensorRule, env: dict[str, Any]) -> Poly:
        poly: Poly = {(): 1}
        for dim in rule.shape:
            poly = _mul(poly, self.poly(dim, env))
        if "{expert}" in rule.name and rule.experts is not None:
            poly = _mul(poly, self.poly(rule.experts, env))
        return poly


def render(poly: Poly) -> str:
    terms = sorted(poly.items(), key=lambda mc: (-len(mc[0]), [_symbol_order(s) for s in mc[0]]))
    out: list[str] = []
    for monomial, coef in terms:
        body = "*".join(monomial)
        if not body:
            text = str(abs(coef))
        else:
            text = body if abs(coef) == 1 else f"{abs(coef)}*{body}"
        out.append(("- " if coef < 0 else "+ ") + text if out else ("-" if coef < 0 else "") + text)
    return " ".join(out) or "0"


def _value(poly: Poly, values: dict[str, Any]) -> int:
    total = 0
    for monomial, coef in poly.items():
        term = coef
        for symbol in monomial:
            term *= values[symbol]
        total += term
    return total


def closed_form(expectation: Expectation, parameters: int) -> str | None:
    """``N*(...) + ...`` with the symbol values, for the model's parameters (MTP, buffers, tied head excluded).

    The form is checked by evaluating it: None when it does not come to ``parameters`` exactly, or a shape
    cannot be put in this notation (the caller then shows the per-component sum instead).
    """
    spec, env = expectation.spec, expectation.env
    sym = _Symbolic(expectation)
    try:
        layer_polys: dict[str, tuple[Poly, int]] = {}
        for layer in range(expectation.num_layers):
            lenv = {**env, "layer": layer, "is_mtp": False}
            layer_type = str(evaluate(spec.layer_type, lenv)) if spec.layer_type else "decoder"
            if layer_type in layer_polys:
                poly, count = layer_polys[layer_type]
                layer_polys[layer_type] = (poly, count + 1)
                continue
            poly = {}
            for rule in spec.rules:
                if rule.per_layer and rule.kind == "param" and (rule.when is None or evaluate(rule.when, lenv)):
                    poly = _add(poly, sym.rule(rule, lenv))
            layer_polys[layer_type] = (poly, 1)
        rest: Poly = {}
        for rule in spec.rules:
            if rule.per_layer or rule.kind == "buffer" or (rule.kind == "head" and expectation.tied):
                continue
            if rule.when is not None and not evaluate(rule.when, env):
                continue
            if rule.layers is not None:  # a tower with its own layer count: sum over its layers
                rule_poly: Poly = {}
                for tower_layer in range(int(evaluate(rule.layers, env))):
                    tenv = {**env, "layer": tower_layer}
                    if rule.when is None or evaluate(rule.when, tenv):
                        rule_poly = _add(rule_poly, sym.rule(rule, tenv))
                rest = _add(rest, rule_poly)
            else:
                rest = _add(rest, sym.rule(rule, env))
    except (ValueError, KeyError, TypeError):
        return None
    if sum(count * _value(poly, sym.used) for poly, count in layer_polys.values()) + _value(rest, sym.used) \
            != parameters:
        return None
    parts = []
    single = len(layer_polys) == 1
    for layer_type, (poly, count) in layer_polys.items():
        if single and count == expectation.num_layers:
            sym.used["N"] = count
            parts.append(f"N*({render(poly)})")
        else:
            parts.append(f"({render(poly)})" if count == 1 else f"{count}*({render(poly)})")
    if rest:
        parts.append(render(rest))
    values = ", ".join(f"{s}={v:,}" for s, v in sorted(sym.used.items(), key=lambda kv: _symbol_order(kv[0])))
    return " + ".join(parts) + (f"  [{values}]" if values else "")
