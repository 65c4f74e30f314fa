"""Real releases the formula used to get wrong or not at all: remote-code text families and composite configs.

Each fixture in ``fixtures/releases`` holds derived facts about one real release, with where they came from: its
config.json, every tensor its real index names with the shard the index puts it in and the shape the release's own
modeling code gives it (``tools/dump_remote.py``: the code run on the meta device; the bytes of those shapes equal
the index's ``total_size`` to the byte, checked again here), and ``parameters``, the code's own
``num_parameters()``. Each is built header-only at release shape, sharded as the index says, and audited: exit 0,
no error, and the count st-audit's formula gives equal to the code's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import auditor
from auditor import Report
from auditor.specs import find_spec, select
from tests.support import build, releases
from tests.support.truth import CASES, config, tensors, truth


def _release(slug: str) -> dict[str, Any]:
    return releases.load(slug)


def _build(doc: dict[str, Any], dest: Path) -> Path:
    return releases.build_release(doc, dest)


def _errors(report: auditor.Report) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in report.findings if f.severity in ("error", "warning")]


TEXT = [
    "THUDM__chatglm3-6b",
    "Qwen__Qwen-72B",
    "internlm__internlm2-chat-7b",
    "XiaomiMiMo__MiMo-7B",
    "MiniMaxAI__MiniMax-M1",
    "OpenAssistant__reward-model-pythia-160m-writer",
    "openPangu-Embedded-7B",
]


@pytest.mark.parametrize("slug", TEXT)
def test_remote_code_release_is_exact(slug: str, tmp_path: Path) -> None:
    doc = _release(slug)
    report = auditor.audit(str(_build(doc, tmp_path / slug)))
    assert isinstance(report, Report)
    assert report.exit_code == 0 and _errors(report) == []
    rec = report.reconciliation
    claiming = find_spec({"model_type": doc["family"]})
    assert rec.spec is not None and claiming is not None
    assert rec.spec["file"] == claiming.file  # the spec claiming the family
    # an MTP block (MiMo's model.mtp_layers) is counted beside the model, as for every family with one; the
    # repo's own num_parameters() counts it in, so the two together are the code's count
    assert rec.expected_parameters is not None
    assert rec.expected_parameters + (rec.mtp_parameters or 0) == doc["parameters"]
    assert report.totals.parameters == sum(math.prod(s) for _, _, s, *_ in doc["tensors"])


def test_mimo_mtp_layers_are_its_mtp_block(tmp_path: Path) -> None:
    doc = _release("XiaomiMiMo__MiMo-7B")
    assert doc["config"]["num_nextn_predict_layers"] == 1
    report = auditor.audit(str(_build(doc, tmp_path / "mimo")))
    assert isinstance(report, Report)
    mtp = sum(math.prod(s) for n, _, s, *_ in doc["tensors"] if n.startswith("model.mtp_layers."))
    assert report.reconciliation.mtp_parameters == mtp > 0
    # without them (a loader that predicts one token saves none) the checkpoint is complete
    doc["tensors"] = [t for t in doc["tensors"] if not t[0].startswith("model.mtp_layers.")]
    doc["total_size"] -= 2 * mtp
    report = auditor.audit(str(_build(doc, tmp_path / "mimo-no-mtp")))
    assert isinstance(report, Report)
    assert report.exit_code == 0 and _errors(report) == []


def test_qwen_72b_in_the_real_corpus_matches_the_fixture() -> None:
    """The corpus holds the same release's real config and index (its shards are LFS pointers): the fixture is
    its facts, so the index names exactly the fixture's tensors and total_size."""
    from tests.support.resources import CORPUS, REQUIRE_CORPUS, absent

    case = CORPUS / "mapengAdam__qianwen-72B"
    if not case.exists():
        absent(f"the real-world corpus ({case})", REQUIRE_CORPUS)
    doc = _release("Qwen__Qwen-72B")
    index = json.loads((case / "model.safetensors.index.json").read_text())
    assert json.loads((case / "config.json").read_text()) == doc["config"]
    assert index["weight_map"] == {n: f for n, f, *_ in doc["tensors"]}
    assert index["metadata"]["total_size"] == doc["total_size"]


