"""Dump folders written by the real tools: a diffusers pipeline, a sentence-transformers model, a diffusers LoRA.

DEV-ONLY TOOL (like tools/dump_peft.py): run with $DEVENV/bin/python (torch 2.13 CPU, transformers 5.23,
diffusers 0.42, sentence-transformers 6.2, peft 0.21). Each case builds tiny random models on CPU, lets the
library save them (``save_pretrained`` with and without ``variant="fp16"``, ``SentenceTransformer.save``,
``save_lora_weights``), and keeps what was written: every JSON file verbatim and, for every safetensors file,
its tensor names, dtypes and shapes. ``fixtures/kinds/<case>.json.gz``; tests rebuild the folders header-only.

    $DEVENV/bin/python tools/dump_kinds.py [--only CASE ...]
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import struct
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "kinds"


def _tiny_sd(tmp: str) -> None:
    import torch
    from diffusers import AutoencoderKL, DDIMScheduler, StableDiffusionPipeline, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer  # noqa: F401

    torch.manual_seed(0)
    unet = UNet2DConditionModel(
        block_out_channels=(8, 16),
        layers_per_block=1,
        sample_size=16,
        in_channels=4,
        out_channels=4,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        cross_attention_dim=12,
        norm_num_groups=4,
        attention_head_dim=2,
    )
    vae = AutoencoderKL(
        block_out_channels=(8, 16),
        in_channels=3,
        out_channels=3,
        latent_channels=4,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        norm_num_groups=4,
    )
    text = CLIPTextModel(
        CLIPTextConfig(
            hidden_size=12,
            intermediate_size=24,
            num_hidden_layers=2,
            num_attention_heads=2,
            vocab_size=100,
            max_position_embeddings=16,
        )
    )
    pipe = StableDiffusionPipeline(
        unet=unet,
        vae=vae,
        text_encoder=text,
        tokenizer=None,
        scheduler=DDIMScheduler(),
        safety_checker=None,
        feature_extractor=None,
        requires_safety_checker=False,
    )
    pipe.save_pretrained(tmp)
    pipe.to(torch.float16).save_pretrained(tmp, variant="fp16")


def _sentence_transformers(tmp: str) -> None:
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as base:
        BertModel(
            BertConfig(
                hidden_size=16,
                intermediate_size=32,
                num_hidden_layers=2,
                num_attention_heads=2,
                vocab_size=50,
                max_position_embeddings=32,
            )
        ).save_pretrained(base)
        from transformers import BertTokenizerFast

        vocab = Path(base, "vocab.txt")
        vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(45)]))
        BertTokenizerFast(vocab_file=str(vocab)).save_pretrained(base)
        transformer = models.Transformer(base)
    pooling = models.Pooling(16, pooling_mode="mean")
    dense = models.Dense(in_features=16, out_features=8)
    model = SentenceTransformer(modules=[transformer, pooling, dense, models.Normalize()])
    model.save(tmp)


def _diffusers_lora(tmp: str) -> None:
    import torch
    from diffusers import StableDiffusionPipeline, UNet2DConditionModel
    from peft import LoraConfig
    from peft.utils import get_peft_model_state_dict

    torch.manual_seed(0)
    unet = UNet2DConditionModel(
        block_out_channels=(8, 16),
        layers_per_block=1,
        sample_size=16,
        in_channels=4,
        out_channels=4,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        cross_attention_dim=12,
        norm_num_groups=4,
        attention_head_dim=2,
    )
    unet.add_adapter(LoraConfig(r=4, lora_alpha=4, target_modules=["to_k", "to_q", "to_v", "to_out.0"]))
    StableDiffusionPipeline.save_lora_weights(tmp, unet_lora_layers=get_peft_model_state_dict(unet))


def _kohya_lora(tmp: str) -> None:
    """The same UNet LoRA converted by diffusers to the kohya/sd-scripts format (AUTOMATIC1111, ComfyUI)."""
    import torch
    from diffusers import UNet2DConditionModel
    from diffusers.utils import convert_state_dict_to_kohya
    from peft import LoraConfig
    from peft.utils import get_peft_model_state_dict
    from safetensors.torch import save_file

    torch.manual_seed(0)
    unet = UNet2DConditionModel(
        block_out_channels=(8, 16),
        layers_per_block=1,
        sample_size=16,
        in_channels=4,
        out_channels=4,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        cross_attention_dim=12,
        norm_num_groups=4,
        attention_head_dim=2,
    )
    unet.add_adapter(LoraConfig(r=4, lora_alpha=8, target_modules=["to_k", "to_q", "to_v", "to_out.0"]))
    peft_sd = {f"unet.{k}": v for k, v in get_peft_model_state_dict(unet).items()}
    kohya = convert_state_dict_to_kohya(peft_sd)
    save_file({k: v.contiguous() for k, v in kohya.items()}, f"{tmp}/kohya_lora.safetensors")


# -- release shape: what big releases look like, written by the libraries' own writers ---------------------------
# Shards come from a small max_shard_size (every large release is sharded: FLUX.1-dev's transformer in 3 files, its
# T5 encoder in 2), variants from variant="fp16" (sharded and single), pipelines from DiffusionPipeline.save_pretrained.
SHARD = "40KB"


def _clip(projection: bool = False, hidden: int = 32):
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTextModelWithProjection

    config = CLIPTextConfig(
        hidden_size=hidden,
        intermediate_size=37,
        num_hidden_layers=2,
        num_attention_heads=4,
        vocab_size=1000,
        max_position_embeddings=77,
        projection_dim=32,
    )
    return CLIPTextModelWithProjection(config) if projection else CLIPTextModel(config)


def _t5(umt5: bool = False):
    from transformers import T5Config, T5EncoderModel, UMT5Config, UMT5EncoderModel

    kw = dict(d_model=32, d_ff=64, num_layers=2, num_heads=4, d_kv=8, vocab_size=1000, feed_forward_proj="gated-gelu")
    return UMT5EncoderModel(UMT5Config(**kw)) if umt5 else T5EncoderModel(T5Config(**kw))


def _flux_vae():
    from diffusers import AutoencoderKL

    return AutoencoderKL(
        in_channels=3,
        out_channels=3,
        block_out_channels=(8, 16),
        layers_per_block=1,
        down_block_types=("DownEncoderBlock2D",) * 2,
        up_block_types=("UpDecoderBlock2D",) * 2,
        latent_channels=4,
        norm_num_groups=4,
        use_quant_conv=False,
        use_post_quant_conv=False,
        shift_factor=0.1159,
        scaling_factor=0.3611,
    )


def _save_both(pipe, tmp: str) -> dict:
    """Save as a release does: default weights sharded, and the fp16 variant sharded too."""
    import torch

    pipe.save_pretrained(tmp, max_shard_size=SHARD)
    pipe.to(torch.float16).save_pretrained(tmp, variant="fp16", max_shard_size=SHARD)
    return {name: c for name, c in pipe.components.items() if hasattr(c, "num_parameters")}


def _flux_pipeline(tmp: str) -> dict:
    """FLUX.1-dev's layout: CLIP + T5 encoders, a sharded transformer and T5, fp16 variants of each."""
    import torch
    from diffusers import FlowMatchEulerDiscreteScheduler, FluxPipeline, FluxTransformer2DModel

    torch.manual_seed(0)
    transformer = FluxTransformer2DModel(
        patch_size=1,
        in_channels=16,
        num_layers=2,
        num_single_layers=3,
        attention_head_dim=16,
        num_attention_heads=2,
        joint_attention_dim=32,
        pooled_projection_dim=32,
        axes_dims_rope=(4, 4, 8),
        guidance_embeds=True,
    )
    pipe = FluxPipeline(
        scheduler=FlowMatchEulerDiscreteScheduler(),
        vae=_flux_vae(),
        text_encoder=_clip(),
        tokenizer=None,
        text_encoder_2=_t5(),
        tokenizer_2=None,
        transformer=transformer,
    )
    return _save_both(pipe, tmp)


