"""The closed-form formula st-audit prints, evaluated independently of the code that wrote it."""

from __future__ import annotations

import json
import re

import pytest

from tests.support.cli import run_cli
from tests.support.formula import evaluate_printed
from tests.support.paths import ROOT

CONFIGS = sorted(p for p in (ROOT / "fixtures" / "configs").glob("*.json"))
PUBLISHED = {e["config_file"]: e for e in json.loads((ROOT / "fixtures" / "published-counts.json").read_text())}


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
