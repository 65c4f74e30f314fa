"""Dump the original single-file layouts diffusers' single-file loaders read, checked by diffusers' own converters.

DEV-ONLY TOOL (like tools/dump_diffusers.py): run with $DEVENV/bin/python (diffusers 0.42.1, transformers
5.23, torch 2.13 CPU). For each supported single-file type (SD 1.x full checkpoint, SDXL base, FLUX.1 dev /
schnell / Fill / Depth transformer, FLUX.1 VAE ``ae.safetensors``, SDXL refiner, SD 2.x, SD 1.x, SD 2.x and SDXL
inpainting, instruct-pix2pix, SD3 medium with and without its text encoders, SD3.5
large and medium):

1. every component is built on the ``meta`` device from the config diffusers' loader would use (the released
   configs of ``DIFFUSERS_DEFAULT_PIPELINE_PATHS[model_type]``: the diffusers-cases release configs, and the
   released CLIP / OpenCLIP text configs written below);
2. the original layout (names and shapes as the original code stores them: ldm / sgm / BFL / OpenCLIP) is written
   by this tool's own inverse of the conversion (``to_original_*``, independent of st-audit's data);
3. diffusers' own converters (``convert_ldm_unet_checkpoint``, ``convert_ldm_vae_checkpoint``,
   ``convert_ldm_clip_checkpoint``, ``convert_open_clip_checkpoint``,
   ``convert_flux_transformer_checkpoint_to_diffusers``) run on that layout (meta tensors) and must give back
   exactly the component's state dict (every name, every shape) while consuming every original tensor, and
   ``infer_diffusers_model_type`` must name the type. Only then is the case written.

Writes ``fixtures/single-file/<type>.json.gz``: the original names and shapes, and per component its class,
config, diffusers ``num_parameters()`` and how many original tensors it was read from.

    $DEVENV/bin/python tools/dump_single_file.py
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fixtures" / "single-file"
CASES = ROOT / "fixtures" / "diffusers-cases"

# the released text encoder configs diffusers' loader fetches (text_encoder / text_encoder_2 of the default repos):
# openai/clip-vit-large-patch14's text model (SD 1.x, SDXL's first encoder) and OpenCLIP ViT-bigG/14 (SDXL's second)
CLIP_L = dict(
    vocab_size=49408,
    hidden_size=768,
    intermediate_size=3072,
    num_hidden_layers=12,
    num_attention_heads=12,
    max_position_embeddings=77,
    hidden_act="quick_gelu",
    projection_dim=768,
)
# stabilityai/stable-diffusion-2-1's text_encoder (SD 2.x): the OpenCLIP ViT-H/14 text tower read as a 23-layer
# CLIPTextModel (the penultimate layer's output); the original stores all 24 resblocks and the text_projection
OPEN_CLIP_H_SD2 = dict(
    vocab_size=49408,
    hidden_size=1024,
    intermediate_size=4096,
    num_hidden_layers=23,
    num_attention_heads=16,
    max_position_embeddings=77,
    hidden_act="gelu",
    projection_dim=512,
)
OPEN_CLIP_H_STORED = {**OPEN_CLIP_H_SD2, "num_hidden_layers": 24, "projection_dim": 1024}
CLIP_G = dict(
    vocab_size=49408,
    hidden_size=1280,
    intermediate_size=5120,
    num_hidden_layers=32,
    num_attention_heads=20,
    max_position_embeddings=77,
    hidden_act="gelu",
    projection_dim=1280,
)


# stabilityai/stable-diffusion-xl-refiner-1.0's unet/config.json (the released config; keys other than the class
# defaults). Cross-checked below against diffusers' own create_unet_diffusers_config_from_ldm on the refiner's sgm
# config (Stability-AI/generative-models configs/inference/sd_xl_refiner.yaml, network_config and first stage).
XL_REFINER_UNET = dict(
    addition_embed_type="text_time",
    addition_embed_type_num_heads=64,
    addition_time_embed_dim=256,
    attention_head_dim=[6, 12, 24, 24],
    block_out_channels=[384, 768, 1536, 1536],
    cross_attention_dim=1280,
    down_block_types=["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"],
    up_block_types=["UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"],
    projection_class_embeddings_input_dim=2560,
    transformer_layers_per_block=4,
    use_linear_projection=True,
    sample_size=128,
    layers_per_block=2,
)
SD_XL_REFINER_YAML = {
    "model": {
        "params": {
            "network_config": {
                "params": dict(
                    adm_in_channels=2560,
                    num_classes="sequential",
                    in_channels=4,
                    out_channels=4,
                    model_channels=384,
                    attention_resolutions=[4, 2],
                    num_res_blocks=2,
                    channel_mult=[1, 2, 4, 4],
                    num_head_channels=64,
                    use_linear_in_transformer=True,
                    transformer_depth=4,
                    context_dim=[1280, 1280, 1280, 1280],
                )
            },
            "first_stage_config": {
                "params": {
                    "ddconfig": dict(
                        double_z=True,
                        z_channels=4,
                        resolution=256,
                        in_channels=3,
                        out_ch=3,
                        ch=128,
                        ch_mult=[1, 2, 4, 4],
                        num_res_blocks=2,
                        attn_resolutions=[],
                        dropout=0.0,
                    )
                }
            },
        }
    }
}


# ldm's configs/stable-diffusion/v1-inpainting-inference.yaml (runwayml/stable-diffusion; CONFIG_URLS["inpainting"]):
# v1-inference.yaml's UNet over 9 input channels (latents, mask, masked-image latents). instruct-pix2pix's
# configs/generate.yaml (timbrooks/instruct-pix2pix): the same UNet over 8 (latents, input-image latents).
def ldm_v1_yaml(in_channels: int) -> dict[str, Any]:
    return {
        "model": {
            "params": {
                "unet_config": {
                    "params": dict(
                        image_size=32,
                        in_channels=in_channels,
                        out_channels=4,
                        model_channels=320,
                        attention_resolutions=[4, 2, 1],
                        num_res_blocks=2,
                        channel_mult=[1, 2, 4, 4],
                        num_heads=8,
                        use_spatial_transformer=True,
                        transformer_depth=1,
                        context_dim=768,
                        use_checkpoint=True,
                        legacy=False,
                    )
                },
                "first_stage_config": {
                    "params": {
                        "ddconfig": dict(
                            double_z=True,
                            z_channels=4,
                            resolution=256,
                            in_channels=3,
                            out_ch=3,
                            ch=128,
                            ch_mult=[1, 2, 4, 4],
                            num_res_blocks=2,
                            attn_resolutions=[],
                            dropout=0.0,
                        )
                    }
                },
            }
        }
    }


# Stability-AI/stablediffusion's configs/stable-diffusion/v2-inpainting-inference.yaml (CONFIG_URLS["inpainting_v2"]):
# the SD 2.x UNet (64-channel heads, linear projections, 1024-wide cross-attention) over 9 input channels
SD2_INPAINT_YAML = {
    "model": {
        "params": {
            "unet_config": {
                "params": dict(
                    image_size=32,
                    in_channels=9,
                    out_channels=4,
                    model_channels=320,
                    attention_resolutions=[4, 2, 1],
                    num_res_blocks=2,
                    channel_mult=[1, 2, 4, 4],
                    num_head_channels=64,
                    use_spatial_transformer=True,
                    use_linear_in_transformer=True,
                    transformer_depth=1,
                    context_dim=1024,
                    use_checkpoint=True,
                    legacy=False,
                )
            },
            "first_stage_config": ldm_v1_yaml(9)["model"]["params"]["first_stage_config"],
        }
    }
}


# Stability-AI/generative-models configs/inference/sd_xl_base.yaml's network_config, over the 9 input channels of
# diffusers/stable-diffusion-xl-1.0-inpainting-0.1 (trained in diffusers: no sgm config of its own; its unet is SDXL
# base's with in_channels 9, the width infer_diffusers_model_type tests for xl_inpaint)
SD_XL_INPAINT_YAML = {
    "model": {
        "params": {
            "network_config": {
                "params": dict(
                    adm_in_channels=2816,
                    num_classes="sequential",
                    in_channels=9,
                    out_channels=4,
                    model_channels=320,
                    attention_resolutions=[4, 2],
                    num_res_blocks=2,
                    channel_mult=[1, 2, 4],
                    num_head_channels=64,
                    use_linear_in_transformer=True,
                    transformer_depth=[1, 2, 10],
                    context_dim=2048,
                )
            },
            "first_stage_config": SD_XL_REFINER_YAML["model"]["params"]["first_stage_config"],
        }
    }
}


def ldm_checked(name: str, config: dict[str, Any], yaml: dict[str, Any]) -> dict[str, Any]:
    """``config`` where diffusers' own create_unet_diffusers_config_from_ldm on the original config says so (every
    key it derives: block types, channels, layers, transformer depth, cross-attention and projection widths, head
    dims, linear projection, input channels, additional embeddings): every key that decides a shape."""
    from diffusers.loaders import single_file_utils as sfu

    derived = sfu.create_unet_diffusers_config_from_ldm(yaml, {})
    # sample_size comes from the image size the loader guesses, not from the original config
    differ = {
        k: (v, derived[k])
        for k, v in config.items()
        if k in derived
        and k != "sample_size"
        and (list(v) if isinstance(v, (list, tuple)) else v)
        != (list(derived[k]) if isinstance(derived[k], (list, tuple)) else derived[k])
    }
    if differ:
        raise SystemExit(f"{name}: the unet config differs from the original config's: {differ}")
    return config


def refiner_unet_config() -> dict[str, Any]:
    ldm_checked("sdxl-refiner", XL_REFINER_UNET, SD_XL_REFINER_YAML)
    return {"_class_name": "UNet2DConditionModel", **XL_REFINER_UNET}


def case_config(cls: str, case: str) -> dict[str, Any]:
    return json.loads((CASES / cls / f"{cls}-{case}" / "config.json").read_text())


# -- the inverse of the conversion, written from the original model code's structure ---------------------------


def _resnet_ldm_unet(rest: str) -> str:
    for new, old in (
        ("norm1", "in_layers.0"),
        ("conv1", "in_layers.2"),
        ("norm2", "out_layers.0"),
        ("conv2", "out_layers.3"),
        ("time_emb_proj", "emb_layers.1"),
        ("conv_shortcut", "skip_connection"),
    ):
        if rest.startswith(new + "."):
            return old + rest[len(new) :]
    raise KeyError(rest)


def to_original_unet(sd: dict[str, tuple[int, ...]], config: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    lpb = config["layers_per_block"]
    top = {
        "time_embedding.linear_1": "time_embed.0",
        "time_embedding.linear_2": "time_embed.2",
        "conv_in": "input_blocks.0.0",
        "conv_norm_out": "out.0",
        "conv_out": "out.2",
        "add_embedding.linear_1": "label_emb.0.0",
        "add_embedding.linear_2": "label_emb.0.2",
    }
    out = {}
    for name, shape in sd.items():
        module, _, leaf = name.rpartition(".")
        if module in top:
            new = f"{top[module]}.{leaf}"
        elif m := re.match(r"down_blocks\.(\d+)\.resnets\.(\d+)\.(.*)", name):
            new = f"input_blocks.{int(m[1]) * (lpb + 1) + int(m[2]) + 1}.0.{_resnet_ldm_unet(m[3])}"
        elif m := re.match(r"down_blocks\.(\d+)\.attentions\.(\d+)\.(.*)", name):
            new = f"input_blocks.{int(m[1]) * (lpb + 1) + int(m[2]) + 1}.1.{m[3]}"
        elif m := re.match(r"down_blocks\.(\d+)\.downsamplers\.0\.conv\.(.*)", name):
            new = f"input_blocks.{(int(m[1]) + 1) * (lpb + 1)}.0.op.{m[2]}"
        elif m := re.match(r"mid_block\.resnets\.(\d+)\.(.*)", name):
            new = f"middle_block.{2 * int(m[1])}.{_resnet_ldm_unet(m[2])}"
        elif m := re.match(r"mid_block\.attentions\.0\.(.*)", name):
            new = f"middle_block.1.{m[1]}"
        elif m := re.match(r"up_blocks\.(\d+)\.resnets\.(\d+)\.(.*)", name):
            new = f"output_blocks.{int(m[1]) * (lpb + 1) + int(m[2])}.0.{_resnet_ldm_unet(m[3])}"
        elif m := re.match(r"up_blocks\.(\d+)\.attentions\.(\d+)\.(.*)", name):
            new = f"output_blocks.{int(m[1]) * (lpb + 1) + int(m[2])}.1.{m[3]}"
        elif m := re.match(r"up_blocks\.(\d+)\.upsamplers\.0\.conv\.(.*)", name):
            b = int(m[1])
            slot = 2 if config["up_block_types"][b].startswith("CrossAttn") else 1
            new = f"output_blocks.{b * (lpb + 1) + lpb}.{slot}.conv.{m[2]}"
        else:
            raise KeyError(name)
        out["model.diffusion_model." + new] = shape
    return out


def to_original_vae(sd: dict[str, tuple[int, ...]], config: dict[str, Any], prefix: str) -> dict[str, tuple[int, ...]]:
    n_up = len(config["up_block_types"])
    out = {}
    for name, shape in sd.items():
        new = name.replace("conv_norm_out", "norm_out").replace("conv_shortcut", "nin_shortcut")
        if m := re.match(r"encoder\.down_blocks\.(\d+)\.resnets\.(\d+)\.(.*)", new):
            new = f"encoder.down.{m[1]}.block.{m[2]}.{m[3]}"
        elif m := re.match(r"encoder\.down_blocks\.(\d+)\.downsamplers\.0\.(.*)", new):
            new = f"encoder.down.{m[1]}.downsample.{m[2]}"
        elif m := re.match(r"decoder\.up_blocks\.(\d+)\.resnets\.(\d+)\.(.*)", new):
            new = f"decoder.up.{n_up - 1 - int(m[1])}.block.{m[2]}.{m[3]}"
        elif m := re.match(r"decoder\.up_blocks\.(\d+)\.upsamplers\.0\.(.*)", new):
            new = f"decoder.up.{n_up - 1 - int(m[1])}.upsample.{m[2]}"
        elif m := re.match(r"(encoder|decoder)\.mid_block\.resnets\.(\d+)\.(.*)", new):
            new = f"{m[1]}.mid.block_{int(m[2]) + 1}.{m[3]}"
        elif m := re.match(
            r"(encoder|decoder)\.mid_block\.attentions\.0\.(group_norm|to_q|to_k|to_v|to_out\.0)\.(.*)", new
        ):
            leaf = {"group_norm": "norm", "to_q": "q", "to_k": "k", "to_v": "v", "to_out.0": "proj_out"}[m[2]]
            new = f"{m[1]}.mid.attn_1.{leaf}.{m[3]}"
            if len(shape) == 2:  # the original AttnBlock's q/k/v/proj_out are 1x1 Conv2d
                shape = (*shape, 1, 1)
        out[prefix + new] = shape
    return out


def to_original_clip(sd: dict[str, tuple[int, ...]], prefix: str) -> dict[str, tuple[int, ...]]:
    """HF CLIPTextModel as transformers 4.x saved it (``text_model.`` level) under the embedder's prefix."""
    return {prefix + (n if n.startswith("text_model.") else "text_model." + n): s for n, s in sd.items()}