def _sd3_pipeline(tmp: str) -> dict:
    """SD3 / SD3.5's layout: three text encoders (two CLIP with projection, one T5), sharded."""
    import torch
    from diffusers import FlowMatchEulerDiscreteScheduler, SD3Transformer2DModel, StableDiffusion3Pipeline

    torch.manual_seed(0)
    transformer = SD3Transformer2DModel(
        sample_size=32,
        patch_size=1,
        in_channels=4,
        num_layers=2,
        attention_head_dim=8,
        num_attention_heads=4,
        caption_projection_dim=32,
        joint_attention_dim=32,
        pooled_projection_dim=64,
        out_channels=4,
        qk_norm="rms_norm",
        dual_attention_layers=(0,),
    )
    vae = _flux_vae()
    pipe = StableDiffusion3Pipeline(
        scheduler=FlowMatchEulerDiscreteScheduler(),
        vae=vae,
        transformer=transformer,
        text_encoder=_clip(True),
        tokenizer=None,
        text_encoder_2=_clip(True),
        tokenizer_2=None,
        text_encoder_3=_t5(),
        tokenizer_3=None,
    )
    return _save_both(pipe, tmp)


def _sd_unet(cross: int, **kw):
    from diffusers import UNet2DConditionModel

    return UNet2DConditionModel(
        block_out_channels=(8, 16),
        layers_per_block=1,
        sample_size=16,
        in_channels=4,
        out_channels=4,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        cross_attention_dim=cross,
        norm_num_groups=4,
        attention_head_dim=2,
        **kw,
    )


