"""The closed-form formula st-audit prints, evaluated independently of the code that wrote it."""

from __future__ import annotations

import ast
import operator
import re

_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}


def _arith(node: ast.AST) -> int:
    """Integer arithmetic only: the printed formula after its symbols were replaced by their values."""
    if isinstance(node, ast.Expression):
        return _arith(node.body)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_arith(node.left), _arith(node.right))
    raise AssertionError(f"unexpected syntax in formula: {ast.dump(node)}")


def evaluate_printed(formula: str) -> tuple[int, int]:
    """``"N*(...) + d  [N=36, d=4,096] = 8,190,735,360"`` -> (value of the expression, the printed total)."""
    m = re.fullmatch(r"(?P<expr>.+?)  \[(?P<values>.+)\] = (?P<total>[\d,]+)", formula)
    assert m, formula
    values = {}
    for item in re.split(r", (?=[^,=]+=)", m["values"]):
        symbol, value = item.rsplit("=", 1)
        values[symbol] = int(value.replace(",", ""))
    # towers and projectors are printed as named numbers ("vision 850,960,896")
    expr = re.sub(r"(?<![\w.|*])[a-z_]+ (\d[\d,]*)", lambda t: t[1].replace(",", ""), m["expr"])
    for symbol in sorted(values, key=len, reverse=True):  # longest first: "h_kv" before "h"
        expr = re.sub(rf"(?<![\w.|]){re.escape(symbol)}(?![\w.|])", str(values[symbol]), expr)
    return _arith(ast.parse(expr, mode="eval")), int(m["total"].replace(",", ""))
