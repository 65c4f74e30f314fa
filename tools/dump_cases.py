"""Dump ground-truth case folders: exactly what transformers' ``save_pretrained`` writes.

DEV-ONLY TOOL.  torch / transformers are NOT runtime or test dependencies of st-audit; run this by hand
in the dev virtualenv (``$DEVENV/bin/python tools/dump_cases.py ...``) and commit its output.

For each (model_type, class, config) case it

* builds the class named in the config's ``architectures[0]`` with ``cls._from_config`` on the ``meta``
  device (no memory, any size);
* calls the REAL ``model.save_pretrained(tmpdir)`` with transformers' safetensors writer
  (``transformers.modeling_utils.safe_save_file``) replaced by a recorder, so tied-weight removal and the
  transformers-5 weight-conversion revert (fused MoE experts split back, renamed multimodal prefixes) are
  transformers' own code, not a re-implementation; ``config.json`` is the file save_pretrained wrote;
* for configs small enough (``--verify-max`` elements) builds the model for real on CPU, saves it for real,
  and checks the safetensors headers (names, dtypes, shapes) and config.json equal what was recorded.

Output (see docs/truth.md)::

    fixtures/cases/<model_type>/<case>/config.json      config.json exactly as save_pretrained wrote it
    fixtures/cases/<model_type>/<case>/layout.json.gz   {"class", "produced_by", "tensors": [[name, dtype, shape]]}
    fixtures/cases/<model_type>/<case>/truth.json       class, parameters, persistent_buffers, tied_dropped, ...
    fixtures/config-classes/<model_type>.json           config class defaults / attribute_map / sub_configs
    fixtures/cases/_unbuildable.json                    (model_type, class) transformers cannot build, and why

Cases per (model_type, class): ``default`` (class default config; layer count shrunk for huge MoE defaults,
said in ``variant``), ``small`` (sizes shrunk), ``p1`` / ``p2`` (every known structural integer changed
to other values, dtype bf16 in p1, all structural booleans flipped in p1), and ``flip-<field>`` (one boolean
flipped from ``small``; kept only when it changes the layout). Where the config class leaves declared sub-configs
None (optional vision / audio towers), the same cases again as ``towers-*`` with them instantiated, and
``only-<sub>-small`` per tower (docs/truth.md).

Usage::

    $DEVENV/bin/python tools/dump_cases.py --group 1          # issue-8 list
    $DEVENV/bin/python tools/dump_cases.py --group 2          # every causal-LM / image-text-to-text type
    $DEVENV/bin/python tools/dump_cases.py --group 3          # encoders / seq2seq / speech / vision
    $DEVENV/bin/python tools/dump_cases.py --group 5          # base models / task classes of composite configs
    $DEVENV/bin/python tools/dump_cases.py --only llava,gemma3 [--classes LlavaForConditionalGeneration]
    $DEVENV/bin/python tools/dump_cases.py --only dinat --classes DinatModel --stub-backend dinat:natten
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import gzip
import json
import math
import os
import re
import shutil
import struct
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import torch
import transformers
import transformers.modeling_utils as modeling_utils
from transformers import CONFIG_MAPPING, PreTrainedConfig
from transformers.models.auto import modeling_auto

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
try:
    transformers.utils.logging.disable_progress_bar()
except Exception:  # pragma: no cover
    pass

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "fixtures" / "cases"
CONFIG_CLASSES = REPO / "fixtures" / "config-classes"
TF_VERSION = transformers.__version__
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
    torch.float8_e4m3fn: "F8_E4M3",
    torch.float8_e5m2: "F8_E5M2",
}
DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}
MAX_DEFAULT_TENSORS = 4000  # above this, the default case is re-dumped with fewer layers
VERIFY_MAX = 60_000_000  # real CPU save_pretrained cross-check below this many elements

# ---------------------------------------------------------------------------------------------------------
# Perturbation profiles, by canonical (attribute_map-resolved) field name: values for small / p1 / p2.
# Values are chosen so that the usual relations (hidden = heads * head_dim, kv = heads, ...) hold in some
# cases and not in others, which is what lets tools/derive_spec.py tell expressions apart.
# ---------------------------------------------------------------------------------------------------------
PROFILE = {
    "vocab_size": (500, 613, 737, 811),
    "hidden_size": (64, 96, 128, 160),
    "intermediate_size": (112, 176, 144, 208),
    "num_hidden_layers": (2, 3, 5, 4),
    "num_attention_heads": (4, 6, 8, 10),
    "num_key_value_heads": (2, 3, 2, 5),
    "head_dim": (16, 24, 32, 20),
    "moe_intermediate_size": (48, 40, 56, 64),
    "shared_expert_intermediate_size": (80, 72, 88, 96),
    "num_experts": (4, 6, 5, 8),
    "num_local_experts": (4, 6, 5, 8),
    "n_routed_experts": (4, 6, 5, 8),
    "num_experts_per_tok": (2, 3, 2, 3),
    "n_shared_experts": (1, 2, 1, 2),
    "num_shared_experts": (1, 2, 1, 2),
    "first_k_dense_replace": (1, 2, 0, 1),
    "kv_lora_rank": (32, 24, 40, 48),
    "q_lora_rank": (48, 40, 56, 64),
    "qk_rope_head_dim": (8, 16, 8, 16),
    "qk_nope_head_dim": (16, 8, 24, 16),
    "v_head_dim": (16, 24, 12, 20),
    "n_group": (2, 3, 1, 4),
    "topk_group": (1, 2, 1, 2),
    "max_position_embeddings": (128, 160, 192, 224),
    # vision / audio towers and encoder-decoder naming
    "image_size": (32, 48, 64, 40),
    "patch_size": (8, 8, 16, 10),
    "depth": (2, 3, 4, 3),
    "num_heads": (4, 6, 8, 10),
    "embed_dim": (64, 96, 128, 160),
    "out_hidden_size": (64, 96, 128, 160),
    "projection_dim": (48, 40, 56, 64),
    "mm_tokens_per_image": (4, 9, 4, 4),
    "encoder_layers": (2, 3, 4, 3),
    "decoder_layers": (2, 4, 3, 2),
    "encoder_attention_heads": (4, 6, 8, 10),
    "decoder_attention_heads": (4, 6, 8, 10),
    "encoder_ffn_dim": (112, 176, 144, 208),
    "decoder_ffn_dim": (112, 144, 176, 240),
    "d_model": (64, 96, 128, 160),
    "d_ff": (112, 176, 144, 208),
    "d_kv": (16, 24, 12, 20),
    "num_layers": (2, 3, 4, 3),
    "num_decoder_layers": (2, 4, 3, 2),
    "type_vocab_size": (2, 3, 1, 2),
}
SIZE_ROLES = set(PROFILE)
# Integers / booleans never varied: ids, runtime switches, generic PreTrainedConfig fields.
NEVER_VARY = re.compile(
    r"(token_id|token_index|_id$|^id$|seed|^use_cache$|return_dict|output_|torchscript|is_encoder_decoder|"
    r"^is_decoder$|add_cross_attention|tie_encoder_decoder|chunk_size_feed_forward|sliding_window|"
    r"_attn_implementation|^pretraining_tp$|^use_return_dict$|gradient_checkpointing|^debug|^_|"
    r"max_window_layers|bos|eos|pad|^rope|^initializer|dropout|^use_sliding_window$|^use_flash|^use_kernel|"
    r"^num_labels$|^problem_type$|^dtype$|^transformers_version$|^architectures$|cache|^use_mamba_kernels$|"
    r"^scale_embedding$|^layer_norm_eps$)"
)
BASE_FIELDS = {f.name for f in dataclasses.fields(PreTrainedConfig)}


def _canon_to_stored(cfg_cls) -> dict:
    """attribute_map is {alias: stored}; canonical profile names may be aliases of the stored key."""
    return dict(getattr(cfg_cls, "attribute_map", {}) or {})


def _fields(cfg_cls) -> dict:
    if dataclasses.is_dataclass(cfg_cls):
        return {f.name: str(f.type) for f in dataclasses.fields(cfg_cls)}
    return {}


def _layer_key(cfg_cls, defaults: dict) -> str | None:
    amap = _canon_to_stored(cfg_cls)
    k = amap.get("num_hidden_layers", "num_hidden_layers")
    return k if k in defaults else None


def _sub_config_names(cfg_obj) -> list[str]:
    subs = getattr(type(cfg_obj), "sub_configs", {}) or {}
    return [k for k in subs if isinstance(getattr(cfg_obj, k, None), PreTrainedConfig)]


def structural_bools(cfg_obj) -> list[str]:
    cls = type(cfg_obj)
    d = cfg_obj.to_dict()
    fields = _fields(cls)
    out = []
    for k, v in d.items():
        if isinstance(v, bool) and (k not in BASE_FIELDS) and not NEVER_VARY.search(k):
            if k in fields or k == "tie_word_embeddings":
                out.append(k)
    return out


def coupled_values(levels, idx: int) -> dict:
    """default value -> profile value, from the size fields the profile knows (hidden sizes first).

    Fields the profile does not know often must equal a known one (a vision adapter's output width = the text
    hidden size): an unknown field whose default equals a known field's default follows that field."""
    out: dict[int, int] = {}
    for canon in ("hidden_size", "d_model", "embed_dim", "intermediate_size", "vocab_size"):
        for _, obj in levels:
            d = obj.to_dict()
            key = _canon_to_stored(type(obj)).get(canon, canon)
            v = d.get(key)
            if isinstance(v, int) and not isinstance(v, bool) and v > 64:
                out.setdefault(v, PROFILE[canon][idx])
    return out


def profile_overrides(cfg_obj, idx: int, coupled: dict | None = None) -> dict:
    """Overrides (stored key -> value) for profile column idx on one config level (no recursion)."""
    cls = type(cfg_obj)
    d = cfg_obj.to_dict()
    amap = _canon_to_stored(cls)
    out: dict[str, Any] = {}
    coupled = coupled or {}
    for canon, vals in PROFILE.items():
        key = amap.get(canon, canon)
        if key not in d or isinstance(d[key], (bool, list, dict)):
            continue
        if d[key] is None and canon not in ("head_dim", "num_key_value_heads"):
            continue
        out[key] = vals[idx]
    # fields the profile does not know: large sizes shrink, small integers change in p2 (all doubled) and in p3
    # (x2, x1, x4 in turn, so that two such fields do not keep their ratio)
    n_unknown = 0
    for key, v in d.items():
        if key in out or isinstance(v, bool) or not isinstance(v, int) or NEVER_VARY.search(key) or key in BASE_FIELDS:
            continue
        if v > 64 and v in coupled:
            out[key] = coupled[v]
        elif "vocab" in key and v > 1000:
            out[key] = PROFILE["vocab_size"][idx]
        elif re.search(r"(size|dim|width|features|channels|units|rank|state)$", key) and v > 64:
            out[key] = (32, 48, 40, 56)[idx]
        elif idx == 2 and v == 1 and re.search(r"groups?$", key):
            out[key] = 2
        elif idx in (2, 3) and 2 <= v <= 64 and not re.search(r"layer|step|period|offset|interval|freq|every", key):
            out[key] = v * 2 if idx == 2 else v * (2, 1, 4)[n_unknown % 3]
            n_unknown += 1
    # Mamba-2 mixers require heads * head_dim == expand * hidden: keep it true when hidden changes
    ek = next((k for k in ("mamba_expand", "expand") if isinstance(d.get(k), int)), None)
    nk = next(
        (k for k in ("mamba_n_heads", "mamba_num_heads", "n_mamba_heads", "num_heads") if isinstance(d.get(k), int)),
        None,
    )
    hk = next(
        (k for k in ("mamba_d_head", "mamba_head_dim", "mamba_headdim", "head_dim") if isinstance(d.get(k), int)), None
    )
    hid = amap.get("hidden_size", "hidden_size")
    if ek and nk and hk and hid in out and d[nk] * d[hk] == d[ek] * d.get(hid, 0):
        inner = out.get(ek, d[ek]) * out[hid]
        hd = out.get(hk, d[hk])
        hd = hd if inner % hd == 0 else 16
        out[hk], out[nk] = hd, inner // hd
    # periodic layer patterns (attention every k-th layer ...) need enough layers to show up
    lk = _layer_key(cls, d)
    periods = [
        v
        for k, v in d.items()
        if isinstance(v, int)
        and not isinstance(v, bool)
        and 0 < v <= 16
        and re.search(r"period|offset|interval|sparse_step|every", k)
    ]
    if lk and lk in out and periods and idx > 0:
        out[lk] = max(out[lk], min(max(periods) + 1 + idx, 16))
    # per-layer lists (cycled) and per-layer dicts (keys < count) follow the layer count
    if lk and lk in out and isinstance(d.get(lk), int):
        n_old, n_new = d[lk], out[lk]
        for k, v in d.items():
            if isinstance(v, list) and len(v) == n_old and n_old > 0 and k not in ("architectures",):
                out[k] = [v[i % n_old] for i in range(n_new)]
            elif isinstance(v, dict) and v and all(str(x).isdigit() for x in v):
                out[k] = {x: y for x, y in v.items() if int(x) < n_new}
    # ids that would fall outside a shrunk vocabulary are moved inside it
    vk = amap.get("vocab_size", "vocab_size")
    if vk in out:
        vocab = out[vk]
        n = 1
        for k, v in d.items():
            if re.search(r"token_id|token_index", k) and isinstance(v, int) and not isinstance(v, bool) and v >= vocab:
                out[k] = vocab - n
                n += 1
            elif re.search(r"token_id", k) and isinstance(v, list) and v and all(isinstance(x, int) for x in v):
                out[k] = [x if x < vocab else vocab - 1 for x in v]
    return out


