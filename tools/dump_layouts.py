"""Dump ground-truth tensor layouts from transformers' own modeling code.

DEV-ONLY TOOL.  torch and transformers are NOT runtime or test dependencies of
st-audit; this script is run by hand in a separate virtualenv and its output
(``fixtures/layouts/*.json.gz`` plus ``fixtures/configs/*.json``) is committed,
so the test-suite never derives its fixtures from st-audit's own code.

Usage (transformers 4.x venv, regenerates everything except the ``-tf5`` files)::

    python3 -m venv $DEVENV
    $DEVENV/bin/pip install torch==2.13.0 "transformers==4.57.6"
    $DEVENV/bin/python tools/dump_layouts.py

Usage (transformers 5.x venv, regenerates only the ``*-tf5`` files)::

    python3 -m venv $DEVENV5
    $DEVENV5/bin/pip install torch==2.13.0 "transformers==5.23.0"
    $DEVENV5/bin/python tools/dump_layouts.py

Options: ``--only SUBSTR`` (dump only layouts whose name contains SUBSTR),
``--no-verify`` (skip the real save_pretrained cross-check of tiny configs),
``--ref DIR`` (reference folder holding ``configs/`` and ``published-counts.json``;
default ``$ST_AUDIT_REF`` or ``../shared/reference``).

What a layout is: the model class that real checkpoints are saved from
(``AutoModelForCausalLM.from_config``; for Llama-4 the text model built from
``text_config``) is instantiated on the ``meta`` device with the config's dtype
as default dtype; its ``state_dict(keep_vars=True)`` gives names / shapes /
dtypes in module order (persistent buffers included, non-persistent excluded).
Tensors that are the *same Parameter object* under several names (tied
weights) are de-duplicated exactly as ``save_pretrained(safe_serialization=True)``
does it (names matching ``_tied_weights_keys`` are dropped, the other kept);
the dropped names are listed in ``tied_dropped``.  For tiny configs the script
additionally builds the model for real on CPU, calls ``save_pretrained`` into a
temp dir and checks the saved safetensors keys/shapes equal the meta layout.
"""

from __future__ import annotations

import argparse
import collections
import copy
import gzip
import json
import math
import os
import re
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

import torch
import transformers
from transformers import CONFIG_MAPPING, AutoModelForCausalLM

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()

REPO = Path(__file__).resolve().parents[1]
OUT_LAYOUTS = REPO / "fixtures" / "layouts"
OUT_CONFIGS = REPO / "fixtures" / "configs"
TF_VERSION = transformers.__version__
TF_MAJOR = int(TF_VERSION.split(".")[0])
TORCH_VERSION = torch.__version__.split("+")[0]

ST_DTYPE = {
    torch.float32: "F32",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.float64: "F64",
    torch.int64: "I64",
    torch.int32: "I32",
    torch.int16: "I16",
    torch.int8: "I8",
    torch.uint8: "U8",
    torch.bool: "BOOL",
}
CFG_DTYPE = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}