def to_original_open_clip(sd: dict[str, tuple[int, ...]], prefix: str) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}
    top = {
        "text_model.embeddings.token_embedding.weight": "token_embedding.weight",
        "text_model.embeddings.position_embedding.weight": "positional_embedding",
        "text_model.final_layer_norm.weight": "ln_final.weight",
        "text_model.final_layer_norm.bias": "ln_final.bias",
    }
    for name, shape in sd.items():
        if name in top:
            out[prefix + top[name]] = shape
        elif name == "text_projection.weight":
            out[prefix + "text_projection"] = (shape[1], shape[0])  # open_clip: x @ text_projection
        elif m := re.match(r"text_model\.encoder\.layers\.(\d+)\.(.*)", name):
            rest = m[2]
            if qkv := re.match(r"self_attn\.[qkv]_proj\.(weight|bias)", rest):
                key = f"{prefix}transformer.resblocks.{m[1]}.attn.in_proj_{qkv[1]}"
                old = out.get(key)
                out[key] = shape if old is None else (old[0] + shape[0], *shape[1:])
                continue
            rest = (
                rest.replace("layer_norm1", "ln_1")
                .replace("layer_norm2", "ln_2")
                .replace("mlp.fc1", "mlp.c_fc")
                .replace("mlp.fc2", "mlp.c_proj")
                .replace("self_attn.", "attn.")
            )
            out[f"{prefix}transformer.resblocks.{m[1]}.{rest}"] = shape
        else:
            raise KeyError(name)
    return out


