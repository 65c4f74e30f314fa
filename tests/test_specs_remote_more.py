"""More remote-code families (``trust_remote_code``) against real releases: StableLM-Epoch (stable-code-3b), Molmo
(a bitsandbytes NF4 release), Baichuan2, InternLM (v1), Phi-3-vision and DeepSeek-MoE v1 (no public index found:
its tensors are its modeling code's state_dict on the meta device, with the release's published config).

Each ``fixtures/releases/<slug>.json.gz`` holds a real release's config and the names, sharding and total_size of
its real index, with shapes derived by hand from the release's own modeling code (tools/derive_release.py; the
bytes of those shapes equal the index's total_size to the byte, checked again here). Each is built header-only at
release shape and audited through the command line: exit 0, no error or warning, the spec that claims the family,
and the expected count equal to a count written here by hand from the modeling code with the config's sizes,
independently of the spec and of the tool's shape rules. Broken variants (a layer dropped, a tensor reshaped) are
caught with the right finding. Two of the releases are the real-world corpus' own remote-code cases, whose
config.json and index the fixtures must equal.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import auditor
from auditor.reconcile.expected import expected_layout
from auditor.specs import select
from tests.support import releases
from tests.support.cli import run_json
from tests.support.resources import CORPUS, REQUIRE_CORPUS, absent


def _stablelm_epoch(c: dict[str, Any]) -> int:
    """stabilityai/stable-code-3b modeling_stablelm_epoch.py: q/k/v/o bias-free (GQA by num_key_value_heads), a
    bias-free gated MLP, LayerNorms with weight and bias (two per layer, one final), untied embedding and head."""
    d, ff, v, n = c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["num_hidden_layers"]
    kv = c["num_key_value_heads"] * d // c["num_attention_heads"]
    return 2 * v * d + n * (2 * d * d + 2 * d * kv + 3 * d * ff + 4 * d) + 2 * d


def _molmo(c: dict[str, Any]) -> int:
    """allenai/Molmo-7B-D-0924 modeling_molmo.py, as MolmoForCausalLM configures it: wte [embedding_size + 128, d],
    per block att_proj [d + 2 kv, d] with qkv_bias, attn_out [d, d], ff_proj [ff, d], ff_out [d, ff / 2], two RMS
    weights; ln_f, ff_out [embedding_size, d]; the 23-layer CLIP-L/14-336 ViT (class token, 577 positions, a
    bias-free linear patch embedding, pre-LayerNorm, biased attention and MLP); attention pooling (q/k/v from
    2 x 1024, o to 1024, biased), the SwiGLU projector (1024 -> ff / 2 -> d) and pad_embed [2, 2048]. What
    bitsandbytes stores does not change it: its index says num_parameters() is the same."""
    d, ff, n = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"]
    e = c["embedding_size"]
    kv = c["num_key_value_heads"] * d // c["num_attention_heads"]
    q = d + 2 * kv
    text = (
        (e + 128) * d + n * ((q * d + (q if c["qkv_bias"] else 0)) + d * d + ff * d + d * ff // 2 + 2 * d) + d + e * d
    )
    w, i = 1024, 4096
    block = 4 * (w * w + w) + (i * w + i) + (w * i + w) + 4 * w
    vit = w + 577 * w + 588 * w + 2 * w + 23 * block
    pooling = 3 * (w * 2 * w + w) + (w * w + w)
    projector = 2 * (ff // 2) * w + d * (ff // 2)
    return text + vit + pooling + projector + 2 * 2 * w


def _baichuan(c: dict[str, Any]) -> int:
    """baichuan-inc/Baichuan2-13B-Chat modeling_baichuan.py: W_pack [3 d, d], o_proj, a bias-free gated MLP, two
    RMS weights per layer, embedding, final norm and the NormHead's [vocab, d] weight."""
    d, ff, v, n = c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["num_hidden_layers"]
    return 2 * v * d + n * (4 * d * d + 3 * d * ff + 2 * d) + d


def _internlm(c: dict[str, Any]) -> int:
    """internlm/internlm-20b modeling_internlm.py: q/k/v/o [d, d] each, biased when config.bias, a bias-free
    gated MLP, two RMS weights per layer, untied embedding and head, final norm."""
    d, ff, v, n = c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["num_hidden_layers"]
    return 2 * v * d + n * (4 * d * d + (4 * d if c["bias"] else 0) + 3 * d * ff + 2 * d) + d