# ---------------------------------------------------------------------------------------------------------
# Building configs and models
# ---------------------------------------------------------------------------------------------------------
def optional_towers(model_type: str) -> list[str]:
    """Declared sub-configs the class default leaves None (Gemma-4's vision_config / audio_config,
    Nemotron-H-Omni's audio_config): the class default builds no such tower, released checkpoints have one."""
    cls = CONFIG_MAPPING[model_type]
    base = cls()
    return [k for k in (getattr(cls, "sub_configs", {}) or {}) if getattr(base, k, None) is None]


# Keys a model reads from an optional tower's config that the declared sub-config class does not define (so its
# class default cannot build): NemotronH_Omni_Reasoning_V3.embed_audio reads audio_config.projection_hidden_size and
# .projection_bias, which ParakeetEncoderConfig lacks (the released checkpoint's sound_config carries them).
TOWER_REQUIRES: dict[str, dict[str, dict[str, Any]]] = {
    "nemotron_h_omni": {"audio_config": {"projection_hidden_size": 4096, "projection_bias": False}}
}


class Computed:
    """A required key whose value depends on the case's other keys (said in the case's variant by ``text``)."""

    def __init__(self, text: str, fn):
        self.text, self.fn = text, fn

    def __str__(self) -> str:
        return self.text


_COMPASS_ROPE = {"full_attention": {"rope_type": "default", "rope_theta": 50000.0}}
# Top-level keys a config class leaves None that its model cannot be built without (EsmConfig.vocab_size is None:
# every released ESM config.json says 33, the ESM-2 vocabulary; Lfm2MoeConfig.layer_types is None, which its decoder
# layers index and its validator wants num_hidden_layers long: LFM2-8B-A1B's kind of pattern, a full-attention
# layer after every two convolution layers; Dots1Config's MoE sizes); applied under the case's own overrides.
TYPE_REQUIRES: dict[str, dict[str, Any]] = {
    "esm": {"vocab_size": 33},
    "lfm2_moe": {
        "layer_types": Computed(
            "['conv', 'conv', 'full_attention', ...] num_hidden_layers long",
            lambda kw: ["full_attention" if i % 3 == 2 else "conv" for i in range(kw.get("num_hidden_layers", 32))],
        )
    },
    # Dots1Config leaves its MoE sizes None (the experts' tensors cannot be made): dots.llm1's
    "dots1": {"n_routed_experts": 128, "n_shared_experts": 2, "num_experts_per_tok": 6},
    # Chameleon / Emu3 read vocabulary_map (image-token ids, no parameters) when built: a minimal map
    "chameleon": {"vocabulary_map": {"<image>": 8711}},
    "emu3": {"vocabulary_map": {"<image>": 151851}},
    # all-KV-shared text layers (the class default, every release) do not build in 5.23: 12B assistant sizes, 2 of 4 shared
    "gemma4_unified_assistant": {
        "text_config": {
            "model_type": "gemma4_unified_text",
            "hidden_size": 1024,
            "intermediate_size": 8192,
            "num_hidden_layers": 4,
            "num_attention_heads": 16,
            "num_key_value_heads": 8,
            "head_dim": 256,
            "global_head_dim": 512,
            "num_global_key_value_heads": 1,
            "attention_k_eq_v": True,
            "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"],
            "num_kv_shared_layers": 2,
        }
    },
    # Granite4VisionModel builds one Q-Former projector per deepstack_layer_map pair and splits downsample_rate
    # (both None by default): granite-4.0-3b-vision's four pairs and "4/8"
    "granite4_vision": {"deepstack_layer_map": [[-19, 9], [-13, 6], [-7, 3], [-1, 0]], "downsample_rate": "4/8"},
    # MoonshineStreamingConfig lost num_key_value_heads, which its decoder attention reads: = heads, as the
    # original config class set it and the moonshine-streaming releases' config.json carry it (no GQA)
    "moonshine_streaming": {
        "num_key_value_heads": Computed("num_attention_heads", lambda kw: kw.get("num_attention_heads", 8))
    },
    # CohereCompassTextConfig keeps rope_parameters per layer type but defaults to none at all
    "cohere_compass_text": {"rope_parameters": _COMPASS_ROPE},
}
# The same for keys of a sub-config (DbrxAttentionConfig has no rope_theta, which DbrxAttention reads: every
# released DBRX config.json sets it, 500000); applied under the case's own sub-config overrides.
SUB_REQUIRES: dict[str, dict[str, dict[str, Any]]] = {
    "dbrx": {"attn_config": {"rope_theta": 500000}},
    # PerceptionLMConfig's vision_config defaults to TimmWrapperConfig() (resnet50, model_args None), which
    # its projector cannot read (model_args["embed_dim"]): the PE-L tower of Perception-LM-1B / -3B, as
    # convert_perception_lm_weights_to_hf.py writes it (23 of the 24 blocks, 448 px, no pooling head)
    "perception_lm": {
        "vision_config": {
            "architecture": "vit_pe_core_large_patch14_336",
            "model_args": {
                "embed_dim": 1024,
                "depth": 23,
                "img_size": [448, 448],
                "global_pool": "",
                "use_post_transformer_norm": False,
                "init_values": 0.1,
                "ref_feat_shape": [32, 32],
            },
        }
    },
    # DiffusionGemmaTextConfig leaves its MoE sizes None (no experts can be made): diffusiongemma-26B-A4B's
    "diffusion_gemma": {"text_config": {"num_experts": 128, "top_k_experts": 8, "moe_intermediate_size": 704}},
    # DeepseekOcr2TextConfig leaves mlp_layer_types None, which each decoder layer indexes: DeepSeek-OCR-2's
    # pattern (one dense layer, then MoE: first_k_dense_replace 1), num_hidden_layers (32) long; the profile
    # cuts / cycles it with the layer count
    "deepseek_ocr2": {"text_config": {"mlp_layer_types": ["dense"] + ["sparse"] * 31}},
    "cohere_compass": {"text_config": {"rope_parameters": _COMPASS_ROPE}},
}


def make_config(model_type: str, overrides: dict, sub_overrides: dict, towers: tuple = ()):
    """Class-default config of model_type with overrides; sub_overrides {sub_name: {key: value}}.

    towers: optional sub-configs (None by default) instantiated from their declared class: the sub-config's
    class defaults plus its overrides, passed as a dict so the parent converts it as it does a config.json."""
    cls = CONFIG_MAPPING[model_type]
    kwargs = dict(overrides)
    for key, value in TYPE_REQUIRES.get(model_type, {}).items():
        if key not in kwargs:
            kwargs[key] = value.fn(kwargs) if isinstance(value, Computed) else value
    for sub in towers:
        kwargs[sub] = {**TOWER_REQUIRES.get(model_type, {}).get(sub, {}), **sub_overrides.get(sub, {})}
    if sub_overrides:
        base = cls()
        for sub, ov in sub_overrides.items():
            if sub in towers:
                continue
            sub_obj = getattr(base, sub, None)
            if isinstance(sub_obj, PreTrainedConfig):
                sd = {"model_type": sub_obj.model_type} if getattr(sub_obj, "model_type", "") else {}
                # keep the non-default choices the parent made for its default sub-config
                sd.update(sub_obj.to_diff_dict())
                for k in ("transformers_version", "architectures", "dtype"):
                    sd.pop(k, None)
                # a required key beats the class default's value (PerceptionLM: resnet50), not the case's own
                sd.update(SUB_REQUIRES.get(model_type, {}).get(sub, {}))
                sd.update(ov)
                kwargs[sub] = sd
    for sub, required in SUB_REQUIRES.get(model_type, {}).items():
        current: dict = kwargs[sub] if isinstance(kwargs.get(sub), dict) else {}
        # an empty value from the sub-config's own defaults (rope_parameters {}) does not count as set
        kwargs[sub] = {**required, **{k: v for k, v in current.items() if v or k not in required}}
    return cls(**kwargs)


def _dtype_of(cfg) -> torch.dtype | None:
    dt = getattr(cfg, "dtype", None)
    if isinstance(dt, torch.dtype):
        return dt
    if isinstance(dt, str):
        return DTYPES.get(dt)
    return None


def _names_mapping(auto) -> dict:
    """An Auto class's model_type -> class name(s) table (MODEL_FOR_CAUSAL_LM_MAPPING_NAMES ...), or {}."""
    lazy = getattr(auto, "_model_mapping", None)
    names = getattr(lazy, "_model_mapping", None) if isinstance(lazy, modeling_auto._LazyAutoMapping) else None
    return names if isinstance(names, dict) and not isinstance(names, modeling_auto._LazyAutoMapping) else {}


def composite_auto(model_type: str, cls_name: str) -> str | None:
    """The Auto class that builds cls_name from model_type's composite config, when the class takes another config
    than that composite one: AutoModelForCausalLM.from_config(Qwen3_5Config) builds Qwen3_5ForCausalLM from
    text_config alone, AutoModelForTextEncoding Llama4TextModel, AutoBackbone Tipsv2's vision backbone. Those cases
    are dumped under the composite type, built that way (docs/truth.md, "Text-only classes of a composite config")."""
    if model_type not in CONFIG_MAPPING:
        return None
    composite = CONFIG_MAPPING[model_type]
    if "text_config" not in (getattr(composite, "sub_configs", {}) or {}):
        return None
    try:
        cc = getattr(getattr(transformers, cls_name, None), "config_class", None)
    except ImportError:  # a class needing a library the dev environment lacks
        return None
    # not the composite model itself, under its own config class or one with the same sub-configs (glmga is
    # Glm46VForConditionalGeneration with GlmgaConfig): a class of one sub-config (text_config, vision_config), or of
    # a config of another kind (JevForDecision, mapped for qwen3_5)
    if (
        not isinstance(cc, type)
        or issubclass(composite, cc)
        or (set(getattr(cc, "sub_configs", {}) or {}) == set(composite.sub_configs))
    ):
        return None
    for name in sorted(dir(modeling_auto)):
        auto = getattr(modeling_auto, name)
        mapping = _names_mapping(auto)
        if isinstance(auto, type) and mapping and hasattr(transformers, name):
            classes = mapping.get(model_type)
            if cls_name == classes or (isinstance(classes, (list, tuple)) and cls_name in classes):
                return name
    return None