def to_original_flux(sd: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}

    def put(key: str, shape: tuple[int, ...]) -> None:  # fused: concatenated along dim 0 in the order seen
        old = out.get(key)
        out[key] = shape if old is None else (old[0] + shape[0], *shape[1:])

    top = {
        "time_text_embed.timestep_embedder.linear_1": "time_in.in_layer",
        "time_text_embed.timestep_embedder.linear_2": "time_in.out_layer",
        "time_text_embed.text_embedder.linear_1": "vector_in.in_layer",
        "time_text_embed.text_embedder.linear_2": "vector_in.out_layer",
        "time_text_embed.guidance_embedder.linear_1": "guidance_in.in_layer",
        "time_text_embed.guidance_embedder.linear_2": "guidance_in.out_layer",
        "context_embedder": "txt_in",
        "x_embedder": "img_in",
        "proj_out": "final_layer.linear",
        "norm_out.linear": "final_layer.adaLN_modulation.1",
    }
    double = {
        "norm1.linear": "img_mod.lin",
        "norm1_context.linear": "txt_mod.lin",
        "attn.to_q": "img_attn.qkv",
        "attn.to_k": "img_attn.qkv",
        "attn.to_v": "img_attn.qkv",
        "attn.add_q_proj": "txt_attn.qkv",
        "attn.add_k_proj": "txt_attn.qkv",
        "attn.add_v_proj": "txt_attn.qkv",
        "attn.norm_q": "img_attn.norm.query_norm",
        "attn.norm_k": "img_attn.norm.key_norm",
        "attn.norm_added_q": "txt_attn.norm.query_norm",
        "attn.norm_added_k": "txt_attn.norm.key_norm",
        "attn.to_out.0": "img_attn.proj",
        "attn.to_add_out": "txt_attn.proj",
        "ff.net.0.proj": "img_mlp.0",
        "ff.net.2": "img_mlp.2",
        "ff_context.net.0.proj": "txt_mlp.0",
        "ff_context.net.2": "txt_mlp.2",
    }
    single = {
        "norm.linear": "modulation.lin",
        "attn.to_q": "linear1",
        "attn.to_k": "linear1",
        "attn.to_v": "linear1",
        "proj_mlp": "linear1",
        "proj_out": "linear2",
        "attn.norm_q": "norm.query_norm",
        "attn.norm_k": "norm.key_norm",
    }

    def leaf_of(module: str, leaf: str) -> str:
        return "scale" if module.endswith(("query_norm", "key_norm")) else leaf

    order = sorted(
        sd,
        key=lambda n: (
            n.split(".attn.to_")[0],
            "to_q" not in n,
            "to_k" not in n,
            "to_v" not in n,
            "add_q" not in n,
            "add_k" not in n,
            "add_v" not in n,
        ),
    )
    for name in order:
        shape = sd[name]
        module, _, leaf = name.rpartition(".")
        if module in top:
            put(f"{top[module]}.{leaf}", shape)
        elif m := re.match(r"transformer_blocks\.(\d+)\.(.*)", module):
            new = double[m[2]]
            put(f"double_blocks.{m[1]}.{new}.{leaf_of(new, leaf)}", shape)
        elif m := re.match(r"single_transformer_blocks\.(\d+)\.(.*)", module):
            new = single[m[2]]
            put(f"single_blocks.{m[1]}.{new}.{leaf_of(new, leaf)}", shape)
        else:
            raise KeyError(name)
    return out


