"""Real multimodal releases from ../shared/real-world (real index and config files; shards absent or Git LFS
pointers), rebuilt header-only into tmp_path by the corpus's own rebuild.py.

- MedGemma-27B (Gemma3ForConditionalGeneration, as published by transformers 4.54): its expected count must
  include the SigLIP vision tower and the projector. Truth: the tensor names of the real index, and a hand
  computation from modeling_gemma3.py / modeling_siglip.py with the config's sizes.
- Gemma-4 31B (Gemma4ForConditionalGeneration, index written by transformers 5.5): a vision tower (standardize on,
  no clip bounds) and no audio tower (audio_config null). Truth: the real index's names and a hand computation
  from modeling_gemma4.py with the config's sizes.
- The original LLaVA-1.5 repo (remote-code LlavaLlamaForCausalLM under model_type llava): not a class
  transformers builds for llava, so no formula at all rather than a false one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import auditor
from auditor import Report
from auditor.specs import expand, select
from auditor.specs.layouts import best_layout
from tests.support.cli import run_cli
from tests.support.resources import rebuild_corpus

pytestmark = pytest.mark.corpus  # the real-world corpus beside the repository (tests.support.resources.CORPUS)

MEDGEMMA = "Ibtasam-98__medgemma-27b-it"
LLAVA_REMOTE = "wyler-max__llava-v1.5-7b"
GEMMA4 = "victortorresa94-del__gemma4"
MINICPMV2 = "HwwwwwwwH__MiniCPM-V-2"  # remote code: MiniCPMV, shards as Git LFS pointers
OCR2 = "sen-ye__DeepSeek-OCR2-query-ablation"  # remote code: DeepseekOCR2ForCausalLM, an index-only folder


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("real-world")
    rebuild_corpus(dest, (MEDGEMMA, LLAVA_REMOTE, GEMMA4, MINICPMV2, OCR2))
    return dest


def _medgemma_by_hand(config: dict) -> tuple[int, int, int]:
    """(text model, vision tower, projector) parameters from the modeling code, tied head counted once."""
    t, v = config["text_config"], config["vision_config"]
    d, n, ff, h, kv, hd, vocab = (
        t["hidden_size"],
        t["num_hidden_layers"],
        t["intermediate_size"],
        t["num_attention_heads"],
        t["num_key_value_heads"],
        t["head_dim"],
        t["vocab_size"],
    )
    # q,o + k,v + gate/up/down + 4 RMSNorms + q_norm/k_norm (head_dim)
    layer = 2 * d * h * hd + 2 * d * kv * hd + 3 * d * ff + 4 * d + 2 * hd
    text = vocab * d + n * layer + d
    w, i, p = v["hidden_size"], v["intermediate_size"], v["patch_size"]
    # SiglipEncoderLayer: q/k/v/out with biases, fc1/fc2 with biases, two LayerNorms
    block = 4 * (w * w + w) + (i * w + i) + (w * i + w) + 4 * w
    embeddings = w * v["num_channels"] * p * p + w + (v["image_size"] // p) ** 2 * w
    vision = embeddings + v["num_hidden_layers"] * block + 2 * w  # + post_layernorm; vision_use_head false
    projector = w * d + w  # mm_input_projection_weight + RMSNorm
    return text, vision, projector


def _config_and_index(folder: Path) -> tuple[dict, dict]:
    return (
        json.loads((folder / "config.json").read_text()),
        json.loads((folder / "model.safetensors.index.json").read_text()),
    )


def _required(config: dict, stored: set[str]) -> tuple[str, set[str]]:
    """The layout of the formula that best matches the stored names, and the tensors it requires (parameters,
    persistent buffers the model needs and untied heads)."""
    spec, cfg = select(config)
    assert spec is not None
    layout = best_layout(expand(spec, cfg), stored)
    return layout.layout, {
        n for n, e in layout.tensors.items() if e.kind in ("param", "state") or (e.kind == "head" and not e.tied)
    }


def test_medgemma_expected_count_includes_the_vision_tower(rebuilt: Path) -> None:
    folder = rebuilt / MEDGEMMA
    config, index = _config_and_index(folder)
    text, vision, projector = _medgemma_by_hand(config)
    assert (text, vision, projector) == (27_009_346_304, 416_866_032, 6_194_304)
    report = auditor.audit(str(folder))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert rec.spec is not None and rec.spec["file"] == "gemma3_multimodal.toml"
    assert rec.expected_parameters == text + vision + projector
    rows = {c.component: c.expected for c in rec.components if c.layer_type is None}
    assert rows["vision"] == vision and rows["projector"] == projector
    # the published names are the released layout, tensor for tensor
    stored = set(index["weight_map"])
    layout, required = _required(config, stored)
    assert layout == "released" and required == stored  # the tied head is not stored, as in the index


def _gemma4_by_hand(config: dict) -> tuple[int, int, int]:
    """(text model, vision tower, vision embedder) parameters from modeling_gemma4.py, tied head counted once;
    the learned persistent buffers (layer_scalar, std_bias / std_scale) are not parameters (num_parameters())."""
    t, v = config["text_config"], config["vision_config"]
    d, ff, h, kv, hd, vocab = (
        t["hidden_size"],
        t["intermediate_size"],
        t["num_attention_heads"],
        t["num_key_value_heads"],
        t["head_dim"],
        t["vocab_size"],
    )
    ghd, gkv = t["global_head_dim"], t["num_global_key_value_heads"]
    text = vocab * d + d  # embed_tokens + final norm (no PLE here)
    for layer_type in t["layer_types"]:
        if layer_type == "full_attention":  # global head_dim, attention_k_eq_v: gkv K heads and no v_proj
            text += 2 * d * h * ghd + d * gkv * ghd + 2 * ghd
        else:
            text += 2 * d * h * hd + 2 * d * kv * hd + 2 * hd
        text += 3 * d * ff + 4 * d  # gated MLP, 4 RMSNorms (layer_scalar: a buffer)
    w, i, p, hv, kvv, hdv = (
        v["hidden_size"],
        v["intermediate_size"],
        v["patch_size"],
        v["num_attention_heads"],
        v["num_key_value_heads"],
        v["head_dim"],
    )
    layer = 2 * w * hv * hdv + 2 * w * kvv * hdv + 2 * hdv + 3 * w * i + 4 * w
    vision = 3 * p * p * w + 2 * v["position_embedding_size"] * w + v["num_hidden_layers"] * layer  # std_*: buffers
    return text, vision, d * w


def test_gemma4_expected_count_includes_the_vision_tower_and_no_audio(rebuilt: Path) -> None:
    folder = rebuilt / GEMMA4
    config, index = _config_and_index(folder)
    assert config["audio_config"] is None and config["vision_config"]["standardize"] is True
    text, vision, embedder = _gemma4_by_hand(config)
    assert (text, vision, embedder) == (30_697_345_280, 569_548_080, 6_193_152)
    report = auditor.audit(str(folder))
    assert isinstance(report, Report)
    rec = report.reconciliation
    assert rec.spec is not None and rec.spec["file"] == "gemma4_multimodal.toml"
    assert rec.expected_parameters == text + vision + embedder
    rows = {c.component: c.expected for c in rec.components if c.layer_type is None}
    assert rows["vision"] == vision and rows["projector"] == embedder and "audio" not in rows
    # the index's names are the class's own, tensor for tensor (no audio tower, the tied head not stored)
    assert _required(config, set(index["weight_map"]))[1] == set(index["weight_map"])
    # the index's own total counts the tied embedding twice and no buffer (60 layer_scalar, std_bias/std_scale)
    d, vocab = config["text_config"]["hidden_size"], config["text_config"]["vocab_size"]
    assert index["metadata"]["total_parameters"] == text + vision + embedder + vocab * d
    assert {f.code for f in report.findings if f.severity == "error"} == {"index-shard-missing"}


def test_original_llava_remote_code_gets_no_false_formula(rebuilt: Path) -> None:
    folder = rebuilt / LLAVA_REMOTE
    config = json.loads((folder / "config.json").read_text())
    assert config["model_type"] == "llava" and config["architectures"] == ["LlavaLlamaForCausalLM"]
    assert select(config)[0] is None
    report = auditor.audit(str(folder))
    assert isinstance(report, Report)
    assert report.reconciliation is None or report.reconciliation.expected_parameters is None
    [unknown] = [f for f in report.findings if f.code == "unknown-architecture"]
    assert "LlavaLlamaForCausalLM" in unknown.message and "remote code" in unknown.message
    proc = run_cli("formula", str(folder / "config.json"))
    assert proc.returncode == 3 and "LlavaLlamaForCausalLM" in proc.stderr and not proc.stdout


@pytest.mark.parametrize(("case", "spec_file"), [(MINICPMV2, "minicpmv.toml"), (OCR2, "deepseek_ocr2_remote.toml")])
def test_remote_code_releases_get_their_formula_name_for_name(rebuilt: Path, case: str, spec_file: str) -> None:
    """The remote-code releases of the corpus (shapes and counts: tests/test_specs_remote_vlm.py): every name their
    real index holds is one the formula requires and nothing more, and the only error is the unreadable shards."""
    folder = rebuilt / case
    config, index = _config_and_index(folder)
    stored = set(index["weight_map"])
    assert _required(config, stored)[1] == stored
    report = auditor.audit(str(folder))
    assert isinstance(report, Report)
    assert report.reconciliation.spec is not None and report.reconciliation.spec["file"] == spec_file
    assert {f.code for f in report.findings if f.severity == "error"} <= {"not-safetensors", "index-shard-missing"}