def build(cls_name: str, cfg, device: str):
    cls = getattr(transformers, cls_name)
    cfg.architectures = [cls_name]
    # always explicit: _from_config then writes the same dtype into every (sub-)config on both paths
    kw = {"dtype": _dtype_of(cfg) or torch.float32}
    auto = composite_auto(cfg.model_type, cls_name)
    make = getattr(transformers, auto).from_config if auto else cls._from_config
    if device == "meta":
        with torch.device("meta"):
            model = make(cfg, **kw)
    else:
        torch.manual_seed(0)
        model = make(cfg, **kw)
    if type(model).__name__ != cls_name:
        raise RuntimeError(f"{auto} built {type(model).__name__}, not {cls_name}")
    return model


def composite_config_text(cfg, model) -> str:
    """config.json as the composite config class writes it, naming the class built from it and its dtype: the
    folder AutoModelFor*.from_pretrained loads as that class (what the model's own save_pretrained writes is its
    sub-config, with the sub-config's model_type)."""
    c = copy.deepcopy(cfg)
    c.architectures = [type(model).__name__]
    c.dtype = model.config.dtype
    d = tempfile.mkdtemp(prefix="stcase-cfg-")
    try:
        c.save_pretrained(d)
        return Path(d, "config.json").read_text()
    finally:
        shutil.rmtree(d, ignore_errors=True)


class _Recorder:
    """Replaces transformers.modeling_utils.safe_save_file: records what would be written."""

    def __init__(self):
        self.tensors = []  # (name, tensor)

    def __call__(self, tensors, filename, metadata=None):
        for k, v in tensors.items():
            self.tensors.append((k, v))


@contextlib.contextmanager
def _recording():
    rec = _Recorder()
    orig = modeling_utils.safe_save_file
    modeling_utils.safe_save_file = rec
    try:
        yield rec
    finally:
        modeling_utils.safe_save_file = orig


def capture(model, cfg=None) -> dict:
    """Run the real save_pretrained with the writer recording; return layout facts. A class built from a composite
    config (composite_auto) gets that config's config.json instead of the sub-config its save_pretrained writes."""
    sd = model.state_dict()
    buffer_names = {n for n, _ in model.named_buffers()}
    origin = {id(t): n for n, t in sd.items()}
    kept = modeling_utils.remove_tied_weights_from_state_dict(dict(sd), model)
    tied_dropped = [n for n in sd if n not in kept]
    d = tempfile.mkdtemp(prefix="stcase-")
    try:
        with _recording() as rec:
            model.save_pretrained(d, state_dict=dict(sd), max_shard_size="100000GB")
        config_text = Path(d, "config.json").read_text()
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if cfg is not None and composite_auto(cfg.model_type, type(model).__name__):
        config_text = composite_config_text(cfg, model)
    tensors, buffers, unknown, renames, sources = [], [], [], set(), []
    for name, t in rec.tensors:
        tensors.append([name, ST_DTYPE[t.dtype], list(t.shape)])
        src = origin.get(id(t))
        if src is None:
            unknown.append(name)
            continue
        sources.append(src)
        if src in buffer_names:
            buffers.append(name)
        if src != name:
            renames.add(_prefix_pair(src, name))
    # parameters transformers counts but deliberately does not save (_keys_to_ignore_on_save, e.g. Marian's
    # sinusoidal position tables): the invariant parameters == saved - buffers + these
    params = dict(model.named_parameters(remove_duplicate=False))
    ignored = [
        [n, list(params[n].shape)]
        for n in sd
        if n in set(getattr(model, "_keys_to_ignore_on_save", None) or ()) and n in params
    ]
    return {
        "tensors": tensors,
        "buffers": buffers,
        "tied_dropped": tied_dropped,
        "config_text": config_text,
        "ignored_on_save": ignored,
        "sources": sources,
        "converted": unknown,
        "renamed": sorted(renames),
        "parameters": model.num_parameters(),
        "non_persistent": [n for n in buffer_names if n not in sd],
    }


def _prefix_pair(src: str, dst: str) -> tuple[str, str]:
    """(in-memory part, saved part) once the common dotted suffix is removed."""
    a, b = src.split("."), dst.split(".")
    while a and b and a[-1] == b[-1]:
        a.pop()
        b.pop()
    return ".".join(a), ".".join(b)


def read_safetensors_headers(folder: str) -> dict:
    out = {}
    for fn in sorted(os.listdir(folder)):
        if fn.endswith(".safetensors"):
            with open(os.path.join(folder, fn), "rb") as f:
                (n,) = struct.unpack("<Q", f.read(8))
                hdr = json.loads(f.read(n))
            items = sorted(
                ((k, v) for k, v in hdr.items() if k != "__metadata__"), key=lambda kv: kv[1]["data_offsets"]
            )
            for k, v in items:
                out[k] = [v["dtype"], v["shape"]]
    return out


def verify_real(cls_name: str, cfg, layout: dict) -> tuple[bool, str]:
    """Build for real on CPU, save for real, compare. On a difference the REAL save wins: layout is updated
    in place (tensors in file order, config.json as written, parameter count of the real model)."""
    model = build(cls_name, copy.deepcopy(cfg), "cpu")
    auto = composite_auto(cfg.model_type, cls_name)
    d = tempfile.mkdtemp(prefix="stcase-real-")
    problems = []
    try:
        model.save_pretrained(d)
        saved = read_safetensors_headers(d)
        if auto:  # the composite config.json beside the weights: the Auto class must load it as the same class
            Path(d, "config.json").write_text(composite_config_text(cfg, model))
            loaded, info = getattr(transformers, auto).from_pretrained(d, output_loading_info=True)
            if type(loaded).__name__ != cls_name or any(info.get(k) for k in info):
                problems.append(
                    f"{auto}.from_pretrained loads {type(loaded).__name__} with "
                    f"{ {k: list(v)[:3] for k, v in info.items() if v} }"
                )
            if loaded.num_parameters() != model.num_parameters():
                problems.append("the loaded model counts other parameters")
            del loaded
        cfg_text = Path(d, "config.json").read_text()
        real_params = model.num_parameters()
    finally:
        shutil.rmtree(d, ignore_errors=True)
        del model
    mine = {n: [dt, s] for n, dt, s in layout["tensors"]}
    if saved != mine:
        diff = {
            "only_saved": sorted(set(saved) - set(mine))[:5],
            "only_recorded": sorted(set(mine) - set(saved))[:5],
            "differ": [
                [k, mine[k], saved[k]] for k in sorted(k for k in set(saved) & set(mine) if saved[k] != mine[k])[:3]
            ],
        }
        problems.append(f"tensors differ {json.dumps(diff)}")
    if json.loads(cfg_text) != json.loads(layout["config_text"]):
        problems.append("config.json differs")
    if not problems:
        return True, "verified" + (
            f" (and {auto}.from_pretrained loads the folder with this config.json as {cls_name}: "
            "no missing, unexpected or mismatched key)"
            if auto
            else ""
        )
    layout["tensors"] = [[k, dt, s] for k, (dt, s) in saved.items()]
    layout["config_text"] = cfg_text
    layout["parameters"] = real_params
    layout["buffers"] = [b for b in layout["buffers"] if b in saved]
    return False, (
        "the meta capture differed from a real CPU save_pretrained ("
        + "; ".join(problems)
        + "); this case records the REAL save"
    )


# ---------------------------------------------------------------------------------------------------------
# Case generation
# ---------------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Case:
    name: str
    overrides: dict
    sub_overrides: dict
    variant: str
    towers: tuple = ()  # optional sub-configs instantiated (optional_towers)


def _levels(cfg):
    """[(sub_name or None, config object)] : the top level and each sub-config."""
    out = [(None, cfg)]
    for s in _sub_config_names(cfg):
        out.append((s, getattr(cfg, s)))
    return out


def _split(overrides_by_level: dict) -> tuple[dict, dict]:
    top = overrides_by_level.get(None, {})
    subs = {k: v for k, v in overrides_by_level.items() if k is not None and v}
    return dict(top), subs


def _try_build(model_type, cls_name, top, subs, towers=()):
    cfg = make_config(model_type, top, subs, towers)
    model = build(cls_name, cfg, "meta")
    return cfg, model


def robust_overrides(model_type, cls_name, base_levels: dict, wanted_levels: dict, log: list, towers=()):
    """Apply wanted overrides on top of base; if the whole set fails, add them one field at a time."""
    merged = {
        lvl: {**base_levels.get(lvl, {}), **wanted_levels.get(lvl, {})} for lvl in set(base_levels) | set(wanted_levels)
    }
    try:
        _try_build(model_type, cls_name, *_split(merged), towers)
        return merged
    except Exception:
        pass
    cur = {lvl: dict(v) for lvl, v in base_levels.items()}
    # layer count changes go with their per-layer lists: group keys set together by profile_overrides
    for lvl, ov in wanted_levels.items():
        groups = _group_keys(ov)
        for grp in groups:
            trial = {level: dict(v) for level, v in cur.items()}
            trial.setdefault(lvl, {}).update({k: ov[k] for k in grp})
            try:
                _try_build(model_type, cls_name, *_split(trial), towers)
                cur = trial
            except Exception as e:
                log.append(
                    f"{'' if lvl is None else lvl + '.'}{'+'.join(grp)} not varied ({type(e).__name__}: {str(e)[:120]})"
                )
    return cur


def _group_keys(ov: dict) -> list[list[str]]:
    lists = [k for k, v in ov.items() if isinstance(v, list)]
    singles = [k for k in ov if k not in lists]
    groups = []
    for k in singles:
        if re.search(r"layers$|^n_layer$|^depth$|num_hidden_layers", k) and lists:
            groups.append([k] + lists)
            lists = []
        else:
            groups.append([k])
    groups.extend([[k] for k in lists])
    return groups


# Settings a class requires and its config class does not default to (the class asserts on them).
CLASS_REQUIRES: dict[str, dict[str, Any]] = {
    "ReformerModelWithLMHead": {"is_decoder": True},
    "T5GemmaEncoderModel": {"is_encoder_decoder": False},
    # their config classes default vocab_size to None, which the CTC head refuses
    "Wav2Vec2ConformerForCTC": {"vocab_size": 32},
    "Wav2Vec2BertForCTC": {"vocab_size": 32},
}