# -- diffusers' side ----------------------------------------------------------------------------------------------


def state_shapes(model: Any) -> dict[str, tuple[int, ...]]:
    return {k: tuple(v.shape) for k, v in model.state_dict().items()}


def meta_tensors(layout: dict[str, tuple[int, ...]]) -> dict[str, Any]:
    import torch

    return {k: torch.empty(s, device="meta") for k, s in layout.items()}


class Reads(dict):  # type: ignore[type-arg]
    """The checkpoint as the converter sees it, remembering every tensor it reads."""

    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        if key in self:
            self.read.add(key)
        return super().get(key, default)

    def pop(self, key: str, *default: Any) -> Any:
        self.read.add(key)
        return super().pop(key, *default)


def check(
    component: str,
    got: dict[str, Any],
    want: dict[str, tuple[int, ...]],
    consumed: set[str],
    original: dict[str, tuple[int, ...]],
    prefix: str,
) -> None:
    shapes = {k: tuple(v.shape) for k, v in got.items()}
    if shapes != want:
        missing = sorted(set(want) - set(shapes))[:5]
        extra = sorted(set(shapes) - set(want))[:5]
        wrong = [k for k in want if k in shapes and shapes[k] != want[k]][:5]
        raise SystemExit(f"{component}: converter output differs: missing {missing} extra {extra} wrong {wrong}")
    left = sorted(k for k in original if k.startswith(prefix) and k not in consumed)
    if left:
        raise SystemExit(f"{component}: original tensors the converter did not read: {left[:5]}")


def sd_type(
    name: str,
    unet_config: dict[str, Any],
    vae_config: dict[str, Any],
    text: list[tuple[str, str, dict[str, Any], str, str]],
    stored_text: dict[str, tuple[dict[str, Any], str]] | None = None,
) -> dict[str, Any]:
    """``text``: (component, prefix, config, class, "hf" | "open_clip"). ``stored_text``: a text component whose
    original model is larger than the loader's config (SD 2.x's OpenCLIP-H: 24 resblocks and a text_projection,
    of which diffusers builds 23 layers and no projection): its config and class as the original code stores it;
    the tensors beyond the loader's model are written too, must change nothing in the conversion, and are kept
    apart as ``unread``."""
    import torch
    from diffusers import AutoencoderKL, UNet2DConditionModel
    from diffusers.loaders import single_file_utils as sfu
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTextModelWithProjection

    classes = {"CLIPTextModel": CLIPTextModel, "CLIPTextModelWithProjection": CLIPTextModelWithProjection}
    stored_text = stored_text or {}
    components: dict[str, Any] = {}
    original: dict[str, tuple[int, ...]] = {}
    unread: dict[str, tuple[int, ...]] = {}
    with torch.device("meta"):
        unet = UNet2DConditionModel.from_config(unet_config)
        vae = AutoencoderKL.from_config(vae_config)
    unet_sd, vae_sd = state_shapes(unet), state_shapes(vae)
    original.update(to_original_unet(unet_sd, dict(unet.config)))
    original.update(to_original_vae(vae_sd, vae_config, "first_stage_model."))

    def text_sd(model: Any) -> dict[str, tuple[int, ...]]:
        # transformers >= 5.6 flattens CLIPTextModel (no text_model. level); the converters speak text_model.
        sd = state_shapes(model)
        return sd if hasattr(model, "text_model") else {"text_model." + k: v for k, v in sd.items()}

    models: dict[str, Any] = {}
    for comp, prefix, cfg, cls_name, fmt in text:
        with torch.device("meta"):
            model = classes[cls_name](CLIPTextConfig(**cfg))
        models[comp] = model
        sd = text_sd(model)
        written = to_original_open_clip(sd, prefix) if fmt == "open_clip" else to_original_clip(sd, prefix)
        original.update(written)
        if comp in stored_text:
            big_cfg, big_cls = stored_text[comp]
            with torch.device("meta"):
                big = classes[big_cls](CLIPTextConfig(**big_cfg))
            full = to_original_open_clip(text_sd(big), prefix)
            assert all(full[k] == v for k, v in written.items()), (
                f"{comp}: the stored model does not extend the loader's"
            )
            unread.update({k: v for k, v in full.items() if k not in written})
    ckpt = meta_tensors(original)
    full_ckpt = meta_tensors({**original, **unread})
    ids = {id(v): k for k, v in ckpt.items()}

    def used(out: dict[str, Any]) -> set[str]:
        return {ids.get(id(v), ids.get(id(getattr(v, "_base", None)), "")) for v in out.values()}

    work = Reads(ckpt)
    out = sfu.convert_ldm_unet_checkpoint(work, dict(unet.config))
    src = used(out) & work.read
    check("unet", out, unet_sd, src, original, "model.diffusion_model.")
    components["unet"] = dict(
        cls="UNet2DConditionModel",
        config=unet_config,
        prefix="model.diffusion_model.",
        parameters=unet.num_parameters(),
        original_tensors=len(src),
    )
    work = Reads(ckpt)
    out = sfu.convert_ldm_vae_checkpoint(work, vae_config)
    src = (used(out) | _conv_sources(out, ids)) & work.read
    check("vae", out, vae_sd, src, original, "first_stage_model.")
    components["vae"] = dict(
        cls="AutoencoderKL",
        config=vae_config,
        prefix="first_stage_model.",
        parameters=vae.num_parameters(),
        original_tensors=len(src),
    )
    for comp, prefix, cfg, _cls, fmt in text:
        model = models[comp]
        want = state_shapes(model)
        work = Reads(ckpt)
        if fmt == "open_clip":
            out = sfu.convert_open_clip_checkpoint(model, work, prefix=prefix)
            src = {k for k in work.read if k.startswith(prefix)}  # sliced and cloned: known by the reads
            if comp in stored_text:  # the whole original model: the extra tensors change nothing
                again = sfu.convert_open_clip_checkpoint(model, Reads(full_ckpt), prefix=prefix)
                if {k: tuple(v.shape) for k, v in again.items()} != {k: tuple(v.shape) for k, v in out.items()}:
                    raise SystemExit(f"{comp}: the stored model's extra tensors change the conversion")
                if not set(unread) <= set(sfu.SD_2_TEXT_ENCODER_KEYS_TO_IGNORE):  # what the loader says it skips
                    raise SystemExit(f"{comp}: unread tensors the loader does not list as ignored")
        else:
            out = {
                k: v
                for k, v in sfu.convert_ldm_clip_checkpoint(work).items()
                if k.startswith("text_model.") and (prefix + k) in ckpt
            }
            src = used(out) | _conv_sources(out, ids)
        if not hasattr(model, "text_model"):  # as create_diffusers_clip_model_from_ldm does
            out = {k.removeprefix("text_model."): v for k, v in out.items()}
        check(comp, out, want, src, original, prefix)
        components[comp] = dict(
            cls=type(model).__name__,
            config={**cfg, "model_type": "clip_text_model", "architectures": [type(model).__name__]},
            prefix=prefix,
            parameters=model.num_parameters(),
            original_tensors=len(src),
        )
    inferred = sfu.infer_diffusers_model_type(ckpt)
    if unread and sfu.infer_diffusers_model_type(full_ckpt) != inferred:
        raise SystemExit(f"{name}: the whole original file is inferred as another type")
    return dict(
        type=name,
        inferred_model_type=inferred,
        default_pipeline=sfu.DIFFUSERS_DEFAULT_PIPELINE_PATHS[inferred]["pretrained_model_name_or_path"],
        components=components,
        original=original,
        unread=unread,
    )