# --------------------------------------------------------------------------------------
# Per-layout notes: what the real published repo stores beyond / instead of what
# transformers' save_pretrained would write (taken from published-counts.json; no tensor
# is invented here, these are only recorded as text).
# --------------------------------------------------------------------------------------
REAL_NOTES = {
    "EleutherAI__pythia-160m": "Real Hub checkpoints of pythia may also store non-parameter buffers "
    "(gpt_neox.layers.N.attention.bias causal mask, masked_bias, rotary inv_freq) in some revisions "
    "(per published-counts.json, not verified); this transformers version registers no such persistent buffers.",
    "Qwen__Qwen3-0.6B": "Real repo materialises lm_head.weight [151936,1024] despite tie_word_embeddings=true: "
    "Hub total 751,632,384 = unique 596,049,920 + 151936*1024. This layout (what save_pretrained writes) omits it.",
    "Qwen__Qwen3-1.7B": "Real repo materialises lm_head.weight [151936,2048] despite tie_word_embeddings=true: "
    "Hub total 2,031,739,904 = unique 1,720,574,976 + 151936*2048. This layout omits it.",
    "Qwen__Qwen3-4B": "Unlike 0.6B/1.7B the real Qwen3-4B repo does NOT store lm_head (Hub total = unique tied count).",
    "meta-llama__Llama-2-7b-hf": "Real repo additionally stores 32 model.layers.N.self_attn.rotary_emb.inv_freq "
    "buffers of shape [64], F32 (2,048 elements; Hub total 6,738,417,664 = 6,738,415,616 params + 2,048). "
    "In this transformers version inv_freq is a non-persistent buffer of model.rotary_emb, so it is not in the state_dict. "
    "Real weights are F16 (config torch_dtype float16).",
    "openai-community__gpt2": "Real model.safetensors uses names WITHOUT the 'transformer.' prefix (wte.weight, h.0.attn.c_attn.weight, ...) "
    "and additionally stores 12 h.N.attn.bias causal-mask buffers [1,1,1024,1024] (12,582,912 elements; Hub total 137,022,720). "
    "Real file is F32 (config has no torch_dtype; this layout uses the BF16 default of the dump rules). ",
    "tiiuae__falcon-7b": "Real repo stores lm_head.weight [65024,4544] separately although tied to word_embeddings: "
    "Hub total 7,217,189,760 = unique 6,921,720,704 + 295,469,056. The reference config is the legacy "
    "RWForCausalLM/RefinedWebModel one; it was loaded as model_type 'falcon' (FalconConfig maps n_head/n_layer).",
    "deepseek-ai__DeepSeek-V3": "Real repo is FP8 (quantization_config fp8, block 128x128): linear weights stored F8_E4M3 each with an "
    "F32 <name>_scale_inv [ceil(out/128), ceil(in/128)] tensor (41,540,496 scale elements), and it also stores the MTP "
    "module as model.layers.61 (embed_tokens, enorm, hnorm, eh_proj [7168,14336], shared_head.norm, shared_head.head "
    "[129280,7168] + a full MoE decoder layer), 13,463,426,304 elements. e_score_correction_bias is F32 on the Hub. "
    "Hub total 684,531,386,000 = this layout's 671,026,419,200 + MTP 13,463,426,304 + 41,540,496 scale_inv. "
    "This layout is the unquantized BF16 model as transformers builds it (from_config ignores quantization_config).",
    "openai__gpt-oss-20b": "Real repo is MXFP4: expert weights stored as U8 mlp.experts.gate_up_proj_blocks / _scales and "
    "down_proj_blocks / _scales instead of the BF16 3-D gate_up_proj / down_proj here (the published 20,914,757,184 counts "
    "logical FP4 elements, matching this layout's count). Experts are fused 3-D parameters already in transformers 4.x, "
    "and so are they in the real checkpoint. This layout is the dequantized model (from_config ignores quantization_config).",
    "google__gemma-2-2b": "Real repo stored as float32 (torch_dtype float32).",
    "google__gemma-2-9b": "Reference config says torch_dtype float32.",
    "TinyLlama__TinyLlama-1.1B-Chat-v1.0": "Base intermediate checkpoints are F32, Chat v1.0 BF16; same shapes.",
    "bigcode__starcoder2-3b": "No tie_word_embeddings key -> Starcoder2Config default; no torch_dtype in config (BF16 default of "
    "the dump rules used). No published parameter count; hand computation 3,030,371,328 tied.",
    "microsoft__Phi-3.5-MoE-instruct": "The reference config is minimal (no architectures, no attention_bias / lm_head_bias keys), "
    "so PhimoeConfig defaults apply (attention_bias=False, lm_head_bias=False). published-counts.json describes the real "
    "checkpoint as having q/k/v/o biases and an lm_head bias (hand computation 41,873,153,344); with the real repo's full "
    "config those would appear. No torch_dtype key (BF16 default used).",
    "meta-llama__Llama-4-Scout-17B-16E": "TEXT MODEL ONLY: built from text_config (Llama4TextConfig) as Llama4ForCausalLM, names "
    "therefore start with 'model.' / 'lm_head.'. The real repo is Llama4ForConditionalGeneration: text tensors are stored under "
    "'language_model.model.*' / 'language_model.lm_head.weight', plus vision_model.* and multi_modal_projector.* "
    "(see the -conditional-generation layout). Experts are fused 3-D (feed_forward.experts.gate_up_proj [E,H,2I], down_proj "
    "[E,I,H]), as in the real checkpoint. Hub total 108,641,793,536 includes the vision tower + projector.",
    "mistralai__Mixtral-8x7B-v0.1": "Real checkpoint uses per-expert tensors block_sparse_moe.experts.E.w1/w2/w3.weight, as here.",
    "Qwen__Qwen3-30B-A3B": "Real checkpoint uses per-expert tensors mlp.experts.E.{gate,up,down}_proj.weight, as here.",
    "Qwen__Qwen3-235B-A22B": "Real checkpoint uses per-expert tensors mlp.experts.E.{gate,up,down}_proj.weight, as here.",
}


