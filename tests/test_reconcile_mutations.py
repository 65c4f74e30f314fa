"""Mutation tests: break a real-shaped checkpoint one way at a time; the CLI must fail and name the tensor.

The starting points are transformers' dumped state_dicts (Qwen3-8B: no biases, QK-norm, untied head;
Qwen2.5-7B: q/k/v biases only). Every mutation is checked through the CLI exit code and the JSON report.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from tests.support import build
from tests.support.cli import run_cli, run_json

QWEN3 = "Qwen__Qwen3-8B"
QWEN2 = "Qwen__Qwen2.5-7B"


def _layout(name: str) -> tuple[list[build.TensorSpec], dict[str, Any]]:
    layout = build.load_layout(name)
    tensors: list[build.TensorSpec] = [(n, d, list(s)) for n, d, s in layout["tensors"]]
    return tensors, build.load_config(layout["config_file"])


def _mutated(
    make_checkpoint: Callable[..., Path],
    name: str,
    *,
    drop: Iterable[str] = (),
    add: Iterable[build.TensorSpec] = (),
    reshape: dict[str, list[int]] | None = None,
    config: dict[str, Any] | None = None,
) -> Path:
    tensors, cfg = _layout(name)
    dropped = set(drop)
    names = {n for n, _, _ in tensors}
    assert dropped <= names, sorted(dropped - names)  # a typo must not make a mutation a no-op
    reshape = reshape or {}
    assert set(reshape) <= names
    out = [(n, d, reshape.get(n, s)) for n, d, s in tensors if n not in dropped] + list(add)
    return make_checkpoint(out, config={**cfg, **(config or {})}, shards=4)


def _fails_naming(path: Path, code: str, tensor: str) -> dict[str, Any]:
    proc = run_cli("audit", str(path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    rc, doc = run_json("audit", str(path), "--tensors")  # every tensor name of every finding
    assert rc == 1
    assert doc["verdict"] == "fail"
    hits = [f for f in doc["findings"] if f["code"] == code and tensor in f["tensors"]]
    assert hits, [(f["code"], f["severity"], f["tensors"][:5]) for f in doc["findings"]]
    assert hits[0]["severity"] == "error"
    return doc


def test_unmutated_baselines_pass(make_checkpoint: Callable[..., Path]) -> None:
    for name in (QWEN3, QWEN2):
        path = _mutated(make_checkpoint, name)
        assert run_cli("audit", str(path)).returncode == 0


def test_dropped_bias(make_checkpoint: Callable[..., Path]) -> None:
    t = "model.layers.5.self_attn.k_proj.bias"
    doc = _fails_naming(_mutated(make_checkpoint, QWEN2, drop=[t]), "missing-tensor", t)
    assert doc["ledger"]["unexplained"] == 0


@pytest.mark.parametrize(
    ("name", "tensor", "shape"),
    [
        (QWEN3, "model.layers.3.self_attn.q_proj.bias", [4096]),  # Qwen3: attention_bias false
        (QWEN2, "model.layers.3.self_attn.o_proj.bias", [3584]),  # Qwen2: q/k/v bias only, never o_proj
        (QWEN3, "model.layers.3.mlp.down_proj.bias", [4096]),
    ],
)
def test_unexpected_bias(make_checkpoint: Callable[..., Path], name: str, tensor: str, shape: list[int]) -> None:
    doc = _fails_naming(_mutated(make_checkpoint, name, add=[(tensor, "BF16", shape)]), "unexpected-tensor", tensor)
    assert doc["ledger"]["unexplained"] == shape[0]


@pytest.mark.parametrize(
    "tensor",
    [
        "model.layers.7.post_attention_layernorm.weight",
        "model.layers.7.self_attn.k_norm.weight",
        "model.norm.weight",
    ],
)
def test_dropped_norm(make_checkpoint: Callable[..., Path], tensor: str) -> None:
    _fails_naming(_mutated(make_checkpoint, QWEN3, drop=[tensor]), "missing-tensor", tensor)


def test_dropped_head_of_untied_model(make_checkpoint: Callable[..., Path]) -> None:
    doc = _fails_naming(_mutated(make_checkpoint, QWEN3, drop=["lm_head.weight"]), "tied-head", "lm_head.weight")
    assert doc["totals"]["parameters"] == 8_190_735_360 - 151936 * 4096


@pytest.mark.parametrize(
    ("tensor", "shape"),
    [
        ("model.layers.20.self_attn.k_proj.weight", [2048, 4096]),  # as if 16 KV heads
        ("model.layers.0.mlp.down_proj.weight", [12288, 4096]),  # transposed
        ("model.layers.2.self_attn.q_norm.weight", [4096]),  # full-width instead of per-head
        ("model.embed_tokens.weight", [151000, 4096]),
    ],
)
def test_changed_shape(make_checkpoint: Callable[..., Path], tensor: str, shape: list[int]) -> None:
    doc = _fails_naming(_mutated(make_checkpoint, QWEN3, reshape={tensor: shape}), "shape-mismatch", tensor)
    [f] = [f for f in doc["findings"] if f["code"] == "shape-mismatch"]
    assert f["tensors"] == [tensor]


def test_changed_shape_of_bias(make_checkpoint: Callable[..., Path]) -> None:
    t = "model.layers.9.self_attn.v_proj.bias"
    _fails_naming(_mutated(make_checkpoint, QWEN2, reshape={t: [3584]}), "shape-mismatch", t)


@pytest.mark.parametrize("layer", [0, 17, 35])
def test_removed_whole_layer(make_checkpoint: Callable[..., Path], layer: int) -> None:
    tensors, _ = _layout(QWEN3)
    prefix = f"model.layers.{layer}."
    gone = [n for n, _, _ in tensors if n.startswith(prefix)]
    assert len(gone) == 11
    doc = _fails_naming(_mutated(make_checkpoint, QWEN3, drop=gone), "missing-tensor", f"{prefix}mlp.down_proj.weight")
    missing = {t for f in doc["findings"] if f["code"] == "missing-tensor" for t in f["tensors"]}
    assert missing == set(gone)
    assert any(f["code"] == "config-mismatch" for f in doc["findings"])


def test_config_declares_more_layers_than_stored(make_checkpoint: Callable[..., Path]) -> None:
    path = _mutated(make_checkpoint, QWEN3, config={"num_hidden_layers": 40})
    doc = _fails_naming(path, "missing-tensor", "model.layers.39.mlp.down_proj.weight")
    missing = {t for f in doc["findings"] if f["code"] == "missing-tensor" for t in f["tensors"]}
    assert {t for t in missing if t.startswith("model.layers.36.")} and not any(
        t.startswith("model.layers.35.") for t in missing
    )
    assert any(f["code"] == "config-mismatch" for f in doc["findings"])


def test_config_declares_fewer_layers_than_stored(make_checkpoint: Callable[..., Path]) -> None:
    path = _mutated(make_checkpoint, QWEN3, config={"num_hidden_layers": 30})
    doc = _fails_naming(path, "config-mismatch", "model.layers.35.mlp.down_proj.weight")
    beyond = {t for f in doc["findings"] if f["code"] == "config-mismatch" for t in f["tensors"]}
    assert len(beyond) == 6 * 11
    assert not any(t.startswith("model.layers.29.") for t in beyond)
    assert doc["expected"]["parameters"] == 8_190_735_360 - 6 * 192_946_432


def test_qwen2_config_lie_about_layers(make_checkpoint: Callable[..., Path]) -> None:
    path = _mutated(make_checkpoint, QWEN2, config={"num_hidden_layers": 27})
    _fails_naming(path, "config-mismatch", "model.layers.27.self_attn.q_proj.bias")