def _conv_sources(out: dict[str, Any], ids: dict[int, str]) -> set[str]:
    """Tensors the converter sliced (``[:, :, 0, 0]``, ``[:dim]``, ``.T``) are views of the original one."""
    found = set()
    for v in out.values():
        base = v
        while getattr(base, "_base", None) is not None:
            base = base._base
        if id(base) in ids:
            found.add(ids[id(base)])
    return found


# BFL's flux/util.py FluxParams of flux-dev-fill (FLUX.1-Fill-dev) and flux-dev-depth (FLUX.1-Depth-dev), as their
# released transformer configs repeat: the dev transformer over a wider input (the input widths are the ones
# infer_diffusers_model_type tests img_in.weight against) and the dev output (out_channels 64). Cross-checked below
# against what diffusers' own pipelines feed and read back (flux_conditioned_channels).
FLUX_FILL = dict(in_channels=384, out_channels=64)
FLUX_DEPTH = dict(in_channels=128, out_channels=64)


def flux_conditioned_channels(name: str, config: dict[str, Any]) -> None:
    """The widths FluxFillPipeline / FluxControlPipeline (diffusers 0.42.1) imply with the FLUX VAE: the output is
    the packed latents (latent_channels x 2 x 2); Fill's input is the packed noisy latents, the packed masked-image
    latents and the packed mask (vae_scale_factor ** 2 per latent pixel, x 2 x 2); Control (depth) concatenates the
    packed control-image latents and takes ``in_channels // 8`` latent channels."""
    vae = case_config("AutoencoderKL", "flux")
    packed = vae["latent_channels"] * 4
    scale = 2 ** (len(vae["block_out_channels"]) - 1)
    want_in = {"flux-fill": 2 * packed + scale * scale * 4, "flux-depth": 2 * packed}[name]
    if config["out_channels"] != packed or config["in_channels"] != want_in:
        raise SystemExit(
            f"{name}: {config['in_channels']} -> {config['out_channels']} channels, the pipeline "
            f"implies {want_in} -> {packed}"
        )
    if name == "flux-depth" and config["in_channels"] // 8 != vae["latent_channels"]:
        raise SystemExit(f"{name}: FluxControlPipeline's in_channels // 8 is not the VAE's latent channels")


def flux_type(name: str, case: str, overrides: dict[str, Any]) -> dict[str, Any]:
    import torch
    from diffusers import FluxTransformer2DModel
    from diffusers.loaders import single_file_utils as sfu

    config = {**case_config("FluxTransformer2DModel", case), **overrides}
    if name in ("flux-fill", "flux-depth"):
        flux_conditioned_channels(name, config)
    with torch.device("meta"):
        model = FluxTransformer2DModel.from_config(config)
    sd = state_shapes(model)
    original = to_original_flux(sd)
    ckpt = meta_tensors(original)
    inferred = sfu.infer_diffusers_model_type(ckpt)
    if inferred != name:
        raise SystemExit(f"{name}: inferred as {inferred}")
    work = dict(ckpt)
    out = sfu.convert_flux_transformer_checkpoint_to_diffusers(work)
    check("transformer", out, sd, set(original) - set(work), original, "")
    return dict(
        type=name,
        inferred_model_type=inferred,
        default_pipeline=sfu.DIFFUSERS_DEFAULT_PIPELINE_PATHS[inferred]["pretrained_model_name_or_path"],
        components={
            "transformer": dict(
                cls="FluxTransformer2DModel",
                config=config,
                prefix="",
                parameters=model.num_parameters(),
                original_tensors=len(original),
            )
        },
        original=original,
    )


def flux_vae_type() -> dict[str, Any]:
    import torch
    from diffusers import AutoencoderKL
    from diffusers.loaders import single_file_utils as sfu

    config = case_config("AutoencoderKL", "flux")
    with torch.device("meta"):
        vae = AutoencoderKL.from_config(config)
    sd = state_shapes(vae)
    original = to_original_vae(sd, config, "")
    ckpt = meta_tensors(original)
    ids = {id(v): k for k, v in ckpt.items()}
    out = sfu.convert_ldm_vae_checkpoint(dict(ckpt), config)
    check("vae", out, sd, _conv_sources(out, ids), original, "")
    # AutoencoderKL.from_single_file(ae.safetensors, config="black-forest-labs/FLUX.1-dev", subfolder="vae"):
    # the file alone names no model type, its config is given by the caller
    return dict(
        type="flux-vae",
        inferred_model_type=None,
        default_pipeline="black-forest-labs/FLUX.1-dev",
        components={
            "vae": dict(
                cls="AutoencoderKL",
                config=config,
                prefix="",
                parameters=vae.num_parameters(),
                original_tensors=len(original),
            )
        },
        original=original,
    )


# -- SD3 / SD3.5 (MMDiT, sd3/mmdit.py names under model.diffusion_model.) ---------------------------------------


# stabilityai/stable-diffusion-3-medium-diffusers' transformer: the widths the SD3 medium ControlNet case shares with
# it (24 heads of 64, caption projection 1536, joint 4096 / pooled 2048 inputs, pos_embed_max_size 192, patch 2,
# 16 channels) and 24 joint blocks (MMDiT's depth = heads; the converter reads the count from the file, the library
# states no default). Checked below against what infer_diffusers_model_type tests: the context block's adaLN
# width 6 x 1536 = 9216 and the position table's 192 ** 2 = 36864 rows.
def sd3_medium_config() -> dict[str, Any]:
    cn = case_config("SD3ControlNetModel", "sd3-medium")
    keep = (
        "attention_head_dim",
        "caption_projection_dim",
        "in_channels",
        "joint_attention_dim",
        "num_attention_heads",
        "out_channels",
        "patch_size",
        "pooled_projection_dim",
        "pos_embed_max_size",
        "sample_size",
    )
    return {
        "_class_name": "SD3Transformer2DModel",
        **{k: cn[k] for k in keep},
        "num_layers": 24,
        "dual_attention_layers": [],
        "qk_norm": None,
    }


