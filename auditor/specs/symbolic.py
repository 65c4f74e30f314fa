"""The parameter formula in closed form, in the notation of the hand computations people publish.

``N*(2*d*h*h_d + 2*d*h_kv*h_d + 3*d*d_ff + 2*d + 2*h_d) + 2*d*|V| + d`` for Qwen3-8B. Built from the same
spec rules the count comes from: each rule's shape expressions are turned into polynomials over config
names (sums and products stay symbolic; anything else, such as ``//`` or ``min``, becomes one opaque
factor), conditions are decided with the config's actual values, and equal terms are collected.
"""

from __future__ import annotations

import ast
import math
import re
from collections import defaultdict
from typing import Any

from .expand import class_rules
from .expr import ExprError, compile_expr, evaluate
from .model import Expectation, TensorRule

# config name -> symbol in the published hand computations (names without one are shown as they are)
NOTATION: dict[str, str] = {
    "num_hidden_layers": "N",
    "n_layer": "N",
    "hidden_size": "d",
    "n_embd": "d",
    "intermediate_size": "d_ff",
    "n_inner": "d_ff",
    "num_attention_heads": "h",
    "n_head": "h",
    "num_key_value_heads": "h_kv",
    "head_dim": "h_d",
    "vocab_size": "|V|",
    "moe_intermediate_size": "d_moe",
    "num_experts": "E",
    "num_local_experts": "E",
    "n_routed_experts": "E",
    "n_shared_experts": "E_s",
    "max_position_embeddings": "n_ctx",
    "n_positions": "n_ctx",
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
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):  # vision_config['hidden_size'] -> vision.hidden_size
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
        if rule.repeat:  # shapes vary with the repeat indices: the per-component sum is shown instead
            raise ValueError(f"{rule.name} repeats over {', '.join(k for k, _ in rule.repeat)}")
        poly: Poly = {(): 1}
        for dim in rule.shape:
            poly = _mul(poly, self.poly(dim, env))  # type: ignore[arg-type]  # dimensions are never None
        if "{expert}" in rule.name and rule.experts is not None:
            poly = _mul(poly, self.poly(rule.experts, env))  # type: ignore[arg-type]  # not None: checked above
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


TOWER_COMPONENTS = ("vision", "audio", "projector")


def closed_form(expectation: Expectation, parameters: int) -> str | None:
    """``N*(...) + ...`` with the symbol values, for the model's parameters (MTP, buffers, tied head excluded).

    Stacks are ``N*(...)`` terms (one per row label), towers and projectors plain numbers
    (``vision 416,866,304``). The form is checked by evaluating it: None when it does not come to
    ``parameters`` exactly, or a shape cannot be put in this notation (the caller then shows the
    per-component sum instead).
    """
    sym = _Symbolic(expectation)
    try:
        parts, numeric, total = _terms(expectation, sym)
    except (ValueError, KeyError, TypeError, ExprError):
        return None
    if total + sum(numeric.values()) != parameters:
        return None
    order = {c: i for i, c in enumerate(TOWER_COMPONENTS)}
    towers = sorted(numeric, key=lambda c: order.get(c, len(order)))  # vision, audio, then the projector
    parts += [f"{component} {numeric[component]:,}" for component in towers if numeric[component]]
    values = ", ".join(f"{s}={v:,}" for s, v in sorted(sym.used.items(), key=lambda kv: _symbol_order(kv[0])))
    return " + ".join(parts) + (f"  [{values}]" if values else "")


def _counted(rule: TensorRule, tied: bool) -> bool:
    return not rule.mtp and (rule.kind in ("param", "unsaved") or (rule.kind == "head" and not tied))


def _terms(expectation: Expectation, sym: _Symbolic, headless: bool = False) -> tuple[list[str], dict[str, int], int]:
    """The symbolic terms of one (sub)model, its tower numbers by component, and the value of the terms
    (``headless``: a base model taken from a class with an LM head, whose head rules are not counted)."""
    spec, env = expectation.spec, expectation.env
    headless = headless or expectation.headless
    sym.derived = spec.derived  # a module's expressions name its own derived values
    rules = class_rules(spec, spec.classes[expectation.cls].base_of or expectation.cls)
    if headless:
        rules = [(i, r) for i, r in rules if r.component != "lm_head"]
        rules += [
            (len(spec.rules) + i, r)
            for i, r in enumerate(spec.classes[expectation.cls].rules)
            if spec.classes[expectation.cls].base_of is not None
        ]
    numeric: dict[str, int] = defaultdict(int)
    parts: list[str] = []
    total = 0
    stack_polys: list[tuple[str, Poly, int]] = []
    main_stacks = [s for s in spec.stacks if not s.mtp]  # an MTP block is outside the model's formula
    for stack in main_stacks:
        polys: dict[str, tuple[Poly, int]] = {}
        count = int(evaluate(stack.count, env))
        own = [r for _, r in rules if r.stack == stack.name and _counted(r, expectation.tied)]
        for layer in range(count):
            lenv = {**env, "layer": layer, "is_mtp": False}
            for key, value in stack.bind:
                lenv[key] = evaluate(value, lenv)
            row = str(evaluate(stack.row, lenv)) if stack.row is not None else stack.name
            if row in polys:
                polys[row] = (polys[row][0], polys[row][1] + 1)
                continue
            poly: Poly = {}
            for rule in own:
                if rule.when is None or evaluate(rule.when, lenv):
                    poly = _add(poly, sym.rule(rule, lenv))
            polys[row] = (poly, 1)
        stack_polys += [(row, poly, n) for row, (poly, n) in polys.items()]
        if len(polys) == 1 and len(main_stacks) == 1:
            sym.used["N"] = count
    single = len(stack_polys) == 1
    for _row, poly, count in stack_polys:
        total += count * _value(poly, sym.used)
        if single and sym.used.get("N") == count:
            parts.append(f"N*({render(poly)})")
        else:
            parts.append(f"({render(poly)})" if count == 1 else f"{count}*({render(poly)})")
    rest: Poly = {}
    for _, rule in rules:
        if rule.stack is not None or not _counted(rule, expectation.tied):
            continue
        if rule.when is not None and not evaluate(rule.when, env):
            continue
        if rule.component in TOWER_COMPONENTS:  # a plain number: its symbols would only clutter the legend
            numeric[rule.component] += math.prod(int(evaluate(dim, env)) for dim in rule.shape)
        else:
            rest = _add(rest, sym.rule(rule, env))  # type: ignore[arg-type]  # read only
    if rest:
        parts.append(render(rest))
        total += _value(rest, sym.used)
    for name, sub in expectation.modules:
        module = next(m for m in spec.modules if m.name == name)
        if module.component is not None:
            numeric[module.component] += sum(
                e.elements
                for e in sub.tensors.values()
                if not e.mtp and (e.kind in ("param", "unsaved") or (e.kind == "head" and not e.tied))
            )
            continue
        sub_parts, sub_numeric, sub_total = _terms(sub, sym, headless)
        parts += sub_parts
        total += sub_total
        for component, value in sub_numeric.items():
            numeric[component] += value
    return parts, numeric, total
