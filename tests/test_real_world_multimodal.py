"""Real multimodal releases from ../shared/real-world (real index and config files; shards absent or Git LFS
pointers), rebuilt header-only into tmp_path by the corpus's own rebuild.py.

- MedGemma-27B (Gemma3ForConditionalGeneration, as published by transformers 4.54): its expected count must
  include the SigLIP vision tower and the projector. Truth: the tensor names of the real index, and a hand
  computation from modeling_gemma3.py / modeling_siglip.py with the config's sizes.
- The original LLaVA-1.5 repo (remote-code LlavaLlamaForCausalLM under model_type llava): not a class
  transformers builds for llava, so no formula at all rather than a false one.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

import auditor
from auditor.specs import expand, select
from auditor.specs.layouts import best_layout
from conftest import run_cli

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "real-world"
MEDGEMMA = "Ibtasam-98__medgemma-27b-it"
LLAVA_REMOTE = "wyler-max__llava-v1.5-7b"


def _rebuild_module() -> ModuleType:
    script = CORPUS / "rebuild.py"
    assert script.is_file(), (f"the shared real-world corpus is missing: expected {script} (../shared beside the "
                              "repository, as CI checks it out)")
    spec = importlib.util.spec_from_file_location("real_world_rebuild", script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("real-world")
    rebuild = _rebuild_module()
    for case in (MEDGEMMA, LLAVA_REMOTE):
        rebuild.rebuild(case, str(dest))
    return dest


def _medgemma_by_hand(config: dict) -> tuple[int, int, int]:
    """(text model, vision tower, projector) parameters from the modeling code, tied head counted once."""
    t, v = config["text_config"], config["vision_config"]
    d, n, ff, h, kv, hd, vocab = (t["hidden_size"], t["num_hidden_layers"], t["intermediate_size"],
                                  t["num_attention_heads"], t["num_key_value_heads"], t["head_dim"], t["vocab_size"])
    # q,o + k,v + gate/up/down + 4 RMSNorms + q_norm/k_norm (head_dim)
    layer = 2 * d * h * hd + 2 * d * kv * hd + 3 * d * ff + 4 * d + 2 * hd
    text = vocab * d + n * layer + d
    w, i, p = v["hidden_size"], v["intermediate_size"], v["patch_size"]
    # SiglipEncoderLayer: q/k/v/out with biases, fc1/fc2 with biases, two LayerNorms
    block = 4 * (w * w + w) + (i * w + i) + (w * i + w) + 4 * w
    embeddings = w * v["num_channels"] * p * p + w + (v["image_size"] // p) ** 2 * w
    vision = embeddings + v["num_hidden_layers"] * block + 2 * w       # + post_layernorm; vision_use_head false
    projector = w * d + w                                              # mm_input_projection_weight + RMSNorm
    return text, vision, projector


def test_medgemma_expected_count_includes_the_vision_tower(rebuilt: Path) -> None:
    folder = rebuilt / MEDGEMMA
    config = json.loads((folder / "config.json").read_text())
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    text, vision, projector = _medgemma_by_hand(config)
    assert (text, vision, projector) == (27_009_346_304, 416_866_032, 6_194_304)
    report = auditor.audit(folder)
    rec = report.reconciliation
    assert rec.spec["file"] == "gemma3_multimodal.toml"
    assert rec.expected_parameters == text + vision + projector
    rows = {c.component: c.expected for c in rec.components if c.layer_type is None}
    assert rows["vision"] == vision and rows["projector"] == projector
    # the published names are the released layout, tensor for tensor
    spec, cfg = select(config)
    stored = set(index["weight_map"])
    layout = best_layout(expand(spec, cfg), stored)
    required = {n for n, e in layout.tensors.items() if e.kind == "param" or (e.kind == "head" and not e.tied)}
    assert layout.layout == "released" and required == stored     # the tied head is not stored, as in the index


def test_original_llava_remote_code_gets_no_false_formula(rebuilt: Path) -> None:
    folder = rebuilt / LLAVA_REMOTE
    config = json.loads((folder / "config.json").read_text())
    assert config["model_type"] == "llava" and config["architectures"] == ["LlavaLlamaForCausalLM"]
    assert select(config)[0] is None
    report = auditor.audit(folder)
    assert report.reconciliation is None or report.reconciliation.expected_parameters is None
    [unknown] = [f for f in report.findings if f.code == "unknown-architecture"]
    assert "LlavaLlamaForCausalLM" in unknown.message and "remote code" in unknown.message
    proc = run_cli("formula", str(folder / "config.json"))
    assert proc.returncode == 3 and "LlavaLlamaForCausalLM" in proc.stderr and not proc.stdout
