"""The closed-form formula st-audit prints, evaluated independently of the code that wrote it."""

from __future__ import annotations

import ast
import json
import operator
import re

import pytest

from tests.conftest import ROOT, run_cli

CONFIGS = sorted(p for p in (ROOT / "fixtures" / "configs").glob("*.json"))
PUBLISHED = {e["config_file"]: e for e in json.loads((ROOT / "fixtures" / "published-counts.json").read_text())}
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Pow: operator.pow}


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


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_printed_closed_form_evaluates_to_the_count(config) -> None:
    proc = run_cli("formula", str(config), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    value, total = evaluate_printed(doc["formula"])
    assert value == total == doc["parameters"]


def test_qwen3_8b_in_the_seeds_notation() -> None:
    doc = json.loads(run_cli("formula", str(ROOT / "fixtures/configs/Qwen__Qwen3-8B.json"), "--format", "json").stdout)
    expr = doc["formula"].split("  [")[0]
    per_layer = re.fullmatch(r"N\*\((.+)\) \+ (.+)", expr)
    assert per_layer, expr
    assert set(per_layer[1].split(" + ")) == {"2*d*h*h_d", "2*d*h_kv*h_d", "3*d*d_ff", "2*d", "2*h_d"}
    assert set(per_layer[2].split(" + ")) == {"2*d*|V|", "d"}  # the final norm the hand formulas forget
    assert evaluate_printed(doc["formula"])[0] == PUBLISHED["Qwen__Qwen3-8B.json"]["published_params"]