def _phi3_v(c: dict[str, Any]) -> int:
    """microsoft/Phi-3-vision-128k-instruct modeling_phi3_v.py + image_embedding_phi3_v.py: the Phi-3 decoder
    (qkv_proj [(h + 2 kv) head_dim, d], o_proj, gate_up_proj [2 ff, d], down_proj, two RMS weights; untied head),
    CLIPVisionModel at ViT-L/14-336 (class token, bias-free patch conv, 577 positions, pre and post LayerNorm, 24
    layers of biased q/k/v/out, a 4096 MLP and two LayerNorms), glb_GN and sub_GN of 4 x 1024, and the HD
    transform's projector Linear(4096, d), GELU, Linear(d, d)."""
    d, ff, v, n = c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["num_hidden_layers"]
    kv = c["num_key_value_heads"] * d // c["num_attention_heads"]
    text = 2 * v * d + n * ((d + 2 * kv) * d + d * d + 3 * d * ff + 2 * d) + d
    w, i = 1024, 4096
    clip = w + w * 3 * 14 * 14 + 577 * w + 2 * w + 24 * (4 * (w * w + w) + (i * w + i) + (w * i + w) + 4 * w) + 2 * w
    g = 4 * c["img_processor"]["image_dim_out"]
    return text + clip + 2 * g + (d * g + d) + (d * d + d)


def _deepseek(c: dict[str, Any]) -> int:
    """deepseek-ai/deepseek-moe-16b-base modeling_deepseek.py: Llama attention (q/k/v/o, kv heads by
    num_key_value_heads, no bias), two RMS weights per layer; the first first_k_dense_replace layers a dense
    SwiGLU MLP of intermediate_size, every other (moe_layer_freq 1) a gate [E, d], E experts of
    moe_intermediate_size and shared experts n_shared_experts times as wide; untied embedding and head."""
    d, v, n, k = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"], c["first_k_dense_replace"]
    kv = c["num_key_value_heads"] * d // c["num_attention_heads"]
    e, experts, shared = c["moe_intermediate_size"], c["n_routed_experts"], c["n_shared_experts"]
    layer = 2 * d * d + 2 * d * kv + 2 * d
    dense = layer + 3 * d * c["intermediate_size"]
    moe = layer + experts * 3 * d * e + 3 * d * e * shared + experts * d
    assert c["moe_layer_freq"] == 1
    return 2 * v * d + k * dense + (n - k) * moe + d


BY_HAND: dict[str, Callable[[dict[str, Any]], int]] = {
    "stablelm_epoch": _stablelm_epoch,
    "molmo": _molmo,
    "baichuan": _baichuan,
    "internlm": _internlm,
    "phi3_v": _phi3_v,
    "deepseek": _deepseek,
}
SPEC_FILE = {
    "stablelm_epoch": "stablelm.toml",
    "molmo": "molmo.toml",
    "baichuan": "baichuan.toml",
    "internlm": "internlm.toml",
    "phi3_v": "phi3_v.toml",
    "deepseek": "deepseek.toml",
}
RELEASES = [r for r in releases.slugs() if releases.load(r)["family"] in BY_HAND]
# the real-world corpus' remote-code cases: the fixtures are their facts
CORPUS_CASES = {"stable-code-3b": "Zumwaltboi68__stable-code-3b", "molmo-7b-d-nf4": "reubzdubz__Molmo7B_D_NF4Quant"}


@pytest.fixture(scope="module", params=RELEASES)
def release(request: pytest.FixtureRequest) -> dict[str, Any]:
    return {**releases.load(request.param), "slug": request.param}


def _quantized(release: dict[str, Any]) -> bool:
    return bool(release["config"].get("quantization_config"))