# stabilityai/stable-diffusion-3.5-large's transformer: the widths the SD3.5 large ControlNet case shares with it
# (38 heads of 64, caption projection 2432, pooled 2048, patch 2, 16 channels), SD3's joint width 4096 (the same
# text encoders), and from the released config: 38 joint blocks (infer_diffusers_model_type tests that joint block
# 37 exists), RMS qk norm and pos_embed_max_size 192 (the converter reads the qk norm and layer count from the file).
def sd35_large_config() -> dict[str, Any]:
    cn = case_config("SD3ControlNetModel", "sd35-large")
    keep = (
        "attention_head_dim",
        "caption_projection_dim",
        "in_channels",
        "num_attention_heads",
        "out_channels",
        "patch_size",
        "pooled_projection_dim",
        "sample_size",
    )
    return {
        "_class_name": "SD3Transformer2DModel",
        **{k: cn[k] for k in keep},
        "joint_attention_dim": sd3_medium_config()["joint_attention_dim"],
        "num_layers": 38,
        "pos_embed_max_size": 192,
        "dual_attention_layers": [],
        "qk_norm": "rms_norm",
    }


def to_original_sd3(sd: dict[str, tuple[int, ...]], prefix: str) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}

    def put(key: str, shape: tuple[int, ...]) -> None:  # fused: concatenated along dim 0 in q, k, v order
        old = out.get(key)
        out[key] = shape if old is None else (old[0] + shape[0], *shape[1:])

    top = {
        "pos_embed.proj": "x_embedder.proj",
        "time_text_embed.timestep_embedder.linear_1": "t_embedder.mlp.0",
        "time_text_embed.timestep_embedder.linear_2": "t_embedder.mlp.2",
        "time_text_embed.text_embedder.linear_1": "y_embedder.mlp.0",
        "time_text_embed.text_embedder.linear_2": "y_embedder.mlp.2",
        "context_embedder": "context_embedder",
        "proj_out": "final_layer.linear",
        "norm_out.linear": "final_layer.adaLN_modulation.1",
    }
    block = {
        "attn.to_q": "x_block.attn.qkv",
        "attn.to_k": "x_block.attn.qkv",
        "attn.to_v": "x_block.attn.qkv",
        "attn.add_q_proj": "context_block.attn.qkv",
        "attn.add_k_proj": "context_block.attn.qkv",
        "attn.add_v_proj": "context_block.attn.qkv",
        "attn.norm_q": "x_block.attn.ln_q",
        "attn.norm_k": "x_block.attn.ln_k",
        "attn.norm_added_q": "context_block.attn.ln_q",
        "attn.norm_added_k": "context_block.attn.ln_k",
        "attn.to_out.0": "x_block.attn.proj",
        "attn.to_add_out": "context_block.attn.proj",
        "attn2.to_q": "x_block.attn2.qkv",
        "attn2.to_k": "x_block.attn2.qkv",
        "attn2.to_v": "x_block.attn2.qkv",
        "attn2.norm_q": "x_block.attn2.ln_q",
        "attn2.norm_k": "x_block.attn2.ln_k",
        "attn2.to_out.0": "x_block.attn2.proj",
        "norm1.linear": "x_block.adaLN_modulation.1",
        "norm1_context.linear": "context_block.adaLN_modulation.1",
        "ff.net.0.proj": "x_block.mlp.fc1",
        "ff.net.2": "x_block.mlp.fc2",
        "ff_context.net.0.proj": "context_block.mlp.fc1",
        "ff_context.net.2": "context_block.mlp.fc2",
    }
    order = sorted(sd, key=lambda n: (re.sub(r"(to|add)_[qkv](_proj)?\.", "", n), "_q" not in n, "_k" not in n))
    for name in order:
        shape = sd[name]
        if name == "pos_embed.pos_embed":
            out[prefix + "pos_embed"] = shape
            continue
        module, _, leaf = name.rpartition(".")
        if module in top:
            put(f"{prefix}{top[module]}.{leaf}", shape)
        elif m := re.match(r"transformer_blocks\.(\d+)\.(.*)", module):
            put(f"{prefix}joint_blocks.{m[1]}.{block[m[2]]}.{leaf}", shape)
        else:
            raise KeyError(name)
    return out


# the SD3 pipelines' text_encoder / text_encoder_2 (CLIPTextModelWithProjection, the released CLIP-L and OpenCLIP
# bigG text configs written above), stored in transformers' own names under text_encoders.clip_l|clip_g.transformer.
SD3_CLIPS = [
    ("text_encoder", "text_encoders.clip_l.transformer.", CLIP_L),
    ("text_encoder_2", "text_encoders.clip_g.transformer.", CLIP_G),
]


# stabilityai/stable-diffusion-3-medium-diffusers' text_encoder_3: google/t5-v1_1-xxl's encoder (the released config,
# written here: no dumped case holds it)
T5_XXL = dict(
    vocab_size=32128,
    d_model=4096,
    d_kv=64,
    d_ff=10240,
    num_layers=24,
    num_decoder_layers=24,
    num_heads=64,
    relative_attention_num_buckets=32,
    relative_attention_max_distance=128,
    feed_forward_proj="gated-gelu",
    dense_act_fn="gelu_new",
    is_gated_act=True,
    layer_norm_epsilon=1e-6,
    tie_word_embeddings=False,
)
T5_PREFIX = "text_encoders.t5xxl.transformer."


def sd3_t5(ckpt: dict[str, Any], original: dict[str, tuple[int, ...]]) -> dict[str, Any]:
    """create_diffusers_t5_model_from_checkpoint: convert_sd3_t5_checkpoint_to_diffusers removes the prefix; the file
    holds the embedding once (shared.weight, what is_t5_in_single_file tests), encoder.embed_tokens.weight is its
    tie (T5EncoderModel._tied_weights_keys)."""
    import torch
    from diffusers.loaders import single_file_utils as sfu
    from transformers import T5Config, T5EncoderModel

    with torch.device("meta"):
        model = T5EncoderModel(T5Config(**T5_XXL))
    tied = dict(getattr(model, "_tied_weights_keys", None) or {})
    if tied != {"encoder.embed_tokens.weight": "shared.weight"}:
        raise SystemExit(f"text_encoder_3: unexpected ties {tied}")
    want = {k: v for k, v in state_shapes(model).items() if k not in tied}
    if not sfu.is_t5_in_single_file(ckpt):
        raise SystemExit("text_encoder_3: not recognised as T5 by the loader")
    work = Reads(ckpt)
    out = sfu.convert_sd3_t5_checkpoint_to_diffusers(work)
    check("text_encoder_3", out, want, {k for k in work.read if k.startswith(T5_PREFIX)}, original, T5_PREFIX)
    return dict(
        cls="T5EncoderModel",
        config={**T5_XXL, "model_type": "t5", "architectures": ["T5EncoderModel"]},
        prefix=T5_PREFIX,
        parameters=model.num_parameters(),
        original_tensors=len(want),
        tied=sorted(tied),
    )