# --------------------------------------------------------------------------------------
# Tiny configs: family config class defaults with only sizes shrunk.
# --------------------------------------------------------------------------------------
LLAMA_SMALL = dict(
    vocab_size=1024,
    hidden_size=128,
    intermediate_size=256,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
)

GPT2_NOTE = (
    "In this transformers version GPT2Attention registers attn.bias (BOOL causal mask "
    "[1,1,n_positions,n_positions]) and attn.masked_bias (scalar) with persistent=False, so neither is in "
    "the state_dict nor written by save_pretrained (see non_persistent_buffers)."
)

TINY = {
    # item 2: families with no real config among the references
    "tiny-gemma": ("gemma", dict(LLAMA_SMALL, head_dim=32), "Gemma v1 family; tied by default."),
    "tiny-granite": ("granite", dict(LLAMA_SMALL), "Granite family (llama-like, multipliers only)."),
    "tiny-cohere": ("cohere", dict(LLAMA_SMALL), "Cohere (Command-R) family; LayerNorm without bias, tied by default."),
    "tiny-smollm3": (
        "smollm3",
        dict(LLAMA_SMALL, pad_token_id=1023),
        "SmolLM3 family (pad_token_id moved to 1023 so it fits the shrunk vocab).",
    ),
    "tiny-glm4": (
        "glm4",
        dict(LLAMA_SMALL, head_dim=32, pad_token_id=1023),
        "GLM-4-0414 family (pad_token_id moved to 1023 for the shrunk vocab) (model_type glm4): fused mlp.gate_up_proj, 4 norms/layer.",
    ),
    # MoE tinies (also dumped with transformers 5.x as *-tf5)
    "tiny-qwen3_moe": (
        "qwen3_moe",
        dict(LLAMA_SMALL, head_dim=32, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=64),
        "Qwen3-MoE tiny: 4 experts top-2.",
    ),
    "tiny-mixtral": (
        "mixtral",
        dict(LLAMA_SMALL, num_local_experts=4, num_experts_per_tok=2),
        "Mixtral tiny: 4 experts top-2.",
    ),
    "tiny-gpt_oss": (
        "gpt_oss",
        dict(
            LLAMA_SMALL,
            head_dim=32,
            num_local_experts=4,
            num_experts_per_tok=2,
            layer_types=["sliding_attention", "full_attention"],
        ),
        "gpt-oss tiny: 4 experts top-2, unquantized (no quantization_config).",
    ),
    # item 3: feature variants
    "tiny-llama-bias": (
        "llama",
        dict(LLAMA_SMALL, attention_bias=True, mlp_bias=True),
        "llama with attention_bias=true (q/k/v/o biases) and mlp_bias=true (gate/up/down biases).",
    ),
    "tiny-qwen2-tied": ("qwen2", dict(LLAMA_SMALL, tie_word_embeddings=True), "qwen2 with tie_word_embeddings=true."),
    "tiny-mistral-head_dim": (
        "mistral",
        dict(LLAMA_SMALL, head_dim=48),
        "mistral with explicit head_dim=48 != hidden/heads=32 (q_proj [4*48,128], o_proj [128,4*48]).",
    ),
    "tiny-deepseek_v3": (
        "deepseek_v3",
        dict(
            vocab_size=1024,
            hidden_size=128,
            intermediate_size=256,
            moe_intermediate_size=64,
            num_hidden_layers=3,
            num_attention_heads=4,
            num_key_value_heads=4,
            n_shared_experts=1,
            n_routed_experts=4,
            num_experts_per_tok=2,
            n_group=2,
            topk_group=1,
            first_k_dense_replace=1,
            q_lora_rank=None,
            kv_lora_rank=32,
            qk_rope_head_dim=16,
            qk_nope_head_dim=16,
            v_head_dim=16,
        ),
        "deepseek_v3 tiny: q_lora_rank=null (plain q_proj), first_k_dense_replace=1 (layer 0 dense), "
        "n_shared_experts=1, 4 routed experts, e_score_correction_bias buffer per MoE layer.",
    ),
    "tiny-deepseek_v2-q_lora": (
        "deepseek_v2",
        dict(
            vocab_size=1024,
            hidden_size=128,
            intermediate_size=256,
            moe_intermediate_size=64,
            num_hidden_layers=3,
            num_attention_heads=4,
            num_key_value_heads=4,
            n_shared_experts=2,
            n_routed_experts=4,
            num_experts_per_tok=2,
            n_group=1,
            topk_group=1,
            first_k_dense_replace=1,
            q_lora_rank=48,
            kv_lora_rank=32,
            qk_rope_head_dim=16,
            qk_nope_head_dim=16,
            v_head_dim=16,
        ),
        "deepseek_v2 with q_lora_rank=48 set (q_a_proj / q_a_layernorm / q_b_proj), "
        "first_k_dense_replace=1, 2 shared experts, 4 routed experts.",
    ),
    "tiny-qwen2_moe-sparse_step": (
        "qwen2_moe",
        dict(
            LLAMA_SMALL,
            num_hidden_layers=4,
            num_experts=4,
            num_experts_per_tok=2,
            moe_intermediate_size=64,
            shared_expert_intermediate_size=128,
            decoder_sparse_step=2,
            mlp_only_layers=[1],
        ),
        "qwen2_moe with decoder_sparse_step=2 and mlp_only_layers=[1], 4 layers: a layer is "
        "sparse iff (i+1) % 2 == 0 and i not in mlp_only_layers -> layer 3 sparse; layers 0,1,2 dense.",
    ),
    "tiny-falcon-legacy": (
        "falcon",
        dict(
            vocab_size=1024,
            hidden_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            new_decoder_architecture=False,
            multi_query=True,
            parallel_attn=True,
        ),
        "falcon legacy block (falcon-7b style): new_decoder_architecture=false, multi_query=true "
        "(1 KV head), parallel_attn=true (single input_layernorm).",
    ),
    "tiny-falcon-new": (
        "falcon",
        dict(
            vocab_size=1024,
            hidden_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            new_decoder_architecture=True,
            num_kv_heads=2,
        ),
        "falcon new_decoder_architecture=true (falcon-40b/180b style) with num_kv_heads=2: ln_attn + ln_mlp per layer.",
    ),
    "tiny-gpt_neox-parallel": (
        "gpt_neox",
        dict(
            vocab_size=1024,
            hidden_size=128,
            intermediate_size=512,
            num_hidden_layers=2,
            num_attention_heads=4,
            use_parallel_residual=True,
        ),
        "gpt_neox with use_parallel_residual=true.",
    ),
    "tiny-gpt2": (
        "gpt2",
        dict(vocab_size=1024, n_embd=128, n_layer=2, n_head=4),
        "gpt2 small: n_layer=2, n_embd=128. Names carry the 'transformer.' prefix (GPT2LMHeadModel); the real "
        "openai-community/gpt2 file has no prefix and stores h.N.attn.bias buffers. " + GPT2_NOTE,
    ),
    # 2025-2026 families (tests/test_specs_2025_families.py); features switched on where the config class has a switch
    "tiny-glm4_moe": (
        "glm4_moe",
        dict(
            LLAMA_SMALL,
            num_hidden_layers=3,
            head_dim=48,
            attention_bias=True,
            use_qk_norm=True,
            first_k_dense_replace=1,
            n_routed_experts=4,
            n_shared_experts=1,
            num_experts_per_tok=2,
            moe_intermediate_size=64,
            num_nextn_predict_layers=1,
        ),
        "GLM-4.5/4.6 (glm4_moe) tiny: head_dim=48 != hidden/heads (set as a plain config attribute, as the "
        "real configs do), attention_bias (q/k/v only), use_qk_norm, first_k_dense_replace=1 (layer 0 dense), "
        "1 shared expert, 4 routed experts top-2, F32 e_score_correction_bias buffer per MoE layer. "
        "num_nextn_predict_layers=1 is in the config but transformers builds no MTP layer "
        "(Glm4MoeModel ignores model.layers.<num_hidden_layers>.* on load), so none is dumped or saved.",
    ),
    "tiny-olmoe": (
        "olmoe",
        dict(LLAMA_SMALL, intermediate_size=64, num_experts=4, num_experts_per_tok=2, attention_bias=True),
        "OLMoE tiny: 4 experts top-2 (expert size = intermediate_size), attention_bias (q/k/v/o), q_norm over "
        "the full q width [hidden] and k_norm over the k width [kv_heads*head_dim].",
    ),
    "tiny-granitemoe": (
        "granitemoe",
        dict(LLAMA_SMALL, intermediate_size=64, num_local_experts=4, num_experts_per_tok=2, attention_bias=True),
        "GraniteMoE tiny: fused 3-D experts block_sparse_moe.input_linear [E, 2I, H] / output_linear "
        "[E, H, I], router block_sparse_moe.router.layer, attention_bias (q/k/v/o).",
    ),
    "tiny-seed_oss": (
        "seed_oss",
        dict(LLAMA_SMALL, head_dim=48),
        "Seed-OSS tiny: SeedOssConfig defaults attention_bias=true (q/k/v) and attention_out_bias=false "
        "(o_proj), head_dim=48 != hidden/heads.",
    ),
    "tiny-exaone4": (
        "exaone4",
        dict(LLAMA_SMALL, num_key_value_heads=2, head_dim=48, sliding_window_pattern=2),
        "EXAONE-4.0 tiny: no input_layernorm; post_attention_layernorm + post_feedforward_layernorm, per-head "
        "q_norm/k_norm; head_dim=48 (plain config attribute); hybrid sliding/full layers (no tensor difference).",
    ),
    "tiny-ernie4_5": (
        "ernie4_5",
        dict(LLAMA_SMALL, head_dim=48, use_bias=True),
        "ERNIE-4.5 dense tiny: use_bias=true (q/k/v/o and gate/up/down biases), head_dim=48, tied by default "
        "(Ernie4_5Config tie_word_embeddings=true).",
    ),
    "tiny-ernie4_5_moe": (
        "ernie4_5_moe",
        dict(
            LLAMA_SMALL,
            num_hidden_layers=3,
            use_bias=True,
            moe_intermediate_size=64,
            moe_k=2,
            moe_num_experts=4,
            moe_num_shared_experts=2,
            moe_layer_start_index=1,
        ),
        "ERNIE-4.5 MoE tiny: layer 0 dense (moe_layer_start_index=1), 4 experts top-2, 2 shared experts, "
        "use_bias=true (also lm_head.bias, which stays although the head is tied), F32 router and "
        "moe_statics.e_score_correction_bias [1, E] parameter.",
    ),
    "tiny-hunyuan_v1_dense": (
        "hunyuan_v1_dense",
        dict(LLAMA_SMALL, head_dim=32),
        "Hunyuan dense tiny: per-head query_layernorm/key_layernorm.",
    ),
    "tiny-hunyuan_v1_moe": (
        "hunyuan_v1_moe",
        dict(LLAMA_SMALL, head_dim=32, intermediate_size=64, num_experts=4, moe_topk=2),
        "Hunyuan MoE tiny: 4 experts top-2 plus one shared_mlp, all of size intermediate_size; F32 router mlp.gate.wg.",
    ),
}

