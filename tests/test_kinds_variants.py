"""Variants of one model's weights (``model.fp16.safetensors`` beside ``model.safetensors``, a component's default
and fp16 files as SD 1.5 and SDXL ship them): every variant is audited in full, the model is counted once (its
default weights), and when the variants disagree the counted weights stay the model: the difference is a finding
on the variant that differs, naming its files.

Folders are what diffusers and transformers wrote (fixtures/kinds, tools/dump_kinds.py), rebuilt header-only; the
broken ones change one file of one variant.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema

from tests.support import build
from tests.support.cli import run_json
from tests.support.paths import ROOT

SCHEMA = json.loads((ROOT / "auditor" / "schema" / "report.schema.json").read_text())
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 12\n"


def _tensors(rel: str) -> list[tuple[str, str, list[int]]]:
    return [tuple(t) for t in build.load_folder_dump("tiny-sd-pipeline")["files"][rel]["tensors"]]  # type: ignore[misc]


def _alternate(doc: dict[str, Any], variant: str) -> dict[str, Any]:
    return next(a["report"] for a in doc["variants"]["alternates"] if a["variant"] == variant)


def _own(report: dict[str, Any]) -> list[tuple[str, str]]:
    """A report's own findings (not its alternates'), as (code, severity), info left out."""
    return [(f["code"], f["severity"]) for f in report["findings"] if "variant" not in f and f["severity"] != "info"]


def test_a_transformers_folder_with_an_fp16_copy_is_one_model_counted_once(tmp_path: Path) -> None:
    """text_encoder/ as transformers wrote it (model.safetensors + model.fp16.safetensors), audited alone."""
    folder = build.build_folder_dump("tiny-sd-pipeline", tmp_path / "sd") / "text_encoder"
    code, doc = run_json("audit", str(folder))
    jsonschema.validate(doc, SCHEMA)
    written = sum(math.prod(s) for _, _, s in _tensors("text_encoder/model.safetensors"))
    assert code == 0 and "sections" not in doc
    assert doc["totals"]["parameters"] == doc["expected"]["parameters"] == written
    assert doc["variants"] == {**doc["variants"], "counted": None, "audited": [None, "fp16"]}
    fp16 = _alternate(doc, "fp16")
    assert fp16["target"] == f"{folder} (fp16)" and [f["name"] for f in fp16["files"]] == ["model.fp16.safetensors"]
    assert fp16["totals"]["parameters"] == written and list(fp16["totals"]["by_dtype"]) == ["F16"]


def test_a_variant_short_of_a_tensor_fails_and_the_default_weights_count(tmp_path: Path) -> None:
    """The fp16 unet lost a tensor: the formula names it on the variant (once: no second finding for the same
    tensor), the component fails, and what is counted is still the default weights, whole."""
    pipe = build.build_folder_dump("tiny-sd-pipeline", tmp_path / "sd")
    rel = "unet/diffusion_pytorch_model.fp16.safetensors"
    build.write_file(pipe / rel, [t for t in _tensors(rel) if t[0] != "conv_out.weight"])
    code, doc = run_json("audit", str(pipe / "unet"))
    assert code == 1 and doc["verdict"] == "fail" and _own(doc) == []
    written = sum(math.prod(s) for _, _, s in _tensors("unet/diffusion_pytorch_model.safetensors"))
    assert doc["totals"]["parameters"] == written
    fp16 = _alternate(doc, "fp16")
    assert [(f["code"], f["tensors"]) for f in fp16["findings"] if f["severity"] != "info"] == [
        ("missing-tensor", ["conv_out.weight"])
    ]
    assert [(f["code"], f["variant"]) for f in doc["findings"]] == [("missing-tensor", "fp16")]
    assert doc["counts"]["error"] == 1 and doc["exit_code"] == 1


def test_variants_that_disagree_without_a_formula_are_told_apart(tmp_path: Path) -> None:
    """A state dict with no config (no formula to name what is missing): the fp16 copy lacks a tensor, stores one
    in another shape and holds one the default weights do not. Each difference is variant-differs on the fp16
    copy naming its file; the default weights are counted and pass."""
    folder = tmp_path / "weights"
    folder.mkdir()
    build.write_file(
        folder / "model.safetensors",
        [("a.weight", "F32", [4, 4]), ("b.weight", "F32", [4]), ("c.weight", "F32", [2, 2])],
    )
    build.write_file(
        folder / "model.fp16.safetensors",
        [("a.weight", "F16", [4, 5]), ("b.weight", "F16", [4]), ("d.weight", "F16", [3])],
    )
    code, doc = run_json("audit", str(folder))
    jsonschema.validate(doc, SCHEMA)
    assert code == 1 and doc["totals"]["parameters"] == 24 and _own(doc) == []
    found = [
        (f["severity"], f["tensors"], f["files"])
        for f in _alternate(doc, "fp16")["findings"]
        if f["code"] == "variant-differs"
    ]
    assert found == [
        ("error", ["c.weight"], ["model.fp16.safetensors"]),
        ("error", ["a.weight"], ["model.fp16.safetensors"]),
        ("warning", ["d.weight"], ["model.fp16.safetensors"]),
    ]
    messages = [f["message"] for f in doc["findings"] if f["code"] == "variant-differs"]
    assert "variant fp16 lacks 1 tensor of the default weights: c.weight" in messages
    assert (
        "variant fp16 stores 1 tensor in another shape than the default weights: a.weight [4, 5] (not [4, 4])"
        in messages
    )
    # dtypes are what a precision variant changes: the same tensors in F16 are no difference
    build.write_file(
        folder / "model.fp16.safetensors",
        [("a.weight", "F16", [4, 4]), ("b.weight", "F16", [4]), ("c.weight", "F16", [2, 2])],
    )
    code, doc = run_json("audit", str(folder))
    assert code == 0 and [f["code"] for f in doc["findings"] if f["code"] != "config-missing"] == []


def test_the_default_weights_broken_and_the_variant_whole(tmp_path: Path) -> None:
    """The default vae lost a tensor its fp16 copy still has: the finding is on the default weights (what is
    counted), and the fp16 copy, which is right, is not blamed for holding it."""
    pipe = build.build_folder_dump("tiny-sd-pipeline", tmp_path / "sd")
    rel = "vae/diffusion_pytorch_model.safetensors"
    build.write_file(pipe / rel, [t for t in _tensors(rel) if t[0] != "decoder.conv_out.weight"])
    code, doc = run_json("audit", str(pipe / "vae"))
    assert code == 1 and _own(doc) == [("missing-tensor", "error")]
    fp16 = next(a for a in doc["variants"]["alternates"] if a["variant"] == "fp16")
    assert fp16["verdict"] == "pass" and fp16["report"]["findings"] == []


def test_an_unreadable_variant_is_one_root_finding(tmp_path: Path) -> None:
    """The fp16 unet is a Git LFS pointer: one not-safetensors error on that variant, naming its file; no
    variant-differs listing every tensor it could not be read for."""
    pipe = build.build_folder_dump("tiny-sd-pipeline", tmp_path / "sd")
    (pipe / "unet" / "diffusion_pytorch_model.fp16.safetensors").write_bytes(LFS_POINTER)
    code, doc = run_json("audit", str(pipe))
    assert code == 1
    errors = [
        (f["section"], f.get("variant"), f["code"], f["files"]) for f in doc["findings"] if f["severity"] == "error"
    ]
    assert errors == [("unet", "fp16", "not-safetensors", ["diffusion_pytorch_model.fp16.safetensors"])]


def test_a_folder_of_variants_only_counts_the_first_by_name(tmp_path: Path) -> None:
    """No default weights, fp16 and bf16 copies: the first by name (bf16) is counted, fp16 is its alternate."""
    folder = tmp_path / "unet"
    folder.mkdir()
    files = build.load_folder_dump("tiny-sd-pipeline")["files"]
    (folder / "config.json").write_text(json.dumps(files["unet/config.json"]["json"]))
    fp16 = _tensors("unet/diffusion_pytorch_model.fp16.safetensors")
    build.write_file(folder / "diffusion_pytorch_model.fp16.safetensors", fp16)
    build.write_file(folder / "diffusion_pytorch_model.bf16.safetensors", [(n, "BF16", s) for n, _, s in fp16])
    code, doc = run_json("audit", str(folder))
    assert code == 0 and doc["variants"]["counted"] == "bf16" and doc["variants"]["audited"] == ["bf16", "fp16"]
    assert list(doc["totals"]["by_dtype"]) == ["BF16"] and doc["totals"]["parameters"] == doc["expected"]["parameters"]
    assert "only variant weights are present (bf16, fp16)" in doc["kind"]["notes"][0]