def test_a_broken_remote_code_release_is_still_caught(tmp_path: Path) -> None:
    """The formula is exact, not lenient: a layer's fused qkv at the wrong width is an error."""
    doc = _release("internlm__internlm2-chat-7b")
    doc["tensors"] = [
        [n, f, [s[0] - 128, *s[1:]] if n == "model.layers.3.attention.wqkv.weight" else s, *t]
        for n, f, s, *t in doc["tensors"]
    ]
    doc["total_size"] -= 128 * 4096 * 2
    report = auditor.audit(str(_build(doc, tmp_path / "broken")))
    assert report.exit_code == 1
    assert [list(f.tensors) for f in report.findings if f.code == "shape-mismatch"] == [
        ["model.layers.3.attention.wqkv.weight"]
    ]


def test_chatglm_v1_is_not_read_as_chatglm2() -> None:
    """ChatGLM-6B v1 shares model_type chatglm but not the architecture (no padded_vocab_size): no formula."""
    spec, _ = select(
        {
            "model_type": "chatglm",
            "architectures": ["ChatGLMModel"],
            "vocab_size": 130528,
            "hidden_size": 4096,
            "inner_hidden_size": 16384,
            "num_layers": 28,
            "num_attention_heads": 32,
            "position_encoding_2d": True,
        }
    )
    assert spec is None


# -- item 1: a sub-config whose model_type names the composite itself ------------------------------------------


def test_qwen2_vl_as_transformers_445_wrote_it_is_exact(tmp_path: Path) -> None:
    """olmOCR-7B (a Qwen2-VL fine-tune) with config.json as transformers 4.45 saves it: vision_config is
    ``{"in_chans": 3, "model_type": "qwen2_vl", "spatial_patch_size": 14}``. transformers builds the tower from
    Qwen2VLVisionConfig's defaults; the nested type selects nothing."""
    doc = _release("allenai__olmOCR-7B-0225-preview")
    assert doc["config"]["vision_config"] == {"in_chans": 3, "model_type": "qwen2_vl", "spatial_patch_size": 14}
    report = auditor.audit(str(_build(doc, tmp_path / "olmocr")))
    assert isinstance(report, Report)
    assert report.exit_code == 0 and _errors(report) == []
    assert report.reconciliation.expected_parameters == doc["parameters"] == 8_291_375_616
    [vision] = [c for c in report.reconciliation.components if c.component == "vision"]
    assert vision.expected == vision.actual == 675_759_104


@pytest.mark.parametrize("case", ["Qwen3VLForConditionalGeneration-default", "Qwen3VLModel-default"])
def test_qwen3_vl_vision_config_naming_the_composite(case: str, tmp_path: Path) -> None:
    """Qwen3-VL releases name the composite in vision_config: they were saved by transformers 4.57, whose
    Qwen3VLVisionConfig.model_type is ``qwen3_vl`` (``Qwen3VLConfig().save_pretrained`` under 4.57.6 writes
    vision_config.model_type "qwen3_vl", text_config's "qwen3_vl_text"); transformers 5.23's dump of the same
    model, these cases, says ``qwen3_vl_vision``. Same tensors, same count."""
    folder = CASES / "qwen3_vl" / case
    cfg = config(folder)
    cfg["vision_config"] = {**cfg["vision_config"], "model_type": "qwen3_vl"}
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "ckpt", tensors(folder), config=cfg)))
    assert isinstance(report, Report)
    assert report.exit_code == 0 and _errors(report) == []
    assert report.reconciliation.expected_parameters == truth(folder)["parameters"]


# -- rule 2a: a class st-audit knows under a model_type it does not --------------------------------------------

KIMI_AUTO_MAP = {
    "AutoConfig": "configuration_deepseek.DeepseekV3Config",
    "AutoModel": "modeling_deepseek.DeepseekV3Model",
    "AutoModelForCausalLM": "modeling_deepseek.DeepseekV3ForCausalLM",
}


def _kimi(cfg: dict[str, Any]) -> dict[str, Any]:
    """A DeepSeek-V3 config as Kimi-K2 ships it: model_type kimi_k2 (so engines can tell them apart), DeepSeek's
    own remote code in auto_map, architectures unchanged, and moe_layer_freq, which DeepSeek's
    configuration_deepseek.py writes (transformers' DeepseekV3Config has no such key)."""
    return {**cfg, "model_type": "kimi_k2", "auto_map": KIMI_AUTO_MAP, "moe_layer_freq": cfg.get("moe_layer_freq", 1)}