TINY_TF5 = ["tiny-qwen3_moe", "tiny-mixtral", "tiny-gpt_oss"]


def published_counts(ref: Path) -> dict:
    p = ref / "published-counts.json"
    if not p.exists():
        return {}
    return {Path(e["config_file"]).stem: e for e in json.loads(p.read_text())}


def config_from_dict(d: dict):
    d = {k: v for k, v in d.items() if k != "auto_map"}
    mt = d.get("model_type")
    if mt in ("RefinedWebModel", "RefinedWeb"):
        mt = "falcon"
        d["model_type"] = "falcon"
    cls = CONFIG_MAPPING[mt]
    return cls.from_dict(d)


def config_dtype_str(d: dict) -> str:
    src = d
    if "text_config" in d and not (d.get("torch_dtype") or d.get("dtype")):
        src = d["text_config"]
    s = src.get("dtype") or src.get("torch_dtype") or "bfloat16"
    return s


def tied_weight_patterns(model) -> list[str]:
    out = []

    def walk(mod, prefix):
        for attr in ("_tied_weights_keys", "_dynamic_tied_weights_keys"):
            keys = getattr(mod, attr, None)
            if keys:
                if isinstance(keys, dict):  # transformers 5.x: {target: source}
                    keys = list(keys.keys())
                out.extend(f"{prefix}.{k}" if prefix else k for k in keys)
        for name, sub in mod.named_children():
            walk(sub, f"{prefix}.{name}" if prefix else name)

    walk(model, "")
    return out