# Layouts the profile cannot reach, dumped as `small` plus these overrides ({level: {key: value}}, level None for
# the top config, a sub-config's name otherwise). Qwen4-Exp: its full-attention layers need all five QSA indexer
# fields (None by default, so the class default does not build), and its PLE layers need ple_layer_ids (empty by
# default) and an eos_token_id; the profile varies neither, so the dumped cases held linear-attention layers only.
_QWEN4_QSA_PLE = {
    "num_hidden_layers": 4,
    "eos_token_id": 1,
    "layer_types": ["linear_attention", "indexed_attention", "linear_attention", "linear_attention"],
    "indexer_n_heads": 4,
    "indexer_kv_heads": 1,
    "indexer_head_dim": 16,
    "indexer_budget": 64,
    "indexer_compress_ratio": 4,
    "ple_layer_ids": [1, 3, 4],
}
_QWEN4_QSA_PLE_P = {
    **_QWEN4_QSA_PLE,
    "layer_types": ["indexed_attention", "linear_attention", "linear_attention", "indexed_attention"],
    "indexer_n_heads": 2,
    "indexer_head_dim": 24,
    "ple_layer_ids": [3, 2],
    "ngram_size": 4,
    "heads_per_ngram": 4,
    "ple_embed_dim": 48,
    "ngram_vocab_size_base": 1009,
    "make_ngram_vocab_size_divisible_by": 64,
    "ple_conv_kernel_size": 3,
}
# BERT-style layers build cross-attention only in a decoder (the flip alone raises), and the sequence summaries of
# ConvBERT / RoFormer read summary_use_proj with hasattr (not config keys: the profile never sets them)
_CROSS = [
    (
        "cross-attention",
        {None: {"is_decoder": True, "add_cross_attention": True}},
        "small as a decoder with cross-attention",
    )
]
_SUMMARY = [
    (
        "summary-proj",
        {None: {"summary_use_proj": True, "summary_proj_to_labels": True}},
        "small with a sequence-summary projection to the labels",
    )
]
# Gemma-3n text layouts the profile cannot reach (used by gemma3n_text and under gemma3n's text_config)
_GEMMA3N_KV_SHARED = {
    "num_hidden_layers": 7,
    "num_kv_shared_layers": 3,
    "hidden_size_per_layer_input": 24,
    "layer_types": [
        "sliding_attention",
        "full_attention",
        "sliding_attention",
        "sliding_attention",
        "full_attention",
        "sliding_attention",
        "full_attention",
    ],
    "intermediate_size": [96, 160, 96, 128, 96, 64, 192],
    "activation_sparsity_pattern": [0.95, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
}
_GEMMA3N_NO_SHARING = {
    "num_hidden_layers": 3,
    "num_kv_shared_layers": 0,
    "intermediate_size": 72,
    "layer_types": ["sliding_attention", "sliding_attention", "full_attention"],
    "activation_sparsity_pattern": [0.0, 0.0, 0.0],
}
EXTRA_CASES: dict[str, list[tuple[str, dict, str]]] = {
    # PerceptionLM's timm PE tower is timm's architecture plus model_args (a dict the profile does not vary): small
    # towers of both released architectures (PE-L: class token; PE-G: none, MLP ratio 8960/1536) with and without
    # layer scale, the architecture's own pooling head (map: attention pool) or avg (fc_norm), post-norm on and off,
    # non-square images; and PE-G as Perception-LM-8B ships it (47 blocks of 1536)
    "perception_lm": [
        (
            "pe-l-small",
            {
                None: {"projector_pooling_ratio": 2},
                "vision_config": {
                    "architecture": "vit_pe_core_large_patch14_336",
                    "model_args": {
                        "embed_dim": 64,
                        "depth": 2,
                        "img_size": [56, 56],
                        "global_pool": "",
                        "use_post_transformer_norm": False,
                        "init_values": 0.1,
                        "ref_feat_shape": [4, 4],
                    },
                },
            },
            "small with a 2-block PE-L tower laid out as Perception-LM-1B's (64 wide, 56 px, layer scale, no pooling head)",
        ),
        (
            "pe-l-map",
            {
                "vision_config": {
                    "architecture": "vit_pe_core_large_patch14_336",
                    "model_args": {"embed_dim": 48, "depth": 3, "num_heads": 4, "img_size": 42},
                }
            },
            "small with a 3-block PE-L tower at the architecture's own defaults otherwise (attention-pool head, post-norm, "
            "no layer scale)",
        ),
        (
            "pe-g-avg",
            {
                None: {"vision_use_cls_token": False},
                "vision_config": {
                    "architecture": "vit_pe_core_gigantic_patch14_448",
                    "model_args": {
                        "embed_dim": 96,
                        "depth": 2,
                        "num_heads": 4,
                        "img_size": [28, 42],
                        "global_pool": "avg",
                        "init_values": 0.5,
                    },
                },
            },
            "small with a 2-block PE-G tower (no class token), avg pooling (fc_norm, no post-norm), 28x42 px",
        ),
        (
            "pe-g-post-norm",
            {
                None: {"vision_use_cls_token": False},
                "vision_config": {
                    "architecture": "vit_pe_core_gigantic_patch14_448",
                    "model_args": {
                        "embed_dim": 64,
                        "depth": 1,
                        "img_size": [28, 28],
                        "global_pool": "",
                        "use_post_transformer_norm": True,
                        "init_values": 0.1,
                        "ref_feat_shape": [2, 2],
                    },
                },
            },
            "small with a 1-block PE-G tower 64 wide (MLP int(64 * 8960 / 1536)), post-norm on, no pooling head",
        ),
        (
            "pe-g-8b",
            {
                None: {"vision_use_cls_token": False, "projector_pooling_ratio": 2},
                "vision_config": {
                    "architecture": "vit_pe_core_gigantic_patch14_448",
                    "model_args": {
                        "embed_dim": 1536,
                        "depth": 47,
                        "img_size": [448, 448],
                        "global_pool": "",
                        "use_post_transformer_norm": False,
                        "init_values": 0.1,
                        "ref_feat_shape": [32, 32],
                    },
                },
            },
            "small text with the PE-G tower of Perception-LM-8B (47 blocks of 1536, 448 px, no pooling head)",
        ),
    ],
    # width multipliers are floats the profile does not vary; each rounds channel counts its own way
    "mobilenet_v1": [
        (f"depth-{m}", {None: {"depth_multiplier": m}}, f"small with depth_multiplier {m}") for m in (0.25, 0.75)
    ],
    "mobilenet_v2": [
        (f"depth-{m}", {None: {"depth_multiplier": m}}, f"small with depth_multiplier {m}") for m in (0.35, 0.75, 1.4)
    ],
    "mobilevitv2": [
        (f"width-{m}", {None: {"width_multiplier": m}}, f"small with width_multiplier {m}") for m in (0.5, 1.75)
    ],
    "pp_lcnet": [(f"scale-{m}", {None: {"scale": m}}, f"small with scale {m}") for m in (0.25, 2.5)],
    # strings and lists the profile keeps: RegNet's X blocks (no squeeze-excitation) at widths that are not
    # multiples of the group width; SwiftFormer without some downsamplings
    "regnet": [
        (
            "x-odd-widths",
            {None: {"layer_type": "x", "hidden_sizes": [24, 56, 152, 368], "groups_width": 8}},
            "small with X blocks and widths not multiples of the group width",
        )
    ],
    "swiftformer": [
        (
            "no-downsample-2",
            {None: {"downsamples": [True, False, True, True]}},
            "small with the second downsampling skipped",
        )
    ],
    "levit": [
        (
            "ratios",
            {None: {"mlp_ratio": [1, 3, 2], "attention_ratio": [1, 2, 4], "key_dim": [8, 16, 24]}},
            "small with per-stage MLP and attention ratios and key widths that differ",
        )
    ],
    "bit": [
        (
            "bottleneck-wide",
            {None: {"layer_type": "bottleneck", "width_factor": 2, "depths": [1, 2, 1, 1]}},
            "small with bottleneck blocks, width_factor 2 and uneven depths",
        )
    ],
    # which layers are sparse: every sparse_step-th (the profile keeps 4)
    "nllb-moe": [
        (
            "steps-1-2",
            {None: {"encoder_sparse_step": 1, "decoder_sparse_step": 2}},
            "small with every encoder layer and every second decoder layer sparse",
        )
    ],
    # position_embeddings_type is a string the profile does not vary
    "wav2vec2-conformer": [
        ("rotary", {None: {"position_embeddings_type": "rotary"}}, "small with rotary positions"),
        ("no-positions", {None: {"position_embeddings_type": None}}, "small without position embeddings"),
    ],
    "wav2vec2-bert": [
        ("rotary", {None: {"position_embeddings_type": "rotary"}}, "small with rotary positions"),
        ("relative", {None: {"position_embeddings_type": "relative"}}, "small with relative positions"),
        ("no-positions", {None: {"position_embeddings_type": None}}, "small without position embeddings"),
    ],
    # the profile moves the encoder_config sizes with the decoder's (same defaults): an encoder of its own sizes,
    # wider than the decoder (decoder.proj appears, pos_emb is encoder-wide), as moonshine-streaming-small/-medium
    "moonshine_streaming": [
        (
            "encoder-sizes",
            {
                "encoder_config": {
                    "hidden_size": 80,
                    "intermediate_size": 144,
                    "num_hidden_layers": 3,
                    "num_attention_heads": 5,
                    "num_key_value_heads": 5,
                    "head_dim": 24,
                    "sliding_windows": [[16, 4], [16, 0], [16, 4]],
                    "sample_rate": 8000,
                }
            },
            "small with an encoder wider than the decoder (own layers, heads, head_dim, MLP; 8 kHz frames)",
        )
    ],
    "qwen4_exp_text": [
        ("qsa-ple", {None: _QWEN4_QSA_PLE}, "small with an indexed (QSA) attention layer and three PLE layers"),
        (
            "qsa-ple-p",
            {None: _QWEN4_QSA_PLE_P},
            "small with two indexed attention layers, two PLE layers (ple_layer_ids unsorted) and other n-gram sizes",
        ),
    ],
    "qwen4_exp": [
        (
            "qsa-ple",
            {"text_config": _QWEN4_QSA_PLE},
            "small with an indexed (QSA) attention layer and three PLE layers in text_config",
        ),
        (
            "qsa-ple-p",
            {"text_config": _QWEN4_QSA_PLE_P},
            "small with two indexed attention layers, two PLE layers "
            "(ple_layer_ids unsorted) and other n-gram sizes in text_config",
        ),
    ],
    # Gemma3nTextConfig's 35 layers (15 KV-shared) are kept by the profile: fewer fail transformers' KV-sharing
    # check unless layer_types and num_kv_shared_layers move with them
    "gemma3n_text": [
        (
            "layers-kv-shared",
            {None: _GEMMA3N_KV_SHARED},
            "small with 7 layers (the last 3 reuse KV), per-layer MLP widths and a 24-wide per-layer input",
        ),
        ("layers-no-sharing", {None: _GEMMA3N_NO_SHARING}, "small with 3 layers and no KV sharing"),
    ],
    # Gemma-3n: the same text layers, and the profile moves the vision / audio widths with the text width (same
    # default): towers narrower / wider than the text, the audio subsampler's channel / kernel / stride lists (the
    # input projection's width follows them)
    "gemma3n": [
        (
            "layers-kv-shared",
            {
                "text_config": _GEMMA3N_KV_SHARED,
                "vision_config": {"hidden_size": 48, "vocab_size": 40},
                "audio_config": {
                    "hidden_size": 90,
                    "conf_num_attention_heads": 4,
                    "conf_num_hidden_layers": 3,
                    "sscp_conv_channel_size": [24, 16],
                    "sscp_conv_kernel_size": [[3, 3], [5, 5]],
                    "sscp_conv_stride_size": [[2, 2], [1, 3]],
                    "input_feat_size": 80,
                    "conf_conv_kernel_size": 7,
                    "vocab_size": 40,
                },
            },
            "small with 7 text layers (the last 3 reuse KV), per-layer MLP widths, a 24-wide per-layer input, a narrower "
            "vision embedder, a 3-layer audio tower 90 wide with 4 heads and other subsampling channels, kernels, strides",
        ),
        (
            "layers-no-sharing",
            {
                "text_config": _GEMMA3N_NO_SHARING,
                "vision_config": {"hidden_size": 72, "vocab_size": 24},
                "audio_config": {
                    "hidden_size": 48,
                    "conf_num_hidden_layers": 2,
                    "sscp_conv_channel_size": [16, 8],
                    "input_feat_size": 41,
                    "vocab_size": 24,
                },
            },
            "small with 3 text layers and no KV sharing, a wider vision embedder, a 2-layer audio tower and an odd "
            "number of mel bins",
        ),
    ],
    # LongT5's encoder attention is a string switch (local / transient-global) no boolean flip reaches
    "longt5": [
        (
            "tglobal",
            {None: {"encoder_attention_type": "transient-global"}},
            "small with transient-global encoder attention",
        )
    ],
    # DeBERTa v1 as deberta-base / -large ship it (relative attention, pos_att_type "c2p|p2c", no absolute
    # positions or token types): the profile leaves pos_att_type None; talking_head is read with getattr
    "deberta": [
        (
            "rel-c2p-p2c",
            {
                None: {
                    "relative_attention": True,
                    "pos_att_type": "c2p|p2c",
                    "position_biased_input": False,
                    "type_vocab_size": 0,
                }
            },
            "small with relative attention and both position projections (c2p, p2c), as deberta-base ships",
        ),
        (
            "rel-p2c-talking",
            {
                None: {
                    "relative_attention": True,
                    "pos_att_type": ["p2c"],
                    "max_relative_positions": 48,
                    "talking_head": True,
                    "embedding_size": 48,
                }
            },
            "small with p2c only, max_relative_positions, talking heads and a narrower embedding_size (getattr keys)",
        ),
    ],
    "tapas": [
        ("aggregation", {None: {"num_aggregation_labels": 4}}, "small with an aggregation head (WTQ-style)"),
        *_CROSS,
    ],
    "convbert": [*_CROSS, *_SUMMARY],
    "roformer": [*_CROSS, *_SUMMARY],
    **{mt: list(_CROSS) for mt in ("big_bird", "rembert", "megatron-bert", "roc_bert", "roberta-prelayernorm")},
    "xmod": [
        *_CROSS,
        (
            "languages",
            {None: {"languages": ["en_XX", "de_DE", "fr_XX"], "default_language": "de_DE"}},
            "small with three language adapters per layer",
        ),
    ],
    "flaubert": [("langs", {None: {"n_langs": 3, "use_lang_emb": True}}, "small with language embeddings (n_langs 3)")],
    "mobilebert": [
        (
            "layer-norm-one-ffn",
            {None: {"normalization_type": "layer_norm", "num_feedforward_networks": 1}},
            "small with LayerNorm instead of NoNorm and no stacked FFNs",
        )
    ],
    # the VQ-VAE's attention blocks sit at the levels whose resolution attn_resolutions lists (None by default),
    # and its levels follow channel_multiplier (kept at the default): another list, attention at two levels, and
    # no attention at all
    "chameleon": [
        (
            "vq-attention",
            {
                "vq_config": {
                    "channel_multiplier": [1, 2, 4, 4],
                    "attn_resolutions": [128, 64],
                    "num_res_blocks": 3,
                    "resolution": 256,
                    "embed_dim": 48,
                    "latent_channels": 40,
                }
            },
            "small with a 4-level VQ-VAE (1, 2, 4, 4), attention at resolutions 128 and 64, three blocks per level",
        ),
        (
            "vq-no-attention",
            {"vq_config": {"attn_type": "none", "attn_resolutions": [256]}},
            "small with attn_type none (no attention blocks, not even in the mid block)",
        ),
    ],
    # Emu3's VQ-VAE: levels (channel_multiplier), attention levels (attn_resolutions, level indices) and temporal
    # convs (log2 temporal_downsample_factor) are lists and a power the profile keeps
    "emu3": [
        (
            "vq-levels",
            {
                "vq_config": {
                    "channel_multiplier": [1, 1, 2],
                    "attn_resolutions": [0, 2],
                    "temporal_downsample_factor": 8,
                    "num_res_blocks": 1,
                }
            },
            "small with a 3-level VQ-VAE (1, 1, 2), attention at levels 0 and 2, three temporal convs each way, "
            "one resnet block per level",
        )
    ],
    # DiffusionGemma's full-attention overrides sit in per_layer_config at the default's full layers (5, 11, ...),
    # which the shrunk layer counts cut away: the released model's wider heads and fewer KV heads on full layers
    "diffusion_gemma": [
        (
            "global-layers",
            {"text_config": {"per_layer_config": {"1": {"head_dim": 32, "num_key_value_heads": 1}}}},
            "small with its full layer's own head_dim and KV heads (diffusiongemma-26B-A4B: 512, 2)",
        )
    ],
    # Gemma-4 unified assistant: the profile's text_config overrides sit on the class default's (30 layers, all KV-shared),
    # which does not build, so every profile case keeps the required text_config: these vary it (each keeps an unshared layer per type)
    "gemma4_unified_assistant": [
        (
            "text-2of4-shared",
            {
                None: {"use_ordered_embeddings": True, "num_centroids": 20, "backbone_hidden_size": 48},
                "text_config": {
                    "vocab_size": 500,
                    "hidden_size": 64,
                    "intermediate_size": 112,
                    "num_hidden_layers": 4,
                    "num_kv_shared_layers": 2,
                    "layer_types": ["sliding_attention", "full_attention"] * 2,
                    "num_attention_heads": 4,
                    "num_key_value_heads": 2,
                    "head_dim": 16,
                    "attention_k_eq_v": True,
                    "use_double_wide_mlp": True,
                    "per_layer_config": {
                        "1": {"head_dim": 32, "num_key_value_heads": 1},
                        "3": {"head_dim": 32, "num_key_value_heads": 1},
                    },
                },
            },
            "small text: layers 2-3 KV-shared (double-wide MLP), K=V full layers with their own head_dim and one KV head, "
            "ordered embeddings (20 centroids)",
        ),
        (
            "text-1of5-shared",
            {
                None: {"tie_word_embeddings": False, "backbone_hidden_size": 40},
                "text_config": {
                    "vocab_size": 613,
                    "hidden_size": 96,
                    "intermediate_size": 176,
                    "num_hidden_layers": 5,
                    "num_kv_shared_layers": 1,
                    "layer_types": ["full_attention"] + ["sliding_attention"] * 3 + ["full_attention"],
                    "num_attention_heads": 6,
                    "num_key_value_heads": 3,
                    "head_dim": 24,
                    "attention_bias": True,
                    "per_layer_config": {"0": {"head_dim": 48}, "4": {"head_dim": 48}},
                },
            },
            "small text: the last layer KV-shared, attention biases, full layers 0 and 4 with their own head_dim, head untied",
        ),
        (
            "text-3of6-shared",
            {
                None: {
                    "use_ordered_embeddings": True,
                    "num_centroids": 8,
                    "centroid_intermediate_top_k": 4,
                    "dtype": "bfloat16",
                },
                "text_config": {
                    "vocab_size": 737,
                    "hidden_size": 128,
                    "intermediate_size": 144,
                    "num_hidden_layers": 6,
                    "num_kv_shared_layers": 3,
                    "layer_types": ["sliding_attention", "sliding_attention", "full_attention"] * 2,
                    "num_attention_heads": 8,
                    "num_key_value_heads": 4,
                    "head_dim": 20,
                    "attention_k_eq_v": True,
                    "attention_bias": True,
                    "use_double_wide_mlp": True,
                    "per_layer_config": {
                        "2": {"head_dim": 40, "num_key_value_heads": 2},
                        "5": {"head_dim": 40, "num_key_value_heads": 2},
                    },
                },
            },
            "small text in bfloat16: layers 3-5 KV-shared, K=V, biases, double-wide MLP, ordered embeddings (8 centroids)",
        ),
    ],
    # DBRX's attention and MoE sizes live in sub-configs the profile leaves at their defaults (one KV head)
    "dbrx": [
        (
            "gqa-experts",
            {
                "attn_config": {"kv_n_heads": 2, "clip_qkv": 8},
                "ffn_config": {"moe_num_experts": 6, "moe_top_k": 2, "ffn_hidden_size": 24},
            },
            "small with two KV heads, six experts (top 2) and another expert width, as dbrx-instruct's sub-configs set",
        )
    ],
    # per-stage lists the profile keeps at their defaults (it varies scalars): each stage its own value (CvT
    # indexes a stage's drop-path rates by the stage number, so stage i needs more than i layers)
    "cvt": [
        (
            "stages",
            {
                None: {
                    "depth": [1, 3, 3],
                    "embed_dim": [16, 24, 40],
                    "num_heads": [1, 2, 4],
                    "mlp_ratio": [2.0, 3.0, 4.0],
                    "kernel_qkv": [3, 5, 3],
                    "padding_kv": [1, 2, 1],
                    "padding_q": [1, 2, 1],
                    "qkv_bias": [True, False, True],
                    "patch_sizes": [7, 5, 3],
                    "patch_padding": [2, 2, 1],
                    "stride_kv": [2, 1, 2],
                    "cls_token": [False, False, True],
                }
            },
            "small with every per-stage list changed (depths, widths, heads, MLP ratios, kernels, qkv bias)",
        ),
        (
            "projections",
            {
                None: {
                    "depth": [1, 2, 3],
                    "embed_dim": [16, 24, 32],
                    "num_heads": [1, 2, 2],
                    "qkv_projection_method": ["avg", "linear", "dw_bn"],
                }
            },
            "small with average-pool and linear query/key/value projections",
        ),
    ],
    "efficientnet": [
        (
            "blocks",
            {
                None: {
                    "kernel_sizes": [3, 5, 3, 5, 3, 5, 3],
                    "in_channels": [32, 24, 32, 48, 96, 128, 160],
                    "out_channels": [24, 32, 48, 96, 128, 160, 256],
                    "num_block_repeats": [1, 1, 2, 1, 2, 1, 1],
                    "expand_ratios": [1, 4, 6, 3, 6, 4, 6],
                    "strides": [1, 2, 1, 2, 1, 2, 1],
                    "depth_coefficient": 1.2,
                    "width_coefficient": 1.1,
                }
            },
            "small with every per-block list changed and fractional width/depth coefficients",
        )
    ],
    "hiera": [
        (
            "stages",
            {
                None: {
                    "depths": [1, 2, 3, 1],
                    "num_heads": [1, 1, 2, 4],
                    "embed_dim_multiplier": 1.5,
                    "masked_unit_attention": [True, False, False, False],
                    "mlp_ratio": 3.0,
                }
            },
            "small with other per-stage depths and heads, a 1.5 width multiplier and MLP ratio 3",
        )
    ],
    "focalnet": [
        (
            "stages",
            {None: {"depths": [1, 2, 1, 1], "focal_levels": [1, 2, 3, 2], "focal_windows": [3, 5, 3, 7]}},
            "small with per-stage depths, focal levels and windows that differ",
        )
    ],
    "convnext": [
        (
            "stages",
            {None: {"depths": [2, 1], "hidden_sizes": [40, 24]}},
            "small with other per-stage depths and a narrower second stage",
        )
    ],
    # Granite 4 Vision: the number of deepstack projectors is len(deepstack_layer_map) (a list the profile keeps) and
    # the released checkpoints' vision tower is SigLIP, not the class default's CLIP
    "granite4_vision": [
        (
            "siglip-2-pairs",
            {None: {"deepstack_layer_map": [[-2, 1], [-1, 0]]}, "vision_config": {"model_type": "siglip_vision_model"}},
            "small with a SigLIP vision tower (as granite-4.0-3b-vision ships) and two deepstack pairs",
        )
    ],
    # DeepSeek-OCR-2's SAM and Qwen2 encoder configs sit one level further down (vision_config.sam_config /
    # .encoder_config), where the profile does not reach: every other case keeps the class-default towers
    "deepseek_ocr2": [
        (
            "vision-small",
            {
                "vision_config": {
                    "sam_config": {
                        "hidden_size": 64,
                        "num_hidden_layers": 3,
                        "num_attention_heads": 4,
                        "image_size": 64,
                        "patch_size": 8,
                        "window_size": 4,
                        "global_attn_indexes": [1],
                        "output_channels": 32,
                        "downsample_channels": [48, 80],
                    },
                    "encoder_config": {
                        "hidden_size": 80,
                        "intermediate_size": 112,
                        "num_hidden_layers": 2,
                        "num_attention_heads": 4,
                        "num_key_value_heads": 2,
                    },
                }
            },
            "small with small SAM (one global block of three) and Qwen2 encoder towers",
        ),
        (
            "vision-p",
            {
                "vision_config": {
                    "sam_config": {
                        "hidden_size": 96,
                        "num_hidden_layers": 4,
                        "num_attention_heads": 6,
                        "image_size": 96,
                        "patch_size": 16,
                        "window_size": 3,
                        "global_attn_indexes": [0, 3],
                        "output_channels": 40,
                        "downsample_channels": [56, 72],
                        "mlp_dim": 160,
                        "qkv_bias": False,
                        "num_channels": 1,
                    },
                    "encoder_config": {
                        "hidden_size": 72,
                        "intermediate_size": 144,
                        "num_hidden_layers": 3,
                        "num_attention_heads": 6,
                        "num_key_value_heads": 3,
                        "head_dim": 16,
                    },
                }
            },
            "small with other SAM sizes (explicit mlp_dim, no qkv bias, one channel) and an encoder head_dim apart "
            "from hidden / heads",
        ),
        (
            "vision-no-pos",
            {
                "vision_config": {
                    "sam_config": {
                        "hidden_size": 64,
                        "num_hidden_layers": 2,
                        "num_attention_heads": 2,
                        "image_size": 32,
                        "patch_size": 8,
                        "window_size": 2,
                        "global_attn_indexes": [1],
                        "output_channels": 24,
                        "downsample_channels": [32, 48],
                        "use_abs_pos": False,
                        "use_rel_pos": False,
                        "mlp_ratio": 2.0,
                    },
                    "encoder_config": {
                        "hidden_size": 48,
                        "intermediate_size": 64,
                        "num_hidden_layers": 1,
                        "num_attention_heads": 3,
                        "num_key_value_heads": 1,
                    },
                }
            },
            "small with a SAM without absolute or relative positions and an MLP ratio of 2",
        ),
        (
            "sparse-first",
            {"text_config": {"mlp_layer_types": ["sparse", "dense"]}},
            "small with the MoE layer first and the dense one second (mlp_layer_types, not a dense prefix)",
        ),
    ],
}


def plan_cases(model_type: str, cls_name: str, head_labels: bool) -> tuple[list[Case], list[str]]:
    """Cases for one (model_type, class); returns (cases, notes about fields that could not be varied)."""
    cases, log = _plan_cases(model_type, cls_name, head_labels)
    small = next((c for c in cases if c.name == "small"), None)
    for name, extra, why in EXTRA_CASES.get(model_type, []) if small is not None else []:
        assert small is not None  # the loop runs only with a small case
        top = {**small.overrides, **extra.get(None, {})}
        subs = {
            lvl: {**small.sub_overrides.get(lvl, {}), **extra.get(lvl, {})}
            for lvl in {*small.sub_overrides, *extra}
            if lvl is not None
        }
        cases.append(Case(name, top, subs, f"perturbed: {why}", small.towers))
    req = CLASS_REQUIRES.get(cls_name, {})
    for c in cases:
        c.overrides = {**c.overrides, **req}
        if req and c.name == "default":
            c.variant = "default except " + ", ".join(f"{k}={v}" for k, v in req.items()) + f" ({cls_name} requires it)"
    treq = TYPE_REQUIRES.get(model_type, {})
    sreq = [f"{sub}.{k}={v}" for sub, keys in SUB_REQUIRES.get(model_type, {}).items() for k, v in keys.items()]
    for c in cases:
        if (treq or sreq) and c.variant.startswith("default"):
            said = "; ".join(
                (
                    [", ".join(f"{k}={v}" for k, v in treq.items()) + " (the class default leaves it None)"]
                    if treq
                    else []
                )
                + ([", ".join(sreq) + " (the class default's sub-config does not build without it)"] if sreq else [])
            )
            c.variant = f"default except {said}" if c.variant == "default" else f"{c.variant}; {said}"
    return cases, log


def _plan_cases(model_type: str, cls_name: str, head_labels: bool) -> tuple[list[Case], list[str]]:
    cases, log = _plan_cases_from(model_type, cls_name, head_labels, ())
    towers = tuple(optional_towers(model_type))
    if towers:
        # the same cases with every optional tower built (its class defaults, then perturbed like the rest),
        # named towers-*; and, with several towers, each one alone at the small profile (only-<sub>-small)
        tcases, tlog = _plan_cases_from(model_type, cls_name, head_labels, towers)
        listed = ", ".join(towers)
        for c in tcases:
            c.name = f"towers-{c.name}"
            req = "; ".join(
                f"{sub}.{k}={v}" for sub, kv in TOWER_REQUIRES.get(model_type, {}).items() for k, v in kv.items()
            )
            req = f" ({req}: read by the model, not declared by the sub-config class)" if req else ""
            c.variant = (
                f"default except {listed} instantiated with the declared class defaults{req} (the class "
                f"default leaves them None)"
                if c.variant == "default"
                else f"{c.variant}; with {listed} instantiated{req}"
            )
        # a text flip was already dumped without the towers: only the towers' own flips are repeated
        cases += [
            c
            for c in tcases
            if not c.name.startswith("towers-flip-") or c.name[len("towers-flip-") :].split(".")[0] in towers
        ]
        log += [x for x in tlog if x not in log]
        if len(towers) > 1:
            for sub in towers:
                small = next(c for c in tcases if c.name == "towers-small")
                subs = {k: v for k, v in small.sub_overrides.items() if k not in towers or k == sub}
                cases.append(
                    Case(
                        f"only-{sub}-small",
                        dict(small.overrides),
                        subs,
                        f"perturbed: sizes shrunk (small profile); only {sub} instantiated",
                        (sub,),
                    )
                )
    return cases, log


def tower_extra_overrides(obj, have: dict, idx: int) -> dict:
    """For an instantiated optional tower only (other types' cases stay as dumped): its output widths named
    ``*_dims`` (Gemma-4's output_proj_dims) and its small integer lists (subsampling_conv_channels) vary too."""
    out: dict[str, Any] = {}
    for key, v in obj.to_dict().items():
        if key in have or key in BASE_FIELDS:
            continue
        if isinstance(v, int) and not isinstance(v, bool) and key.endswith("_dims") and v > 64:  # output_proj_dims
            out[key] = (32, 48, 40, 56)[idx]
        elif NEVER_VARY.search(key):
            continue
        elif (
            isinstance(v, list)
            and 0 < len(v) <= 4
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 8 for x in v)
            and "layer" not in key
        ):
            out[key] = [max(4, x * (1, 1, 2, 1)[idx] // (4, 2, 2, 8)[idx]) // 4 * 4 for x in v]
    return out


def _plan_cases_from(model_type: str, cls_name: str, head_labels: bool, towers: tuple) -> tuple[list[Case], list[str]]:
    log: list[str] = []
    base = make_config(model_type, {}, {}, towers)
    levels = _levels(base)
    req = CLASS_REQUIRES.get(cls_name, {})
    cases = [Case("default", {}, {}, "default", towers)]
    prof = []
    for idx in range(4):
        coupled = coupled_values(levels, idx)
        wanted = {lvl: profile_overrides(obj, idx, coupled) for lvl, obj in levels}
        for lvl, obj in levels:
            if lvl in towers:
                wanted[lvl].update(tower_extra_overrides(obj, wanted[lvl], idx))
        if head_labels and idx < 2:
            wanted.setdefault(None, {})["num_labels"] = (3, 5)[idx]
        if head_labels and idx == 3:
            wanted.setdefault(None, {})["num_labels"] = 7
        prof.append(wanted)
    small = robust_overrides(model_type, cls_name, {None: dict(req)} if req else {}, prof[0], log, towers)
    cases.append(Case("small", *_split(small), "perturbed: sizes shrunk (small profile)", towers))
    for idx, nm in ((1, "p1"), (2, "p2"), (3, "p3")):
        want = {lvl: dict(v) for lvl, v in prof[idx].items()}
        if idx == 1:
            want.setdefault(None, {})["dtype"] = "bfloat16"
        if idx in (1, 2):
            for lvl, obj in levels:
                for b in structural_bools(obj):
                    want.setdefault(lvl, {})[b] = not getattr(obj, b)
        got = robust_overrides(model_type, cls_name, small, want, log, towers)
        what = (
            "every size field changed"
            + (", dtype bfloat16" if idx == 1 else "")
            + (", structural booleans flipped" if idx in (1, 2) else ", booleans at class defaults")
        )
        cases.append(Case(nm, *_split(got), f"perturbed: {what}", towers))
    for lvl, obj in levels:
        for b in structural_bools(obj):
            trial = {level: dict(v) for level, v in small.items()}
            trial.setdefault(lvl, {})[b] = not getattr(obj, b)
            field = b if lvl is None else f"{lvl}.{b}"
            cases.append(
                Case(f"flip-{field}", *_split(trial), f"perturbed: small with {field}={not getattr(obj, b)}", towers)
            )
    return cases, log


def shrink_default(model_type: str, cls_name: str, n_tensors: int) -> Case | None:
    """Huge default layouts are dumped with fewer layers (same everything else)."""
    base = CONFIG_MAPPING[model_type]()
    for lvl, obj in _levels(base):
        d = obj.to_dict()
        lk = _layer_key(type(obj), d)
        if not lk or not isinstance(d.get(lk), int) or d[lk] <= 6:
            continue
        n_old = d[lk]
        per_layer = max(1, n_tensors // max(1, n_old))
        n_new = max(6, min(n_old, MAX_DEFAULT_TENSORS // per_layer))
        fkd = d.get("first_k_dense_replace")
        if isinstance(fkd, int):
            n_new = max(n_new, fkd + 3)
        if n_new >= n_old:
            return None
        ov = {lk: n_new}
        for k, v in d.items():
            if isinstance(v, list) and len(v) == n_old:
                ov[k] = v[:n_new]
            elif isinstance(v, dict) and v and all(str(x).isdigit() for x in v):
                ov[k] = {x: y for x, y in v.items() if int(x) < n_new}
        top, subs = ({**ov}, {}) if lvl is None else ({}, {lvl: ov})
        return Case(
            "default",
            top,
            subs,
            f"default except {'' if lvl is None else lvl + '.'}{lk}={n_new} "
            f"(class default {n_old}; layer count shrunk to keep the dump small)",
        )
    return None


def _default_fallback(model_type: str, cls_name: str, msg: str) -> Case | None:
    """A class default that transformers cannot build: retry with a null head_dim filled in as hidden/heads."""
    base = CONFIG_MAPPING[model_type]()
    for lvl, obj in _levels(base):
        d = obj.to_dict()
        amap = _canon_to_stored(type(obj))
        hk, hs, nh, kv = (
            amap.get(k, k) for k in ("head_dim", "hidden_size", "num_attention_heads", "num_key_value_heads")
        )
        ov, why = {}, []
        if hk in d and d[hk] is None and isinstance(d.get(hs), int) and isinstance(d.get(nh), int):
            ov[hk] = d[hs] // d[nh]
            why.append(f"{hk}={ov[hk]} (= hidden/heads)")
        if kv in d and d[kv] is None and isinstance(d.get(nh), int):
            ov[kv] = d[nh]
            why.append(f"{kv}={ov[kv]} (= heads)")
        if ov:
            top, subs = (ov, {}) if lvl is None else ({}, {lvl: ov})
            where = "" if lvl is None else f"{lvl}."
            return Case(
                "default",
                top,
                subs,
                f"default except {where}{', '.join(why)}; the class default null does not build: {msg}",
            )
    return None


def write_case(model_type: str, case_name: str, cls_name: str, lay: dict, variant: str, notes: str):
    folder = CASES / model_type / case_name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(lay["config_text"])
    auto = composite_auto(model_type, cls_name)
    built = f"{auto}.from_config({CONFIG_MAPPING[model_type].__name__})" if auto else f"{cls_name}._from_config"
    doc = {
        "class": cls_name,
        "produced_by": f"transformers {TF_VERSION} {built} on meta; real save_pretrained with the "
        f"safetensors writer recording; torch {TORCH_VERSION}",
        "tensors": lay["tensors"],
    }
    with open(folder / "layout.json.gz", "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, compresslevel=9, filename="") as gz:
            gz.write(json.dumps(doc, separators=(",", ":")).encode())
    truth = {
        "class": cls_name,
        "parameters": lay["parameters"],
        "persistent_buffers": lay["buffers"],
        "tied_dropped": lay["tied_dropped"],
        "variant": variant,
        "notes": notes,
    }
    if lay["ignored_on_save"]:
        truth["parameters_not_saved"] = lay["ignored_on_save"]
    if lay["renamed"]:
        truth["renamed_on_save"] = [list(p) for p in lay["renamed"]]
    if lay["converted"]:
        # tensors produced by a weight-conversion revert (e.g. fused experts split), as name templates
        truth["converted_on_save"] = sorted(
            {re.sub(r"\.\d+\.", ".N.", re.sub(r"\.\d+\.", ".N.", n)) for n in lay["converted"]}
        )
    (folder / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")


def dump_config_class(model_type: str):
    cls = CONFIG_MAPPING[model_type]
    cfg = cls()
    subs = {}
    for k, v in (getattr(cls, "sub_configs", {}) or {}).items():
        inst = getattr(cfg, k, None)
        subs[k] = {"declared": v.__name__, "default_instance": type(inst).__name__ if inst is not None else None}
    doc = {
        "class": cls.__name__,
        "model_type": model_type,
        "produced_by": f"transformers {TF_VERSION}",
        "defaults": json.loads(cfg.to_json_string(use_diff=False)),
        "attribute_map": dict(getattr(cls, "attribute_map", {}) or {}),
        "sub_configs": subs,
    }
    for k in ("transformers_version",):
        doc["defaults"].pop(k, None)
    CONFIG_CLASSES.mkdir(parents=True, exist_ok=True)
    (CONFIG_CLASSES / f"{model_type}.json").write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")


def n_elements(tensors) -> int:
    return sum(math.prod(s) for _, _, s in tensors)


def dump_class(model_type: str, cls_name: str, verify: bool, extra_notes: str = "") -> dict:
    """All cases for one (model_type, class). Returns a summary dict; raises if nothing could be built."""
    if not hasattr(transformers, cls_name):
        raise RuntimeError(f"transformers {TF_VERSION} has no class {cls_name}")
    head_labels = bool(re.search(r"For(Sequence|Token|Image|Audio)Classification|ForMultipleChoice", cls_name))
    cases, log = plan_cases(model_type, cls_name, head_labels)
    summary: dict[str, Any] = {"cases": 0, "verified": 0, "failed": []}
    small_layout = towers_small = None
    neutral_towers: list[str] = []
    for case in cases:
        t0 = time.time()
        try:
            cfg, model = _try_build(model_type, cls_name, case.overrides, case.sub_overrides, case.towers)
            lay = capture(model, cfg)
            del model
            variant = case.variant
            if case.name == "default" and len(lay["tensors"]) > MAX_DEFAULT_TENSORS:
                sh = shrink_default(model_type, cls_name, len(lay["tensors"]))
                if sh is not None:
                    cfg, model = _try_build(model_type, cls_name, sh.overrides, sh.sub_overrides)
                    lay = capture(model, cfg)
                    del model
                    # keep what the case already said it changes (required keys) after the layer count
                    variant = sh.variant + (
                        "" if case.variant == "default" else "; " + case.variant.removeprefix("default except ")
                    )
            if case.name.startswith("flip-") and small_layout is not None and lay["tensors"] == small_layout:
                continue  # layout-neutral flag: recorded in the small case's notes instead
            if case.name.startswith("towers-flip-") and towers_small is not None and lay["tensors"] == towers_small:
                neutral_towers.append(case.name[len("towers-flip-") :])
                continue
            notes = [extra_notes] if extra_notes else []
            auto = composite_auto(model_type, cls_name)
            if auto:
                notes.append(COMPOSITE_NOTE.format(auto=auto, cls=cls_name, mt=model_type, v=TF_VERSION))
            if case.name == "small":
                small_layout = lay["tensors"]
            if case.name == "towers-small":
                towers_small = lay["tensors"]
            if case.name in ("small", "p1") and log:
                notes.append("Fields left at the small value because varying them failed to build: " + "; ".join(log))
            n_el = n_elements(lay["tensors"])
            if verify and n_el <= VERIFY_MAX:
                ok, msg = verify_real(cls_name, cfg, lay)
                summary["verified"] += ok
                notes.append(f"Real CPU save_pretrained cross-check: {msg}." if ok else f"Cross-check: {msg}.")
                if not ok:
                    summary["real_differs"] = summary.get("real_differs", []) + [case.name]
            elif verify:
                notes.append("Not cross-checked by a real save (too large); meta capture only.")
            if lay["non_persistent"]:
                notes.append(
                    f"{len(lay['non_persistent'])} non-persistent buffers are not saved "
                    f"(e.g. {sorted(lay['non_persistent'])[0]})."
                )
            write_case(model_type, f"{cls_name}-{case.name}", cls_name, lay, variant, " ".join(notes))
            summary["cases"] += 1
        except Exception as e:
            msg = _reason(e)
            if case.name == "default":
                fixed = _default_fallback(model_type, cls_name, msg)
                if fixed is not None:
                    cases.insert(cases.index(case) + 1, fixed)
                summary["default_error"] = msg
            summary["failed"].append(f"{case.name}: {msg}")
        finally:
            dt = time.time() - t0
            if dt > 20:
                print(f"    slow case {case.name}: {dt:.0f}s", file=sys.stderr)
    if summary["cases"] == 0:
        raise RuntimeError("no config builds: " + "; ".join(summary["failed"][:3]))
    # neutral flips: note them in the small case
    neutral = [
        c.name[5:]
        for c in cases
        if c.name.startswith("flip-") and not (CASES / model_type / f"{cls_name}-{c.name}").exists()
    ]
    if neutral_towers:
        tp = CASES / model_type / f"{cls_name}-towers-small" / "truth.json"
        t = json.loads(tp.read_text())
        t["notes"] = " ".join(
            x
            for x in (t["notes"], f"Flipping {', '.join(neutral_towers)} from this config leaves the layout unchanged.")
            if x
        )
        tp.write_text(json.dumps(t, indent=1) + "\n")
    tp = CASES / model_type / f"{cls_name}-small" / "truth.json"
    if tp.exists():
        t = json.loads(tp.read_text())
        extra = []
        if neutral:
            extra.append(f"Flipping {', '.join(neutral)} from this config leaves the layout unchanged.")
        unbuilt = [f for f in summary["failed"] if not f.startswith("default:")]
        if unbuilt:
            extra.append("Perturbations transformers cannot build: " + "; ".join(unbuilt))
        t["notes"] = " ".join([t["notes"]] + extra if t["notes"] else extra)
        tp.write_text(json.dumps(t, indent=1) + "\n")
    return summary


# ---------------------------------------------------------------------------------------------------------
# Groups
# ---------------------------------------------------------------------------------------------------------
GEMMA3_NOTE = (
    "Names: the released google/gemma-3-4b-it (/-12b-it/-27b-it) checkpoints store language_model.model.*, "
    "vision_tower.vision_model.*, multi_modal_projector.* (transformers 4.50-era layout). transformers {v} "
    "holds model.language_model.*, model.vision_tower.* (SigLIP without its vision_model. level), "
    "model.multi_modal_projector.*, lm_head.* in memory, and its save_pretrained (this layout) writes "
    "language_model.model.*, language_model.lm_head.weight (only when untied), vision_tower.* (NO "
    "vision_model. level) and multi_modal_projector.*. Its loader accepts both on-disk forms (checked by hand: the small case saved for "
    "real and renamed to vision_tower.vision_model.* loads with no missing/unexpected keys and identical "
    "weights). The released form is "
    "confirmed by ../shared/real-world/Ibtasam-98__medgemma-27b-it (index written by transformers 4.54: "
    "vision_tower.vision_model.{{embeddings,encoder,post_layernorm}}, no vision head since its config has "
    "vision_use_head=false, while the class default here is true)."
)
NOTES = {"gemma3": GEMMA3_NOTE.format(v=TF_VERSION)}
COMPOSITE_NOTE = (
    "Built as {auto}.from_config does on this composite {mt} config: {cls} from its sub-config "
    "alone. Its own save_pretrained (transformers {v}) writes that sub-config as config.json; this "
    "folder holds the composite config.json instead (architectures [{cls}], as a release reduced to one of its parts "
    "keeps it), which {auto}.from_pretrained loads as {cls}. The tensors are "
    "the ones its save_pretrained writes."
)

ISSUE8_MM = [
    "gemma3",
    "llava",
    "llava_next",
    "mistral3",
    "idefics3",
    "smolvlm",
    "internvl",
    "paligemma",
    "qwen2_vl",
    "qwen2_5_vl",
    "llama4",
]
ISSUE8_BASE = {
    "llama": "LlamaModel",
    "mistral": "MistralModel",
    "qwen2": "Qwen2Model",
    "qwen3": "Qwen3Model",
    "gemma3_text": "Gemma3TextModel",
}
GROUP3 = [
    "bert",
    "roberta",
    "xlm-roberta",
    "distilbert",
    "deberta-v2",
    "modernbert",
    "mpnet",
    "electra",
    "albert",
    "t5",
    "mt5",
    "bart",
    "marian",
    "whisper",
    "clip",
    "siglip",
    "vit",
    "dinov2",
    "wav2vec2",
]
# speech encoders / CTC / speech seq2seq: every task class transformers maps for them (base, CTC, sequence and
# frame classification, x-vector, pre-training, conditional generation), dumped with --group 3 or --only <type>
GROUP3_SPEECH = {
    "wav2vec2": ["Wav2Vec2ForAudioFrameClassification", "Wav2Vec2ForXVector"],
    "hubert": ["HubertModel", "HubertForCTC", "HubertForSequenceClassification"],
    "wavlm": [
        "WavLMModel",
        "WavLMForCTC",
        "WavLMForSequenceClassification",
        "WavLMForAudioFrameClassification",
        "WavLMForXVector",
    ],
    "data2vec-audio": [
        "Data2VecAudioModel",
        "Data2VecAudioForCTC",
        "Data2VecAudioForSequenceClassification",
        "Data2VecAudioForAudioFrameClassification",
        "Data2VecAudioForXVector",
    ],
    "unispeech": ["UniSpeechModel", "UniSpeechForCTC", "UniSpeechForSequenceClassification", "UniSpeechForPreTraining"],
    "unispeech-sat": [
        "UniSpeechSatModel",
        "UniSpeechSatForCTC",
        "UniSpeechSatForSequenceClassification",
        "UniSpeechSatForPreTraining",
        "UniSpeechSatForAudioFrameClassification",
        "UniSpeechSatForXVector",
    ],
    "sew": ["SEWModel", "SEWForCTC", "SEWForSequenceClassification"],
    "sew-d": ["SEWDModel", "SEWDForCTC", "SEWDForSequenceClassification"],
    "wav2vec2-conformer": [
        "Wav2Vec2ConformerModel",
        "Wav2Vec2ConformerForCTC",
        "Wav2Vec2ConformerForSequenceClassification",
        "Wav2Vec2ConformerForPreTraining",
        "Wav2Vec2ConformerForAudioFrameClassification",
        "Wav2Vec2ConformerForXVector",
    ],
    "wav2vec2-bert": [
        "Wav2Vec2BertModel",
        "Wav2Vec2BertForCTC",
        "Wav2Vec2BertForSequenceClassification",
        "Wav2Vec2BertForAudioFrameClassification",
        "Wav2Vec2BertForXVector",
    ],
    "parakeet_ctc": ["ParakeetForCTC"],
    "lasr_ctc": ["LasrForCTC"],
    "granite_speech5_ctc": ["GraniteSpeech5ForCTC"],
    "speech_to_text": ["Speech2TextModel", "Speech2TextForConditionalGeneration"],
    "moonshine": ["MoonshineModel", "MoonshineForConditionalGeneration"],
    "speecht5": ["SpeechT5Model", "SpeechT5ForSpeechToText", "SpeechT5ForTextToSpeech", "SpeechT5ForSpeechToSpeech"],
}
# more masked-LM text encoders (group 3): every class the auto mappings name for them, QA and multiple choice too
GROUP3_ENCODERS = [
    "deberta",
    "longformer",
    "roformer",
    "big_bird",
    "convbert",
    "rembert",
    "roberta-prelayernorm",
    "megatron-bert",
    "mobilebert",
    "squeezebert",
    "ibert",
    "layoutlm",
    "flaubert",
    "xmod",
    "tapas",
    "roc_bert",
]
GROUP3_ENCODER_EXTRA = [
    ("layoutlm", "LayoutLMForQuestionAnswering"),
    ("tapas", "TapasForQuestionAnswering"),
    ("flaubert", "FlaubertForQuestionAnswering"),
]  # classes no auto mapping names


def spec_model_types() -> list[str]:
    out = []
    for p in sorted((REPO / "auditor" / "specs" / "data").glob("*.toml")):
        m = re.search(r"^model_types\s*=\s*\[([^\]]*)\]", p.read_text(), re.M)
        if m:
            out += re.findall(r'"([^"]+)"', m.group(1))
    return out


def head_classes(mt: str) -> list[str]:
    out = []
    for mp in (
        "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
        "MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES",
        "MODEL_FOR_QUESTION_ANSWERING_MAPPING_NAMES",
    ):
        c = getattr(modeling_auto, mp).get(mt)
        if isinstance(c, str):
            out.append(c)
    return out


def group_targets(group: int) -> list[tuple[str, str]]:
    M = modeling_auto
    if group == 1:
        t = [(mt, M.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES[mt]) for mt in ISSUE8_MM]
        t += list(ISSUE8_BASE.items())
        for mt in spec_model_types():
            t += [(mt, c) for c in head_classes(mt)]
        return t
    if group == 2:
        t = [(mt, c) for mt, c in M.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.items()]
        t += [(mt, c) for mt, c in M.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES.items()]
        return t
    if group == 3:
        t = []
        for mt in GROUP3:
            for mp in (
                "MODEL_MAPPING_NAMES",
                "MODEL_FOR_MASKED_LM_MAPPING_NAMES",
                "MODEL_FOR_PRETRAINING_MAPPING_NAMES",
                "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
                "MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES",
                "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
                "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES",
                "MODEL_FOR_CTC_MAPPING_NAMES",
                "MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES",
            ):
                c = getattr(M, mp, {}).get(mt)
                if isinstance(c, str) and (mt, c) not in t:
                    t.append((mt, c))
        for mt in GROUP3_ENCODERS:
            for mp in (
                "MODEL_MAPPING_NAMES",
                "MODEL_FOR_MASKED_LM_MAPPING_NAMES",
                "MODEL_FOR_PRETRAINING_MAPPING_NAMES",
                "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
                "MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES",
                "MODEL_FOR_QUESTION_ANSWERING_MAPPING_NAMES",
                "MODEL_FOR_MULTIPLE_CHOICE_MAPPING_NAMES",
                "MODEL_FOR_NEXT_SENTENCE_PREDICTION_MAPPING_NAMES",
            ):
                c = getattr(M, mp, {}).get(mt)
                if isinstance(c, str) and (mt, c) not in t:
                    t.append((mt, c))
        t += GROUP3_ENCODER_EXTRA
        t += [
            ("t5", "T5EncoderModel"),
            ("mt5", "MT5EncoderModel"),
            ("clip_text_model", "CLIPTextModel"),
            ("clip_vision_model", "CLIPVisionModel"),
            ("clip_text_model", "CLIPTextModelWithProjection"),
            ("clip_vision_model", "CLIPVisionModelWithProjection"),
            ("siglip_text_model", "SiglipTextModel"),
            ("siglip_vision_model", "SiglipVisionModel"),
            ("bert", "BertForPreTraining"),
            ("bert", "BertForQuestionAnswering"),
            ("roberta", "RobertaForQuestionAnswering"),
            ("xlm-roberta", "XLMRobertaForQuestionAnswering"),
            ("deberta-v2", "DebertaV2ForQuestionAnswering"),
            ("distilbert", "DistilBertForQuestionAnswering"),
            ("electra", "ElectraForQuestionAnswering"),
            ("albert", "AlbertForQuestionAnswering"),
            ("modernbert", "ModernBertForQuestionAnswering"),
            ("mpnet", "MPNetForQuestionAnswering"),
            ("vit", "ViTForImageClassification"),
            ("dinov2", "Dinov2ForImageClassification"),
            ("wav2vec2", "Wav2Vec2ForCTC"),
            ("wav2vec2", "Wav2Vec2ForSequenceClassification"),
        ]
        t += [(mt, c) for mt, classes in GROUP3_SPEECH.items() for c in classes]
        t = [x for x in dict.fromkeys(t) if hasattr(transformers, x[1])]
        return t
    if group == 4:  # every class an Auto class builds from a composite config's sub-config (composite_auto)
        t = []
        for name in sorted(dir(M)):
            for mt, classes in _names_mapping(getattr(M, name)).items():
                for c in (
                    [classes] if isinstance(classes, str) else classes if isinstance(classes, (list, tuple)) else ()
                ):
                    if isinstance(mt, str) and (mt, c) not in t and composite_auto(mt, c):
                        t.append((mt, c))
        return sorted(t)
    if group == 5:  # every other class an Auto class builds from a composite config itself (composite_classes)
        return composite_classes()
    raise SystemExit(f"unknown group {group}")


def composite_classes() -> list[tuple[str, str]]:
    """(model_type, class) for every class an Auto mapping builds from a composite config (one with a
    text_config sub-config) taking that config itself, other than the image-text-to-text / causal-LM classes of
    group 2: the base model AutoModel builds (LlavaModel, Qwen2_5_VLModel, Gemma3Model ...) and task classes
    (Qwen3_5ForSequenceClassification, Gemma3ForSequenceClassification, OwlViTForObjectDetection ...)."""
    M = modeling_auto
    group2 = {
        (mt, c)
        for mp in (M.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, M.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES)
        for mt, c in mp.items()
    }
    t = []
    for name in sorted(dir(M)):
        auto = getattr(M, name)
        if not (isinstance(auto, type) and hasattr(transformers, name)):
            continue
        for mt, classes in _names_mapping(auto).items():
            if not isinstance(mt, str) or mt not in CONFIG_MAPPING:
                continue
            if "text_config" not in (getattr(CONFIG_MAPPING[mt], "sub_configs", {}) or {}):
                continue
            for c in [classes] if isinstance(classes, str) else classes if isinstance(classes, (list, tuple)) else ():
                if (mt, c) not in group2 and (mt, c) not in t and not composite_auto(mt, c):
                    t.append((mt, c))
    return sorted(t)


def _reason(e: BaseException) -> str:
    """One line: exception type and its first non-empty message line."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0][:400] if lines else ''}"


def text_redirect(mt: str, cls_name: str) -> str | None:
    """The model type whose config the class really takes, when it is not mt: a class built from a sub-config
    (AutoModelForCausalLM on a multimodal config builds the text model from text_config), or a model type whose
    config class is another type's (its config.json says the other model_type)."""
    cls = getattr(transformers, cls_name, None)
    cc = getattr(cls, "config_class", None)
    if mt in CONFIG_MAPPING and getattr(CONFIG_MAPPING[mt], "model_type", mt) not in ("", mt):
        return CONFIG_MAPPING[mt].model_type  # e.g. gpt-sw3 is GPT2Config, whose config.json says "gpt2"
    sub = getattr(cc, "model_type", "") if cc is not None else ""
    subs = (getattr(CONFIG_MAPPING[mt], "sub_configs", {}) or {}).values() if mt in CONFIG_MAPPING else ()
    if composite_auto(mt, cls_name):  # built from the composite config by its Auto class: dumped under mt itself
        return None
    if sub and sub != mt and sub in CONFIG_MAPPING and any(v is cc for v in subs):
        return sub
    return None


def stub_backend(model_type: str, backend: str) -> None:
    """Let model_type's modeling module build without `backend` (its classes call requires_backends in
    __init__ only; the backend's kernels run in forward, which dumping never calls). The cases say so."""
    import importlib

    module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
    original = module.requires_backends

    def requires_backends(obj, backends):
        missing = [b for b in backends if b != backend]
        if missing:
            original(obj, missing)

    module.requires_backends = requires_backends  # type: ignore[attr-defined]  # a patched module attribute
    NOTES[model_type] = " ".join(
        x
        for x in (
            NOTES.get(model_type, ""),
            (
                f"Built without the {backend} library (not installed in the dev environment): transformers' constructor "
                f"only checks for it, its kernels run in forward(), which dumping never calls."
            ),
        )
        if x
    )


def load_unbuildable() -> dict:
    p = CASES / "_unbuildable.json"
    return json.loads(p.read_text()) if p.exists() else {}


def save_unbuildable(d: dict):
    CASES.mkdir(parents=True, exist_ok=True)
    (CASES / "_unbuildable.json").write_text(json.dumps(dict(sorted(d.items())), indent=1) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--group",
        type=int,
        action="append",
        default=[],
        help="1: issue-8 list; 2: causal-LM and image-text-to-text types; 3: encoders, seq2seq, speech, "
        "vision; 4: classes an Auto class builds from a composite config's sub-config; 5: the other "
        "classes an Auto class builds from a composite config itself (base models, task heads)",
    )
    ap.add_argument("--only", default=None, help="comma-separated model types")
    ap.add_argument("--classes", default=None, help="comma-separated class names (with --only)")
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--skip-existing", action="store_true", help="skip (type, class) already dumped")
    ap.add_argument(
        "--stub-backend",
        action="append",
        default=[],
        metavar="TYPE:BACKEND",
        help="build TYPE's classes although BACKEND is not installed (e.g. dinat:natten): the library "
        "is needed only by forward(), not by the constructor whose parameters are dumped; "
        "said in each case's notes",
    )
    args = ap.parse_args()
    for item in args.stub_backend:
        stub_backend(*item.split(":", 1))
    targets: list[tuple[str, str]] = []
    for g in args.group:
        for t in group_targets(g):
            if t not in targets:
                targets.append(t)
    if args.only:
        types = args.only.split(",")
        if not targets:
            for g in (1, 2, 3):
                targets += [t for t in group_targets(g) if t not in targets]
            targets = list(dict.fromkeys(targets))
        targets = [t for t in targets if t[0] in types]
        if args.classes:
            targets = [(mt, c) for mt in types for c in args.classes.split(",")]
    unbuildable = load_unbuildable()
    redirects = {}
    for i, (mt, cls_name) in enumerate(targets):
        sub = text_redirect(mt, cls_name)
        if sub is not None:
            redirects[f"{mt}/{cls_name}"] = f"{sub}/{cls_name}"
            targets[i] = (sub, cls_name)
    targets = list(dict.fromkeys(targets))
    stale = [f"{mt}/{c}" for mt, c in targets if composite_auto(mt, c)]
    if redirects or stale:
        p = CASES / "_redirects.json"
        old = json.loads(p.read_text()) if p.exists() else {}
        old.update(redirects)
        for key in stale:
            old.pop(key, None)
        CASES.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(dict(sorted(old.items())), indent=1) + "\n")
    done_types = set()
    for mt, cls_name in targets:
        key = f"{mt}/{cls_name}"
        if args.skip_existing and (CASES / mt / f"{cls_name}-default").exists():
            continue
        t0 = time.time()
        try:
            if mt not in CONFIG_MAPPING:
                raise RuntimeError(f"model_type {mt!r} not in CONFIG_MAPPING")
            unbuildable.pop(next((k for k, v in redirects.items() if v == key), ""), None)
            if mt not in done_types:
                dump_config_class(mt)
                done_types.add(mt)
            if (CASES / mt).exists():
                for old in (CASES / mt).glob(f"{cls_name}-*"):
                    shutil.rmtree(old)
            s = dump_class(mt, cls_name, verify=not args.no_verify, extra_notes=NOTES.get(mt, ""))
            unbuildable.pop(key, None)
            unbuildable.pop(f"{key} (class default config)", None)
            if s.get("default_error"):
                unbuildable[f"{key} (class default config)"] = s["default_error"]
            print(
                f"{key:70s} {s['cases']:3d} cases {s['verified']:3d} verified {time.time() - t0:6.1f}s"
                + (f"  REAL SAVE DIFFERS (recorded): {s['real_differs']}" if s.get("real_differs") else "")
                + (f"  FAILED: {s['failed']}" if s["failed"] else ""),
                flush=True,
            )
        except Exception as e:
            reason = _reason(e)
            unbuildable[key] = reason
            print(f"{key:70s} UNBUILDABLE {reason}", flush=True)
        save_unbuildable(unbuildable)


if __name__ == "__main__":
    main()