def _sdxl_pipeline(tmp: str) -> dict:
    """SDXL base's layout: two CLIP encoders (the second with projection), default weights plus an fp16 variant,
    single files (no sharding), as stabilityai/stable-diffusion-xl-base-1.0 ships."""
    import torch
    from diffusers import EulerDiscreteScheduler, StableDiffusionXLPipeline

    torch.manual_seed(0)
    unet = _sd_unet(
        64,
        addition_embed_type="text_time",
        addition_time_embed_dim=8,
        projection_class_embeddings_input_dim=80,
        transformer_layers_per_block=(1, 2),
        use_linear_projection=True,
    )
    pipe = StableDiffusionXLPipeline(
        vae=_flux_vae(),
        text_encoder=_clip(),
        text_encoder_2=_clip(True),
        tokenizer=None,
        tokenizer_2=None,
        unet=unet,
        scheduler=EulerDiscreteScheduler(),
    )
    pipe.save_pretrained(tmp)
    pipe.to(torch.float16).save_pretrained(tmp, variant="fp16")
    return {name: c for name, c in pipe.components.items() if hasattr(c, "num_parameters")}


def _wan_pipeline(tmp: str) -> dict:
    """Wan 2.1's layout: a UMT5 encoder, a 3D VAE and a sharded transformer (bf16 weights, no variant)."""
    import torch
    from diffusers import AutoencoderKLWan, FlowMatchEulerDiscreteScheduler, WanPipeline, WanTransformer3DModel

    torch.manual_seed(0)
    transformer = WanTransformer3DModel(
        patch_size=(1, 2, 2),
        num_attention_heads=2,
        attention_head_dim=12,
        in_channels=16,
        out_channels=16,
        text_dim=32,
        freq_dim=256,
        ffn_dim=32,
        num_layers=2,
        cross_attn_norm=True,
        qk_norm="rms_norm_across_heads",
        rope_max_seq_len=32,
    )
    vae = AutoencoderKLWan(
        base_dim=3, z_dim=16, dim_mult=[1, 1, 1, 1], num_res_blocks=1, temperal_downsample=[False, True, True]
    )
    pipe = WanPipeline(
        tokenizer=None,
        text_encoder=_t5(umt5=True),
        transformer=transformer,
        vae=vae,
        scheduler=FlowMatchEulerDiscreteScheduler(),
    )
    pipe.to(torch.bfloat16).save_pretrained(tmp, max_shard_size=SHARD)
    return {name: c for name, c in pipe.components.items() if hasattr(c, "num_parameters")}