def save_time_state_dict(model):
    """Mimic save_pretrained(safe_serialization=True) key handling on a meta model.

    Returns (ordered list of (name, tensor), tied_dropped list)."""
    sd = model.state_dict(keep_vars=True)
    # VLM reverse key mapping (transformers 4.5x save_pretrained)
    conv = getattr(model, "_checkpoint_conversion_mapping", None) or {}
    if conv and TF_MAJOR == 4:
        reverse = {v: k for k, v in conv.items()}
        new = collections.OrderedDict()
        for key, value in sd.items():
            for pattern, replacement in reverse.items():
                replacement = re.sub(r"\(.*\)", "", replacement.lstrip("^"))
                key, n = re.subn(pattern, replacement, key)
                if n:
                    break
            new[key] = value
        sd = new
    ignore = getattr(model, "_keys_to_ignore_on_save", None) or []
    for k in ignore:
        sd.pop(k, None)
    groups = collections.defaultdict(list)
    for name, t in sd.items():
        groups[id(t)].append(name)
    pats = tied_weight_patterns(model)
    dropped = []
    for names in groups.values():
        if len(names) < 2:
            continue
        found = 0
        to_drop = []
        for name in sorted(names):
            if any(re.search(p, name) for p in pats):
                found += 1
                if found < len(names):
                    to_drop.append(name)
        if len(names) - len(to_drop) != 1:
            raise RuntimeError(f"unresolved shared tensors {names} (tied patterns {pats})")
        dropped.extend(to_drop)
    return [(n, t) for n, t in sd.items() if n not in set(dropped)], dropped