def test_kimi_k2_gets_the_deepseek_v3_formula_by_class(tmp_path: Path) -> None:
    folder = CASES / "deepseek_v3" / "DeepseekV3ForCausalLM-small"
    report = auditor.audit(
        str(build.build_checkpoint(tmp_path / "ckpt", tensors(folder), config=_kimi(config(folder))))
    )
    assert isinstance(report, Report)
    assert report.exit_code == 0 and _errors(report) == []
    rec = report.reconciliation
    assert rec.spec is not None and rec.spec["file"] == "deepseek_v3.toml"
    assert rec.expected_parameters == truth(folder)["parameters"]
    [note] = [f for f in report.findings if f.code == "formula-by-class"]
    assert note.severity == "info" and "kimi_k2" in note.message and "DeepseekV3ForCausalLM" in note.message


def test_kimi_k2_at_deepseek_v3_release_shape(tmp_path: Path) -> None:
    """The real DeepSeek-V3 config (fixtures/configs) and transformers' layout of it, under model_type kimi_k2:
    the 256-expert, 61-layer formula by class, exact."""
    layout = build.load_layout("deepseek-ai__DeepSeek-V3")
    cfg = _kimi(build.load_config(layout["config_file"]))
    cfg.pop("quantization_config", None)  # the layout is transformers' unquantized one
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "ckpt", layout["tensors"], config=cfg, shards=8)))
    assert isinstance(report, Report)
    assert report.exit_code == 0 and _errors(report) == []
    # num_parameters(): the router's score-correction bias is a persistent buffer, stored but not a parameter
    buffers = sum(math.prod(s) for n, _, s in layout["tensors"] if n.endswith("e_score_correction_bias"))
    assert report.reconciliation.expected_parameters == layout["total_params"] - buffers


def test_kimi_k2_without_a_key_the_formula_reads_gets_no_formula(tmp_path: Path) -> None:
    """Every key the class's formula reads must be there: a remote config class may default it otherwise."""
    folder = CASES / "deepseek_v3" / "DeepseekV3ForCausalLM-small"
    cfg = _kimi(config(folder))
    del cfg["moe_layer_freq"]
    spec, _ = select(cfg)
    assert spec is None


def test_a_known_class_name_over_other_keys_gets_no_formula(tmp_path: Path) -> None:
    """A remote-code model that borrows a class name but not the config (GPT-2 style keys under LlamaForCausalLM)
    is not audited as Llama: the structural check, and the note says which keys the class's formula lacks."""
    folder = CASES / "gpt2" / "GPT2LMHeadModel-small"
    cfg = {**config(folder), "model_type": "my_gpt", "architectures": ["LlamaForCausalLM"]}
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "ckpt", tensors(folder), config=cfg)))
    assert isinstance(report, Report)
    assert report.exit_code == 0 and "formula-by-class" not in {f.code for f in report.findings}
    [note] = [f.message for f in report.findings if f.code == "unknown-architecture"]
    assert "LlamaForCausalLM" in note and "hidden_size" in note and "llama.toml" in note
    assert report.reconciliation.expected_parameters is None


def test_an_unknown_class_under_an_unknown_type_is_unchanged() -> None:
    spec, _ = select({"model_type": "my_model", "architectures": ["MyModelForCausalLM"], "hidden_size": 64})
    assert spec is None


# -- rule 2b: a remote-code class over known parts ---------------------------------------------------------------

VLM = CASES / "llava" / "LlavaForConditionalGeneration-default"


def _remote_vlm(tmp_path: Path, layout: list[tuple[str, str, list[int]]] | None = None) -> auditor.Report:
    """transformers' own save of a LLaVA (a llama text_config, a CLIP vision_config) under a repo's own class:
    model_type and architectures no spec or transformers class has, auto_map to the repo's code."""
    cfg = {
        **config(VLM),
        "model_type": "my_vlm",
        "architectures": ["MyVLMForCausalLM"],
        "auto_map": {"AutoModelForCausalLM": "modeling_my_vlm.MyVLMForCausalLM"},
    }
    report = auditor.audit(str(build.build_checkpoint(tmp_path / "ckpt", layout or tensors(VLM), config=cfg, shards=3)))
    assert isinstance(report, Report)
    return report