def _controlnet_pipeline(tmp: str) -> dict:
    """An SD 1.5 ControlNet pipeline: unet, controlnet, vae, CLIP; sharded with fp16 variants."""
    import torch
    from diffusers import ControlNetModel, DDIMScheduler, StableDiffusionControlNetPipeline

    torch.manual_seed(0)
    controlnet = ControlNetModel(
        block_out_channels=(8, 16),
        layers_per_block=1,
        in_channels=4,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        cross_attention_dim=32,
        conditioning_embedding_out_channels=(4, 8),
        norm_num_groups=4,
        attention_head_dim=2,
    )
    pipe = StableDiffusionControlNetPipeline(
        vae=_flux_vae(),
        text_encoder=_clip(),
        tokenizer=None,
        unet=_sd_unet(32),
        controlnet=controlnet,
        scheduler=DDIMScheduler(),
        safety_checker=None,
        feature_extractor=None,
        requires_safety_checker=False,
    )
    return _save_both(pipe, tmp)


def _sharded_llm(tmp: str) -> dict:
    """A transformers model as large releases ship it: sharded, and an fp16 variant, sharded too."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(
        LlamaConfig(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=3,
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=500,
        )
    )
    model.save_pretrained(tmp, max_shard_size=SHARD)
    model.to(torch.float16).save_pretrained(tmp, max_shard_size=SHARD, variant="fp16")
    return {".": model}


def _variant_only_component(tmp: str) -> dict:
    """A component folder holding only a sharded fp16 variant (no default weights)."""
    import torch
    from diffusers import FluxTransformer2DModel

    torch.manual_seed(0)
    model = FluxTransformer2DModel(
        patch_size=1,
        in_channels=16,
        num_layers=1,
        num_single_layers=2,
        attention_head_dim=16,
        num_attention_heads=2,
        joint_attention_dim=32,
        pooled_projection_dim=32,
        axes_dims_rope=(4, 4, 8),
    )
    model.to(torch.float16).save_pretrained(tmp, variant="fp16", max_shard_size=SHARD)
    return {".": model}


RELEASES = {
    "release-flux-pipeline": _flux_pipeline,
    "release-sd3-pipeline": _sd3_pipeline,
    "release-sdxl-pipeline": _sdxl_pipeline,
    "release-wan-pipeline": _wan_pipeline,
    "release-controlnet-pipeline": _controlnet_pipeline,
    "release-sharded-llm": _sharded_llm,
    "release-variant-only-component": _variant_only_component,
}

CASES = {
    **RELEASES,
    "tiny-sd-pipeline": _tiny_sd,
    "tiny-kohya-lora": _kohya_lora,
    "tiny-sentence-transformers": _sentence_transformers,
    "tiny-diffusers-lora": _diffusers_lora,
}


def _header(path: Path) -> list[list]:
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        doc = json.loads(f.read(n))
    doc.pop("__metadata__", None)
    return [[name, h["dtype"], h["shape"]] for name, h in doc.items()]


def dump(case: str) -> dict:
    import diffusers
    import sentence_transformers
    import transformers

    with tempfile.TemporaryDirectory() as tmp:
        models = CASES[case](tmp)
        files: dict[str, object] = {}
        for root, _, names in os.walk(tmp):
            for name in names:
                path = Path(root, name)
                rel = path.relative_to(tmp).as_posix()
                if name.endswith(".safetensors"):
                    files[rel] = {"tensors": _header(path)}
                elif name.endswith(".json"):
                    files[rel] = {"json": json.loads(path.read_text())}
    return {
        "case": case,
        "versions": {
            "diffusers": diffusers.__version__,
            "transformers": transformers.__version__,
            "sentence_transformers": sentence_transformers.__version__,
        },
        "files": dict(sorted(files.items())),
        # the libraries' own count of each component the case saved (folder -> num_parameters())
        "parameters": {folder: m.num_parameters() for folder, m in sorted((models or {}).items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for case in args.only or CASES:
        doc = dump(case)
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9, filename="") as gz:
            gz.write(json.dumps(doc, indent=1, sort_keys=True).encode())
        (OUT / f"{case}.json.gz").write_bytes(buf.getvalue())
        print(f"{case}: {', '.join(doc['files'])}", file=sys.stderr)


if __name__ == "__main__":
    main()