def build_meta(cfg, dtype):
    with torch.device("meta"):
        model = (
            AutoModelForCausalLM.from_config(cfg, dtype=dtype)
            if TF_MAJOR >= 5 or _has_dtype_kw()
            else AutoModelForCausalLM.from_config(cfg, torch_dtype=dtype)
        )
    return model


def _has_dtype_kw():
    v = tuple(int(x) for x in TF_VERSION.split(".")[:2])
    return v >= (4, 56)


def layout_of(model):
    items, dropped = save_time_state_dict(model)
    tensors = [[n, ST_DTYPE[t.dtype], list(t.shape)] for n, t in items]
    tie_is = None
    try:
        oe, ie = model.get_output_embeddings(), model.get_input_embeddings()
        if oe is not None and ie is not None:
            tie_is = oe.weight is ie.weight
    except Exception:
        pass
    return tensors, dropped, tie_is


def n_params(tensors):
    return sum(math.prod(s) for _, _, s in tensors)


def write_layout(name, doc):
    OUT_LAYOUTS.mkdir(parents=True, exist_ok=True)
    data = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    with open(OUT_LAYOUTS / f"{name}.json.gz", "wb") as f:
        # mtime=0 keeps the gzip bytes reproducible
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, compresslevel=9, filename="") as gz:
            gz.write(data)


def verify_real_save(cfg, tensors, name, dtype):
    """Build the tiny model for real (CPU, config dtype), save_pretrained, compare saved keys/dtypes/shapes."""
    from safetensors import safe_open

    torch.manual_seed(0)
    kw = {"dtype": dtype} if _has_dtype_kw() else {"torch_dtype": dtype}
    model = AutoModelForCausalLM.from_config(cfg, **kw)
    d = tempfile.mkdtemp(prefix=f"stdump-{name}-")
    try:
        model.save_pretrained(d, safe_serialization=True)
        saved = {}
        for fn in sorted(os.listdir(d)):
            if fn.endswith(".safetensors"):
                with safe_open(os.path.join(d, fn), "pt") as f:
                    for k in f.keys():
                        sl = f.get_slice(k)
                        saved[k] = [sl.get_dtype(), list(sl.get_shape())]
    finally:
        shutil.rmtree(d, ignore_errors=True)
    mine = {n: [dt, s] for n, dt, s in tensors}
    saved_list = [[k, v[0], v[1]] for k, v in saved.items()]
    if saved == mine:
        return True, saved_list, None
    diff = {
        "only_in_saved": sorted(set(saved) - set(mine)),
        "only_in_state_dict": sorted(set(mine) - set(saved)),
        "dtype_or_shape_diff": sorted(k for k in set(saved) & set(mine) if saved[k] != mine[k]),
    }
    return False, saved_list, diff