def test_known_parts_of_a_remote_class_get_their_formulas(tmp_path: Path) -> None:
    report = _remote_vlm(tmp_path)
    assert report.exit_code == 0 and _errors(report) == []
    [note] = [f.message for f in report.findings if f.code == "unknown-architecture"]
    # the text model without its head: whether and where a composite ties it is the repo class's own rule
    assert "text_config (llama.toml, ForCausalLM) stored under language_model.: 290 tensors" in note
    assert "vision_config (clip_vision.toml, Model) stored under vision_tower.: 391 tensors" in note
    assert note.count("exactly as its formula says") == 2
    rec = report.reconciliation
    assert rec.expected_parameters is None  # the whole has no formula: no count is presented as the model's
    assert rec.ledger["model"] == report.totals.parameters == truth(VLM)["parameters"]


def test_a_known_part_missing_a_tensor_in_one_layer_is_an_error(tmp_path: Path) -> None:
    """A layer lacking what the part's other layers hold, as its formula says, is damage: an error."""
    gone = "language_model.model.layers.5.mlp.down_proj.weight"
    report = _remote_vlm(tmp_path, [t for t in tensors(VLM) if t[0] != gone])
    assert report.exit_code == 1
    assert [(f.severity, f.tensors) for f in report.findings if f.code == "missing-tensor"] == [("error", (gone,))]
    [note] = [f.message for f in report.findings if f.code == "unknown-architecture"]
    assert "1 finding where some layers differ from the others" in note


def test_a_known_part_with_a_wrong_shape_in_one_layer_is_an_error(tmp_path: Path) -> None:
    bad = "vision_tower.encoder.layers.3.mlp.fc1.weight"
    report = _remote_vlm(tmp_path, [(n, d, [s[0] // 2, *s[1:]] if n == bad else s) for n, d, s in tensors(VLM)])
    assert [(f.severity, f.tensors) for f in report.findings if f.code == "shape-mismatch"] == [("error", (bad,))]


def test_a_part_built_otherwise_in_every_layer_is_the_repos_own_way(tmp_path: Path) -> None:
    """The same difference in every layer (a composite that sets its text config's sizes, as transformers' PI0
    does) is the repo class's rule, not damage: the part goes to the structural check, no error, and the note
    says why."""

    def narrow(name: str, shape: list[int]) -> list[int]:
        return [shape[0] // 2, *shape[1:]] if name.endswith("self_attn.k_proj.weight") else shape

    report = _remote_vlm(tmp_path, [(n, d, narrow(n, s)) for n, d, s in tensors(VLM)])
    assert report.exit_code == 0 and _errors(report) == []
    [note] = [f.message for f in report.findings if f.code == "unknown-architecture"]
    assert (
        "text_config (llama.toml, ForCausalLM) stored under language_model. differs from its formula in every "
        "layer or outside them" in note
    )


def test_a_part_the_repo_names_its_own_way_stays_structural(tmp_path: Path) -> None:
    """Where the repo's code names the text model's MLP otherwise (a tenth of its tensors), the llama formula is
    not that code's: no part, no false alarm."""

    def rename(name: str) -> str:
        return name.replace(".mlp.down_proj.", ".mlp.w2.").replace(".mlp.up_proj.", ".mlp.w3.")

    report = _remote_vlm(tmp_path, [(rename(n), d, s) for n, d, s in tensors(VLM)])
    assert report.exit_code == 0 and _errors(report) == []
    [note] = [f.message for f in report.findings if f.code == "unknown-architecture"]
    assert "text_config" not in note and "vision_config (clip_vision.toml" in note


def test_coverage_lists_every_release_as_exact() -> None:
    """docs/coverage.md (make coverage) has a row for every release fixture of this file's families, each exact
    (the audits behind it are the tests above)."""
    from tests.support.paths import ROOT

    rows = {}
    for line in (ROOT / "docs" / "coverage.md").read_text().splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 7 and cells[0] not in ("model_type", "---") and " (mirror " in cells[3]:
            rows[cells[3].split(" (mirror ")[0]] = cells[6]
    mine = {releases.load(s)["hub"] for s in [*TEXT, "allenai__olmOCR-7B-0225-preview"]}
    assert mine <= set(rows)
    assert all(rows[hub].startswith("exact") for hub in mine), {hub: rows[hub] for hub in mine}
