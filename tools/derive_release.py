"""Derive a remote-code release fixture from a real release's config.json and model.safetensors.index.json.

DEV-ONLY TOOL (no torch needed). A remote-code model (``trust_remote_code``: InternVL, MiniCPM-V, DeepSeek-OCR-2
...) has no class in transformers to dump on the meta device, so the shape of each tensor its real index names
is written here BY HAND from the release's own modeling code (``SHAPES``: one table per family, each rule citing
the module that makes the tensor), evaluated with the release's config, and checked against the index: every
name must get exactly one shape and the bytes of all shapes must equal the index's ``metadata.total_size`` to the
byte (a rule may also give a tensor's own dtype and what it counts: a bitsandbytes NF4 weight packs two values a
byte, its absmax, quant_map and packed state count none; where the index says ``total_parameters``, as transformers
>= 4.53 writes it, the count must equal it too). The fixture written (``fixtures/releases/<slug>.json.gz``) holds
only derived facts: the config, the tensor
names in index order with their shard (the index's weight_map), shape and, where it is not the release's, dtype;
total_size; ``parameters`` (what the code's num_parameters() counts: the shapes less a stored tied copy or buffer
named with --not-parameters) and where they came from (mirror repository, commit, paths, modeling files). Never
st-audit's specs: they are what the fixture tests.

    python tools/derive_release.py SLUG --family minicpmv --config CONFIG --index INDEX --dtype BF16 \\
        --repo OWNER/NAME --commit SHA --paths config.json model.safetensors.index.json \\
        --hub openbmb/MiniCPM-V-2 --modeling modeling_minicpmv.py resampler.py

(the config and index read from a local snapshot of the mirror, e.g. ``git show COMMIT:config.json``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository root, for tests.support

from tests.support.build import nbytes  # noqa: E402

Shape = list[int]
Rule = tuple[str, Callable[[dict[str, Any], re.Match[str]], Shape]]


def _minicpmv(c: dict[str, Any]) -> list[Rule]:
    """openbmb/MiniCPM-V(-2) modeling_minicpmv.py + resampler.py + modeling_minicpm.py; the timm tower
    vit_so400m_patch14_siglip_384 (timm vision_transformer.py: embed_dim 1152, mlp 4304, patch 14, 27 x 27
    positions, no class token)."""
    d, ff, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    hd = d // c["num_attention_heads"]
    kv = c["num_key_value_heads"] * hd
    w, i, q = 1152, 4304, c["query_num"]
    return [
        (r"llm\.model\.embed_tokens\.weight", lambda c, m: [v, d]),
        (r"llm\.lm_head\.weight", lambda c, m: [v, d]),
        (r"llm\.model\.(norm|layers\.\d+\.(input_layernorm|post_attention_layernorm))\.weight", lambda c, m: [d]),
        (r"llm\.model\.layers\.\d+\.self_attn\.(q|o)_proj\.weight", lambda c, m: [d, d]),
        (r"llm\.model\.layers\.\d+\.self_attn\.(k|v)_proj\.weight", lambda c, m: [kv, d]),
        (r"llm\.model\.layers\.\d+\.mlp\.(gate|up)_proj\.weight", lambda c, m: [ff, d]),
        (r"llm\.model\.layers\.\d+\.mlp\.down_proj\.weight", lambda c, m: [d, ff]),
        (r"vpm\.patch_embed\.proj\.weight", lambda c, m: [w, 3, 14, 14]),
        (r"vpm\.pos_embed", lambda c, m: [1, 27 * 27, w]),
        (
            r"vpm\.(patch_embed\.proj\.bias|norm\.(weight|bias)|blocks\.\d+\.(norm1|norm2)\.(weight|bias)"
            r"|blocks\.\d+\.(attn\.proj|mlp\.fc2)\.bias)",
            lambda c, m: [w],
        ),
        (r"vpm\.blocks\.\d+\.attn\.qkv\.weight", lambda c, m: [3 * w, w]),
        (r"vpm\.blocks\.\d+\.attn\.qkv\.bias", lambda c, m: [3 * w]),
        (r"vpm\.blocks\.\d+\.attn\.proj\.weight", lambda c, m: [w, w]),
        (r"vpm\.blocks\.\d+\.mlp\.fc1\.weight", lambda c, m: [i, w]),
        (r"vpm\.blocks\.\d+\.mlp\.fc1\.bias", lambda c, m: [i]),
        (r"vpm\.blocks\.\d+\.mlp\.fc2\.weight", lambda c, m: [w, i]),
        (r"resampler\.(query|pos_embed)", lambda c, m: [q, d]),
        (r"resampler\.kv_proj\.weight", lambda c, m: [d, w]),
        (r"resampler\.attn\.in_proj_weight", lambda c, m: [3 * d, d]),
        (r"resampler\.attn\.in_proj_bias", lambda c, m: [3 * d]),
        (r"resampler\.(attn\.out_proj\.weight|proj)", lambda c, m: [d, d]),
        (r"resampler\.(attn\.out_proj\.bias|ln_(q|kv|post)\.(weight|bias))", lambda c, m: [d]),
    ]


def _deepseek_v2_and_sam(c: dict[str, Any], net_3: int, projector_in: int) -> list[Rule]:
    """What DeepSeek-OCR and DeepSeek-OCR-2 share. modeling_deepseekv2.py (DeepseekV2DecoderLayer with use_mla
    false: q/k/v/o Linear(hidden, heads * hidden // heads); DeepseekV2MoE from layer first_k_dense_replace: gate
    [E, hidden], experts of moe_intermediate_size, shared_experts of moe_intermediate_size * n_shared_experts; an
    untied lm_head), MlpProjector(linear, projector_in -> n_embed 1280), view_seperator [1280], and the SAM ViT-B
    of deepencoder(v2).py (ImageEncoderViT 768 wide, 12 blocks, windows of 14 except global_attn_indexes
    [2, 5, 8, 11], rel_pos [2 * size - 1, 64], neck 768 -> 256 -> 256, net_2 256 -> 512, net_3 512 -> net_3)."""
    d, ff, v, e = c["hidden_size"], c["intermediate_size"], c["vocab_size"], c["moe_intermediate_size"]
    hd = d // c["num_attention_heads"]
    h, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    se = e * c["n_shared_experts"]
    w = 768
    return [
        (r"(lm_head|model\.embed_tokens)\.weight", lambda c, m: [v, d]),
        (
            r"model\.(norm|layers\.\d+\.(input_layernorm|post_attention_layernorm))\.weight|model\.view_seperator",
            lambda c, m: [d],
        ),
        (r"model\.layers\.\d+\.self_attn\.q_proj\.weight", lambda c, m: [h, d]),
        (r"model\.layers\.\d+\.self_attn\.(k|v)_proj\.weight", lambda c, m: [kv, d]),
        (r"model\.layers\.\d+\.self_attn\.o_proj\.weight", lambda c, m: [d, h]),
        (r"model\.layers\.\d+\.mlp\.(gate|up)_proj\.weight", lambda c, m: [ff, d]),
        (r"model\.layers\.\d+\.mlp\.down_proj\.weight", lambda c, m: [d, ff]),
        (r"model\.layers\.\d+\.mlp\.gate\.weight", lambda c, m: [c["n_routed_experts"], d]),
        (r"model\.layers\.\d+\.mlp\.experts\.\d+\.(gate|up)_proj\.weight", lambda c, m: [e, d]),
        (r"model\.layers\.\d+\.mlp\.experts\.\d+\.down_proj\.weight", lambda c, m: [d, e]),
        (r"model\.layers\.\d+\.mlp\.shared_experts\.(gate|up)_proj\.weight", lambda c, m: [se, d]),
        (r"model\.layers\.\d+\.mlp\.shared_experts\.down_proj\.weight", lambda c, m: [d, se]),
        (r"model\.projector\.layers\.weight", lambda c, m: [d, projector_in]),
        (r"model\.projector\.layers\.bias", lambda c, m: [d]),
        (r"model\.sam_model\.patch_embed\.proj\.weight", lambda c, m: [w, 3, 16, 16]),
        (r"model\.sam_model\.pos_embed", lambda c, m: [1, 64, 64, w]),
        (
            r"model\.sam_model\.(patch_embed\.proj\.bias|blocks\.\d+\.(norm1|norm2)\.(weight|bias)"
            r"|blocks\.\d+\.(attn\.proj|mlp\.lin2)\.bias)",
            lambda c, m: [w],
        ),
        (r"model\.sam_model\.blocks\.\d+\.attn\.qkv\.weight", lambda c, m: [3 * w, w]),
        (r"model\.sam_model\.blocks\.\d+\.attn\.qkv\.bias", lambda c, m: [3 * w]),
        (r"model\.sam_model\.blocks\.\d+\.attn\.proj\.weight", lambda c, m: [w, w]),
        (
            r"model\.sam_model\.blocks\.(\d+)\.attn\.rel_pos_[hw]",
            lambda c, m: [2 * (64 if int(m.group(1)) in (2, 5, 8, 11) else 14) - 1, 64],
        ),
        (r"model\.sam_model\.blocks\.\d+\.mlp\.lin1\.weight", lambda c, m: [4 * w, w]),
        (r"model\.sam_model\.blocks\.\d+\.mlp\.lin1\.bias", lambda c, m: [4 * w]),
        (r"model\.sam_model\.blocks\.\d+\.mlp\.lin2\.weight", lambda c, m: [w, 4 * w]),
        (r"model\.sam_model\.neck\.0\.weight", lambda c, m: [256, w, 1, 1]),
        (r"model\.sam_model\.neck\.2\.weight", lambda c, m: [256, 256, 3, 3]),
        (r"model\.sam_model\.neck\.[13]\.(weight|bias)", lambda c, m: [256]),
        (r"model\.sam_model\.net_2\.weight", lambda c, m: [512, 256, 3, 3]),
        (r"model\.sam_model\.net_3\.weight", lambda c, m: [net_3, 512, 3, 3]),
    ]


def _deepseek_ocr2(c: dict[str, Any]) -> list[Rule]:
    """deepseek-ai/DeepSeek-OCR-2 modeling_deepseekocr2.py (DeepseekOCR2Model: sam_model = build_sam_vit_b(),
    qwen2_model = build_qwen2_decoder_as_encoder(), projector 896 -> 1280), deepencoderv2.py (net_3 512 -> 896;
    Qwen2Decoder2Encoder: Qwen2 896 wide, 24 layers, 14 heads, 2 KV heads, 4864 MLP, no embed_tokens, query_768
    Embedding(144, 896), query_1024 Embedding(256, 896)); the rest: _deepseek_v2_and_sam."""
    qd, qkv, qff = 896, 2 * 64, 4864
    enc = r"model\.qwen2_model\.model\.model\."
    return _deepseek_v2_and_sam(c, qd, qd) + [
        (r"model\.qwen2_model\.query_768\.weight", lambda c, m: [144, qd]),
        (r"model\.qwen2_model\.query_1024\.weight", lambda c, m: [256, qd]),
        (
            enc
            + r"(norm|layers\.\d+\.(input_layernorm|post_attention_layernorm))\.weight|"
            + enc
            + r"layers\.\d+\.self_attn\.q_proj\.bias",
            lambda c, m: [qd],
        ),
        (enc + r"layers\.\d+\.self_attn\.(q|o)_proj\.weight", lambda c, m: [qd, qd]),
        (enc + r"layers\.\d+\.self_attn\.(k|v)_proj\.weight", lambda c, m: [qkv, qd]),
        (enc + r"layers\.\d+\.self_attn\.(k|v)_proj\.bias", lambda c, m: [qkv]),
        (enc + r"layers\.\d+\.mlp\.(gate|up)_proj\.weight", lambda c, m: [qff, qd]),
        (enc + r"layers\.\d+\.mlp\.down_proj\.weight", lambda c, m: [qd, qff]),
    ]


def _deepseek_ocr(c: dict[str, Any]) -> list[Rule]:
    """deepseek-ai/DeepSeek-OCR modeling_deepseekocr.py (DeepseekOCRModel: sam_model = build_sam_vit_b(),
    vision_model = build_clip_l(), projector 2048 -> 1280, image_newline [1280]), deepencoder.py (net_3 512 -> 1024;
    CLIP-L: class_embedding [1024], patch_embedding Conv2d(3, 1024, 14, bias=False), position_embedding
    Embedding(257, 1024) with its position_ids buffer [1, 257], pre_layrnorm, 24 layers of layer_norm1 / 2,
    self_attn.qkv_proj Linear(1024, 3072), out_proj, mlp fc1 Linear(1024, 4096) / fc2, all biased); the rest:
    _deepseek_v2_and_sam."""
    w, i = 1024, 4096
    clip = r"model\.vision_model\."
    lay = clip + r"transformer\.layers\.\d+\."
    return _deepseek_v2_and_sam(c, 1024, 2 * w) + [
        (r"model\.image_newline", lambda c, m: [c["hidden_size"]]),
        (
            clip
            + r"embeddings\.class_embedding|"
            + clip
            + r"pre_layrnorm\.(weight|bias)|"
            + lay
            + r"(layer_norm[12]\.(weight|bias)|self_attn\.out_proj\.bias|mlp\.fc2\.bias)",
            lambda c, m: [w],
        ),
        (clip + r"embeddings\.patch_embedding\.weight", lambda c, m: [w, 3, 14, 14]),
        (clip + r"embeddings\.position_embedding\.weight", lambda c, m: [257, w]),
        (clip + r"embeddings\.position_ids", lambda c, m: [1, 257]),
        (lay + r"self_attn\.qkv_proj\.weight", lambda c, m: [3 * w, w]),
        (lay + r"self_attn\.qkv_proj\.bias", lambda c, m: [3 * w]),
        (lay + r"self_attn\.out_proj\.weight", lambda c, m: [w, w]),
        (lay + r"mlp\.fc1\.weight", lambda c, m: [i, w]),
        (lay + r"mlp\.fc1\.bias", lambda c, m: [i]),
        (lay + r"mlp\.fc2\.weight", lambda c, m: [w, i]),
    ]


def _locateanything(c: dict[str, Any]) -> list[Rule]:
    """LocateAnything modeling_locateanything.py (mlp1: LayerNorm(4 * vit), Linear(4 * vit, llm), GELU,
    Linear(llm, llm); language_model = Qwen2ForCausalLM(text_config)), modeling_qwen2.py (q/k/v biased, o not),
    modeling_vit.py (MoonVitPretrainedModel: patch_embed.proj Conv2d(3, hidden, 14, bias), patch_embed.pos_emb
    [init_pos_emb_height, init_pos_emb_width, hidden]; blocks: norm0 / norm1 LayerNorm, wqkv Linear(h, 3h), wo,
    mlp.fc0 Linear(h, intermediate), mlp.fc1; final_layernorm)."""
    t, vc = c["text_config"], c["vision_config"]
    d, ff, v = t["hidden_size"], t["intermediate_size"], t["vocab_size"]
    hd = d // t["num_attention_heads"]
    kv = t["num_key_value_heads"] * hd
    w, i, p = vc["hidden_size"], vc["intermediate_size"], vc["patch_size"]
    lm = r"language_model\.model\.layers\.\d+\."
    vb = r"vision_model\.encoder\.blocks\.\d+\."
    return [
        (r"language_model\.(model\.embed_tokens|lm_head)\.weight", lambda c, m: [v, d]),
        (
            r"language_model\.model\.norm\.weight|"
            + lm
            + r"(input_layernorm|post_attention_layernorm)\.weight|"
            + lm
            + r"self_attn\.q_proj\.bias",
            lambda c, m: [d],
        ),
        (lm + r"self_attn\.(q|o)_proj\.weight", lambda c, m: [d, d]),
        (lm + r"self_attn\.(k|v)_proj\.weight", lambda c, m: [kv, d]),
        (lm + r"self_attn\.(k|v)_proj\.bias", lambda c, m: [kv]),
        (lm + r"mlp\.(gate|up)_proj\.weight", lambda c, m: [ff, d]),
        (lm + r"mlp\.down_proj\.weight", lambda c, m: [d, ff]),
        (
            r"vision_model\.patch_embed\.pos_emb\.weight",
            lambda c, m: [vc["init_pos_emb_height"], vc["init_pos_emb_width"], w],
        ),
        (r"vision_model\.patch_embed\.proj\.weight", lambda c, m: [w, 3, p, p]),
        (
            r"vision_model\.(patch_embed\.proj\.bias|encoder\.final_layernorm\.(weight|bias))|"
            + vb
            + r"(norm0|norm1)\.(weight|bias)|"
            + vb
            + r"(wo|mlp\.fc1)\.bias",
            lambda c, m: [w],
        ),
        (vb + r"wqkv\.weight", lambda c, m: [3 * w, w]),
        (vb + r"wqkv\.bias", lambda c, m: [3 * w]),
        (vb + r"wo\.weight", lambda c, m: [w, w]),
        (vb + r"mlp\.fc0\.weight", lambda c, m: [i, w]),
        (vb + r"mlp\.fc0\.bias", lambda c, m: [i]),
        (vb + r"mlp\.fc1\.weight", lambda c, m: [w, i]),
        (r"mlp1\.0\.(weight|bias)", lambda c, m: [4 * w]),
        (r"mlp1\.1\.weight", lambda c, m: [d, 4 * w]),
        (r"mlp1\.3\.weight", lambda c, m: [d, d]),
        (r"mlp1\.[13]\.bias", lambda c, m: [d]),
    ]


def _xgenmm(c: dict[str, Any]) -> list[Rule]:
    """Salesforce xgen-mm modeling_xgenmm.py: lang_model = Phi3ForCausalLM(Phi3Config defaults: vocab 32064,
    hidden 3072, MLP 8192; qkv_proj [3 hidden, hidden], gate_up_proj [2 MLP, hidden]) with DecoupledEmbedding
    (additional_embedding [3, hidden]) and DecoupledLinear (weight, bias [vocab], additional_fc [3, hidden] + bias);
    vision_encoder = google/siglip-so400m-patch14-384's SiglipVisionTransformer (1152 wide, MLP 4304, 27 x 27
    positions, pooling head: probe [1, 1, 1152], nn.MultiheadAttention, LayerNorm, MLP); vision_tokenizer =
    PerceiverResampler(1152 -> 3072, 128 latents, depth 6, 16 heads of 96, feed-forward x4, bias-free)."""
    t = c["text_config"]
    v, d, ff = t.get("vocab_size", 32064), t.get("hidden_size", 3072), t.get("intermediate_size", 8192)
    w, i, inner = 1152, 4304, 96 * 16
    lm, ve, vt = r"vlm\.lang_model\.", r"vlm\.vision_encoder\.", r"vlm\.vision_tokenizer\."
    layer = lm + r"model\.layers\.\d+\."
    enc = ve + r"encoder\.layers\.\d+\."
    return [
        (lm + r"(model\.embed_tokens|lm_head)\.weight", lambda c, m: [v, d]),
        (lm + r"lm_head\.bias", lambda c, m: [v]),
        (lm + r"(model\.embed_tokens\.additional_embedding|lm_head\.additional_fc)\.weight", lambda c, m: [3, d]),
        (lm + r"lm_head\.additional_fc\.bias", lambda c, m: [3]),
        (
            lm + r"model\.norm\.weight|" + layer + r"(input_layernorm|post_attention_layernorm)\.weight",
            lambda c, m: [d],
        ),
        (layer + r"self_attn\.qkv_proj\.weight", lambda c, m: [3 * d, d]),
        (layer + r"self_attn\.o_proj\.weight", lambda c, m: [d, d]),
        (layer + r"mlp\.gate_up_proj\.weight", lambda c, m: [2 * ff, d]),
        (layer + r"mlp\.down_proj\.weight", lambda c, m: [d, ff]),
        (ve + r"embeddings\.patch_embedding\.weight", lambda c, m: [w, 3, 14, 14]),
        (ve + r"embeddings\.position_embedding\.weight", lambda c, m: [27 * 27, w]),
        (
            ve + r"(embeddings\.patch_embedding\.bias|post_layernorm\.(weight|bias)|head\.layernorm\.(weight|bias)"
            r"|head\.attention\.out_proj\.bias|head\.mlp\.fc2\.bias)|"
            + enc
            + r"(layer_norm[12]\.(weight|bias)|self_attn\.(q|k|v|out)_proj\.bias|mlp\.fc2\.bias)",
            lambda c, m: [w],
        ),
        (
            enc + r"self_attn\.(q|k|v|out)_proj\.weight|" + ve + r"head\.attention\.out_proj\.weight",
            lambda c, m: [w, w],
        ),
        (enc + r"mlp\.fc1\.weight|" + ve + r"head\.mlp\.fc1\.weight", lambda c, m: [i, w]),
        (enc + r"mlp\.fc1\.bias|" + ve + r"head\.mlp\.fc1\.bias", lambda c, m: [i]),
        (enc + r"mlp\.fc2\.weight|" + ve + r"head\.mlp\.fc2\.weight", lambda c, m: [w, i]),
        (ve + r"head\.probe", lambda c, m: [1, 1, w]),
        (ve + r"head\.attention\.in_proj_weight", lambda c, m: [3 * w, w]),
        (ve + r"head\.attention\.in_proj_bias", lambda c, m: [3 * w]),
        (vt + r"latents", lambda c, m: [128, w]),
        (vt + r"(norm|layers\.\d+\.0\.norm_(media|latents)|layers\.\d+\.1\.0)\.(weight|bias)", lambda c, m: [w]),
        (vt + r"layers\.\d+\.0\.to_q\.weight", lambda c, m: [inner, w]),
        (vt + r"layers\.\d+\.0\.to_kv\.weight", lambda c, m: [2 * inner, w]),
        (vt + r"layers\.\d+\.0\.to_out\.weight", lambda c, m: [w, inner]),
        (vt + r"layers\.\d+\.1\.1\.weight", lambda c, m: [4 * w, w]),
        (vt + r"layers\.\d+\.1\.3\.weight", lambda c, m: [w, 4 * w]),
        (vt + r"projection\.weight", lambda c, m: [d, w]),
        (vt + r"projection\.bias", lambda c, m: [d]),
    ]


def _logics(c: dict[str, Any]) -> list[Rule]:
    """alibaba/Logics-Thinking model/modeling_logics.py (Qwen3ForCausalLM on the top-level keys: q/k norms of
    head_dim; mm_projector mlp2x_gelu: Linear(mm_hidden_size, hidden), Linear(hidden, hidden); image_newline
    [hidden]), convnext_encoder.py (ConvNeXt xxlarge: stem Conv2d(3, 384, 4) + LayerNorm2d, stages of
    [3, 4, 30, 3] blocks at [384, 768, 1536, 3072] with LayerNorm + Conv2d(in, out, 2) downsamples from stage 1,
    blocks: conv_dw [c, 1, 7, 7], norm, mlp fc1 [4c, c] / fc2, layer scale `weight` [c]; head: norm [3072], fc
    Linear(3072, 1024)), siglip_encoder.py (SigLipVisionModel(siglip_config) less one layer: 27 x 27 positions)."""
    d, ff, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    hd = c["head_dim"]
    h, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    sc = c["siglip_config"]
    w, i, p = sc["hidden_size"], sc["intermediate_size"], sc["patch_size"]
    dims = [384, 768, 1536, 3072]
    lay = r"model\.layers\.\d+\."
    cn = r"model\.vision_tower\.vision_towers\.0\.vision_tower\."
    sg = r"model\.vision_tower\.vision_towers\.1\.vision_tower\.vision_model\."
    enc = sg + r"encoder\.layers\.\d+\."
    blk = cn + r"stages\.(\d)\.blocks\.\d+\."
    return [
        (r"(lm_head|model\.embed_tokens)\.weight", lambda c, m: [v, d]),
        (
            r"model\.norm\.weight|model\.image_newline|" + lay + r"(input_layernorm|post_attention_layernorm)\.weight"
            r"|model\.mm_projector\.[02]\.bias",
            lambda c, m: [d],
        ),
        (lay + r"self_attn\.(q|k)_norm\.weight", lambda c, m: [hd]),
        (lay + r"self_attn\.q_proj\.weight", lambda c, m: [h, d]),
        (lay + r"self_attn\.(k|v)_proj\.weight", lambda c, m: [kv, d]),
        (lay + r"self_attn\.o_proj\.weight", lambda c, m: [d, h]),
        (lay + r"mlp\.(gate|up)_proj\.weight", lambda c, m: [ff, d]),
        (lay + r"mlp\.down_proj\.weight", lambda c, m: [d, ff]),
        (r"model\.mm_projector\.0\.weight", lambda c, m: [d, c["mm_hidden_size"]]),
        (r"model\.mm_projector\.2\.weight", lambda c, m: [d, d]),
        (cn + r"stem\.0\.weight", lambda c, m: [384, 3, 4, 4]),
        (cn + r"stem\.(0\.bias|1\.(weight|bias))", lambda c, m: [384]),
        (cn + r"stages\.(\d)\.downsample\.0\.(weight|bias)", lambda c, m: [dims[int(m.group(1)) - 1]]),
        (
            cn + r"stages\.(\d)\.downsample\.1\.weight",
            lambda c, m: [dims[int(m.group(1))], dims[int(m.group(1)) - 1], 2, 2],
        ),
        (cn + r"stages\.(\d)\.downsample\.1\.bias", lambda c, m: [dims[int(m.group(1))]]),
        (blk + r"conv_dw\.weight", lambda c, m: [dims[int(m.group(1))], 1, 7, 7]),
        (blk + r"(conv_dw\.bias|norm\.(weight|bias)|mlp\.fc2\.bias|weight)", lambda c, m: [dims[int(m.group(1))]]),
        (blk + r"mlp\.fc1\.weight", lambda c, m: [4 * dims[int(m.group(1))], dims[int(m.group(1))]]),
        (blk + r"mlp\.fc1\.bias", lambda c, m: [4 * dims[int(m.group(1))]]),
        (blk + r"mlp\.fc2\.weight", lambda c, m: [dims[int(m.group(1))], 4 * dims[int(m.group(1))]]),
        (cn + r"head\.norm\.(weight|bias)", lambda c, m: [3072]),
        (cn + r"head\.fc\.weight", lambda c, m: [1024, 3072]),
        (cn + r"head\.fc\.bias", lambda c, m: [1024]),
        (sg + r"embeddings\.patch_embedding\.weight", lambda c, m: [w, 3, p, p]),
        (sg + r"embeddings\.position_embedding\.weight", lambda c, m: [(sc["image_size"] // p) ** 2, w]),
        (
            sg
            + r"(embeddings\.patch_embedding\.bias|post_layernorm\.(weight|bias))|"
            + enc
            + r"(layer_norm[12]\.(weight|bias)|self_attn\.(q|k|v|out)_proj\.bias|mlp\.fc2\.bias)",
            lambda c, m: [w],
        ),
        (enc + r"self_attn\.(q|k|v|out)_proj\.weight", lambda c, m: [w, w]),
        (enc + r"mlp\.fc1\.weight", lambda c, m: [i, w]),
        (enc + r"mlp\.fc1\.bias", lambda c, m: [i]),
        (enc + r"mlp\.fc2\.weight", lambda c, m: [w, i]),
    ]


def _stablelm_epoch(c: dict[str, Any]) -> list[Rule]:
    """stabilityai/stable-code-3b modeling_stablelm_epoch.py (DecoderLayer: self_attn q/k/v_proj Linear(hidden,
    heads * head_dim / kv_heads * head_dim, bias=use_qkv_bias), o_proj bias-free; MLP gate/up/down bias-free;
    input_layernorm / post_attention_layernorm nn.LayerNorm (weight and bias); StableLMEpochModel embed_tokens,
    norm LayerNorm; lm_head bias-free, untied; rotary inv_freq a non-persistent buffer)."""
    d, ff, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    hd = d // c["num_attention_heads"]
    kv = c["num_key_value_heads"] * hd
    lay = r"model\.layers\.\d+\."
    return [
        (r"(lm_head|model\.embed_tokens)\.weight", lambda c, m: [v, d]),
        (
            r"model\.norm\.(weight|bias)|" + lay + r"(input_layernorm|post_attention_layernorm)\.(weight|bias)",
            lambda c, m: [d],
        ),
        (lay + r"self_attn\.(q|o)_proj\.weight", lambda c, m: [d, d]),
        (lay + r"self_attn\.(k|v)_proj\.weight", lambda c, m: [kv, d]),
        (lay + r"mlp\.(gate|up)_proj\.weight", lambda c, m: [ff, d]),
        (lay + r"mlp\.down_proj\.weight", lambda c, m: [d, ff]),
    ]


def _bnb4(rows: int, cols: int, dtype: str) -> Callable[[str], Any]:
    """The four tensors bitsandbytes 4-bit (nf4, block 64, no double quantization, uint8 storage) writes for one
    Linear weight [rows, cols] (bitsandbytes nn/modules.py Params4bit, functional.py QuantState.as_dict(packed=True)):
    the weight packed two codes a byte as [n / 2, 1] U8, absmax [n / 64] F32, quant_map [16] F32, and the non-tensor
    state as UTF-8 JSON bytes (json.dumps of quant_type, blocksize, dtype, shape). Each is (shape, dtype, the
    parameters it stands for): the packed weight counts the rows * cols values it encodes."""
    n = rows * cols
    state = json.dumps({"quant_type": "nf4", "blocksize": 64, "dtype": dtype, "shape": [rows, cols]})
    parts = {
        "": ([n // 2, 1], "U8", n),
        ".absmax": ([n // 64], "F32", 0),
        ".quant_map": ([16], "F32", 0),
        ".quant_state.bitsandbytes__nf4": ([len(state.encode())], "U8", 0),
    }
    return lambda suffix: parts[suffix]


def _molmo(c: dict[str, Any]) -> list[Rule]:
    """allenai/Molmo-7B-D-0924 modeling_molmo.py (MolmoForCausalLM's FullMolmoConfig: include_bias False,
    weight_tying False, additional_vocab_size 128, swiglu, vit_layers [-2, -9], VisionBackboneConfig(1024 wide,
    16 heads of 64, 23 layers, MLP 4096, patch 14, 577 positions); Molmo: wte.embedding [embedding_size, d],
    wte.new_embedding [128, d], blocks' att_proj [d + 2 kv head_dim, d] (+ bias with qkv_bias), attn_out [d, d],
    ff_proj [mlp, d], ff_out [d, mlp / 2], attn_norm / ff_norm RMS weights, ln_f, ff_out [embedding_size, d];
    vision_backbone: image_vit (class_embedding, positional_embedding, patch_embedding Linear(588, 1024, no bias),
    pre_ln, resblocks: attention wq/wk/wv/wo biased, feed_forward w1/w2 biased, attention_norm / ffn_norm),
    image_pooling_2d wq/wk/wv [1024, 2048] / wo [1024, 1024] biased, image_projector w1 / w3 [mlp / 2, 1024], w2
    [d, mlp / 2], pad_embed [2, 2048]). Quantized with bitsandbytes nf4 where quantization_config says: every
    nn.Linear outside llm_int8_skip_modules (the blocks' four projections), the rest in the config's dtype."""
    d, ff, n = c["hidden_size"], c["intermediate_size"], c["embedding_size"] or c["vocab_size"]
    hd = d // c["num_attention_heads"]
    kv = c["num_key_value_heads"] * hd
    w, i = 1024, 4096
    q = c.get("quantization_config") or {}
    blk = r"model\.transformer\.blocks\.\d+\."
    vit = r"model\.vision_backbone\.image_vit\."
    res = vit + r"transformer\.resblocks\.\d+\."
    linears = {"att_proj": (d + 2 * kv, d), "attn_out": (d, d), "ff_proj": (ff, d), "ff_out": (d, ff // 2)}
    rules: list[Rule] = []
    for proj, (rows, cols) in linears.items():
        if q.get("load_in_4bit"):
            assert q["bnb_4bit_quant_type"] == "nf4" and not q["bnb_4bit_use_double_quant"]
            assert q["bnb_4bit_quant_storage"] == "uint8"
            part = _bnb4(rows, cols, c["torch_dtype"])
            rules.append(
                (
                    blk + proj + r"\.weight(?P<suffix>|\.absmax|\.quant_map|\.quant_state\.bitsandbytes__nf4)",
                    lambda c, m, part=part: part(m.group("suffix")),  # type: ignore[misc]
                )
            )
        else:
            # mypy cannot type a lambda that captures by default argument (here and above)
            rules.append((blk + proj + r"\.weight", lambda c, m, s=[rows, cols]: s))  # type: ignore[misc]
    return rules + [
        (blk + r"att_proj\.bias", lambda c, m: [d + 2 * kv]),
        (blk + r"(attn|ff)_norm\.weight|model\.transformer\.ln_f\.weight", lambda c, m: [d]),
        (r"model\.transformer\.(wte\.embedding|ff_out\.weight)", lambda c, m: [n, d]),
        (r"model\.transformer\.wte\.new_embedding", lambda c, m: [128, d]),
        (
            vit + r"(class_embedding|pre_ln\.(weight|bias))|" + res + r"(attention\.w[qkvo]\.bias|"
            r"(attention|ffn)_norm\.(weight|bias)|feed_forward\.w2\.bias)"
            r"|model\.vision_backbone\.image_pooling_2d\.w[qkvo]\.bias",
            lambda c, m: [w],
        ),
        (vit + r"positional_embedding", lambda c, m: [577, w]),
        (vit + r"patch_embedding\.weight", lambda c, m: [w, 14 * 14 * 3]),
        (res + r"attention\.w[qkvo]\.weight|model\.vision_backbone\.image_pooling_2d\.wo\.weight", lambda c, m: [w, w]),
        (res + r"feed_forward\.w1\.weight", lambda c, m: [i, w]),
        (res + r"feed_forward\.w1\.bias", lambda c, m: [i]),
        (res + r"feed_forward\.w2\.weight", lambda c, m: [w, i]),
        (r"model\.vision_backbone\.image_pooling_2d\.w[qkv]\.weight", lambda c, m: [w, 2 * w]),
        (r"model\.vision_backbone\.image_projector\.w[13]\.weight", lambda c, m: [ff // 2, w]),
        (r"model\.vision_backbone\.image_projector\.w2\.weight", lambda c, m: [d, ff // 2]),
        (r"model\.vision_backbone\.pad_embed", lambda c, m: [2, 2 * w]),
    ]


def _baichuan(c: dict[str, Any]) -> list[Rule]:
    """baichuan-inc/Baichuan2-13B-Chat modeling_baichuan.py (BaichuanAttention: W_pack Linear(hidden, 3 hidden,
    bias=False), o_proj; MLP gate/up/down bias-free; RMSNorm weights; embed_tokens; lm_head NormHead [vocab, hidden])."""
    d, ff, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    lay = r"model\.layers\.\d+\."
    return [
        (r"(lm_head|model\.embed_tokens)\.weight", lambda c, m: [v, d]),
        (r"model\.norm\.weight|" + lay + r"(input_layernorm|post_attention_layernorm)\.weight", lambda c, m: [d]),
        (lay + r"self_attn\.W_pack\.weight", lambda c, m: [3 * d, d]),
        (lay + r"self_attn\.o_proj\.weight", lambda c, m: [d, d]),
        (lay + r"mlp\.(gate|up)_proj\.weight", lambda c, m: [ff, d]),
        (lay + r"mlp\.down_proj\.weight", lambda c, m: [d, ff]),
    ]


def _internlm(c: dict[str, Any]) -> list[Rule]:
    """internlm/internlm-20b modeling_internlm.py (InternLMAttention: q/k/v/o_proj Linear(hidden, heads * head_dim,
    bias=config.bias), every head full width; MLP gate/up/down bias-free; RMSNorm weights; untied lm_head)."""
    d, ff, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    lay = r"model\.layers\.\d+\."
    return [
        (r"(lm_head|model\.embed_tokens)\.weight", lambda c, m: [v, d]),
        (
            r"model\.norm\.weight|"
            + lay
            + r"(input_layernorm|post_attention_layernorm)\.weight|"
            + lay
            + r"self_attn\.(q|k|v|o)_proj\.bias",
            lambda c, m: [d],
        ),
        (lay + r"self_attn\.(q|k|v|o)_proj\.weight", lambda c, m: [d, d]),
        (lay + r"mlp\.(gate|up)_proj\.weight", lambda c, m: [ff, d]),
        (lay + r"mlp\.down_proj\.weight", lambda c, m: [d, ff]),
    ]


def _phi3_v(c: dict[str, Any]) -> list[Rule]:
    """microsoft/Phi-3-vision-128k-instruct modeling_phi3_v.py (Phi3 decoder: qkv_proj [(heads + 2 kv) head_dim,
    hidden], o_proj, gate_up_proj [2 MLP, hidden], down_proj, RMSNorm weights; untied lm_head),
    image_embedding_phi3_v.py (img_processor = CLIPVisionModel(CLIP ViT-L/14-336: 1024 wide, 24 layers, MLP 4096,
    577 positions, bias-free patch conv, class embedding, pre_layrnorm, post_layernorm); glb_GN [1, 1, 4096],
    sub_GN [1, 1, 1, 4096]; img_projection mlp with the HD transform: Linear(4096, hidden), GELU, Linear(hidden,
    hidden)). The tied wte inside the image embedding is the decoder's embedding, saved once."""
    d, ff, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    hd = d // c["num_attention_heads"]
    kv = c["num_key_value_heads"] * hd
    w, i, g = 1024, 4096, 4 * c["img_processor"]["image_dim_out"]
    lay = r"model\.layers\.\d+\."
    clip = r"model\.vision_embed_tokens\.img_processor\.vision_model\."
    enc = clip + r"encoder\.layers\.\d+\."
    return [
        (r"(lm_head|model\.embed_tokens)\.weight", lambda c, m: [v, d]),
        (
            r"model\.norm\.weight|" + lay + r"(input_layernorm|post_attention_layernorm)\.weight"
            r"|model\.vision_embed_tokens\.img_projection\.[02]\.bias",
            lambda c, m: [d],
        ),
        (lay + r"self_attn\.qkv_proj\.weight", lambda c, m: [d + 2 * kv, d]),
        (lay + r"self_attn\.o_proj\.weight", lambda c, m: [d, d]),
        (lay + r"mlp\.gate_up_proj\.weight", lambda c, m: [2 * ff, d]),
        (lay + r"mlp\.down_proj\.weight", lambda c, m: [d, ff]),
        (r"model\.vision_embed_tokens\.glb_GN", lambda c, m: [1, 1, g]),
        (r"model\.vision_embed_tokens\.sub_GN", lambda c, m: [1, 1, 1, g]),
        (r"model\.vision_embed_tokens\.img_projection\.0\.weight", lambda c, m: [d, g]),
        (r"model\.vision_embed_tokens\.img_projection\.2\.weight", lambda c, m: [d, d]),
        (
            clip
            + r"embeddings\.class_embedding|"
            + clip
            + r"(pre_layrnorm|post_layernorm)\.(weight|bias)|"
            + enc
            + r"(layer_norm[12]\.(weight|bias)|self_attn\.(q|k|v|out)_proj\.bias|mlp\.fc2\.bias)",
            lambda c, m: [w],
        ),
        (clip + r"embeddings\.patch_embedding\.weight", lambda c, m: [w, 3, 14, 14]),
        (clip + r"embeddings\.position_embedding\.weight", lambda c, m: [577, w]),
        (enc + r"self_attn\.(q|k|v|out)_proj\.weight", lambda c, m: [w, w]),
        (enc + r"mlp\.fc1\.weight", lambda c, m: [i, w]),
        (enc + r"mlp\.fc1\.bias", lambda c, m: [i]),
        (enc + r"mlp\.fc2\.weight", lambda c, m: [w, i]),
    ]


SHAPES: dict[str, Callable[[dict[str, Any]], list[Rule]]] = {
    "internvl_chat": lambda c: [],
    "xgenmm": _xgenmm,
    "logics": _logics,
    "deepseek_ocr": _deepseek_ocr,
    "minicpmv": _minicpmv,
    "deepseek_ocr2": _deepseek_ocr2,
    "locateanything": _locateanything,
    "stablelm_epoch": _stablelm_epoch,
    "molmo": _molmo,
    "baichuan": _baichuan,
    "internlm": _internlm,
    "phi3_v": _phi3_v,
    "deepseek": lambda c: [],
}  # DeepSeek-MoE: no public index, its modeling code on the meta device (--meta)


def shapes(family: str, config: dict[str, Any], names: Sequence[str]) -> list[Any]:
    """Each name's shape by the family's rules: exactly one rule must match it. A rule gives a shape, or (shape,
    dtype, parameters) for a tensor stored otherwise than the release's dtype and counting otherwise than its
    elements (a quantized weight packs the values it stands for; its scales and state count none)."""
    rules = [(re.compile(p), f) for p, f in SHAPES[family](config)]
    out = []
    for name in names:
        hits = [(m, f) for p, f in rules if (m := p.fullmatch(name))]
        if len(hits) != 1:
            raise SystemExit(f"{name}: {len(hits)} rules match")
        out.append(hits[0][1](config, hits[0][0]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("slug")
    ap.add_argument("--family", required=True, choices=sorted(SHAPES))
    ap.add_argument("--config", required=True, type=Path)
    ap.add_argument("--index", type=Path, help="the release's model.safetensors.index.json")
    ap.add_argument(
        "--meta",
        type=Path,
        help="instead of an index, where no public one was found: the state_dict tools/dump_meta_state.py "
        "dumped from the release's modeling code (names, shapes, num_parameters); one shard",
    )
    ap.add_argument("--dtype", required=True)
    ap.add_argument("--repo", required=True, help="the public mirror the files were read from (owner/name)")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--paths", nargs="+", required=True, help="the files' paths in the mirror")
    ap.add_argument("--hub", required=True, help="the Hub release the mirror copies")
    ap.add_argument("--modeling", nargs="+", required=True, help="the modeling files the shapes were read from")
    ap.add_argument(
        "--dtype-of",
        nargs="*",
        default=[],
        metavar="NAME=DTYPE",
        help="a tensor stored in another dtype than --dtype (a persistent int64 buffer beside float weights)",
    )
    ap.add_argument(
        "--not-parameters",
        nargs="*",
        default=[],
        metavar="NAME",
        help="stored tensors num_parameters() does not count: a tied head's stored copy, a persistent "
        "buffer (the fixture's `parameters` is the code's count, the rest of the shapes)",
    )
    ap.add_argument(
        "--unexplained-bytes",
        type=int,
        default=0,
        help="bytes of the index's total_size the derived shapes do not hold (an index without per-tensor "
        "dtypes: some tensors stored wider than the dtype); recorded, never silently accepted",
    )
    ap.add_argument("--note", default="", help="why, for --unexplained-bytes; with --meta, where the config came from")
    args = ap.parse_args()
    if (args.index is None) == (args.meta is None):
        raise SystemExit("give --index (the release's) or --meta (no public index: the code's state_dict)")
    config = json.loads(args.config.read_text())
    if args.meta is not None:  # the code's own state_dict, saved as one file: its bytes are the total
        dump = json.loads(args.meta.read_text())
        if dump["shared"]:
            raise SystemExit(f"tied tensors in the dump ({dump['shared'][:3]}): not handled")
        weight_map = {n: "model.safetensors" for n, _ in dump["tensors"]}
        found_meta = {n: s for n, s in dump["tensors"]}
        total = sum(nbytes(args.dtype, s) for s in found_meta.values())
        index: dict[str, Any] = {"metadata": {"total_size": total}, "weight_map": weight_map}
    else:
        index = json.loads(args.index.read_text())
    names = list(index["weight_map"])
    found = [found_meta[n] for n in names] if args.meta is not None else shapes(args.family, config, names)
    dtypes = dict(item.split("=", 1) for item in args.dtype_of)
    counted = {}  # what a quantized tensor counts (tools' rules give (shape, dtype, parameters) for those)
    for i, (n, got) in enumerate(zip(names, found)):
        if isinstance(got, tuple):
            found[i], dtypes[n], counted[n] = got
    unknown = (set(dtypes) | set(args.not_parameters)) - set(names)
    if unknown:
        raise SystemExit(f"--dtype-of / --not-parameters name tensors the index does not: {sorted(unknown)}")
    total = sum(nbytes(dtypes.get(n, args.dtype), s) for n, s in zip(names, found))
    if total + args.unexplained_bytes != index["metadata"]["total_size"]:
        raise SystemExit(f"the derived shapes hold {total:,} bytes, the index says {index['metadata']['total_size']:,}")
    if args.unexplained_bytes and not args.note:
        raise SystemExit("--unexplained-bytes needs a --note saying why")
    parameters = sum(counted.get(n, math.prod(s)) for n, s in zip(names, found) if n not in set(args.not_parameters))
    # transformers >= 4.53 writes num_parameters() into the index (a quantized weight counts the values it packs)
    index_parameters = index["metadata"].get("total_parameters")
    if index_parameters is not None and index_parameters != parameters:
        raise SystemExit(
            f"the index's total_parameters is {index_parameters:,}, the derived shapes count {parameters:,}"
        )
    if args.meta is not None and parameters != dump["parameters"]:
        raise SystemExit(f"the dump's num_parameters() is {dump['parameters']:,}, its tensors hold {parameters:,}")
    # total_size: the bytes of the shapes (what a header-only rebuild writes); the index's own where it differs
    doc = {
        "family": args.family,
        "hub": args.hub,
        "provenance": {"repo": args.repo, "commit": args.commit, "paths": args.paths, "modeling": args.modeling},
        "dtype": args.dtype,
        "total_size": total,
        "parameters": parameters,
        **({"index_total_parameters": index_parameters} if index_parameters is not None else {}),
        **({"index_total_size": index["metadata"]["total_size"], "note": args.note} if args.unexplained_bytes else {}),
        **(
            {
                "note": "no public index of this release was found: the tensors are its modeling code's state_dict "
                "on the meta device (tools/dump_meta_state.py), written as one file"
                + (f"; {args.note}" if args.note else "")
            }
            if args.meta is not None
            else {}
        ),
        "config": config,
        "tensors": [
            [n, index["weight_map"][n], s, *([dtypes[n]] if n in dtypes else [])] for n, s in zip(names, found)
        ],
    }
    out = ROOT / "fixtures" / "releases" / f"{args.slug}.json.gz"
    out.write_bytes(gzip.compress(json.dumps(doc, separators=(",", ":")).encode(), mtime=0))
    where = "the code's state_dict, no index" if args.meta is not None else "the index's total_size"
    print(
        f"{out.relative_to(ROOT)}: {len(names)} tensors, {total:,} bytes (+ {args.unexplained_bytes:,} unexplained) = "
        f"{where}, {parameters:,} parameters"
    )


if __name__ == "__main__":
    main()