def dump_one(name, cfg_dict, config_file, notes, pub, verify=False, text_only=False, full_vlm=False):
    dt_str = config_dtype_str(cfg_dict)
    dtype = CFG_DTYPE[dt_str]
    cfg = config_from_dict(copy.deepcopy(cfg_dict))
    if text_only:
        cfg = cfg.text_config
    if full_vlm:
        cls = getattr(transformers, cfg_dict["architectures"][0])
        with torch.device("meta"):
            model = cls._from_config(cfg, dtype=dtype) if _has_dtype_kw() else cls._from_config(cfg, torch_dtype=dtype)
    else:
        model = build_meta(cfg, dtype)
    tensors, dropped, tie_is = layout_of(model)
    total = n_params(tensors)
    sd_keys = set(model.state_dict().keys())
    non_persistent = [
        [n, ST_DTYPE.get(b.dtype, str(b.dtype)), list(b.shape)] for n, b in model.named_buffers() if n not in sd_keys
    ]
    note_parts = [notes] if notes else []
    if tie_is is not None:
        note_parts.append(f"get_output_embeddings().weight is get_input_embeddings().weight: {tie_is}.")
    fp32 = getattr(model, "_keep_in_fp32_modules", None)
    if fp32:
        note_parts.append(
            f"_keep_in_fp32_modules={sorted(fp32)}: from_pretrained keeps these in F32 in memory, so a checkpoint "
            f"re-saved by transformers would store them F32; this layout records them in the config dtype."
        )
    if not any(d == "F32" for _, d, _ in tensors) and dtype != torch.float32:
        pass
    doc = {
        "name": name,
        "produced_by": f"transformers {TF_VERSION} AutoModelForCausalLM.from_config on meta; torch {TORCH_VERSION}"
        if not full_vlm
        else f"transformers {TF_VERSION} {type(model).__name__}._from_config on meta; torch {TORCH_VERSION}",
        "config_file": config_file,
        "model_type": cfg.model_type,
        "class": type(model).__name__,
        "dtype_source": f"config {dt_str}"
        if (
            cfg_dict.get("torch_dtype")
            or cfg_dict.get("dtype")
            or (cfg_dict.get("text_config") or {}).get("torch_dtype")
        )
        else "default bfloat16 (config has no dtype)",
        "tensors": tensors,
        "tied_dropped": dropped,
        "non_persistent_buffers": non_persistent,
        "n_tensors": len(tensors),
        "total_params": total,
    }
    if pub is not None:
        doc["published_params"] = pub.get("published_params")
    verified = None
    if verify:
        ok, saved_list, diff = verify_real_save(cfg, tensors, name, dtype)
        verified = ok
        if ok:
            note_parts.append(
                f"Verified: a real (CPU, {dt_str}) instance saved with save_pretrained (transformers {TF_VERSION}) "
                f"wrote exactly these tensor names, dtypes and shapes."
            )
        else:
            doc["save_pretrained_diff"] = diff
            doc["save_pretrained_tensors"] = saved_list
            doc["save_pretrained_n_tensors"] = len(saved_list)
            doc["save_pretrained_total_params"] = n_params(saved_list)
            note_parts.append(
                f"save_pretrained (transformers {TF_VERSION}) of a real tiny instance writes DIFFERENT names/shapes "
                f"than the in-memory state_dict; see save_pretrained_diff / save_pretrained_tensors."
            )
    doc["notes"] = " ".join(note_parts)
    write_layout(name, doc)
    del model
    return doc, verified


def tiny_config_dict(family, overrides, dtype="bfloat16"):
    cls = CONFIG_MAPPING[family]
    cfg = cls(**overrides)
    d = cfg.to_dict()
    arch_map = transformers.models.auto.modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    d["architectures"] = [arch_map[family]]
    d["model_type"] = family
    d.pop("dtype", None)
    d["torch_dtype"] = dtype
    d.pop("transformers_version", None)
    return d