def sd3_text(
    comp: str, prefix: str, cfg: dict[str, Any], ckpt: dict[str, Any], original: dict[str, tuple[int, ...]]
) -> dict[str, Any]:
    """create_diffusers_clip_model_from_ldm's SD3 branches: convert_ldm_clip_checkpoint with the prefix removed; for
    CLIP-L the loader sets text_projection to the identity itself (torch.eye), so the file need not store it."""
    import torch
    from diffusers.loaders import single_file_utils as sfu
    from transformers import CLIPTextConfig, CLIPTextModelWithProjection

    with torch.device("meta"):
        model = CLIPTextModelWithProjection(CLIPTextConfig(**cfg))
    want = state_shapes(model)
    supplied = {"text_projection.weight": want["text_projection.weight"]} if comp == "text_encoder" else {}
    work = Reads(ckpt)
    out = sfu.convert_ldm_clip_checkpoint(work, prefix)
    if supplied:
        out["text_projection.weight"] = torch.eye(cfg["hidden_size"], device="meta")
    src = {k for k in work.read if k.startswith(prefix)}
    check(comp, out, want, src, original, prefix)
    n = sum(1 for k in original if k.startswith(prefix))
    return dict(
        cls="CLIPTextModelWithProjection",
        config={**cfg, "model_type": "clip_text_model", "architectures": ["CLIPTextModelWithProjection"]},
        prefix=prefix,
        parameters=model.num_parameters(),
        original_tensors=n,
        supplied={k: list(v) for k, v in supplied.items()},
    )


def sd3_type(
    name: str,
    config: dict[str, Any],
    vae_config: dict[str, Any],
    text: list[tuple[str, str, dict[str, Any]]] | None = None,
    t5: bool = False,
) -> dict[str, Any]:
    """The MMDiT under model.diffusion_model., the 16-channel VAE under first_stage_model. (``sd3_medium``) and,
    when ``text``, the CLIP text encoders under text_encoders. (``sd3_medium_incl_clips``)."""
    import torch
    from diffusers import AutoencoderKL, SD3Transformer2DModel
    from diffusers.loaders import single_file_utils as sfu
    from transformers import CLIPTextConfig, CLIPTextModelWithProjection, T5Config, T5EncoderModel

    with torch.device("meta"):
        model = SD3Transformer2DModel.from_config(config)
        vae = AutoencoderKL.from_config(vae_config)
    sd, vae_sd = state_shapes(model), state_shapes(vae)
    hidden = config["num_attention_heads"] * config["attention_head_dim"]
    original = to_original_sd3(sd, "model.diffusion_model.")
    if original["model.diffusion_model.joint_blocks.0.context_block.adaLN_modulation.1.bias"] != (6 * hidden,):
        raise SystemExit(f"{name}: the context block's adaLN is not 6 x {hidden} wide")
    original.update(to_original_vae(vae_sd, vae_config, "first_stage_model."))
    for comp, prefix, cfg in text or []:  # transformers' names as they are; CLIP-L's projection not stored
        with torch.device("meta"):
            clip = CLIPTextModelWithProjection(CLIPTextConfig(**cfg))
        original.update(
            {
                prefix + k: v
                for k, v in state_shapes(clip).items()
                if not (comp == "text_encoder" and k == "text_projection.weight")
            }
        )
    if t5:  # the tied embedding once, as shared.weight
        with torch.device("meta"):
            t5_model = T5EncoderModel(T5Config(**T5_XXL))
        original.update(
            {T5_PREFIX + k: v for k, v in state_shapes(t5_model).items() if k != "encoder.embed_tokens.weight"}
        )
    ckpt = meta_tensors(original)
    inferred = sfu.infer_diffusers_model_type(ckpt)
    work = {k: v for k, v in ckpt.items() if k.startswith("model.diffusion_model.")}
    out = sfu.convert_sd3_transformer_checkpoint_to_diffusers(work)
    if work:
        raise SystemExit(f"transformer: original tensors the converter did not read: {sorted(work)[:5]}")
    check("transformer", out, sd, set(original), original, "model.diffusion_model.")
    ids = {id(v): k for k, v in ckpt.items()}
    reads = Reads(ckpt)
    vout = sfu.convert_ldm_vae_checkpoint(reads, vae_config)
    used = {ids.get(id(v), "") for v in vout.values()} | _conv_sources(vout, ids)
    check("vae", vout, vae_sd, used & reads.read, original, "first_stage_model.")
    n_tr = sum(1 for k in original if k.startswith("model.diffusion_model."))
    return dict(
        type=name,
        inferred_model_type=inferred,
        default_pipeline=sfu.DIFFUSERS_DEFAULT_PIPELINE_PATHS[inferred]["pretrained_model_name_or_path"],
        components={
            "transformer": dict(
                cls="SD3Transformer2DModel",
                config=config,
                prefix="model.diffusion_model.",
                parameters=model.num_parameters(),
                original_tensors=n_tr,
            ),
            "vae": dict(
                cls="AutoencoderKL",
                config=vae_config,
                prefix="first_stage_model.",
                parameters=vae.num_parameters(),
                original_tensors=sum(1 for k in original if k.startswith("first_stage_")),
            ),
            **{comp: sd3_text(comp, prefix, cfg, ckpt, original) for comp, prefix, cfg in text or []},
            **({"text_encoder_3": sd3_t5(ckpt, original)} if t5 else {}),
        },
        original=original,
    )


