"""Folders laid out as big releases lay them out, written by the libraries' own writers (fixtures/kinds/release-*,
dumped by tools/dump_kinds.py): sharded diffusers components and text encoders (``max_shard_size``), sharded and
single fp16 variants, whole pipelines (FLUX.1, SD3, SDXL, Wan, an SD ControlNet) from
``DiffusionPipeline.save_pretrained``, a sharded transformers model with a sharded variant, a component folder that
holds only a variant. Each must pass as the user runs it (the CLI), every section exactly at the library's own
``num_parameters()``; a shard truly absent is still ``index-shard-missing``, a stray one still reported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support import build
from tests.support.cli import run_cli, run_json

RELEASES = sorted(p.name.removesuffix(".json.gz") for p in build.KINDS.glob("release-*.json.gz"))


def _sections(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(folder, report) of every section; a one-part target is its own report at folder '.'."""
    if "sections" not in doc:
        return [(".", doc)]
    return [(s["report"]["kind"].get("folder") or s["name"].split(" (")[0], s["report"]) for s in doc["sections"]]


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
    audited: set[str] = set()
    for name, report in sections:
        part = name if name != "." else "."
        # the formula's count is the library's num_parameters(); what else is stored (SD3's pos_embed buffer) is
        # in the ledger, and the clean verdict above says every stored tensor is explained
        assert report["expected"]["parameters"] == truth[part], name
        prefix = "" if part == "." else f"{part}/"
        audited |= {prefix + f["name"] for f in report["files"]}
    # every weight file the writer wrote is audited by one section (default or variant), none dropped; a
    # transformers model audits its default weights and names the variant's files for --variant, as loaders do
    written = {rel for rel in dump["files"] if rel.endswith(".safetensors")}
    for_variant = {n for n, why in doc.get("ignored_files", {}).items()
                   if "--variant fp16" in why and n.endswith(".safetensors")}
    assert audited | for_variant == written and not audited & for_variant
    if for_variant:
        code, doc = run_json("audit", str(folder), "--variant", "fp16")
        assert (code, _problems(doc), doc["expected"]["parameters"]) == (0, [], truth["."])
        assert {f["name"] for f in doc["files"]} == for_variant
    # each folder with weights is there, and its variants too
    assert {n for n, _ in sections} >= set(truth)


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
    build.write_file(folder / "transformer" / "diffusion_pytorch_model-00001-of-00001.safetensors",
                     [("extra.weight", "F32", [4])])
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
    assert names and all(n.endswith("(fp16)") for n in names)
    assert {dtype for _, r in _sections(doc) for dtype in r["totals"]["by_dtype"]} == {"F16"}