REAL_NOTES["openai-community__gpt2"] += GPT2_NOTE


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=None)
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--ref", default=os.environ.get("ST_AUDIT_REF", "../shared/reference"))
    args = ap.parse_args()
    ref = Path(args.ref)
    pubs = published_counts(ref)
    OUT_CONFIGS.mkdir(parents=True, exist_ok=True)
    summary = []
    failures = []

    def want(n):
        return args.only is None or args.only in n

    if TF_MAJOR >= 5:
        for tname in TINY_TF5:
            if not want(tname):
                continue
            cfg_path = OUT_CONFIGS / f"{tname}.json"
            cfg_dict = json.loads(cfg_path.read_text())  # produced by the 4.x run; same sizes
            family = cfg_dict["model_type"]
            note = (
                TINY[tname][2] + f" Dumped with transformers {TF_VERSION}: 'tensors' is the in-memory state_dict "
                "(5.x fuses MoE experts into 3-D parameters); 'save_pretrained_tensors' (if present) is what "
                "save_pretrained actually wrote for a real tiny instance."
            )
            doc, ok = dump_one(f"{tname}-tf5", cfg_dict, cfg_path.name, note, None, verify=not args.no_verify)
            v4 = OUT_LAYOUTS / f"{tname}.json.gz"
            if v4.exists() and "save_pretrained_tensors" in doc:
                a = {t[0]: t[1:] for t in json.loads(gzip.decompress(v4.read_bytes()))["tensors"]}
                b = {t[0]: t[1:] for t in doc["save_pretrained_tensors"]}
                same = a == b
                doc["notes"] += (
                    f" Comparison: the tensors save_pretrained wrote under transformers {TF_VERSION} are "
                    + ("IDENTICAL (names, dtypes, shapes) to" if same else "DIFFERENT from")
                    + f" the transformers 4.x layout in {v4.name}, i.e. v5 save_pretrained reverts the fused "
                    "3-D experts to per-expert tensors (and, for mixtral, to the block_sparse_moe.* / w1/w2/w3 names)."
                )
                doc["save_pretrained_matches_tf4_layout"] = same
                write_layout(doc["name"], doc)
            summary.append((doc["name"], doc["n_tensors"], doc["total_params"], None, ok))
        print_summary(summary)
        return

    # item 1: every reference config
    for p in sorted((ref / "configs").glob("*.json")):
        stem = p.stem
        if not want(stem):
            continue
        cfg_dict = json.loads(p.read_text())
        shutil.copyfile(p, OUT_CONFIGS / p.name)
        pub = pubs.get(stem)
        note = REAL_NOTES.get(stem, "")
        if pub and pub.get("notes") and stem not in REAL_NOTES:
            pass
        try:
            if cfg_dict.get("model_type") == "llama4":
                doc, _ = dump_one(stem, cfg_dict, p.name, note, pub, text_only=True)
                summary.append(
                    (doc["name"], doc["n_tensors"], doc["total_params"], pub and pub["published_params"], None)
                )
                doc, _ = dump_one(
                    stem + "-conditional-generation",
                    cfg_dict,
                    p.name,
                    "FULL multimodal model as saved (Llama4ForConditionalGeneration: language_model.*, "
                    "vision_model.*, multi_modal_projector.*), built with _from_config on meta.",
                    pub,
                    full_vlm=True,
                )
            else:
                doc, _ = dump_one(stem, cfg_dict, p.name, note, pub)
            summary.append((doc["name"], doc["n_tensors"], doc["total_params"], pub and pub["published_params"], None))
        except Exception as e:  # record and continue
            failures.append((stem, repr(e)))
            print(f"FAILED {stem}: {e!r}", file=sys.stderr)

    # items 2-4: tiny configs
    for tname, (family, overrides, note) in TINY.items():
        if not want(tname):
            continue
        try:
            cfg_dict = tiny_config_dict(family, overrides)
            (OUT_CONFIGS / f"{tname}.json").write_text(json.dumps(cfg_dict, indent=2, sort_keys=True) + "\n")
            doc, ok = dump_one(tname, cfg_dict, f"{tname}.json", note, None, verify=not args.no_verify)
            summary.append((doc["name"], doc["n_tensors"], doc["total_params"], None, ok))
        except Exception as e:
            failures.append((tname, repr(e)))
            print(f"FAILED {tname}: {e!r}", file=sys.stderr)
    print_summary(summary)
    for f in failures:
        print("FAILED", *f)


def print_summary(summary):
    for name, nt, tot, pub, ok in summary:
        cmp = ""
        if pub is not None:
            cmp = "MATCH" if pub == tot else f"DIFF {tot - pub:+,}"
        print(
            f"{name:55s} {nt:7d} {tot:>20,} {'' if pub is None else f'{pub:,}':>20} {cmp} "
            f"{'' if ok is None else ('saved==meta' if ok else 'saved!=meta')}"
        )


if __name__ == "__main__":
    main()