def main() -> None:
    import diffusers
    import torch
    import transformers

    sd_vae = case_config("AutoencoderKL", "sd")
    xl_vae = {**sd_vae, "scaling_factor": 0.13025, "sample_size": 1024}
    sd3_vae = {**case_config("AutoencoderKL", "flux"), "scaling_factor": 1.5305}
    sd15_inpaint_unet = {**case_config("UNet2DConditionModel", "sd15"), "in_channels": 9}
    types = [
        sd_type(
            "sd15",
            case_config("UNet2DConditionModel", "sd15"),
            sd_vae,
            [("text_encoder", "cond_stage_model.transformer.", CLIP_L, "CLIPTextModel", "hf")],
        ),
        sd_type(
            "sdxl-base",
            case_config("UNet2DConditionModel", "sdxl"),
            xl_vae,
            [
                ("text_encoder", "conditioner.embedders.0.transformer.", CLIP_L, "CLIPTextModel", "hf"),
                (
                    "text_encoder_2",
                    "conditioner.embedders.1.model.",
                    CLIP_G,
                    "CLIPTextModelWithProjection",
                    "open_clip",
                ),
            ],
        ),
        sd_type(
            "sdxl-refiner",
            refiner_unet_config(),
            xl_vae,
            [("text_encoder_2", "conditioner.embedders.0.model.", CLIP_G, "CLIPTextModelWithProjection", "open_clip")],
        ),
        sd_type(
            "sd2",
            case_config("UNet2DConditionModel", "sd21"),
            {**sd_vae, "sample_size": 768},
            [("text_encoder", "cond_stage_model.model.", OPEN_CLIP_H_SD2, "CLIPTextModel", "open_clip")],
            stored_text={"text_encoder": (OPEN_CLIP_H_STORED, "CLIPTextModelWithProjection")},
        ),
        # stable-diffusion-v1-5/stable-diffusion-inpainting: SD 1.5's released configs, the UNet over 9 inputs
        sd_type(
            "sd15-inpainting",
            ldm_checked("sd15-inpainting", sd15_inpaint_unet, ldm_v1_yaml(9)),
            sd_vae,
            [("text_encoder", "cond_stage_model.transformer.", CLIP_L, "CLIPTextModel", "hf")],
        ),
        # stabilityai/stable-diffusion-2-inpainting: SD 2.x's configs (the released 23-layer OpenCLIP-H text
        # encoder, stored whole as in v2), the UNet over 9 inputs
        sd_type(
            "sd2-inpainting",
            ldm_checked(
                "sd2-inpainting",
                {
                    **case_config("UNet2DConditionModel", "sd21"),
                    "in_channels": 9,
                    "sample_size": 64,
                    "upcast_attention": False,
                },
                SD2_INPAINT_YAML,
            ),
            sd_vae,
            [("text_encoder", "cond_stage_model.model.", OPEN_CLIP_H_SD2, "CLIPTextModel", "open_clip")],
            stored_text={"text_encoder": (OPEN_CLIP_H_STORED, "CLIPTextModelWithProjection")},
        ),
        # timbrooks/instruct-pix2pix: SD 1.5's configs, the UNet over 8 inputs
        sd_type(
            "instruct-pix2pix",
            ldm_checked(
                "instruct-pix2pix", {**case_config("UNet2DConditionModel", "sd15"), "in_channels": 8}, ldm_v1_yaml(8)
            ),
            sd_vae,
            [("text_encoder", "cond_stage_model.transformer.", CLIP_L, "CLIPTextModel", "hf")],
        ),
        # diffusers/stable-diffusion-xl-1.0-inpainting-0.1: SDXL base's configs, the UNet over 9 inputs
        sd_type(
            "sdxl-inpainting",
            ldm_checked(
                "sdxl-inpainting", {**case_config("UNet2DConditionModel", "sdxl"), "in_channels": 9}, SD_XL_INPAINT_YAML
            ),
            xl_vae,
            [
                ("text_encoder", "conditioner.embedders.0.transformer.", CLIP_L, "CLIPTextModel", "hf"),
                (
                    "text_encoder_2",
                    "conditioner.embedders.1.model.",
                    CLIP_G,
                    "CLIPTextModelWithProjection",
                    "open_clip",
                ),
            ],
        ),
        flux_type("flux-dev", "dev", {}),
        flux_type("flux-schnell", "dev", {"guidance_embeds": False}),
        flux_type("flux-fill", "dev", FLUX_FILL),
        flux_type("flux-depth", "dev", FLUX_DEPTH),
        flux_vae_type(),
        # stabilityai/stable-diffusion-3-medium-diffusers: the MMDiT and the 16-channel VAE (the FLUX VAE case's
        # shapes with SD3's scaling factor), no text encoders (sd3_medium.safetensors)
        sd3_type("sd3-medium", sd3_medium_config(), sd3_vae),
        # sd3_medium_incl_clips.safetensors: the same with CLIP-L and OpenCLIP bigG
        sd3_type("sd3-medium-clips", sd3_medium_config(), sd3_vae, SD3_CLIPS),
        # sd3_medium_incl_clips_t5xxlfp16.safetensors: and the T5-XXL encoder
        sd3_type("sd3-medium-clips-t5", sd3_medium_config(), sd3_vae, SD3_CLIPS, t5=True),
        # sd3.5_large.safetensors / sd3.5_medium.safetensors: the MMDiT (3.5 medium: the dumped case, MMDiT-X dual
        # attention in blocks 0-12, RMS qk norm, 384 x 384 position table) and the same VAE
        sd3_type("sd35-large", sd35_large_config(), sd3_vae),
        sd3_type("sd35-medium", case_config("SD3Transformer2DModel", "sd35-medium"), sd3_vae),
    ]
    model_types = {
        "sd15": "v1",
        "sdxl-base": "xl_base",
        "sdxl-refiner": "xl_refiner",
        "sd2": "v2",
        "sd15-inpainting": "inpainting",
        "sd2-inpainting": "inpainting_v2",
        "sdxl-inpainting": "xl_inpaint",
        "instruct-pix2pix": "instruct-pix2pix",
        "sd3-medium": "sd3",
        "sd3-medium-clips": "sd3",
        "sd3-medium-clips-t5": "sd3",
        "sd35-large": "sd35_large",
        "sd35-medium": "sd35_medium",
    }
    for t in types:  # infer_diffusers_model_type names each type
        if t["type"] in model_types and t["inferred_model_type"] != model_types[t["type"]]:
            raise SystemExit(f"{t['type']}: inferred as {t['inferred_model_type']}")
    OUT.mkdir(parents=True, exist_ok=True)
    for t in types:
        t["produced_by"] = (
            f"tools/dump_single_file.py: diffusers {diffusers.__version__}, transformers "
            f"{transformers.__version__}, torch {torch.__version__}"
        )
        t["original"] = {k: list(v) for k, v in sorted(t["original"].items())}
        if t.get("unread"):  # stored by the original code, not read by the loader
            t["unread"] = {k: list(v) for k, v in sorted(t["unread"].items())}
        else:
            t.pop("unread", None)
        with gzip.open(OUT / f"{t['type']}.json.gz", "wt") as f:
            json.dump(t, f, sort_keys=True)
        counts = ", ".join(f"{c} {v['parameters']:,} from {v['original_tensors']}" for c, v in t["components"].items())
        print(f"{t['type']}: {len(t['original'])} original tensors -> {t['inferred_model_type']}; {counts}")


if __name__ == "__main__":
    main()