def test_the_fixture_is_the_real_index(release: dict[str, Any]) -> None:
    """The derived shapes hold exactly the real index's total_size; the by-hand count is the fixture's, and where
    the index says num_parameters() itself (transformers >= 4.53 writes it) it is that too."""
    assert releases.data_bytes(release) == release["total_size"]
    assert "index_total_size" not in release  # nothing unexplained
    assert BY_HAND[release["family"]](release["config"]) == release["parameters"]
    assert release.get("index_total_parameters", release["parameters"]) == release["parameters"]
    if not _quantized(release):  # every stored element is a parameter
        assert sum(math.prod(s) for _, _, s, *_ in release["tensors"]) == release["parameters"]
    assert {"repo", "commit", "paths", "modeling"} <= set(release["provenance"])


def test_a_healthy_release_audits_clean_at_its_modeling_code_count(release: dict[str, Any], tmp_path: Path) -> None:
    folder = releases.build_release(release, tmp_path / "release")
    code, doc = run_json("audit", str(folder))
    assert code == 0 and doc["verdict"] == "pass"
    assert [f for f in doc["findings"] if f["severity"] in ("error", "warning")] == []
    assert doc["expected"]["spec"]["file"] == SPEC_FILE[release["family"]]
    assert doc["expected"]["parameters"] == BY_HAND[release["family"]](release["config"])
    stored = sum(math.prod(s) for _, _, s, *_ in release["tensors"])
    ledger = doc["ledger"]
    assert ledger["unexplained"] == 0 and ledger["model"] == doc["expected"]["parameters"]
    if _quantized(release):  # packed weights count the values they encode; scales and states are bookkeeping
        assert ledger["quantization"] > 0
        assert doc["totals"]["parameters"] == ledger["model"] + ledger["quantization"]
    else:
        assert doc["totals"]["parameters"] == stored == ledger["model"]


def test_the_quantized_molmo_reconciles_as_bitsandbytes_nf4(tmp_path: Path) -> None:
    """The NF4 release keeps its four projections per block as bitsandbytes writes them (the packed weight, absmax,
    quant_map, the packed QuantState) and what llm_int8_skip_modules names in float16: the scheme explains every
    scale and state tensor, and the count is the unquantized model's, the index's own total_parameters."""
    release = releases.load("molmo-7b-d-nf4")
    code, doc = run_json("audit", str(releases.build_release(release, tmp_path / "molmo")))
    assert code == 0
    bookkeeping = [
        (n, s) for n, _, s, *_ in release["tensors"] if n.endswith((".absmax", ".quant_map")) or ".quant_state." in n
    ]
    assert len(bookkeeping) == 3 * 4 * release["config"]["num_hidden_layers"]
    assert doc["ledger"]["quantization"] == sum(math.prod(s) for _, s in bookkeeping)
    assert doc["ledger"]["model"] == doc["expected"]["parameters"] == release["index_total_parameters"]
    [note] = [f for f in doc["findings"] if f["code"] == "quantization-tensors"]
    assert note["severity"] == "info"
    packed = [s for n, _, s, *t in release["tensors"] if t == ["U8"] and n.endswith(".weight")]
    assert len(packed) == 4 * release["config"]["num_hidden_layers"] and all(s[1] == 1 for s in packed)


# (release, a whole layer dropped by prefix, a tensor given another shape: [name, shape])
BROKEN = {
    "stable-code-3b": ("model.layers.17.", ("model.layers.3.self_attn.k_proj.weight", [2560, 2048])),
    "molmo-7b-d-nf4": (
        "model.vision_backbone.image_vit.transformer.resblocks.11.",
        ("model.transformer.blocks.5.att_proj.bias", [3584]),
    ),
    "baichuan2-13b-chat": ("model.layers.39.", ("model.layers.0.self_attn.W_pack.weight", [5120 * 3, 4096])),
    "internlm-20b": ("model.layers.30.", ("model.layers.12.self_attn.o_proj.weight", [5120, 4096])),
    "deepseek-moe-16b": (
        "model.layers.20.mlp.experts.",
        ("model.layers.1.mlp.shared_experts.up_proj.weight", [1408, 2048]),
    ),
    "phi-3-vision-128k": (
        "model.vision_embed_tokens.img_processor.vision_model.encoder.layers.23.",
        ("model.vision_embed_tokens.img_projection.0.weight", [3072, 1024]),
    ),
}


