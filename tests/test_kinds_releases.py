"""Folders laid out as big releases lay them out, written by the libraries' own writers (fixtures/kinds/release-*,
dumped by tools/dump_kinds.py): sharded diffusers components and text encoders (``max_shard_size``), sharded and
single fp16 variants, whole pipelines (FLUX.1, SD3, SDXL, Wan, an SD ControlNet) from
``DiffusionPipeline.save_pretrained``, a sharded transformers model with a sharded variant, a component folder that
holds only a variant. Each must pass as the user runs it (the CLI), every section exactly at the library's own
``num_parameters()``; a shard truly absent is still ``index-shard-missing``, a stray one still reported.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from tests.support import build
from tests.support.cli import run_cli, run_json

RELEASES = sorted(p.name.removesuffix(".json.gz") for p in build.KINDS.glob("release-*.json.gz"))


def _sections(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(folder, report) of every section's counted weights; a one-part target is its own report at folder '.'."""
    if "sections" not in doc:
        return [(".", doc)]
    return [(s["report"]["kind"].get("folder") or s["name"], s["report"]) for s in doc["sections"]]


def _variants(report: dict[str, Any]) -> list[tuple[str | None, dict[str, Any]]]:
    """(variant, report) of a checkpoint's counted weights and of each alternate variant of them."""
    counted = (report.get("variants") or {}).get("counted")
    return [(counted, report)] + [
        (a["variant"], a["report"]) for a in (report.get("variants") or {}).get("alternates", [])
    ]


def _problems(doc: dict[str, Any]) -> list[str]:
    return [f"{f['code']}: {f['message']}" for f in doc["findings"] if f["severity"] != "info"]


def test_the_release_layouts_are_there() -> None:
    assert len(RELEASES) >= 7


@pytest.mark.parametrize("case", RELEASES)
def test_a_release_layout_passes_exactly(case: str, tmp_path: Path) -> None:
    dump = build.load_folder_dump(case)
    folder = build.build_folder_dump(case, tmp_path / case)
    code, doc = run_json("audit", str(folder))
    assert (code, _problems(doc)) == (0, [])
    sections = _sections(doc)
    truth = dump["parameters"]
    audited: list[str] = []
    for name, report in sections:
        part = name if name != "." else "."
        prefix = "" if part == "." else f"{part}/"
        for variant, one in _variants(report):
            # the formula's count is the library's num_parameters(), for every variant; what else is stored (SD3's
            # pos_embed buffer) is in the ledger, and the clean verdict above says every stored tensor is explained
            assert one["expected"]["parameters"] == truth[part], (name, variant)
            audited += [prefix + f["name"] for f in one["files"]]
    # every weight file the writer wrote is audited by exactly one checkpoint: the counted weights or an alternate
    written = {rel for rel in dump["files"] if rel.endswith(".safetensors")}
    assert sorted(audited) == sorted(written)
    # each folder with weights is one section, and the model is counted once: its default weights when there are
    # any (a folder of only fp16 weights counts those), element by element as the writer wrote them
    assert {n for n, _ in sections} == set(truth)

    def folder_of(rel: str) -> str:
        return rel.rsplit("/", 1)[0] if "/" in rel else ""

    counted = {
        rel
        for rel in written
        if ".fp16" not in rel
        or not any(".fp16" not in other and folder_of(other) == folder_of(rel) for other in written)
    }
    stored = sum(math.prod(shape) for rel in counted for _, _, shape in dump["files"][rel]["tensors"])
    assert doc["totals"]["parameters"] == stored == sum(r["totals"]["parameters"] for _, r in sections)
    assert sum(r["expected"]["parameters"] for _, r in sections) == sum(truth.values())
    if any(".fp16" in rel for rel in written):  # --variant fp16 counts the fp16 weights, with no alternates
        code, doc = run_json("audit", str(folder), "--variant", "fp16")
        assert (code, _problems(doc)) == (0, [])
        for name, report in _sections(doc):
            assert [v for v, _ in _variants(report)] == ["fp16"] and set(report["totals"]["by_dtype"]) == {"F16"}
            assert report["expected"]["parameters"] == truth[name]


@pytest.mark.parametrize("case", ["release-flux-pipeline", "release-sharded-llm"])
def test_a_truly_absent_shard_is_still_one_error_naming_it(case: str, tmp_path: Path) -> None:
    folder = build.build_folder_dump(case, tmp_path / case)
    victim = sorted(folder.rglob("*-00002-of-*.safetensors"))[0]
    victim.unlink()
    code, doc = run_json("audit", str(folder))
    assert code == 1
    missing = [f for _, r in _sections(doc) for f in r["findings"] if f["code"] == "index-shard-missing"]
    assert [f["files"] for f in missing] == [[victim.name]]


def test_a_stray_shard_beside_a_sharded_component_is_reported(tmp_path: Path) -> None:
    folder = build.build_folder_dump("release-flux-pipeline", tmp_path / "flux")
    build.write_file(
        folder / "transformer" / "diffusion_pytorch_model-00001-of-00001.safetensors", [("extra.weight", "F32", [4])]
    )
    code, doc = run_json("audit", str(folder))
    [(name, report)] = [(n, r) for n, r in _sections(doc) if n == "transformer" and r["kind"].get("variant") is None]
    assert "shard-unreferenced" in {f["code"] for f in report["findings"]}


def test_a_folder_holding_only_a_variant_says_which(tmp_path: Path) -> None:
    folder = build.build_folder_dump("release-variant-only-component", tmp_path / "transformer")
    code, doc = run_json("audit", str(folder))
    assert code == 0 and doc["kind"]["variant"] == "fp16"
    assert list(doc["totals"]["by_dtype"]) == ["F16"]
    proc = run_cli("audit", str(folder), "--variant", "bf16")
    assert proc.returncode == 3 and "variants present: fp16" in proc.stderr


def test_variant_picks_each_components_variant_files(tmp_path: Path) -> None:
    folder = build.build_folder_dump("release-flux-pipeline", tmp_path / "flux")
    code, doc = run_json("audit", str(folder), "--variant", "fp16")
    assert code == 0
    names = [s["name"] for s in doc["sections"]]
    assert names == ["text_encoder", "text_encoder_2", "transformer", "vae"]
    assert [r["variants"] for _, r in _sections(doc)] == [
        {"counted": "fp16", "audited": ["fp16"], "alternates": []}
    ] * 4
    assert {dtype for _, r in _sections(doc) for dtype in r["totals"]["by_dtype"]} == {"F16"}


def test_variant_falls_back_to_the_default_weights_of_a_component_without_it(tmp_path: Path) -> None:
    """As diffusers' from_pretrained(variant="fp16") does: a component without fp16 files loads its default ones."""
    folder = build.build_folder_dump("release-flux-pipeline", tmp_path / "flux")
    for fp16 in (folder / "vae").glob("*.fp16*"):
        fp16.unlink()
    code, doc = run_json("audit", str(folder), "--variant", "fp16")
    assert (code, _problems(doc)) == (0, [])
    counted = {name: r["variants"]["counted"] if "variants" in r else None for name, r in _sections(doc)}
    assert counted == {"text_encoder": "fp16", "text_encoder_2": "fp16", "transformer": "fp16", "vae": None}
