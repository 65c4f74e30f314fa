"""The batch paths (a rule instance's weights sorted at once) conclude exactly what the per-tensor paths do.

Reconciliation and the quantization check sort the experts of a layer in one step when all of them are stored as
planned, and fall back to tensor-by-tensor otherwise. Here every library-written quantized MoE case
(``fixtures/quantized``), healthy and with one expert broken in each way, is audited twice, with the batch paths
and with them switched off; the reports must be identical, findings and numbers alike.
"""

from __future__ import annotations

import gzip
import json
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

import auditor
from auditor.formats import formatter
from tests.support import build, realistic

QUANTIZED = Path(__file__).resolve().parent.parent / "fixtures" / "quantized"
# library-written compressed-tensors / bitsandbytes MoE cases, and DeepSeek-V3's FP8 release convention (no ignore
# list: the scheme depends on the shape alone, so the quantization check's batch path runs too)
MOE_CASES = [
    *sorted(p.name for p in QUANTIZED.iterdir() if p.is_dir() and p.name.startswith("qwen3_moe-")),
    "tiny-deepseek_v3-fp8",
]


def _case(case: str) -> tuple[list[tuple[str, str, list[int]]], dict[str, Any]]:
    if case == "tiny-deepseek_v3-fp8":
        layout = build.load_layout("tiny-deepseek_v3")
        config = build.load_config(layout["config_file"])
        config["quantization_config"] = {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}
        return [
            (n, d, list(s)) for n, d, s in realistic.fp8_block_quantize(tuple(t) for t in layout["tensors"])
        ], config
    doc = json.loads(gzip.decompress((QUANTIZED / case / "layout.json.gz").read_bytes()))
    return [(n, d, list(s)) for n, d, s in doc["tensors"]], doc["config"]


def _mutate(tensors: list[tuple[str, str, list[int]]], how: str) -> list[tuple[str, str, list[int]]]:
    """Expert 1's down_proj in the first MoE layer broken in one way (or left alone)."""
    expert = next(n for n, _, _ in tensors if ".experts.1.down_proj." in n).partition(".experts.1.down_proj.")
    prefix = expert[0] + expert[1]
    mine = [t for t in tensors if t[0].startswith(prefix)]
    packed = next(t for t in mine if t[0].rpartition(".")[2] in ("weight", "weight_packed", "qweight"))
    aux = [t for t in mine if t is not packed]
    if how == "healthy":
        return tensors
    if how == "stray":
        return [*tensors, (prefix + "extra_scale", "F32", [1])]
    if how == "aux-missing" and aux:
        return [t for t in tensors if t is not aux[0]]
    if how == "packed-missing":
        return [t for t in tensors if t is not packed]
    if how == "packed-dtype":
        return [
            (n, "F16" if n == packed[0] and d != "F16" else ("BF16" if n == packed[0] else d), s) for n, d, s in tensors
        ]
    if how == "aux-shape" and aux:
        return [(n, d, [*s[:-1], s[-1] + 1] if n == aux[0][0] and s else s) for n, d, s in tensors]
    return tensors


def _report(directory: Path) -> dict[str, Any]:
    return json.loads(formatter("json")(auditor.audit(str(directory))))


@pytest.mark.parametrize("how", ["healthy", "stray", "aux-missing", "packed-missing", "packed-dtype", "aux-shape"])
@pytest.mark.parametrize("case", MOE_CASES)
def test_batch_and_per_tensor_paths_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, how: str) -> None:
    tensors, config = _case(case)
    directory = build.build_checkpoint(tmp_path / "ckpt", _mutate(tensors, how), config=config)
    taken: list[str] = []
    for module, name in (
        ("auditor.quant.assess", "all_as_planned"),
        ("auditor.reconcile.compare", "_all_matched"),
        ("auditor.reconcile.compare", "_all_bookkeeping"),
    ):
        real = getattr(import_module(module), name)
        monkeypatch.setattr(
            import_module(module),
            name,
            lambda *args, real=real, name=name: bool(real(*args)) and not taken.append(name),  # type: ignore[func-returns-value]  # append records
        )
    batched = _report(directory)
    monkeypatch.undo()
    # the modules by name: auditor.quant.assess is also the name of the function the package exports
    monkeypatch.setattr(import_module("auditor.quant.assess"), "all_as_planned", lambda *args: False)
    monkeypatch.setattr(import_module("auditor.reconcile.compare"), "_all_matched", lambda *args: False)
    monkeypatch.setattr(import_module("auditor.reconcile.compare"), "_all_bookkeeping", lambda *args: False)
    assert _report(directory) == batched
    assert "_all_matched" in taken  # the batch paths ran, then the per-tensor ones they were compared with
    if case.startswith("tiny-deepseek"):
        assert "all_as_planned" in taken and ("_all_bookkeeping" in taken or how != "healthy")
    if how != "healthy":  # the breakage is seen (so the comparison above covered a deviating instance)
        assert batched["findings"], how


@pytest.mark.parametrize("how", ["healthy", "stray", "packed-missing", "index-disagrees"])
def test_the_large_checkpoint_string_sharing_changes_nothing_but_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """From ``SHARE_NAMES_FROM`` index entries (lowered here to every checkpoint), the weight_map and the expected
    names reuse the headers' string objects: the same report, and the experts' expected names are the stored
    strings (all but the layer whose instance lacks one). An index that disagrees with the headers (an entry no
    shard holds, one tensor in another shard) is rebuilt entry by entry, with the same findings."""
    from auditor.read.checkpoint import collect
    from auditor.read.sources.local import LocalSource
    from auditor.run.audit import build_inventory
    from auditor.specs import select

    tensors, config = _case("tiny-deepseek_v3-fp8")
    directory = build.build_checkpoint(tmp_path / "ckpt", _mutate(tensors, how), config=config, shards=2)
    if how == "index-disagrees":
        index_path = directory / "model.safetensors.index.json"
        index = json.loads(index_path.read_text())
        shards = sorted(set(index["weight_map"].values()))
        moved = next(iter(index["weight_map"]))
        index["weight_map"] = {
            **index["weight_map"],
            "model.ghost.weight": shards[0],
            moved: shards[1] if index["weight_map"][moved] == shards[0] else shards[0],
        }
        index_path.write_text(json.dumps(index))
    plain = _report(directory)
    if how == "index-disagrees":
        assert {"index-tensor-missing", "index-tensor-misplaced"} <= {f["code"] for f in plain["findings"]}
    reconcile = import_module("auditor.reconcile.engine")
    for module in ("auditor.read.checkpoint", "auditor.reconcile.engine"):
        monkeypatch.setattr(import_module(module), "SHARE_NAMES_FROM", 0)
    assert _report(directory) == plain
    checkpoint = collect(LocalSource(directory))
    inventory = build_inventory(checkpoint)
    assert checkpoint.weight_map and all(
        n is inventory.tensors[n].name for n in checkpoint.weight_map if n in inventory.tensors
    )
    expectation = reconcile.expand(*select(config), reuse=reconcile._stored_strings(inventory.tensors))
    experts = [n for n in expectation.tensors if ".experts." in n and n in inventory.tensors]
    shared = [n for n in experts if n is inventory.tensors[n].name]
    assert experts and len(shared) == len(experts) if how != "packed-missing" else 0 < len(shared) < len(experts)