@pytest.mark.parametrize("slug", sorted(BROKEN))
def test_a_missing_layer_is_caught(slug: str, tmp_path: Path) -> None:
    release = releases.load(slug)
    gone = {n for n, *_ in release["tensors"] if n.startswith(BROKEN[slug][0])}
    assert gone
    report = auditor.audit(str(releases.build_variant(release, tmp_path / "r", drop=gone)))
    assert report.exit_code == 1
    assert gone <= releases.error_tensors(report).get("missing-tensor", set())


@pytest.mark.parametrize("slug", sorted(BROKEN))
def test_a_wrong_shape_is_caught(slug: str, tmp_path: Path) -> None:
    release = releases.load(slug)
    name, shape = BROKEN[slug][1]
    report = auditor.audit(str(releases.build_variant(release, tmp_path / "r", reshape={name: shape})))
    assert report.exit_code == 1
    [f] = [f for f in report.findings if f.code == "shape-mismatch"]
    assert f.tensors == (name,) and f.severity == "error"


@pytest.mark.corpus
@pytest.mark.parametrize("slug", sorted(CORPUS_CASES))
def test_the_corpus_cases_are_these_releases(slug: str) -> None:
    """The real-world corpus holds these two releases' real config and index (their shards are LFS pointers or
    absent): the fixtures are their facts, tensor for tensor."""
    case = CORPUS / CORPUS_CASES[slug]
    if not case.is_dir():
        absent(f"the real-world corpus is absent ({case})", REQUIRE_CORPUS)
    doc = releases.load(slug)
    index = json.loads((case / "model.safetensors.index.json").read_text())
    assert json.loads((case / "config.json").read_text()) == doc["config"]
    assert index["weight_map"] == {n: f for n, f, *_ in doc["tensors"]}
    assert index["metadata"]["total_size"] == doc["total_size"]
    assert index["metadata"].get("total_parameters", doc["parameters"]) == doc["parameters"]


def test_molmoe_under_the_same_type_keeps_the_structural_check() -> None:
    """MolmoE-1B shares model_type molmo but builds another model (modeling_molmoe.py): its auto_map selects no
    formula rather than Molmo's."""
    config = dict(releases.load("molmo-7b-d-nf4")["config"])
    assert select(config)[0] is not None
    config["auto_map"] = {
        "AutoConfig": "config_molmoe.MolmoConfig",
        "AutoModelForCausalLM": "modeling_molmoe.MOLMoEForCausalLM",
    }
    assert select(config)[0] is None


def test_deepseek_without_experts_is_dense() -> None:
    """DeepseekDecoderLayer builds DeepseekMoE only where n_routed_experts is set: without it every layer is a dense
    SwiGLU MLP (and without n_shared_experts a MoE layer has no shared experts)."""
    c = dict(releases.load("deepseek-moe-16b")["config"])
    d, v, n, ff = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"], c["intermediate_size"]
    dense = {k: x for k, x in c.items() if k != "n_routed_experts"}
    layout = expected_layout(dense)
    assert layout is not None and layout.parameters == 2 * v * d + n * (4 * d * d + 3 * d * ff + 2 * d) + d
    unshared = {k: x for k, x in c.items() if k != "n_shared_experts"}
    layout = expected_layout(unshared)
    assert layout is not None and not any(".shared_experts." in name for name in layout.tensors)
    assert layout.parameters == BY_HAND["deepseek"](c) - (n - 1) * 3 * d * c["moe_intermediate_size"] * 2


def test_phi3_v_without_an_image_embedding_is_its_decoder() -> None:
    """Phi3VModel builds the image embedding only when embd_layer is a table; with the class default ('default')
    the model is the Phi-3 decoder alone."""
    release = releases.load("phi-3-vision-128k")
    config = {k: v for k, v in release["config"].items() if k not in ("embd_layer", "img_processor")}
    layout = expected_layout(config)
    assert layout is not None
    assert not any(name.startswith("model.vision_embed_tokens.") for name in layout.tensors)
    c = release["config"]
    d, kv = c["hidden_size"], c["num_key_value_heads"] * c["hidden_size"] // c["num_attention_heads"]
    assert (
        layout.parameters
        == 2 * c["vocab_size"] * d
        + c["num_hidden_layers"] * ((d + 2 * kv) * d + d * d + 3 * d * c["intermediate_size"] + 2 * d)
        + d
    )
