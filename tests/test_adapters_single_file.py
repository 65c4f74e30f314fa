"""Single-file checkpoints in their original layout, against diffusers' own single-file converters.

Truth: fixtures/single-file/<type>.json.gz (tools/dump_single_file.py: the original layout that diffusers 0.42.1's
converters turn back into each component's exact state dict, and the components' num_parameters()). The
reconciliation data (auditor/adapters/data/single_file.toml) must imply exactly that layout; header-only files built from it
must pass, and broken ones must be reported under the original tensor names.
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.adapters.singlefile import data, detect, original_layout
from auditor.run.dispatch import audit_target
from tests.support import build
from tests.support.cli import run_cli

TRUTH = Path(__file__).resolve().parent.parent / "fixtures" / "single-file"
TYPES = [t["name"] for t in data()["type"]]


def truth(name: str) -> dict[str, Any]:
    return json.loads(gzip.decompress((TRUTH / f"{name}.json.gz").read_bytes()))


def stored(component: dict[str, Any]) -> int:
    """A component's parameters the file holds: diffusers' num_parameters() less what the loader sets itself
    (SD3's CLIP-L text_projection, the identity)."""
    return int(component["parameters"] - sum(math.prod(s) for s in component.get("supplied", {}).values()))


def kind(name: str) -> dict[str, Any]:
    return next(t for t in data()["type"] if t["name"] == name)


def write(
    path: Path,
    layout: dict[str, Any],
    extra: Sequence[tuple[str, str, tuple[int, ...]]] = (),
    drop: tuple[str, ...] = (),
    reshape: dict[str, tuple[int, ...]] | None = None,
    prefix: str = "",
) -> Path:
    reshape = reshape or {}
    tensors = [(prefix + n, "F16", tuple(reshape.get(n, s))) for n, s in layout.items() if n not in drop]
    build.write_file(path, tensors + list(extra))
    return path


def test_every_type_has_truth() -> None:
    assert sorted(TYPES) == sorted(p.name.removesuffix(".json.gz") for p in TRUTH.glob("*.json.gz"))


def kind_component(name: str, comp: str) -> dict[str, Any]:
    return next(c for c in kind(name)["component"] if c["name"] == comp)


@pytest.mark.parametrize("name", TYPES)
def test_data_implies_exactly_the_converters_layout(name: str) -> None:
    t = truth(name)
    expected, counts = original_layout(kind(name))
    assert {n: list(e.shape) for n, e in expected.items()} == t["original"]
    assert counts == {c: stored(v) for c, v in t["components"].items()}
    for comp, v in t["components"].items():
        assert sorted(v.get("supplied", {})) == sorted(kind_component(name, comp).get("supplied", []))
        assert v.get("tied", []) == kind_component(name, comp).get("tied", [])
    assert kind(name).get("model_type") == t["inferred_model_type"]
    for comp, v in t["components"].items():
        assert sum(1 for e in expected.values() if e.component == comp) == v["original_tensors"]


@pytest.mark.parametrize("name", TYPES)
def test_each_truth_layout_is_recognised_as_its_type(name: str, tmp_path: Path) -> None:
    from auditor.read.header import Tensor

    stored = {n: Tensor(n, "F16", tuple(s), 0, "f", 0, 0) for n, s in truth(name)["original"].items()}
    found = detect(stored)
    assert found is not None and found[0]["name"] == name and found[1] == ""


@pytest.mark.parametrize("name", TYPES)
def test_healthy_file_passes_with_the_exact_count_per_component(name: str, tmp_path: Path) -> None:
    t = truth(name)
    path = write(tmp_path / f"{name}.safetensors", t["original"])
    doc = audit_target(str(path)).to_dict()
    assert doc["verdict"] == "pass", [f["message"] for f in doc["findings"]]
    assert [f for f in doc["findings"] if f["severity"] != "info"] == []
    total = sum(stored(v) for v in t["components"].values())
    assert doc["expected"]["parameters"] == total == doc["ledger"]["model"]
    # every stored element: the parameters and the persistent buffers the loader reads (SD3's pos_embed)
    assert doc["totals"]["parameters"] == sum(math.prod(s) for s in t["original"].values())
    assert doc["single_file"]["components"] == {
        c: {"expected": stored(v), "actual": stored(v)} for c, v in t["components"].items()
    }
    assert doc["kind"]["detail"].startswith(f"single-file {kind(name)['label']}")


@pytest.mark.parametrize(
    "name,count", [("flux-dev", 11_901_408_320), ("flux-fill", 11_902_391_360), ("flux-depth", 11_901_604_928)]
)
def test_comfyui_style_flux_with_model_prefix(name: str, count: int, tmp_path: Path) -> None:
    path = write(tmp_path / f"{name}-comfy.safetensors", truth(name)["original"], prefix="model.diffusion_model.")
    doc = audit_target(str(path)).to_dict()
    assert doc["verdict"] == "pass" and doc["single_file"]["prefix"] == "model.diffusion_model."
    assert doc["single_file"]["type"] == name and doc["expected"]["parameters"] == count


def test_released_sd15_extras_are_notes_not_errors(tmp_path: Path) -> None:
    """What ldm wrote beside the weights (schedule buffers, EMA bookkeeping, CLIP's position_ids) and a full
    v1-5-pruned file's EMA copy of the UNet (model_ema.<flattened name>, read by extract_ema) are not errors."""
    t = truth("sd15")
    unet = {n: s for n, s in t["original"].items() if n.startswith("model.diffusion_model.")}
    ema = [("model_ema." + "".join(n.split(".")[1:]), "F32", tuple(s)) for n, s in unet.items()]
    extras = [
        ("betas", "F32", (1000,)),
        ("alphas_cumprod", "F32", (1000,)),
        ("posterior_mean_coef2", "F32", (1000,)),
        ("model_ema.decay", "F32", ()),
        ("model_ema.num_updates", "I32", ()),
        ("cond_stage_model.transformer.text_model.embeddings.position_ids", "I64", (1, 77)),
    ]
    path = write(tmp_path / "v1-5-pruned.safetensors", t["original"], extra=extras + ema)
    doc = audit_target(str(path)).to_dict()
    assert doc["verdict"] == "pass" and {f["code"] for f in doc["findings"]} == {"buffer-stored"}
    assert doc["ledger"]["model"] == doc["expected"]["parameters"] == 1_066_235_307
    # a model_ema tensor of the wrong shape is no EMA copy
    bad = ema[:1] and [(ema[0][0], "F32", (1, 2))]
    path = write(tmp_path / "bad-ema.safetensors", t["original"], extra=bad)
    doc = audit_target(str(path)).to_dict()
    assert [f["code"] for f in doc["findings"] if f["severity"] == "error"] == ["unexpected-tensor"]


def test_released_sd2_openclip_extras_are_notes_not_errors(tmp_path: Path) -> None:
    """A v2-1 file stores OpenCLIP-H whole: 24 resblocks, text_projection and logit_scale. diffusers' text encoder
    has 23 layers and no projection; the loader skips the rest (SD_2_TEXT_ENCODER_KEYS_TO_IGNORE), so do we."""
    t = truth("sd2")
    assert len(t["unread"]) == 13
    extras = [(n, "F16", tuple(s)) for n, s in t["unread"].items()]
    extras += [("cond_stage_model.model.logit_scale", "F32", ()), ("betas", "F32", (1000,))]
    path = write(tmp_path / "v2-1_768-ema-pruned.safetensors", t["original"], extra=extras)
    doc = audit_target(str(path)).to_dict()
    assert doc["verdict"] == "pass" and {f["code"] for f in doc["findings"]} == {"buffer-stored"}
    noted = {n for f in doc["findings"] for n in f["tensors"]}
    assert set(t["unread"]) <= noted
    assert doc["ledger"]["model"] == doc["expected"]["parameters"] == 1_289_952_427
    assert doc["single_file"]["components"]["text_encoder"] == {"expected": 340_387_840, "actual": 340_387_840}


def test_sd3_position_table_is_a_buffer_the_loader_reads(tmp_path: Path) -> None:
    """sd3_medium.safetensors: the MMDiT's sin-cos table pos_embed is stored and read (pos_embed.pos_embed, a
    persistent buffer, no parameter); the last joint block's context stream only feeds attention (no proj, no mlp,
    a 2 x 1536 adaLN)."""
    t = truth("sd3-medium")
    assert t["original"]["model.diffusion_model.pos_embed"] == [1, 192 * 192, 1536]
    assert t["original"]["model.diffusion_model.joint_blocks.23.context_block.adaLN_modulation.1.weight"] == [
        3072,
        1536,
    ]
    assert "model.diffusion_model.joint_blocks.23.context_block.mlp.fc1.weight" not in t["original"]
    doc = audit_target(str(write(tmp_path / "sd3_medium.safetensors", t["original"]))).to_dict()
    assert doc["verdict"] == "pass" and doc["ledger"]["buffers"] == 192 * 192 * 1536
    assert doc["single_file"]["components"] == {
        "transformer": {"expected": 2_028_328_000, "actual": 2_028_328_000},
        "vae": {"expected": 83_819_683, "actual": 83_819_683},
    }
    doc = audit_target(
        str(
            write(
                tmp_path / "bad.safetensors",
                t["original"],
                reshape={"model.diffusion_model.x_embedder.proj.weight": (1536, 4, 2, 2)},
            )
        )
    ).to_dict()
    assert errors(doc) == [("shape-mismatch", ["model.diffusion_model.x_embedder.proj.weight"])]


def test_sd3_with_clips_and_their_extras(tmp_path: Path) -> None:
    """sd3_medium_incl_clips: CLIP-L and OpenCLIP bigG in transformers' names under text_encoders.; CLIP-L's
    projection is the loader's identity (not needed in the file, noted when stored), position_ids are notes. The
    same file without the encoders is sd3-medium."""
    t = truth("sd3-medium-clips")
    assert t["components"]["text_encoder"]["supplied"] == {"text_projection.weight": [768, 768]}
    extras = [
        ("text_encoders.clip_l.transformer.text_projection.weight", "F16", (768, 768)),
        ("text_encoders.clip_g.transformer.text_model.embeddings.position_ids", "I64", (1, 77)),
    ]
    doc = audit_target(
        str(write(tmp_path / "sd3_medium_incl_clips.safetensors", t["original"], extra=extras))
    ).to_dict()
    assert doc["verdict"] == "pass" and {f["code"] for f in doc["findings"]} == {"buffer-stored"}
    assert doc["single_file"]["type"] == "sd3-medium-clips"
    assert doc["single_file"]["components"]["text_encoder"] == {"expected": 123_060_480, "actual": 123_060_480}
    bare = {n: s for n, s in t["original"].items() if not n.startswith("text_encoders.")}
    assert bare == truth("sd3-medium")["original"]
    # with the T5 too: sd3-medium-clips-t5, whose T5 stores its tied embedding once (shared.weight)
    t5 = truth("sd3-medium-clips-t5")
    assert {n: s for n, s in t5["original"].items() if not n.startswith("text_encoders.t5xxl.")} == t["original"]
    assert "text_encoders.t5xxl.transformer.encoder.embed_tokens.weight" not in t5["original"]
    assert t5["components"]["text_encoder_3"]["tied"] == ["encoder.embed_tokens.weight"]
    copy = [("text_encoders.t5xxl.transformer.encoder.embed_tokens.weight", "F16", (32128, 4096))]
    doc = audit_target(str(write(tmp_path / "t5.safetensors", t5["original"], extra=copy))).to_dict()
    assert doc["verdict"] == "pass" and {f["code"] for f in doc["findings"]} == {"buffer-stored"}
    assert doc["single_file"]["components"]["text_encoder_3"] == {"expected": 4_762_310_656, "actual": 4_762_310_656}
    # one CLIP only: no type yet, the structural check and no false errors
    one = {n: s for n, s in t["original"].items() if not n.startswith("text_encoders.clip_g.")}
    doc = audit_target(str(write(tmp_path / "one-clip.safetensors", one))).to_dict()
    assert "single_file" not in doc


def test_sd35_medium_dual_attention_blocks(tmp_path: Path) -> None:
    """SD3.5 medium's MMDiT-X: blocks 0-12 carry a second image self-attention (attn2, a 9 x 1536 adaLN); the
    position table is 384 x 384, a buffer the loader reads."""
    t = truth("sd35-medium")
    assert t["original"]["model.diffusion_model.joint_blocks.12.x_block.adaLN_modulation.1.weight"] == [13824, 1536]
    assert "model.diffusion_model.joint_blocks.13.x_block.attn2.qkv.weight" not in t["original"]
    doc = audit_target(str(write(tmp_path / "sd3.5_medium.safetensors", t["original"]))).to_dict()
    assert doc["verdict"] == "pass" and doc["ledger"]["buffers"] == 384 * 384 * 1536
    assert doc["expected"]["parameters"] == 2_243_171_520 + 83_819_683


def errors(doc: dict[str, Any]) -> list[tuple[str, list[str]]]:
    return [(f["code"], f["tensors"]) for f in doc["findings"] if f["severity"] == "error"]


@pytest.mark.parametrize(
    "name,dropped,reshaped,shape",
    [
        (
            "sd15",
            "model.diffusion_model.input_blocks.4.1.proj_in.weight",
            "first_stage_model.decoder.conv_out.weight",
            (3, 64, 3, 3),
        ),
        (
            "sd15-inpainting",
            "cond_stage_model.transformer.text_model.final_layer_norm.bias",
            "model.diffusion_model.out.2.weight",
            (9, 320, 3, 3),
        ),
        (
            "sd2-inpainting",
            "model.diffusion_model.middle_block.1.proj_out.bias",
            "first_stage_model.post_quant_conv.weight",
            (4, 4, 3, 3),
        ),
        (
            "sd3-medium",
            "model.diffusion_model.joint_blocks.23.context_block.attn.qkv.bias",
            "model.diffusion_model.joint_blocks.5.x_block.attn.qkv.weight",
            (1536, 1536),
        ),
        (
            "sd3-medium-clips",
            "text_encoders.clip_g.transformer.text_projection.weight",
            "text_encoders.clip_l.transformer.text_model.encoder.layers.11.mlp.fc1.weight",
            (3072, 1280),
        ),
        (
            "sd3-medium-clips-t5",
            "text_encoders.t5xxl.transformer.encoder.block.23.layer.1.DenseReluDense.wo.weight",
            "text_encoders.t5xxl.transformer.encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
            (64, 64),
        ),
        (
            "sd35-large",
            "model.diffusion_model.joint_blocks.20.x_block.attn.ln_q.weight",
            "model.diffusion_model.joint_blocks.37.context_block.adaLN_modulation.1.weight",
            (14592, 2432),
        ),
        (
            "sd35-medium",
            "model.diffusion_model.joint_blocks.12.x_block.attn2.qkv.bias",
            "model.diffusion_model.joint_blocks.13.x_block.adaLN_modulation.1.weight",
            (13824, 1536),
        ),
        (
            "instruct-pix2pix",
            "first_stage_model.quant_conv.bias",
            "model.diffusion_model.time_embed.0.weight",
            (1280, 8),
        ),
        (
            "sdxl-base",
            "conditioner.embedders.1.model.transformer.resblocks.31.attn.in_proj_bias",
            "model.diffusion_model.label_emb.0.0.weight",
            (1280, 2048),
        ),
        (
            "sdxl-inpainting",
            "model.diffusion_model.input_blocks.0.0.bias",
            "conditioner.embedders.0.transformer.text_model.embeddings.token_embedding.weight",
            (49408, 1280),
        ),
        (
            "sdxl-refiner",
            "conditioner.embedders.0.model.text_projection",
            "model.diffusion_model.output_blocks.5.1.transformer_blocks.3.attn2.to_k.weight",
            (1536, 2048),
        ),
        (
            "sd2",
            "cond_stage_model.model.transformer.resblocks.22.mlp.c_fc.bias",
            "cond_stage_model.model.transformer.resblocks.0.attn.in_proj_weight",
            (3 * 1280, 1024),
        ),
        ("flux-dev", "single_blocks.37.linear2.weight", "double_blocks.3.img_attn.qkv.weight", (3072, 3072)),
        ("flux-schnell", "txt_in.bias", "single_blocks.0.linear1.weight", (18432, 3072)),
        ("flux-fill", "double_blocks.18.txt_mlp.2.bias", "final_layer.linear.weight", (384, 3072)),
        ("flux-depth", "guidance_in.out_layer.weight", "final_layer.linear.weight", (128, 3072)),
        ("flux-vae", "decoder.up.0.block.2.conv2.weight", "encoder.mid.attn_1.q.weight", (512, 512)),
    ],
)
def test_broken_file_names_the_original_tensors(
    name: str, dropped: str, reshaped: str, shape: tuple[int, ...], tmp_path: Path
) -> None:
    t = truth(name)
    assert dropped in t["original"] and reshaped in t["original"]
    path = write(
        tmp_path / f"{name}.safetensors",
        t["original"],
        drop=(dropped,),
        reshape={reshaped: shape},
        extra=[("stray.weight", "F16", (4,))],
    )
    doc = audit_target(str(path)).to_dict()
    assert doc["verdict"] == "fail"
    assert errors(doc) == [
        ("missing-tensor", [dropped]),
        ("shape-mismatch", [reshaped]),
        ("unexpected-tensor", ["stray.weight"]),
    ]
    message = next(f["message"] for f in doc["findings"] if f["code"] == "shape-mismatch")
    assert f"{reshaped} {list(shape)}, expected {t['original'][reshaped]}" in message


def test_a_whole_component_missing_is_said_once(tmp_path: Path) -> None:
    t = truth("sd15")
    path = write(
        tmp_path / "no-vae.safetensors",
        t["original"],
        drop=tuple(n for n in t["original"] if n.startswith("first_stage_model.")),
    )
    doc = audit_target(str(path)).to_dict()
    ((code, _),) = errors(doc)
    assert code == "missing-tensor" and doc["findings"][0]["count"] == 248
    assert "the vae component is missing entirely (248 tensors)" in doc["findings"][0]["message"]


def test_other_original_files_keep_the_structural_check(tmp_path: Path) -> None:
    """A 1024-wide cross-attention UNet beside SD 1.x's CLIP (no OpenCLIP-H) and partial files are no exact type."""
    t = truth("sd15")
    path = write(
        tmp_path / "v2.safetensors",
        t["original"],
        reshape={"model.diffusion_model.input_blocks.2.1.transformer_blocks.0.attn2.to_k.weight": (320, 1024)},
    )
    doc = audit_target(str(path)).to_dict()
    assert doc["verdict"] == "pass" and "single_file" not in doc
    assert doc["kind"]["detail"].startswith("single-file Stable Diffusion checkpoint (original layout")


def test_sd2_inpainting_is_reconciled_exactly(tmp_path: Path) -> None:
    """SD 2.x inpainting (512-inpainting-ema: inpainting_v2) is SD 2.x over 9 input channels, now an exact type: the
    sd2 layout with a 9-channel conv_in is it, with its OpenCLIP-H extras as notes."""
    t = truth("sd2-inpainting")
    extras = [(n, "F16", tuple(s)) for n, s in t["unread"].items()]
    path = write(
        tmp_path / "512-inpainting-ema.safetensors",
        truth("sd2")["original"],
        extra=extras,
        reshape={"model.diffusion_model.input_blocks.0.0.weight": (320, 9, 3, 3)},
    )
    doc = audit_target(str(path)).to_dict()
    assert doc["verdict"] == "pass" and {f["code"] for f in doc["findings"]} == {"buffer-stored"}
    assert doc["single_file"]["type"] == "sd2-inpainting" and doc["single_file"]["model_type"] == "inpainting_v2"
    assert doc["single_file"]["components"]["unet"] == {"expected": 865_925_124, "actual": 865_925_124}
    assert doc["expected"]["parameters"] == 1_289_966_827


def test_cli_as_a_user_runs_it(tmp_path: Path) -> None:
    path = write(tmp_path / "ae.safetensors", truth("flux-vae")["original"])
    proc = run_cli("audit", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "FLUX.1 VAE (BFL ae.safetensors layout)" in proc.stdout
    assert "expected 83,819,683; 0 errors, 0 warnings" in proc.stdout + proc.stderr
    broken = write(tmp_path / "broken-ae.safetensors", truth("flux-vae")["original"], drop=("encoder.conv_in.bias",))
    proc = run_cli("audit", str(broken), "-f", "json")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert errors(doc) == [("missing-tensor", ["encoder.conv_in.bias"])]
    schema = json.loads((Path(__file__).resolve().parent.parent / "auditor/schema/report.schema.json").read_text())
    jsonschema.validate(doc, schema)
    assert doc["single_file"] == {
        "type": "flux-vae",
        "model_type": None,
        "prefix": "",
        "components": {"vae": {"expected": 83_819_683, "actual": 83_819_555}},
    }
