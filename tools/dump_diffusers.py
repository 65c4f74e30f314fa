"""Dump what diffusers' ``save_pretrained`` writes for the model classes people use, at many configs.

DEV-ONLY TOOL (like tools/dump_cases.py): run with /work/devenv/bin/python (diffusers 0.42, torch 2.13 CPU).
For every (class, case) below the model is built on the ``meta`` device from the class default config plus
the case's overrides, and the real ``ModelMixin.save_pretrained`` runs with ``safetensors.torch.save_file``
replaced by a recorder: what it hands the writer (every shard) is the layout, ``config.json`` is the file
``save_config`` wrote (``_class_name``, ``_diffusers_version`` and every init argument). Small models are also
built for real on CPU and saved for real, and the headers must equal the recording (``notes``).

    /work/devenv/bin/python tools/dump_diffusers.py [--only UNet2DConditionModel,AutoencoderKL]

Writes ``fixtures/diffusers-cases/<Class>/<Class>-<case>/{config.json, layout.json.gz, truth.json}`` in the
format of fixtures/cases (docs/truth.md); ``parameters`` is diffusers' own ``model.num_parameters()``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "diffusers-cases"
VERIFY_LIMIT = 30_000_000  # elements: build for real and compare headers below this

SD15 = dict(block_out_channels=[320, 640, 1280, 1280], cross_attention_dim=768, attention_head_dim=8,
            layers_per_block=2, sample_size=64)
SD21 = dict(block_out_channels=[320, 640, 1280, 1280], cross_attention_dim=1024, attention_head_dim=[5, 10, 20, 20],
            use_linear_projection=True, upcast_attention=True, sample_size=96)
SDXL = dict(addition_embed_type="text_time", addition_embed_type_num_heads=64, addition_time_embed_dim=256,
            attention_head_dim=[5, 10, 20], block_out_channels=[320, 640, 1280], cross_attention_dim=2048,
            down_block_types=["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
            up_block_types=["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"],
            projection_class_embeddings_input_dim=2816, transformer_layers_per_block=[1, 2, 10],
            use_linear_projection=True, sample_size=128, layers_per_block=2)
UNET_SMALL = dict(block_out_channels=[8, 16], layers_per_block=1, sample_size=16, cross_attention_dim=12,
                  norm_num_groups=4, attention_head_dim=2, down_block_types=["CrossAttnDownBlock2D", "DownBlock2D"],
                  up_block_types=["UpBlock2D", "CrossAttnUpBlock2D"])

# (case, variant text, overrides); "default" is the class default config
# the small sizes of a transformer and of its ControlNet (the same blocks)
_SD3_SMALL = dict(num_layers=2, num_attention_heads=2, attention_head_dim=8, joint_attention_dim=12,
                  caption_projection_dim=16, pooled_projection_dim=10, pos_embed_max_size=8, sample_size=8,
                  in_channels=4, out_channels=4)
_FLUX_SMALL = dict(num_layers=2, num_single_layers=3, attention_head_dim=8, num_attention_heads=2,
                   joint_attention_dim=12, pooled_projection_dim=10, in_channels=8, axes_dims_rope=[2, 2, 4])

# Kandinsky 2.1's decoder unet (scripts/convert_kandinsky_to_diffusers.py UNET_CONFIG = kandinsky-community/kandinsky-2-1
# unet/config.json); the 2.2 decoder is the same unet over image_proj states and an image addition embedding
_K21_UNET = dict(act_fn="silu", addition_embed_type="text_image", addition_embed_type_num_heads=64,
                 attention_head_dim=64, block_out_channels=[384, 768, 1152, 1536], cross_attention_dim=768,
                 down_block_types=["ResnetDownsampleBlock2D", "SimpleCrossAttnDownBlock2D",
                                   "SimpleCrossAttnDownBlock2D", "SimpleCrossAttnDownBlock2D"],
                 encoder_hid_dim=1024, encoder_hid_dim_type="text_image_proj", in_channels=4, layers_per_block=3,
                 mid_block_type="UNetMidBlock2DSimpleCrossAttn", out_channels=8, resnet_time_scale_shift="scale_shift",
                 sample_size=64, up_block_types=["SimpleCrossAttnUpBlock2D", "SimpleCrossAttnUpBlock2D",
                                                 "SimpleCrossAttnUpBlock2D", "ResnetUpsampleBlock2D"])
# simple cross-attention blocks at small sizes (the perturbed cases change one option each on top)
_SIMPLE_SMALL = dict(block_out_channels=[32, 64], layers_per_block=1, sample_size=16, cross_attention_dim=32,
                     norm_num_groups=8, attention_head_dim=8,
                     down_block_types=["ResnetDownsampleBlock2D", "SimpleCrossAttnDownBlock2D"],
                     mid_block_type="UNetMidBlock2DSimpleCrossAttn",
                     up_block_types=["SimpleCrossAttnUpBlock2D", "ResnetUpsampleBlock2D"])

# Kandinsky 6.0's released sizes (Lite / Pro; their distilled releases widen only the pi-Flow heads)
_K6_LITE = {"audio_freqs_scaling": 0.144, "axes_dims": [16, 24, 24], "axes_dims_a": [16, 24, 24], "ca_rope": True,
            "cross_gates": True, "ff_dim": 7168, "ff_dim_a": 3584, "fix_modulation": True, "in_audio_dim": 40,
            "in_text_dim": 3584, "in_text_dim2": 768, "in_visual_dim": 16, "model_dim": 1792, "model_dim_a": 896,
            "num_text_blocks": 2, "num_visual_blocks": 32, "out_audio_dim": 40, "out_visual_dim": 16,
            "patch_size": [1, 2, 2], "scale_factor": [1.0, 2.0, 2.0], "text_token_padding": True, "time_dim": 512,
            "visual_cond": True, "visual_token_type_num_embeddings": 2}
_K6_PRO = {**_K6_LITE, "axes_dims": [32, 48, 48], "axes_dims_a": [32, 48, 48], "ff_dim": 16384, "ff_dim_a": 7168,
           "model_dim": 4096, "model_dim_a": 2048, "num_text_blocks": 4, "num_visual_blocks": 60, "time_dim": 1024,
           "time_dim_a": 1024}

CASES: dict[str, list[tuple[str, str, dict[str, Any]]]] = {
    "UNet2DConditionModel": [
        ("default", "default", {}),
        ("sd15", "perturbed: Stable Diffusion 1.5 unet config", SD15),
        ("sd21", "perturbed: Stable Diffusion 2.1 unet config (head dims per block, linear projections)", SD21),
        ("sdxl", "perturbed: SDXL base unet config (text_time embedding, 1/2/10 transformer layers per block)",
         SDXL),
        ("small", "perturbed: small sizes, two blocks", UNET_SMALL),
        ("p1", "perturbed: three blocks, per-block layers and transformer layers, linear projection, inpainting "
         "in_channels, cross-attention class embeddings", dict(
            block_out_channels=[8, 16, 24], layers_per_block=[1, 2, 1], transformer_layers_per_block=[2, 1, 3],
            in_channels=9, out_channels=5, norm_num_groups=8, cross_attention_dim=[12, 20, 28],
            attention_head_dim=[2, 4, 4], use_linear_projection=True, sample_size=16,
            down_block_types=["CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"],
            up_block_types=["UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"],
            class_embed_type="timestep", conv_in_kernel=1, conv_out_kernel=5)),
        ("p2", "perturbed: SDXL-like text_time with small sizes, num_attention_heads, time_cond_proj_dim, "
         "reverse_transformer_layers_per_block, no mid block", dict(
            block_out_channels=[16, 32, 48], layers_per_block=2, norm_num_groups=8, sample_size=16,
            down_block_types=["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
            up_block_types=["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"],
            transformer_layers_per_block=[1, 2, 3], reverse_transformer_layers_per_block=[[3, 1, 2], [2, 2, 1], [1, 1, 1]],
            addition_embed_type="text_time", addition_time_embed_dim=8, projection_class_embeddings_input_dim=40,
            cross_attention_dim=24, attention_head_dim=[2, 4, 4], time_cond_proj_dim=10, mid_block_type=None)),
        ("p3", "perturbed: only cross attention, resnet skip time act, scale-shift norm, projection class "
         "embeddings, text encoder_hid_proj", dict(
            block_out_channels=[8, 16], layers_per_block=1, sample_size=16, cross_attention_dim=12,
            norm_num_groups=4, attention_head_dim=2, down_block_types=["CrossAttnDownBlock2D", "DownBlock2D"],
            up_block_types=["UpBlock2D", "CrossAttnUpBlock2D"], only_cross_attention=True,
            resnet_time_scale_shift="scale_shift", class_embed_type="projection",
            projection_class_embeddings_input_dim=6, encoder_hid_dim=10, time_embedding_dim=40,
            flip_sin_to_cos=False, dual_cross_attention=False, upcast_attention=True)),
        ("p4", "perturbed: DeepFloyd IF-style text addition embedding (attention pooling) over a text projection",
         dict(UNET_SMALL, encoder_hid_dim=10, addition_embed_type="text", addition_embed_type_num_heads=2)),
        ("p5", "perturbed: Kandinsky 2.1-style text_image_proj encoder states and text_image addition embedding",
         dict(UNET_SMALL, encoder_hid_dim=10, encoder_hid_dim_type="text_image_proj",
              addition_embed_type="text_image")),
        ("p6", "perturbed: Kandinsky 2.2-style image_proj encoder states and image addition embedding, three blocks",
         dict(block_out_channels=[8, 16, 16], layers_per_block=1, sample_size=16, cross_attention_dim=12,
              norm_num_groups=4, attention_head_dim=2, encoder_hid_dim=14, encoder_hid_dim_type="image_proj",
              addition_embed_type="image", down_block_types=["DownBlock2D", "CrossAttnDownBlock2D",
                                                             "CrossAttnDownBlock2D"],
              up_block_types=["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"])),
        ("p7", "perturbed: Kandinsky 2.2 ControlNet-style image_hint addition embedding (hint convs)",
         dict(UNET_SMALL, encoder_hid_dim=14, encoder_hid_dim_type="image_proj", addition_embed_type="image_hint")),
        ("k22", "perturbed: Kandinsky 2.2-style simple cross-attention blocks, small sizes",
         dict(block_out_channels=[8, 16], layers_per_block=1, sample_size=16, cross_attention_dim=12,
              norm_num_groups=4, attention_head_dim=4, encoder_hid_dim=14, encoder_hid_dim_type="image_proj",
              addition_embed_type="image", resnet_time_scale_shift="scale_shift",
              down_block_types=["ResnetDownsampleBlock2D", "SimpleCrossAttnDownBlock2D"],
              mid_block_type="UNetMidBlock2DSimpleCrossAttn",
              up_block_types=["SimpleCrossAttnUpBlock2D", "ResnetUpsampleBlock2D"])),
        ("p8", "perturbed: text addition embedding from the cross-attention width (no encoder_hid_dim)",
         dict(UNET_SMALL, addition_embed_type="text", addition_embed_type_num_heads=3, time_embedding_dim=24)),
        ("kandinsky21", "perturbed: Kandinsky 2.1 decoder unet (kandinsky-community/kandinsky-2-1 unet/, "
         "scripts/convert_kandinsky_to_diffusers.py UNET_CONFIG): text_image_proj, text_image embedding", _K21_UNET),
        ("kandinsky22-decoder", "perturbed: Kandinsky 2.2 decoder unet (kandinsky-community/kandinsky-2-2-decoder "
         "unet/): image_proj states from 1280-wide image embeddings, image addition embedding",
         dict(_K21_UNET, encoder_hid_dim=1280, encoder_hid_dim_type="image_proj", addition_embed_type="image")),
        ("kandinsky22-controlnet-depth", "perturbed: Kandinsky 2.2 ControlNet depth unet "
         "(kandinsky-community/kandinsky-2-2-controlnet-depth unet/): image_hint addition embedding",
         dict(_K21_UNET, encoder_hid_dim=1280, encoder_hid_dim_type="image_proj", addition_embed_type="image_hint")),
        ("if-i-style", "perturbed: DeepFloyd IF stage I layout as scripts/convert_if.py builds it (gelu, group-norm "
         "cross-attention norm, text_proj + text addition embedding, scale-shift resnets; sizes 512..2048 x3 layers, "
         "not checked against IF-I-XL-v1.0's config.json)", dict(
            act_fn="gelu", addition_embed_type="text", attention_head_dim=64, block_out_channels=[512, 1024, 1536, 2048],
            cross_attention_dim=4096, cross_attention_norm="group_norm", encoder_hid_dim=4096, in_channels=3,
            down_block_types=["ResnetDownsampleBlock2D", "SimpleCrossAttnDownBlock2D", "SimpleCrossAttnDownBlock2D",
                              "SimpleCrossAttnDownBlock2D"], layers_per_block=3,
            mid_block_type="UNetMidBlock2DSimpleCrossAttn", out_channels=6, resnet_time_scale_shift="scale_shift",
            up_block_types=["SimpleCrossAttnUpBlock2D", "SimpleCrossAttnUpBlock2D", "SimpleCrossAttnUpBlock2D",
                            "ResnetUpsampleBlock2D"], sample_size=64)),
        ("if-ii-style", "perturbed: DeepFloyd IF stage II (super-resolution) layout as scripts/convert_if.py builds it "
         "(timestep class embedding, text addition embedding over encoder_hid_dim, time_embedding_dim, only cross "
         "attention, skip time act; five blocks, sizes not checked against IF-II-L-v1.0's config.json)", dict(
            act_fn="gelu", addition_embed_type="text", attention_head_dim=64,
            block_out_channels=[128, 256, 640, 1280, 1280], class_embed_type="timestep", cross_attention_dim=1280,
            cross_attention_norm="group_norm", encoder_hid_dim=4096, in_channels=6, out_channels=6,
            down_block_types=["ResnetDownsampleBlock2D", "ResnetDownsampleBlock2D", "ResnetDownsampleBlock2D",
                              "SimpleCrossAttnDownBlock2D", "SimpleCrossAttnDownBlock2D"], layers_per_block=[2, 3, 4, 4, 4],
            mid_block_type="UNetMidBlock2DSimpleCrossAttn", only_cross_attention=True, resnet_skip_time_act=True,
            resnet_out_scale_factor=1 / 0.7071, mid_block_scale_factor=1 / 0.7071, resnet_time_scale_shift="scale_shift",
            time_embedding_act_fn="gelu", time_embedding_dim=1280, sample_size=256,
            up_block_types=["SimpleCrossAttnUpBlock2D", "SimpleCrossAttnUpBlock2D", "ResnetUpsampleBlock2D",
                            "ResnetUpsampleBlock2D", "ResnetUpsampleBlock2D"])),
        ("s1", "perturbed: simple cross-attention blocks, small sizes, default options", _SIMPLE_SMALL),
        ("s2", "perturbed: simple blocks with layer-norm cross-attention norm, only cross attention (no to_k / to_v) "
         "but a self-attending mid block, per-block head dims that do not divide the widths, three blocks", dict(
            _SIMPLE_SMALL, block_out_channels=[16, 24, 40], layers_per_block=[1, 2, 1], attention_head_dim=[3, 5, 7],
            cross_attention_dim=[12, 20, 28], cross_attention_norm="layer_norm", only_cross_attention=True,
            mid_block_only_cross_attention=False, norm_num_groups=8,
            down_block_types=["SimpleCrossAttnDownBlock2D", "ResnetDownsampleBlock2D", "SimpleCrossAttnDownBlock2D"],
            up_block_types=["SimpleCrossAttnUpBlock2D", "ResnetUpsampleBlock2D", "SimpleCrossAttnUpBlock2D"])),
        ("s3", "perturbed: group-norm cross-attention norm, per-block only-cross-attention list, scale-shift, "
         "class_embeddings_concat with class embeddings, mixed simple and transformer cross-attention blocks", dict(
            _SIMPLE_SMALL, block_out_channels=[32, 48, 64], layers_per_block=2, attention_head_dim=[4, 8, 16],
            cross_attention_norm="group_norm", only_cross_attention=[True, False, True], norm_num_groups=16,
            resnet_time_scale_shift="scale_shift", num_class_embeds=7, class_embeddings_concat=True,
            down_block_types=["CrossAttnDownBlock2D", "SimpleCrossAttnDownBlock2D", "DownBlock2D"],
            up_block_types=["ResnetUpsampleBlock2D", "CrossAttnUpBlock2D", "SimpleCrossAttnUpBlock2D"])),
        ("s4", "perturbed: a simple mid block that only cross-attends under self-attending blocks, IF-style text "
         "addition embedding over encoder_hid_dim, timestep class embedding, time_embedding_dim", dict(
            _SIMPLE_SMALL, mid_block_only_cross_attention=True, encoder_hid_dim=20, addition_embed_type="text",
            addition_embed_type_num_heads=2, class_embed_type="timestep", time_embedding_dim=48,
            down_block_types=["SimpleCrossAttnDownBlock2D", "SimpleCrossAttnDownBlock2D"],
            up_block_types=["SimpleCrossAttnUpBlock2D", "SimpleCrossAttnUpBlock2D"])),
        ("s5", "perturbed: resnet down/up samplers around transformer cross-attention blocks and a "
         "transformer mid block, per-block layers, linear projection", dict(
            _SIMPLE_SMALL, block_out_channels=[16, 32, 32], attention_head_dim=4, layers_per_block=[2, 1, 1],
            mid_block_type="UNetMidBlock2DCrossAttn", use_linear_projection=True,
            down_block_types=["ResnetDownsampleBlock2D", "CrossAttnDownBlock2D", "ResnetDownsampleBlock2D"],
            up_block_types=["UpBlock2D", "CrossAttnUpBlock2D", "ResnetUpsampleBlock2D"])),
        ("s6", "perturbed: simple blocks without a mid block, text_image_proj encoder states, one layer of four blocks",
         dict(_SIMPLE_SMALL, block_out_channels=[8, 16, 24, 24], norm_num_groups=4, attention_head_dim=[2, 4, 6, 8],
              mid_block_type=None, encoder_hid_dim=10, encoder_hid_dim_type="text_image_proj",
              addition_embed_type="text_image", cross_attention_dim=12,
              down_block_types=["ResnetDownsampleBlock2D", "SimpleCrossAttnDownBlock2D", "DownBlock2D",
                                "SimpleCrossAttnDownBlock2D"],
              up_block_types=["SimpleCrossAttnUpBlock2D", "UpBlock2D", "SimpleCrossAttnUpBlock2D",
                              "ResnetUpsampleBlock2D"])),
    ],
    "AutoencoderKL": [
        ("default", "default", {}),
        ("sd", "perturbed: Stable Diffusion VAE config", dict(
            block_out_channels=[128, 256, 512, 512], layers_per_block=2, sample_size=512,
            down_block_types=["DownEncoderBlock2D"] * 4, up_block_types=["UpDecoderBlock2D"] * 4)),
        ("flux", "perturbed: FLUX/SD3 VAE config (16 latent channels, no quant convs)", dict(
            block_out_channels=[128, 256, 512, 512], layers_per_block=2, sample_size=1024, latent_channels=16,
            down_block_types=["DownEncoderBlock2D"] * 4, up_block_types=["UpDecoderBlock2D"] * 4,
            use_quant_conv=False, use_post_quant_conv=False, shift_factor=0.0609, scaling_factor=1.5035)),
        ("small", "perturbed: small sizes", dict(block_out_channels=[8, 16], layers_per_block=1, norm_num_groups=4,
                                                 down_block_types=["DownEncoderBlock2D"] * 2,
                                                 up_block_types=["UpDecoderBlock2D"] * 2)),
        ("p1", "perturbed: three blocks, two layers, 6 latent channels, no mid-block attention, no quant convs",
         dict(block_out_channels=[8, 16, 24], layers_per_block=2, norm_num_groups=8, latent_channels=6,
              in_channels=5, out_channels=2, down_block_types=["DownEncoderBlock2D"] * 3,
              up_block_types=["UpDecoderBlock2D"] * 3, mid_block_add_attention=False, use_quant_conv=False)),
        ("p2", "perturbed: one block of 12, three layers, post quant conv off", dict(
            block_out_channels=[12], layers_per_block=3, norm_num_groups=4, latent_channels=3,
            use_post_quant_conv=False)),
        ("p3", "perturbed: attention inside some encoder and decoder blocks", dict(
            block_out_channels=[8, 16, 24], layers_per_block=2, norm_num_groups=4, latent_channels=4,
            down_block_types=["DownEncoderBlock2D", "AttnDownEncoderBlock2D", "AttnDownEncoderBlock2D"],
            up_block_types=["AttnUpDecoderBlock2D", "UpDecoderBlock2D", "AttnUpDecoderBlock2D"])),
        ("p4", "perturbed: attention in every block, no mid-block attention, one layer", dict(
            block_out_channels=[12, 12], layers_per_block=1, norm_num_groups=4, latent_channels=2,
            down_block_types=["AttnDownEncoderBlock2D"] * 2, up_block_types=["AttnUpDecoderBlock2D"] * 2,
            mid_block_add_attention=False, use_quant_conv=False)),
    ],
    "ControlNetModel": [
        ("default", "default", {}),
        ("sd15", "perturbed: ControlNet for Stable Diffusion 1.5", dict(cross_attention_dim=768)),
        ("sdxl", "perturbed: ControlNet for SDXL", {k: v for k, v in SDXL.items() if k not in (
            "up_block_types", "sample_size")}),
        ("small", "perturbed: small sizes", dict(
            block_out_channels=[8, 16], layers_per_block=1, cross_attention_dim=12, norm_num_groups=4,
            attention_head_dim=2, down_block_types=["CrossAttnDownBlock2D", "DownBlock2D"],
            conditioning_embedding_out_channels=[4, 8])),
        ("p1", "perturbed: three blocks, per-block layers, conditioning channels, linear projection", dict(
            block_out_channels=[8, 16, 24], layers_per_block=2, transformer_layers_per_block=[1, 2, 3],
            cross_attention_dim=20, norm_num_groups=8, attention_head_dim=[2, 4, 4], use_linear_projection=True,
            in_channels=5, conditioning_channels=1, conditioning_embedding_out_channels=[4, 6, 10],
            down_block_types=["CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"],
            addition_embed_type="text_time", addition_time_embed_dim=8, projection_class_embeddings_input_dim=40)),
        ("p2", "perturbed: class embeddings, only cross attention", dict(
            block_out_channels=[16, 32], layers_per_block=1, cross_attention_dim=12, norm_num_groups=8,
            attention_head_dim=4, down_block_types=["DownBlock2D", "CrossAttnDownBlock2D"],
            conditioning_embedding_out_channels=[8], class_embed_type="timestep", only_cross_attention=True)),
    ],
    "UNet2DModel": [
        ("default", "default", {}),
        ("ddpm", "perturbed: DDPM CIFAR-10 config", dict(
            block_out_channels=[128, 256, 256, 256], down_block_types=["DownBlock2D", "AttnDownBlock2D",
                                                                       "DownBlock2D", "DownBlock2D"],
            up_block_types=["UpBlock2D", "UpBlock2D", "AttnUpBlock2D", "UpBlock2D"], sample_size=32)),
        ("small", "perturbed: small sizes", dict(
            block_out_channels=[8, 16], norm_num_groups=4, attention_head_dim=2,
            down_block_types=["DownBlock2D", "AttnDownBlock2D"], up_block_types=["AttnUpBlock2D", "UpBlock2D"])),
        ("p1", "perturbed: three blocks, one layer, class embeddings, no mid attention", dict(
            block_out_channels=[8, 16, 24], layers_per_block=1, norm_num_groups=8, attention_head_dim=4,
            in_channels=2, out_channels=5, add_attention=False, class_embed_type=None, num_class_embeds=7,
            down_block_types=["AttnDownBlock2D", "DownBlock2D", "AttnDownBlock2D"],
            up_block_types=["AttnUpBlock2D", "UpBlock2D", "AttnUpBlock2D"])),
        ("p2", "perturbed: three layers per block, attention head dim None", dict(
            block_out_channels=[12, 24], layers_per_block=3, norm_num_groups=4, attention_head_dim=None,
            down_block_types=["AttnDownBlock2D", "DownBlock2D"], up_block_types=["UpBlock2D", "AttnUpBlock2D"],
            time_embedding_type="fourier", flip_sin_to_cos=False)),
    ],
    "SD3Transformer2DModel": [
        ("default", "default", {}),
        ("sd35-medium", "perturbed: SD3.5 medium config (dual attention layers, rms qk norm)", dict(
            num_layers=24, num_attention_heads=24, caption_projection_dim=1536, pos_embed_max_size=384,
            dual_attention_layers=list(range(13)), qk_norm="rms_norm", sample_size=128)),
        ("small", "perturbed: small sizes", _SD3_SMALL),
        ("p1", "perturbed: dual attention on layers 0 and 2, rms qk norm, patch 1", dict(
            num_layers=3, num_attention_heads=3, attention_head_dim=4, joint_attention_dim=20,
            caption_projection_dim=12, pooled_projection_dim=6, pos_embed_max_size=6, sample_size=6,
            in_channels=5, out_channels=3, patch_size=1, dual_attention_layers=[0, 2], qk_norm="rms_norm")),
        ("p2", "perturbed: layer-norm qk norm, four layers", dict(
            num_layers=4, num_attention_heads=2, attention_head_dim=6, joint_attention_dim=8,
            caption_projection_dim=12, pooled_projection_dim=8, pos_embed_max_size=4, sample_size=8,
            in_channels=3, out_channels=6, qk_norm="layer_norm")),
    ],
    "FluxTransformer2DModel": [
        ("default", "default", {}),
        ("dev", "perturbed: FLUX.1-dev config (guidance embeds)", dict(guidance_embeds=True)),
        ("small", "perturbed: small sizes", _FLUX_SMALL),
        ("p1", "perturbed: guidance, out_channels, patch 2", dict(
            num_layers=1, num_single_layers=2, attention_head_dim=6, num_attention_heads=3, joint_attention_dim=20,
            pooled_projection_dim=6, in_channels=12, out_channels=5, patch_size=2, guidance_embeds=True,
            axes_dims_rope=[2, 2, 2])),
        ("p2", "perturbed: no double blocks", dict(num_layers=0, num_single_layers=2, attention_head_dim=4,
                                                   num_attention_heads=4, joint_attention_dim=8,
                                                   pooled_projection_dim=4, in_channels=4,
                                                   axes_dims_rope=[2, 0, 2])),
    ],
    "FluxControlNetModel": [
        ("default", "default", {}),
        ("upscaler", "perturbed: FLUX.1-dev upscaler ControlNet config (5 double blocks, no single blocks, guidance)",
         dict(num_layers=5, num_single_layers=0, guidance_embeds=True)),
        ("union", "perturbed: FLUX.1-dev union ControlNet config (10 modes, 5 double and 10 single blocks)", dict(
            num_layers=5, num_single_layers=10, guidance_embeds=True, num_mode=10)),
        ("small", "perturbed: small sizes", _FLUX_SMALL),
        ("p1", "perturbed: guidance, union modes, conditioning-image encoder, patch 2", dict(
            num_layers=1, num_single_layers=2, attention_head_dim=6, num_attention_heads=3, joint_attention_dim=20,
            pooled_projection_dim=6, in_channels=12, patch_size=2, guidance_embeds=True, num_mode=4,
            conditioning_embedding_channels=12, axes_dims_rope=[2, 2, 2])),
        ("p2", "perturbed: no single blocks, conditioning-image encoder", dict(
            num_layers=2, num_single_layers=0, attention_head_dim=4, num_attention_heads=4, joint_attention_dim=8,
            pooled_projection_dim=4, in_channels=4, conditioning_embedding_channels=5, axes_dims_rope=[2, 0, 2])),
    ],
    "SD3ControlNetModel": [
        ("default", "default", {}),
        ("sd3-medium", "perturbed: SD3 medium ControlNet config (6 blocks, 24 heads, pos_embed_max_size 192)", dict(
            num_layers=6, num_attention_heads=24, caption_projection_dim=1536, pos_embed_max_size=192)),
        ("sd35-large", "perturbed: SD3.5 Large ControlNet config (single-stream blocks, no position embedding)",
         dict(num_layers=19, num_attention_heads=38, caption_projection_dim=2432, joint_attention_dim=None,
              pos_embed_type=None, use_pos_embed=False, force_zeros_for_pooled_projection=False)),
        ("small", "perturbed: small sizes", _SD3_SMALL),
        ("p1", "perturbed: dual attention on layer 1, rms qk norm, extra conditioning channels, patch 1", dict(
            num_layers=3, num_attention_heads=3, attention_head_dim=4, joint_attention_dim=20,
            caption_projection_dim=12, pooled_projection_dim=6, pos_embed_max_size=6, sample_size=6,
            in_channels=5, out_channels=3, patch_size=1, dual_attention_layers=[1], qk_norm="rms_norm",
            extra_conditioning_channels=2)),
        ("p2", "perturbed: single-stream blocks, sin-cos table without max size (not saved), qk norm ignored", dict(
            num_layers=2, num_attention_heads=2, attention_head_dim=6, joint_attention_dim=None,
            caption_projection_dim=12, pooled_projection_dim=8, pos_embed_max_size=None, sample_size=8,
            in_channels=3, qk_norm="layer_norm", dual_attention_layers=[0])),
    ],
    "PixArtTransformer2DModel": [
        ("default", "default", {}),
        ("sigma", "perturbed: PixArt-Sigma config (caption channels, no additional conditions)", dict(
            caption_channels=4096, sample_size=128, interpolation_scale=2, use_additional_conditions=False)),
        ("alpha", "perturbed: PixArt-alpha 1024 config (additional conditions)", dict(
            caption_channels=4096, sample_size=128, use_additional_conditions=True)),
        ("small", "perturbed: small sizes", dict(num_layers=2, num_attention_heads=2, attention_head_dim=4,
                                                 cross_attention_dim=8, caption_channels=12, sample_size=8,
                                                 out_channels=8)),
        ("p1", "perturbed: additional conditions, no attention bias, out_channels 4", dict(
            num_layers=3, num_attention_heads=2, attention_head_dim=6, cross_attention_dim=12, caption_channels=10,
            sample_size=8, in_channels=3, out_channels=4, attention_bias=False, use_additional_conditions=True,
            patch_size=1)),
    ],
    "WanTransformer3DModel": [
        ("default", "default", {}),
        ("1.3b", "perturbed: Wan2.1 T2V 1.3B config", dict(num_attention_heads=12, ffn_dim=8960, num_layers=30)),
        ("i2v", "perturbed: Wan2.1 I2V 14B config (image embedder, added k/v)", dict(
            image_dim=1280, added_kv_proj_dim=5120, in_channels=36)),
        ("small", "perturbed: small sizes", dict(num_attention_heads=2, attention_head_dim=8, text_dim=12,
                                                 freq_dim=16, ffn_dim=24, num_layers=2, in_channels=4,
                                                 out_channels=4)),
        ("p1", "perturbed: image embedder with position embedding, added k/v, no cross-attention norm", dict(
            num_attention_heads=3, attention_head_dim=4, text_dim=10, freq_dim=8, ffn_dim=20, num_layers=3,
            in_channels=6, out_channels=5, image_dim=14, added_kv_proj_dim=12, cross_attn_norm=False,
            pos_embed_seq_len=16, patch_size=[1, 1, 2])),
    ],
    "QwenImageTransformer2DModel": [
        ("default", "default", {}),
        ("small", "perturbed: small sizes", dict(num_layers=2, attention_head_dim=8, num_attention_heads=2,
                                                 joint_attention_dim=12, in_channels=8, out_channels=4,
                                                 axes_dims_rope=[2, 2, 4])),
        ("p1", "perturbed: guidance embeds, patch 1, additional t cond", dict(
            num_layers=3, attention_head_dim=6, num_attention_heads=3, joint_attention_dim=10, in_channels=12,
            out_channels=5, patch_size=1, guidance_embeds=True, use_additional_t_cond=True,
            axes_dims_rope=[2, 2, 2])),
        ("p2", "perturbed: zero_cond_t, layer3d rope", dict(
            num_layers=1, attention_head_dim=4, num_attention_heads=4, joint_attention_dim=6, in_channels=4,
            out_channels=3, zero_cond_t=True, use_layer3d_rope=True, axes_dims_rope=[0, 2, 2])),
    ],
    "ChromaTransformer2DModel": [
        ("default", "default", {}),
        ("chroma1-hd", "real: lodestones/Chroma1-HD transformer config (also Chroma1-Base / Chroma1-Flash; their stale "
         "guidance_embeds / pooled_projection_dim keys are not init arguments and are ignored)", dict(
            patch_size=1, in_channels=64, out_channels=None, num_layers=19, num_single_layers=38,
            attention_head_dim=128, num_attention_heads=24, joint_attention_dim=4096, axes_dims_rope=[16, 56, 56],
            approximator_num_channels=64, approximator_hidden_dim=5120, approximator_layers=5)),
        ("small", "perturbed: small sizes (FLUX's small blocks), small approximator", dict(
            {k: v for k, v in _FLUX_SMALL.items() if k != "pooled_projection_dim"}, approximator_num_channels=16,
            approximator_hidden_dim=24, approximator_layers=2)),
        ("p1", "perturbed: out_channels, patch 2, three approximator layers narrower than the model", dict(
            num_layers=1, num_single_layers=2, attention_head_dim=6, num_attention_heads=3, joint_attention_dim=20,
            in_channels=12, out_channels=5, patch_size=2, axes_dims_rope=[2, 2, 2], approximator_num_channels=12,
            approximator_hidden_dim=10, approximator_layers=3)),
        ("p2", "perturbed: no double blocks, no approximator layers", dict(
            num_layers=0, num_single_layers=2, attention_head_dim=4, num_attention_heads=4, joint_attention_dim=8,
            in_channels=4, axes_dims_rope=[2, 0, 2], approximator_num_channels=8, approximator_hidden_dim=20,
            approximator_layers=0)),
        ("p3", "perturbed: no single blocks, one approximator layer, patch 3", dict(
            num_layers=2, num_single_layers=0, attention_head_dim=4, num_attention_heads=5, joint_attention_dim=7,
            in_channels=6, out_channels=9, patch_size=3, axes_dims_rope=[2, 2, 0], approximator_num_channels=20,
            approximator_hidden_dim=14, approximator_layers=1)),
    ],
    "Lumina2Transformer2DModel": [
        ("default", "default", {}),
        ("lumina-image-2.0", "real: Alpha-VLLM/Lumina-Image-2.0 transformer config (Gemma-2-2B caption features, "
         "2304); neta-art Neta-Lumina v1.0's diffusers config is the same", dict(
            sample_size=128, patch_size=2, in_channels=16, out_channels=None, hidden_size=2304, num_layers=26,
            num_refiner_layers=2, num_attention_heads=24, num_kv_heads=8, multiple_of=256, ffn_dim_multiplier=None,
            norm_eps=1e-05, scaling_factor=1.0, axes_dim_rope=[32, 32, 32], axes_lens=[300, 512, 512],
            cap_feat_dim=2304)),
        ("small", "perturbed: small sizes", dict(
            hidden_size=32, num_layers=2, num_refiner_layers=1, num_attention_heads=4, num_kv_heads=2, multiple_of=16,
            cap_feat_dim=12, in_channels=4, axes_dim_rope=[4, 2, 2], sample_size=16)),
        ("p1", "perturbed: heads not dividing the width, full multi-head k/v, ffn_dim_multiplier 1.3, patch 1, "
         "out_channels, no refiners", dict(
            hidden_size=30, num_layers=3, num_refiner_layers=0, num_attention_heads=4, num_kv_heads=4, multiple_of=16,
            ffn_dim_multiplier=1.3, patch_size=1, in_channels=5, out_channels=3, cap_feat_dim=10,
            axes_dim_rope=[2, 2, 2], sample_size=8)),
        ("p2", "perturbed: width above 1024 (the time embedding and modulation inputs cap at 1024), "
         "ffn_dim_multiplier 0.25, one kv group of four heads", dict(
            hidden_size=1056, num_layers=1, num_refiner_layers=0, num_attention_heads=8, num_kv_heads=2,
            multiple_of=64, ffn_dim_multiplier=0.25, cap_feat_dim=6, in_channels=3, axes_dim_rope=[44, 44, 44],
            sample_size=8)),
        ("p3", "perturbed: three refiner layers of each kind, single kv head, patch 3", dict(
            hidden_size=48, num_layers=1, num_refiner_layers=3, num_attention_heads=3, num_kv_heads=1, multiple_of=32,
            patch_size=3, in_channels=2, cap_feat_dim=20, axes_dim_rope=[8, 4, 4], sample_size=9)),
    ],
    "HunyuanVideoTransformer3DModel": [
        ("default", "default", {}),  # = hunyuanvideo-community/HunyuanVideo (HYVideo-T/2-cfgdistill, T2V)
        ("i2v-33ch", "real: hunyuanvideo-community/HunyuanVideo-I2V-33ch transformer config (HYVideo-T/2-I2V-33ch: "
         "latent_concat, 33 input channels, no guidance embedder)", dict(
            in_channels=33, guidance_embeds=False, image_condition_type="latent_concat")),
        ("i2v", "real: hunyuanvideo-community/HunyuanVideo-I2V transformer config (HYVideo-T/2-I2V-16ch: "
         "token_replace blocks, guidance embedder)", dict(image_condition_type="token_replace")),
        ("small", "perturbed: small sizes", dict(
            num_attention_heads=2, attention_head_dim=8, num_layers=2, num_single_layers=2, num_refiner_layers=1,
            text_embed_dim=12, pooled_projection_dim=10, in_channels=4, out_channels=4, rope_axes_dim=[2, 2, 4])),
        ("p1", "perturbed: token_replace blocks without guidance, layer-norm qk norm, truncated mlp_ratio, "
         "temporal patch 2, spatial patch 1, three refiner layers", dict(
            num_attention_heads=3, attention_head_dim=6, num_layers=1, num_single_layers=3, num_refiner_layers=3,
            mlp_ratio=2.7, patch_size=1, patch_size_t=2, qk_norm="layer_norm", guidance_embeds=False,
            text_embed_dim=14, pooled_projection_dim=6, in_channels=5, out_channels=7,
            image_condition_type="token_replace", rope_axes_dim=[2, 2, 2])),
        ("p2", "perturbed: no qk norm, no double blocks, out_channels None (= in_channels), patch 3, latent_concat",
         dict(num_attention_heads=4, attention_head_dim=4, num_layers=0, num_single_layers=2, num_refiner_layers=2,
              mlp_ratio=3.0, patch_size=3, qk_norm=None, text_embed_dim=8, pooled_projection_dim=12,
              in_channels=9, out_channels=None, image_condition_type="latent_concat", rope_axes_dim=[0, 2, 2])),
        ("p3", "perturbed: fp32 layer-norm qk norm (no weights), no single blocks, no refiner blocks, patch_t 3", dict(
            num_attention_heads=2, attention_head_dim=10, num_layers=2, num_single_layers=0, num_refiner_layers=0,
            mlp_ratio=1.5, patch_size=2, patch_size_t=3, qk_norm="fp32_layer_norm", text_embed_dim=6,
            pooled_projection_dim=4, in_channels=3, out_channels=2, rope_axes_dim=[4, 2, 4])),
    ],
    "AutoencoderKLHunyuanVideo": [
        ("default", "default", {}),  # = hunyuanvideo-community/HunyuanVideo vae (also used by HunyuanVideo-I2V)
        ("small", "perturbed: small sizes, two blocks (both downsample: spatial ratio 8 reaches the last block)",
         dict(block_out_channels=[8, 16], layers_per_block=1, norm_num_groups=4, latent_channels=4,
              down_block_types=["HunyuanVideoDownBlock3D"] * 2, up_block_types=["HunyuanVideoUpBlock3D"] * 2)),
        ("p1", "perturbed: three blocks, three layers, spatial ratio 4, equal widths (no shortcut), no mid attention",
         dict(block_out_channels=[8, 8, 12], layers_per_block=3, norm_num_groups=4, latent_channels=5,
              in_channels=4, out_channels=2, spatial_compression_ratio=4, mid_block_add_attention=False,
              down_block_types=["HunyuanVideoDownBlock3D"] * 3, up_block_types=["HunyuanVideoUpBlock3D"] * 3)),
        ("p2", "perturbed: five blocks, spatial ratio 2: blocks 1 and 4 resample neither in space nor in time",
         dict(block_out_channels=[4, 8, 8, 12, 16], layers_per_block=1, norm_num_groups=4, latent_channels=3,
              spatial_compression_ratio=2, down_block_types=["HunyuanVideoDownBlock3D"] * 5,
              up_block_types=["HunyuanVideoUpBlock3D"] * 5)),
        ("p3", "perturbed: one block, spatial ratio 16, one input channel", dict(
            block_out_channels=[8], layers_per_block=2, norm_num_groups=4, latent_channels=3, in_channels=1,
            out_channels=1, spatial_compression_ratio=16, down_block_types=["HunyuanVideoDownBlock3D"],
            up_block_types=["HunyuanVideoUpBlock3D"])),
    ],
    "CogVideoXTransformer3DModel": [
        ("default", "default", {}),
        ("2b", "perturbed: THUDM/CogVideoX-2b transformer config (the class defaults written out: sin-cos positions, "
         "30 layers of 30 heads)", dict(
            num_attention_heads=30, num_layers=30, attention_head_dim=64, in_channels=16, out_channels=16,
            time_embed_dim=512, text_embed_dim=4096, patch_size=2, use_rotary_positional_embeddings=False)),
        ("5b", "perturbed: THUDM/CogVideoX-5b transformer config (48 heads, 42 layers, rotary positions)", dict(
            num_attention_heads=48, num_layers=42, use_rotary_positional_embeddings=True)),
        ("5b-i2v", "perturbed: THUDM/CogVideoX-5b-I2V transformer config (32 input channels, learned positional "
         "embedding saved as a persistent buffer)", dict(
            num_attention_heads=48, num_layers=42, in_channels=32, use_rotary_positional_embeddings=True,
            use_learned_positional_embeddings=True)),
        ("1.5-5b", "perturbed: THUDM/CogVideoX1.5-5B transformer config (temporal patch 2: linear patch embedding, "
         "no patch bias)", dict(
            num_attention_heads=48, num_layers=42, patch_size_t=2, patch_bias=False, sample_frames=81,
            sample_height=300, sample_width=300, use_rotary_positional_embeddings=True)),
        ("1.5-5b-i2v", "perturbed: THUDM/CogVideoX1.5-5B-I2V transformer config (32 input channels, ofs embedding)",
         dict(num_attention_heads=48, num_layers=42, patch_size_t=2, patch_bias=False, sample_frames=81,
              sample_height=300, sample_width=300, in_channels=32, ofs_embed_dim=512,
              use_rotary_positional_embeddings=True)),
        ("small", "perturbed: small sizes", dict(
            num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4, time_embed_dim=8,
            text_embed_dim=12, num_layers=2, sample_width=8, sample_height=8, sample_frames=9,
            max_text_seq_length=8)),
        ("p1", "perturbed: learned positions (persistent buffer), no attention bias, no norm affine, geglu, patch 1, "
         "odd sample sizes", dict(
            num_attention_heads=3, attention_head_dim=16, in_channels=5, out_channels=3, time_embed_dim=10,
            text_embed_dim=7, num_layers=3, patch_size=1, sample_width=5, sample_height=3, sample_frames=7,
            temporal_compression_ratio=2, max_text_seq_length=5, attention_bias=False,
            norm_elementwise_affine=False, activation_fn="geglu", use_rotary_positional_embeddings=True,
            use_learned_positional_embeddings=True)),
        ("p2", "perturbed: temporal patch 3 with patch bias (linear patch embedding keeps its bias), ofs embedding, "
         "swiglu, patch 3", dict(
            num_attention_heads=2, attention_head_dim=6, in_channels=3, out_channels=2, time_embed_dim=9,
            text_embed_dim=5, num_layers=2, patch_size=3, patch_size_t=3, patch_bias=True, ofs_embed_dim=6,
            activation_fn="swiglu", use_rotary_positional_embeddings=True)),
        ("p3", "perturbed: sin-cos positions, convolution patch embedding without bias, gelu, ofs_embed_dim 0 "
         "(no ofs embedding), one layer", dict(
            num_attention_heads=4, attention_head_dim=4, in_channels=6, out_channels=7, time_embed_dim=12,
            text_embed_dim=9, num_layers=1, sample_width=8, sample_height=4, sample_frames=5,
            max_text_seq_length=3, patch_bias=False, activation_fn="gelu", ofs_embed_dim=0)),
        ("p4", "perturbed: learned positions with a temporal patch, ofs embedding, geglu-approximate, no norm affine",
         dict(num_attention_heads=2, attention_head_dim=8, in_channels=2, out_channels=5, time_embed_dim=6,
              text_embed_dim=4, num_layers=2, patch_size=2, patch_size_t=2, sample_width=6, sample_height=4,
              sample_frames=9, temporal_compression_ratio=4, max_text_seq_length=4, ofs_embed_dim=3,
              activation_fn="geglu-approximate", norm_elementwise_affine=False,
              use_rotary_positional_embeddings=True, use_learned_positional_embeddings=True)),
    ],
    "AutoencoderKLCogVideoX": [
        ("default", "default", {}),
        ("5b", "perturbed: THUDM/CogVideoX-5b / CogVideoX-5b-I2V VAE config (scaling factor 0.7; CogVideoX-2b's is "
         "the class default)", dict(scaling_factor=0.7)),
        ("1.5-5b", "perturbed: THUDM/CogVideoX1.5-5B VAE config (scaling factor 0.7, inverted latent scaling)",
         dict(scaling_factor=0.7, invert_scale_latents=True)),
        ("small", "perturbed: small sizes", dict(
            block_out_channels=[8, 16], layers_per_block=1, norm_num_groups=4, latent_channels=4,
            down_block_types=["CogVideoXDownBlock3D"] * 2, up_block_types=["CogVideoXUpBlock3D"] * 2)),
        ("p1", "perturbed: three blocks, two layers, channels in/out, 6 latent channels, quant convs (sized from "
         "out_channels), temporal compression 2", dict(
            block_out_channels=[8, 16, 24], layers_per_block=2, norm_num_groups=4, latent_channels=6,
            in_channels=2, out_channels=5, use_quant_conv=True, use_post_quant_conv=True,
            temporal_compression_ratio=2, down_block_types=["CogVideoXDownBlock3D"] * 3,
            up_block_types=["CogVideoXUpBlock3D"] * 3)),
        ("p2", "perturbed: one block of 12, three layers, quant conv only", dict(
            block_out_channels=[12], layers_per_block=3, norm_num_groups=4, latent_channels=3, use_quant_conv=True,
            down_block_types=["CogVideoXDownBlock3D"], up_block_types=["CogVideoXUpBlock3D"])),
        ("p3", "perturbed: five blocks narrowing and widening, one layer, post quant conv only, temporal compression 8",
         dict(block_out_channels=[4, 4, 8, 8, 6], layers_per_block=1, norm_num_groups=2, latent_channels=5,
              out_channels=4, use_post_quant_conv=True, temporal_compression_ratio=8,
              down_block_types=["CogVideoXDownBlock3D"] * 5, up_block_types=["CogVideoXUpBlock3D"] * 5)),
    ],
    "SanaTransformer2DModel": [
        ("default", "default", {}),
        ("sana-1600m-1024px", "perturbed: Sana 1600M 1024px config (Sana_1600M_1024px_diffusers; the converter's "
         "SanaMS_1600M_P1_D20 values, which are the class defaults)", dict(
            num_attention_heads=70, attention_head_dim=32, num_layers=20, num_cross_attention_heads=20,
            cross_attention_head_dim=112, cross_attention_dim=2240, caption_channels=2304, sample_size=32)),
        ("sana-1600m-4kpx", "perturbed: Sana 1600M 4Kpx config (Sana_1600M_4Kpx_BF16_diffusers: sample 128, "
         "sin-cos position table, not saved)", dict(sample_size=128, interpolation_scale=2.0)),
        ("sana-600m-1024px", "perturbed: Sana 600M 1024px config (Sana_600M_1024px_diffusers)", dict(
            num_attention_heads=36, num_layers=28, num_cross_attention_heads=16, cross_attention_head_dim=72,
            cross_attention_dim=1152)),
        ("sana1.5-1600m", "perturbed: SANA 1.5 1.6B config (SANA1.5_1.6B_1024px_diffusers: rms qk norm across "
         "heads)", dict(qk_norm="rms_norm_across_heads")),
        ("sana1.5-4800m", "perturbed: SANA 1.5 4.8B config (SANA1.5_4.8B_1024px_diffusers: 60 layers, rms qk "
         "norm across heads)", dict(num_layers=60, qk_norm="rms_norm_across_heads")),
        ("sprint-1600m", "perturbed: SANA-Sprint 1.6B config (Sana_Sprint_1.6B_1024px_diffusers: guidance "
         "embedder, rms qk norm across heads)", dict(guidance_embeds=True, qk_norm="rms_norm_across_heads")),
        ("sprint-600m", "perturbed: SANA-Sprint 0.6B config (Sana_Sprint_0.6B_1024px_diffusers)", dict(
            num_attention_heads=36, num_layers=28, num_cross_attention_heads=16, cross_attention_head_dim=72,
            cross_attention_dim=1152, guidance_embeds=True, qk_norm="rms_norm_across_heads")),
        ("small", "perturbed: small sizes", dict(
            num_layers=2, num_attention_heads=2, attention_head_dim=8, num_cross_attention_heads=2,
            cross_attention_head_dim=4, cross_attention_dim=16, caption_channels=12, in_channels=4, out_channels=4,
            sample_size=8)),
        ("p1", "perturbed: guidance embedder, rms qk norm across heads, patch 2, out_channels None, attention bias, "
         "affine norm2, sin-cos position table", dict(
            num_layers=3, num_attention_heads=3, attention_head_dim=8, num_cross_attention_heads=3,
            cross_attention_head_dim=5, cross_attention_dim=18, caption_channels=10, in_channels=6,
            out_channels=None, patch_size=2, sample_size=8, guidance_embeds=True, qk_norm="rms_norm_across_heads",
            attention_bias=True, norm_elementwise_affine=True, interpolation_scale=1.0)),
        ("p2", "perturbed: layer-norm qk norm per head, cross-attention width and heads unlike the model's, "
         "mlp_ratio 1.7 (truncated hidden width)", dict(
            num_layers=2, num_attention_heads=4, attention_head_dim=3, num_cross_attention_heads=2,
            cross_attention_head_dim=7, cross_attention_dim=20, caption_channels=9, in_channels=5, out_channels=3,
            sample_size=8, mlp_ratio=1.7, qk_norm="layer_norm", norm_elementwise_affine=True)),
        ("p3", "perturbed: rms qk norm per head, no cross-attention (cross_attention_dim None)", dict(
            num_layers=2, num_attention_heads=2, attention_head_dim=6, caption_channels=7, in_channels=4,
            out_channels=7, sample_size=8, mlp_ratio=3.0, qk_norm="rms_norm", cross_attention_dim=None)),
        ("p4", "perturbed: layer-norm qk norm across heads, guidance embedder, patch 4, one layer, mlp_ratio 0.5",
         dict(num_layers=1, num_attention_heads=5, attention_head_dim=2, num_cross_attention_heads=1,
              cross_attention_head_dim=6, cross_attention_dim=10, caption_channels=8, in_channels=3, out_channels=2,
              patch_size=4, sample_size=16, mlp_ratio=0.5, qk_norm="layer_norm_across_heads",
              guidance_embeds=True)),
        ("p5", "perturbed: fp32 layer-norm qk norm (no weights), attention bias", dict(
            num_layers=2, num_attention_heads=2, attention_head_dim=4, num_cross_attention_heads=4,
            cross_attention_head_dim=3, cross_attention_dim=8, caption_channels=6, in_channels=4, out_channels=4,
            sample_size=8, qk_norm="fp32_layer_norm", attention_bias=True)),
        ("p6", "perturbed: l2 qk norm (no weights), no blocks", dict(
            num_layers=0, num_attention_heads=2, attention_head_dim=4, num_cross_attention_heads=2,
            cross_attention_head_dim=4, cross_attention_dim=8, caption_channels=6, in_channels=4, out_channels=4,
            sample_size=8, qk_norm="l2")),
        ("p7", "perturbed: l2 qk norm (no weights), three layers", dict(
            num_layers=3, num_attention_heads=3, attention_head_dim=2, num_cross_attention_heads=2,
            cross_attention_head_dim=5, cross_attention_dim=6, caption_channels=5, in_channels=2, out_channels=6,
            sample_size=8, qk_norm="l2", mlp_ratio=2.0)),
    ],
    "SanaControlNetModel": [
        ("default", "default", {}),
        ("sana-1600m", "perturbed: Sana 1600M 1024px ControlNet config (the converter's SanaMS_1600M_P1_ControlNet_D7 "
         "values, which are the class defaults)", dict(
            num_attention_heads=70, attention_head_dim=32, num_layers=7, num_cross_attention_heads=20,
            cross_attention_head_dim=112, cross_attention_dim=2240, caption_channels=2304, sample_size=32)),
        ("sana-600m", "perturbed: Sana 600M 1024px ControlNet config (ishan24/Sana_600M_1024px_ControlNetPlus_diffusers, "
         "the SanaControlNetPipeline example)", dict(
            num_attention_heads=36, num_cross_attention_heads=16, cross_attention_head_dim=72,
            cross_attention_dim=1152)),
        ("small", "perturbed: small sizes", dict(
            num_layers=2, num_attention_heads=2, attention_head_dim=8, num_cross_attention_heads=2,
            cross_attention_head_dim=4, cross_attention_dim=16, caption_channels=12, in_channels=4, out_channels=4,
            sample_size=8)),
        ("p1", "perturbed: patch 2, attention bias, affine norm2, out_channels None, mlp_ratio 1.7, sin-cos table",
         dict(num_layers=3, num_attention_heads=3, attention_head_dim=8, num_cross_attention_heads=2,
              cross_attention_head_dim=5, cross_attention_dim=14, caption_channels=10, in_channels=6,
              out_channels=None, patch_size=2, sample_size=8, attention_bias=True, norm_elementwise_affine=True,
              mlp_ratio=1.7, interpolation_scale=1.0)),
        ("p2", "perturbed: no cross-attention (cross_attention_dim None), one layer", dict(
            num_layers=1, num_attention_heads=2, attention_head_dim=5, caption_channels=7, in_channels=3,
            sample_size=8, cross_attention_dim=None, mlp_ratio=3.0)),
        ("p3", "perturbed: no blocks (input block only)", dict(
            num_layers=0, num_attention_heads=2, attention_head_dim=4, caption_channels=5, in_channels=3,
            sample_size=8)),
    ],
    "AutoencoderKLQwenImage": [
        ("default", "default", {}),
        ("qwen-image", "perturbed: Qwen/Qwen-Image vae config (also Qwen-Image-Edit / -Edit-2509; the class defaults)",
         dict(base_dim=96, z_dim=16, dim_mult=[1, 2, 4, 4], num_res_blocks=2, attn_scales=[],
              temperal_downsample=[False, True, True])),
        ("layered", "perturbed: Qwen/Qwen-Image-Layered RGBA VAE shape (input_channels 4)", dict(input_channels=4)),
        ("small", "perturbed: small sizes", dict(base_dim=8, z_dim=4, dim_mult=[1, 2], num_res_blocks=1,
                                                 temperal_downsample=[True], latents_mean=[0.0] * 4,
                                                 latents_std=[1.0] * 4)),
        ("p1", "perturbed: attention at scale 1/2, three res blocks, RGBA input", dict(
            base_dim=12, z_dim=6, dim_mult=[1, 2, 3], num_res_blocks=3, attn_scales=[0.5],
            temperal_downsample=[False, True], input_channels=4, latents_mean=[0.0] * 6, latents_std=[1.0] * 6)),
        ("p2", "perturbed: attention at scales 1 and 1/4, four levels, one input channel", dict(
            base_dim=6, z_dim=5, dim_mult=[1, 3, 2, 2], num_res_blocks=2, attn_scales=[1.0, 0.25],
            temperal_downsample=[True, False, True], input_channels=1, latents_mean=[0.0] * 5,
            latents_std=[1.0] * 5)),
        ("p3", "perturbed: five levels, one res block, attention at scales 1/2 and 1/16", dict(
            base_dim=4, z_dim=3, dim_mult=[1, 1, 2, 2, 1], num_res_blocks=1, attn_scales=[0.0625, 0.5],
            temperal_downsample=[False, True, False, True], latents_mean=[0.0] * 3, latents_std=[1.0] * 3)),
        ("p4", "perturbed: one level (no resamplers), attention at scale 1", dict(
            base_dim=10, z_dim=2, dim_mult=[2], num_res_blocks=2, attn_scales=[1.0], temperal_downsample=[],
            latents_mean=[0.0] * 2, latents_std=[1.0] * 2)),
    ],
    "HiDreamImageTransformer2DModel": [
        ("default", "default (with the required keys patch_size 2 and caption_channels [4096, 4096]: the class "
         "defaults None cannot build)", dict(patch_size=2, caption_channels=[4096, 4096])),
        ("i1", "perturbed: HiDream-ai/HiDream-I1-Full transformer config (-Dev and -Fast are the same architecture)",
         dict(patch_size=2, in_channels=16, out_channels=16, num_layers=16, num_single_layers=32,
              attention_head_dim=128, num_attention_heads=20, caption_channels=[4096, 4096], text_emb_dim=2048,
              num_routed_experts=4, num_activated_experts=2, axes_dims_rope=[64, 32, 32], max_resolution=[128, 128],
              llama_layers=list(range(32)) + [31] * 16)),
        ("small", "perturbed: small sizes (width 96: the SwiGLU widths 2/3 x 4 x 96 and 2/3 x 2 x 96 round to 256)",
         dict(
            patch_size=2, in_channels=4, num_layers=2, num_single_layers=2, attention_head_dim=48,
            num_attention_heads=2, caption_channels=[12, 10], text_emb_dim=6, axes_dims_rope=[24, 24],
            max_resolution=[16, 16])),
        ("p1", "perturbed: dense feed-forwards (no routed experts), width 102 (SwiGLU 272 -> 512), patch 1, "
         "out_channels, per-stream caption widths",
         dict(patch_size=1, in_channels=5, out_channels=3, num_layers=1, num_single_layers=3, attention_head_dim=34,
              num_attention_heads=3, caption_channels=[8, 14], text_emb_dim=9, num_routed_experts=0,
              axes_dims_rope=[16, 18], max_resolution=[8, 8])),
        ("p2", "perturbed: no double-stream blocks, 3 experts (1 active), width 200 (experts 768, shared 512), patch 3",
         dict(
            patch_size=3, in_channels=2, out_channels=7, num_layers=0, num_single_layers=2, attention_head_dim=50,
            num_attention_heads=4, caption_channels=[5, 11], text_emb_dim=4, num_routed_experts=3,
            num_activated_experts=1, axes_dims_rope=[24, 26], max_resolution=[9, 9])),
        ("p3", "perturbed: no single-stream blocks, 5 experts (3 active), one head of 100 (experts 512, shared 256)",
         dict(
            patch_size=2, in_channels=6, num_layers=3, num_single_layers=0, attention_head_dim=100,
            num_attention_heads=1, caption_channels=[9, 9], text_emb_dim=12, num_routed_experts=5,
            num_activated_experts=3, axes_dims_rope=[50, 50], max_resolution=[8, 8], force_inference_output=True)),
    ],
    "UNetSpatioTemporalConditionModel": [
        ("default", "default", {}),
        ("svd", "perturbed: Stable Video Diffusion img2vid unet config (stabilityai/stable-video-diffusion-img2vid, "
         "14 frames)", dict(sample_size=96, num_frames=14)),
        ("svd_xt", "perturbed: Stable Video Diffusion img2vid-xt unet config "
         "(stabilityai/stable-video-diffusion-img2vid-xt, 25 frames)", dict(sample_size=96, num_frames=25)),
        ("small", "perturbed: small sizes, two blocks", dict(
            block_out_channels=[32, 64], layers_per_block=1, cross_attention_dim=16, num_attention_heads=[2, 4],
            down_block_types=["CrossAttnDownBlockSpatioTemporal", "DownBlockSpatioTemporal"],
            up_block_types=["UpBlockSpatioTemporal", "CrossAttnUpBlockSpatioTemporal"], addition_time_embed_dim=8,
            projection_class_embeddings_input_dim=24, sample_size=16, num_frames=4)),
        ("p1", "perturbed: three blocks, per-block layers, transformer layers and cross-attention widths, one head "
         "count, other in/out channels and added-time width", dict(
            block_out_channels=[32, 64, 96], layers_per_block=[1, 2, 1], transformer_layers_per_block=[2, 1, 3],
            num_attention_heads=4, cross_attention_dim=[12, 20, 28], in_channels=5, out_channels=3,
            projection_class_embeddings_input_dim=18, addition_time_embed_dim=6, sample_size=16, num_frames=3,
            down_block_types=["CrossAttnDownBlockSpatioTemporal", "CrossAttnDownBlockSpatioTemporal",
                              "DownBlockSpatioTemporal"],
            up_block_types=["UpBlockSpatioTemporal", "CrossAttnUpBlockSpatioTemporal",
                            "CrossAttnUpBlockSpatioTemporal"])),
        ("p2", "perturbed: per-layer transformer layer lists (the up blocks read one more entry), head counts that "
         "do not divide the channels, cross attention in every block", dict(
            block_out_channels=[32, 64], layers_per_block=2, transformer_layers_per_block=[[1, 2, 3], [2, 1, 2]],
            num_attention_heads=[3, 5], cross_attention_dim=20, in_channels=12, out_channels=8,
            down_block_types=["CrossAttnDownBlockSpatioTemporal"] * 2,
            up_block_types=["CrossAttnUpBlockSpatioTemporal"] * 2)),
        ("p3", "perturbed: one block of three layers (no samplers)", dict(
            block_out_channels=[64], layers_per_block=3, num_attention_heads=4, cross_attention_dim=10,
            transformer_layers_per_block=2, projection_class_embeddings_input_dim=12,
            down_block_types=["CrossAttnDownBlockSpatioTemporal"], up_block_types=["CrossAttnUpBlockSpatioTemporal"])),
        ("p4", "perturbed: no cross-attention blocks (attention in the mid block only), equal widths (no shortcut)",
         dict(block_out_channels=[32, 32, 64], layers_per_block=2, num_attention_heads=2, cross_attention_dim=8,
              transformer_layers_per_block=2, projection_class_embeddings_input_dim=16,
              down_block_types=["DownBlockSpatioTemporal"] * 3, up_block_types=["UpBlockSpatioTemporal"] * 3)),
    ],
    "MotionAdapter": [
        ("default", "default", {}),
        ("v1_5_2", "perturbed: AnimateDiff motion adapter v1-5-2 (guoyww/animatediff-motion-adapter-v1-5-2: "
         "motion mid block, 32 frames)", dict(use_motion_mid_block=True, motion_max_seq_length=32)),
        ("v1_5_3", "perturbed: AnimateDiff motion adapter v1-5-3 (guoyww/animatediff-motion-adapter-v1-5-3: "
         "no mid block)", dict(use_motion_mid_block=False, motion_max_seq_length=32)),
        ("v1_5", "perturbed: AnimateDiff motion adapter v1-5 / v1-4 (guoyww/animatediff-motion-adapter-v1-5: no mid "
         "block, 24 frames)", dict(use_motion_mid_block=False, motion_max_seq_length=24)),
        ("sdxl_beta", "perturbed: AnimateDiff SDXL beta motion adapter (guoyww/animatediff-motion-adapter-sdxl-beta: "
         "three blocks, no mid block)", dict(block_out_channels=[320, 640, 1280], use_motion_mid_block=False,
                                            motion_max_seq_length=32)),
        ("small", "perturbed: small sizes, two blocks", dict(
            block_out_channels=[32, 64], motion_layers_per_block=1, motion_num_attention_heads=2,
            motion_norm_num_groups=8, motion_max_seq_length=8)),
        ("p1", "perturbed: three blocks, per-block layers, transformer layers and heads, two mid layers with their "
         "own transformer layers, conv_in", dict(
            block_out_channels=[16, 24, 40], motion_layers_per_block=[1, 2, 3],
            motion_transformer_layers_per_block=[2, 1, 3], motion_mid_block_layers_per_block=2,
            motion_transformer_layers_per_mid_block=[1, 3], motion_num_attention_heads=[2, 3, 5],
            motion_norm_num_groups=4, motion_max_seq_length=12, conv_in_channels=5)),
        ("p2", "perturbed: head counts that do not divide the channels, two transformer layers, no mid block",
         dict(block_out_channels=[20, 36], motion_num_attention_heads=[3, 8], motion_norm_num_groups=4,
              motion_transformer_layers_per_block=2, motion_max_seq_length=16, use_motion_mid_block=False)),
        ("p3", "perturbed: one block, three mid layers of two transformer layers each, conv_in", dict(
            block_out_channels=[24], motion_layers_per_block=3, motion_mid_block_layers_per_block=3,
            motion_transformer_layers_per_mid_block=2, motion_num_attention_heads=4, motion_norm_num_groups=6,
            motion_max_seq_length=5, conv_in_channels=9)),
    ],
    "AutoencoderTiny": [
        ("default", "default", {}),
        ("taesd", "perturbed: madebyollin/taesd and madebyollin/taesdxl config (TAESD / TAESDXL: the class "
         "default, 4 latent channels)", dict(
            in_channels=3, out_channels=3, encoder_block_out_channels=[64, 64, 64, 64],
            decoder_block_out_channels=[64, 64, 64, 64], latent_channels=4, num_encoder_blocks=[1, 3, 3, 3],
            num_decoder_blocks=[3, 3, 3, 1], upsampling_scaling_factor=2, act_fn="relu")),
        ("taesd3", "perturbed: madebyollin/taesd3 and madebyollin/taef1 config (TAESD3 / TAEF1: 16 latent "
         "channels)", dict(latent_channels=16)),
        ("taesdxl-like", "perturbed: 16 latent channels, narrower decoder", dict(
            latent_channels=16, decoder_block_out_channels=[32, 32, 32, 32], num_decoder_blocks=[2, 2, 2, 1])),
        ("small", "perturbed: small sizes, two stages", dict(
            encoder_block_out_channels=[8, 8], decoder_block_out_channels=[8, 8], num_encoder_blocks=[1, 1],
            num_decoder_blocks=[1, 1], latent_channels=2)),
        ("p1", "perturbed: three encoder / four decoder stages of different widths, a stage without blocks, "
         "in/out channels, upsampling factor 3, silu", dict(
            in_channels=4, out_channels=2, encoder_block_out_channels=[8, 12, 16], num_encoder_blocks=[2, 0, 1],
            decoder_block_out_channels=[16, 8, 4, 6], num_decoder_blocks=[1, 2, 0, 3], latent_channels=5,
            upsampling_scaling_factor=3, act_fn="silu")),
        ("p2", "perturbed: one stage each, decoder stage without blocks", dict(
            encoder_block_out_channels=[10], num_encoder_blocks=[2], decoder_block_out_channels=[6],
            num_decoder_blocks=[0], latent_channels=3)),
        ("p3", "perturbed: six encoder and five decoder stages", dict(
            encoder_block_out_channels=[4, 6, 8, 10, 12, 14], num_encoder_blocks=[1, 2, 1, 0, 2, 1],
            decoder_block_out_channels=[14, 10, 8, 6, 4], num_decoder_blocks=[2, 1, 3, 1, 2], latent_channels=7,
            in_channels=1, out_channels=5)),
    ],
    "AutoencoderDC": [
        ("default", "default", {}),
        ("sana-1.0", "perturbed: mit-han-lab/dc-ae-f32c32-sana-1.0-diffusers config (also sana-1.1: "
         "EfficientViT blocks in the last three stages, conv downsampling, interpolating upsampling)", dict(
            in_channels=3, latent_channels=32, attention_head_dim=32,
            encoder_block_types=["ResBlock"] * 3 + ["EfficientViTBlock"] * 3,
            decoder_block_types=["ResBlock"] * 3 + ["EfficientViTBlock"] * 3,
            encoder_block_out_channels=[128, 256, 512, 512, 1024, 1024],
            decoder_block_out_channels=[128, 256, 512, 512, 1024, 1024],
            encoder_layers_per_block=[2, 2, 2, 3, 3, 3], decoder_layers_per_block=[3, 3, 3, 3, 3, 3],
            encoder_qkv_multiscales=[[], [], [], [5], [5], [5]], decoder_qkv_multiscales=[[], [], [], [5], [5], [5]],
            downsample_block_type="Conv", upsample_block_type="interpolate", decoder_norm_types="rms_norm",
            decoder_act_fns="silu", scaling_factor=0.41407)),
        ("f32c32-in", "perturbed: mit-han-lab/dc-ae-f32c32-in-1.0 / -mix-1.0 diffusers config (no first-stage "
         "blocks: pixel-unshuffle conv_in, batch-norm decoder ResBlocks)", dict(
            latent_channels=32, encoder_block_types=["ResBlock"] * 3 + ["EfficientViTBlock"] * 3,
            decoder_block_types=["ResBlock"] * 3 + ["EfficientViTBlock"] * 3,
            encoder_block_out_channels=[128, 256, 512, 512, 1024, 1024],
            decoder_block_out_channels=[128, 256, 512, 512, 1024, 1024],
            encoder_layers_per_block=[0, 4, 8, 2, 2, 2], decoder_layers_per_block=[0, 5, 10, 2, 2, 2],
            encoder_qkv_multiscales=[[]] * 6, decoder_qkv_multiscales=[[]] * 6,
            decoder_norm_types=["batch_norm"] * 3 + ["rms_norm"] * 3, decoder_act_fns=["relu"] * 3 + ["silu"] * 3)),
        ("f64c128", "perturbed: mit-han-lab/dc-ae-f64c128-in-1.0 / -mix-1.0 diffusers config (7 stages, 128 "
         "latent channels)", dict(
            latent_channels=128, encoder_block_types=["ResBlock"] * 3 + ["EfficientViTBlock"] * 4,
            decoder_block_types=["ResBlock"] * 3 + ["EfficientViTBlock"] * 4,
            encoder_block_out_channels=[128, 256, 512, 512, 1024, 1024, 2048],
            decoder_block_out_channels=[128, 256, 512, 512, 1024, 1024, 2048],
            encoder_layers_per_block=[0, 4, 8, 2, 2, 2, 2], decoder_layers_per_block=[0, 5, 10, 2, 2, 2, 2],
            encoder_qkv_multiscales=[[]] * 7, decoder_qkv_multiscales=[[]] * 7,
            decoder_norm_types=["batch_norm"] * 3 + ["rms_norm"] * 4, decoder_act_fns=["relu"] * 3 + ["silu"] * 4)),
        ("f128c512", "perturbed: mit-han-lab/dc-ae-f128c512-in-1.0 / -mix-1.0 diffusers config (8 stages, 512 "
         "latent channels)", dict(
            latent_channels=512, encoder_block_types=["ResBlock"] * 3 + ["EfficientViTBlock"] * 5,
            decoder_block_types=["ResBlock"] * 3 + ["EfficientViTBlock"] * 5,
            encoder_block_out_channels=[128, 256, 512, 512, 1024, 1024, 2048, 2048],
            decoder_block_out_channels=[128, 256, 512, 512, 1024, 1024, 2048, 2048],
            encoder_layers_per_block=[0, 4, 8, 2, 2, 2, 2, 2], decoder_layers_per_block=[0, 5, 10, 2, 2, 2, 2, 2],
            encoder_qkv_multiscales=[[]] * 8, decoder_qkv_multiscales=[[]] * 8,
            decoder_norm_types=["batch_norm"] * 3 + ["rms_norm"] * 5, decoder_act_fns=["relu"] * 3 + ["silu"] * 5)),
        ("small", "perturbed: small sizes, a ResBlock and an EfficientViT stage", dict(
            latent_channels=4, attention_head_dim=4, encoder_block_types=["ResBlock", "EfficientViTBlock"],
            decoder_block_types=["ResBlock", "EfficientViTBlock"], encoder_block_out_channels=[8, 16],
            decoder_block_out_channels=[8, 16], encoder_layers_per_block=[1, 1], decoder_layers_per_block=[1, 1],
            encoder_qkv_multiscales=[[], [5]], decoder_qkv_multiscales=[[], [5]])),
        ("p1", "perturbed: f32c32-in-style first stages without blocks (pixel-unshuffle conv_in, pixel-shuffle "
         "conv_out), batch / rms norms per decoder stage, two attention scales, heads narrower than the width", dict(
            in_channels=4, latent_channels=6, attention_head_dim=8,
            encoder_block_types=["ResBlock", "ResBlock", "EfficientViTBlock"],
            decoder_block_types=["ResBlock", "EfficientViTBlock", "EfficientViTBlock"],
            encoder_block_out_channels=[8, 16, 24], decoder_block_out_channels=[8, 12, 20],
            encoder_layers_per_block=[0, 2, 1], decoder_layers_per_block=[0, 1, 2],
            encoder_qkv_multiscales=[[], [], [3, 5]], decoder_qkv_multiscales=[[], [5, 3], [7]],
            decoder_norm_types=["batch_norm", "batch_norm", "rms_norm"], decoder_act_fns=["relu", "silu", "silu"])),
        ("p2", "perturbed: EfficientViT blocks everywhere (one string), conv downsampling, interpolating upsampling, "
         "layer norms, no shortcuts, an encoder stage without blocks, decoder conv_out an interpolating block", dict(
            in_channels=2, latent_channels=5, attention_head_dim=6, encoder_block_types="EfficientViTBlock",
            decoder_block_types="EfficientViTBlock", encoder_block_out_channels=[12, 18, 24],
            decoder_block_out_channels=[6, 12, 18], encoder_layers_per_block=[1, 0, 2], decoder_layers_per_block=[0, 2, 1],
            encoder_qkv_multiscales=[[3], [], [5]], decoder_qkv_multiscales=[[], [3], []],
            downsample_block_type="conv", upsample_block_type="interpolate", decoder_norm_types="layer_norm",
            encoder_out_shortcut=False, decoder_in_shortcut=False)),
        ("p3", "perturbed: four stages, different encoder and decoder depths, mixed norms, three attention scales",
         dict(latent_channels=8, attention_head_dim=4,
              encoder_block_types=["ResBlock", "EfficientViTBlock", "ResBlock", "EfficientViTBlock"],
              decoder_block_types=["EfficientViTBlock", "ResBlock", "EfficientViTBlock", "ResBlock"],
              encoder_block_out_channels=[4, 8, 12, 16], decoder_block_out_channels=[8, 8, 16, 16],
              encoder_layers_per_block=[2, 1, 1, 3], decoder_layers_per_block=[1, 3, 2, 1],
              encoder_qkv_multiscales=[[], [3, 5, 7], [], [5]], decoder_qkv_multiscales=[[3], [], [5, 7, 3], []],
              decoder_norm_types=["rms_norm", "layer_norm", "batch_norm", "batch_norm"])),
    ],
    "LTXVideoTransformer3DModel": [
        ("default", "default", {}),
        ("2b", "perturbed: LTX-Video 2B transformer config (releases 0.9.0, 0.9.1, 0.9.5; conversion script)", dict(
            in_channels=128, out_channels=128, patch_size=1, patch_size_t=1, num_attention_heads=32,
            attention_head_dim=64, cross_attention_dim=2048, num_layers=28, caption_channels=4096)),
        ("13b", "perturbed: LTX-Video 13B 0.9.7 transformer config (48 layers, head dim 128, cross-attention 4096)",
         dict(num_attention_heads=32, attention_head_dim=128, cross_attention_dim=4096, num_layers=48)),
        ("small", "perturbed: small sizes", dict(
            num_attention_heads=2, attention_head_dim=8, cross_attention_dim=16, num_layers=2, in_channels=8,
            out_channels=8, caption_channels=12)),
        ("p1", "perturbed: affine block norms, no q/k/v bias, geglu feed-forward, out_channels 5", dict(
            num_attention_heads=3, attention_head_dim=4, cross_attention_dim=10, num_layers=3, in_channels=6,
            out_channels=5, caption_channels=14, norm_elementwise_affine=True, attention_bias=False,
            activation_fn="geglu")),
        ("p2", "perturbed: no attention output bias, linear-silu feed-forward, out_channels None, patches 2", dict(
            num_attention_heads=2, attention_head_dim=6, cross_attention_dim=7, num_layers=1, in_channels=9,
            out_channels=None, caption_channels=5, attention_out_bias=False, activation_fn="linear-silu",
            patch_size=2, patch_size_t=2)),
        ("p3", "perturbed: swiglu feed-forward, no attention biases at all, affine norms", dict(
            num_attention_heads=4, attention_head_dim=2, cross_attention_dim=12, num_layers=2, in_channels=3,
            out_channels=7, caption_channels=9, attention_bias=False, attention_out_bias=False,
            norm_elementwise_affine=True, activation_fn="swiglu")),
        ("p4", "perturbed: geglu-approximate feed-forward", dict(
            num_attention_heads=1, attention_head_dim=10, cross_attention_dim=10, num_layers=2, in_channels=4,
            out_channels=4, caption_channels=6, activation_fn="geglu-approximate")),
    ],
    "AutoencoderKLLTXVideo": [
        ("default", "default", {}),
        ("v0.9.0", "perturbed: LTX-Video 0.9.0 VAE config (conversion script)", dict(
            in_channels=3, out_channels=3, latent_channels=128, block_out_channels=[128, 256, 512, 512],
            down_block_types=["LTXVideoDownBlock3D"] * 4, decoder_block_out_channels=[128, 256, 512, 512],
            layers_per_block=[4, 3, 3, 3, 4], decoder_layers_per_block=[4, 3, 3, 3, 4],
            spatio_temporal_scaling=[True, True, True, False], decoder_spatio_temporal_scaling=[True, True, True, False],
            decoder_inject_noise=[False] * 5, downsample_type=["conv"] * 4, upsample_residual=[False] * 4,
            upsample_factor=[1, 1, 1, 1], patch_size=4, patch_size_t=1, timestep_conditioning=False)),
        ("v0.9.1", "perturbed: LTX-Video 0.9.1 VAE config (timestep-conditioned decoder, noise injection, "
         "residual upsamplers; conversion script)", dict(
            in_channels=3, out_channels=3, latent_channels=128, block_out_channels=[128, 256, 512, 512],
            down_block_types=["LTXVideoDownBlock3D"] * 4, decoder_block_out_channels=[256, 512, 1024],
            layers_per_block=[4, 3, 3, 3, 4], decoder_layers_per_block=[5, 6, 7, 8],
            spatio_temporal_scaling=[True, True, True, False], decoder_spatio_temporal_scaling=[True, True, True],
            decoder_inject_noise=[True, True, True, False], downsample_type=["conv"] * 4,
            upsample_residual=[True, True, True], upsample_factor=[2, 2, 2], timestep_conditioning=True,
            patch_size=4, patch_size_t=1)),
        ("v0.9.5", "perturbed: LTX-Video 0.9.5 VAE config, the same in the 0.9.7 conversion (0.9.5 down blocks, "
         "space/time-to-depth downsamplers; conversion script)", dict(
            in_channels=3, out_channels=3, latent_channels=128, block_out_channels=[128, 256, 512, 1024, 2048],
            down_block_types=["LTXVideo095DownBlock3D"] * 4, decoder_block_out_channels=[256, 512, 1024],
            layers_per_block=[4, 6, 6, 2, 2], decoder_layers_per_block=[5, 5, 5, 5],
            spatio_temporal_scaling=[True, True, True, True], decoder_spatio_temporal_scaling=[True, True, True],
            decoder_inject_noise=[False, False, False, False],
            downsample_type=["spatial", "temporal", "spatiotemporal", "spatiotemporal"],
            upsample_residual=[True, True, True], upsample_factor=[2, 2, 2], timestep_conditioning=True,
            patch_size=4, patch_size_t=1, spatial_compression_ratio=32, temporal_compression_ratio=8)),
        ("small", "perturbed: small sizes, two blocks", dict(
            block_out_channels=[8, 16], decoder_block_out_channels=[8, 16], layers_per_block=[1, 1, 1],
            decoder_layers_per_block=[1, 1, 1], spatio_temporal_scaling=[True, False],
            decoder_spatio_temporal_scaling=[True, False], decoder_inject_noise=[False] * 3,
            upsample_residual=[False] * 2, upsample_factor=[1, 1], latent_channels=4, patch_size=2,
            down_block_types=["LTXVideoDownBlock3D"] * 2, downsample_type=["conv"] * 2)),
        ("p1", "perturbed: 0.9.5-style encoder with every downsampler type, timestep conditioning, noise injection "
         "in some decoder blocks, residual x2 upsamplers, patch 2 / 2", dict(
            block_out_channels=[8, 16, 24, 48, 48], down_block_types=["LTXVideo095DownBlock3D"] * 4,
            downsample_type=["spatial", "temporal", "spatiotemporal", "conv"], layers_per_block=[1, 2, 1, 1, 2],
            spatio_temporal_scaling=[True, True, True, True], decoder_block_out_channels=[16, 32, 64],
            decoder_layers_per_block=[1, 2, 1, 2], decoder_spatio_temporal_scaling=[True, True, True],
            decoder_inject_noise=[True, False, True, False], upsample_residual=[True, False, True],
            upsample_factor=[2, 2, 2], timestep_conditioning=True, latent_channels=6, in_channels=3,
            out_channels=2, patch_size=2, patch_size_t=2)),
        ("p2", "perturbed: mixed down block types (last old-style), mixed upsample factors and scaling, noise in "
         "some blocks, no timestep conditioning", dict(
            block_out_channels=[6, 12, 12, 20],
            down_block_types=["LTXVideo095DownBlock3D", "LTXVideoDownBlock3D", "LTXVideo095DownBlock3D",
                              "LTXVideoDownBlock3D"],
            downsample_type=["spatial", "conv", "temporal", "spatiotemporal"], layers_per_block=[2, 1, 3, 1, 2],
            spatio_temporal_scaling=[True, False, True, True], decoder_block_out_channels=[8, 16, 16, 24],
            decoder_layers_per_block=[1, 2, 1, 1, 3], decoder_spatio_temporal_scaling=[True, False, True, True],
            decoder_inject_noise=[False, True, False, True, True], upsample_residual=[False, True, False, True],
            upsample_factor=[1, 2, 1, 2], latent_channels=5, patch_size=1, in_channels=4, out_channels=4,
            encoder_causal=False, decoder_causal=True)),
        ("p3", "perturbed: mixed down block types (last 0.9.5-style), timestep conditioning and noise everywhere, "
         "widening decoder blocks without upsample factor (conv_in resnets)", dict(
            block_out_channels=[8, 8, 16, 16, 24],
            down_block_types=["LTXVideoDownBlock3D", "LTXVideo095DownBlock3D", "LTXVideoDownBlock3D",
                              "LTXVideo095DownBlock3D"],
            downsample_type=["conv", "spatiotemporal", "conv", "conv"], layers_per_block=[1, 1, 2, 1, 1],
            spatio_temporal_scaling=[False, True, True, True], decoder_block_out_channels=[8, 12, 16],
            decoder_layers_per_block=[2, 1, 1, 2], decoder_spatio_temporal_scaling=[False, True, True],
            decoder_inject_noise=[True, True, True, True], upsample_residual=[False, False, False],
            upsample_factor=[1, 1, 1], timestep_conditioning=True, latent_channels=3, patch_size=3)),
        ("p4", "perturbed: one encoder and one decoder block, three mid-block layers, timestep conditioning", dict(
            block_out_channels=[12], down_block_types=["LTXVideoDownBlock3D"], downsample_type=["conv"],
            layers_per_block=[2, 3], spatio_temporal_scaling=[True], decoder_block_out_channels=[10],
            decoder_layers_per_block=[1, 2], decoder_spatio_temporal_scaling=[False],
            decoder_inject_noise=[False, True], upsample_residual=[False], upsample_factor=[1],
            timestep_conditioning=True, latent_channels=2, patch_size=1, in_channels=1, out_channels=5)),
    ],
    "CogView4Transformer2DModel": [
        ("default", "default", {}),
        ("6b", "perturbed: THUDM/CogView4-6B transformer config (28 layers, 32 heads of 128; "
         "scripts/convert_cogview4_to_diffusers_megatron.py)", dict(
            num_layers=28, attention_head_dim=128, num_attention_heads=32)),
        ("6b-control", "perturbed: THUDM/CogView4-6B-Control transformer config (32 input channels: the control "
         "latent concatenated; the conversion script's --control)", dict(
            num_layers=28, attention_head_dim=128, num_attention_heads=32, in_channels=32)),
        ("small", "perturbed: small sizes", dict(
            num_layers=2, num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4,
            text_embed_dim=16, time_embed_dim=12, condition_dim=8, pos_embed_max_size=8, sample_size=8,
            rope_axes_dim=[4, 4])),
        ("p1", "perturbed: patch 1, in/out channels differ, three layers, odd widths, time_embed_dim wider than "
         "the model", dict(
            patch_size=1, in_channels=5, out_channels=3, num_layers=3, num_attention_heads=3, attention_head_dim=6,
            text_embed_dim=10, time_embed_dim=22, condition_dim=6, pos_embed_max_size=16, sample_size=16,
            rope_axes_dim=[4, 8])),
        ("p2", "perturbed: patch 4, one layer, condition_dim not a ratio of the rest", dict(
            patch_size=4, in_channels=2, out_channels=7, num_layers=1, num_attention_heads=4, attention_head_dim=4,
            text_embed_dim=20, time_embed_dim=8, condition_dim=5, pos_embed_max_size=4, sample_size=8)),
        ("p3", "perturbed: no transformer blocks", dict(
            num_layers=0, num_attention_heads=2, attention_head_dim=4, in_channels=3, out_channels=3,
            text_embed_dim=6, time_embed_dim=10, condition_dim=2)),
    ],
    "AuraFlowTransformer2DModel": [
        ("default", "default", {}),
        ("v0.2", "perturbed: fal/AuraFlow (v0.1) and fal/AuraFlow-v0.2 transformer config (identical: 4 MMDiT + "
         "32 single blocks, 12 heads of 256, 4096 learned positions for 1024px)", dict(pos_embed_max_size=4096)),
        ("v0.3", "perturbed: fal/AuraFlow-v0.3 transformer config (9216 learned positions for 1536px and other "
         "aspect ratios)", dict(pos_embed_max_size=9216)),
        ("pony-v7", "perturbed: purplesmartai/pony-v7-base transformer config (Pony V7, a fine-tune of "
         "AuraFlow v0.3: the v0.3 shapes, pos_embed_max_size 9216)", dict(pos_embed_max_size=9216)),
        ("small", "perturbed: small sizes", dict(
            num_mmdit_layers=1, num_single_dit_layers=2, attention_head_dim=8, num_attention_heads=2,
            joint_attention_dim=12, caption_projection_dim=16, pos_embed_max_size=16, sample_size=8)),
        ("p1", "perturbed: out_channels None (= in_channels), patch 1, no single blocks, caption projection "
         "narrower than the model, feed-forward width rounded up", dict(
            out_channels=None, in_channels=3, patch_size=1, num_mmdit_layers=2, num_single_dit_layers=0,
            num_attention_heads=3, attention_head_dim=5, joint_attention_dim=9, caption_projection_dim=7,
            pos_embed_max_size=25, sample_size=5)),
        ("p2", "perturbed: no MMDiT blocks, patch 4, one head of 100, out channels differ", dict(
            num_mmdit_layers=0, num_single_dit_layers=3, num_attention_heads=1, attention_head_dim=100,
            patch_size=4, in_channels=2, out_channels=6, joint_attention_dim=5, caption_projection_dim=100,
            pos_embed_max_size=9, sample_size=12)),
        ("p3", "perturbed: feed-forward width an exact multiple of 256 (inner 96), three MMDiT and one single "
         "block", dict(
            num_mmdit_layers=3, num_single_dit_layers=1, num_attention_heads=4, attention_head_dim=24,
            joint_attention_dim=11, caption_projection_dim=96, pos_embed_max_size=36, sample_size=12,
            in_channels=8, out_channels=8)),
    ],
    "WanVACETransformer3DModel": [
        ("default", "default", {}),
        ("vace-1.3b", "real: Wan-AI/Wan2.1-VACE-1.3B-diffusers transformer config (diffusers "
         "scripts/convert_wan_to_diffusers.py Wan-VACE-1.3B: 15 VACE blocks at every second layer)", dict(
            num_attention_heads=12, ffn_dim=8960, num_layers=30,
            vace_layers=[0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28], vace_in_channels=96)),
        ("vace-14b", "real: Wan-AI/Wan2.1-VACE-14B-diffusers transformer config (also each of the two "
         "transformers of alibaba-pai/Wan2.2-VACE-Fun-A14B; the class defaults written out)", dict(
            num_attention_heads=40, attention_head_dim=128, ffn_dim=13824, num_layers=40, in_channels=16,
            out_channels=16, text_dim=4096, vace_layers=[0, 5, 10, 15, 20, 25, 30, 35], vace_in_channels=96)),
        ("small", "perturbed: small sizes, two VACE blocks", dict(
            num_attention_heads=2, attention_head_dim=8, text_dim=12, freq_dim=16, ffn_dim=24, num_layers=3,
            in_channels=4, out_channels=4, vace_layers=[0, 2], vace_in_channels=6)),
        ("p1", "perturbed: one VACE block (input and output projection on the same block), image embedder with "
         "position embedding, added k/v, no cross-attention norm, patch (1, 1, 2)", dict(
            num_attention_heads=3, attention_head_dim=4, text_dim=10, freq_dim=8, ffn_dim=20, num_layers=2,
            in_channels=6, out_channels=5, image_dim=14, added_kv_proj_dim=12, cross_attn_norm=False,
            pos_embed_seq_len=16, patch_size=[1, 1, 2], vace_layers=[0], vace_in_channels=7)),
        ("p2", "perturbed: unordered VACE layers (more VACE blocks than every other layer), out_channels None, "
         "image embedder without position embedding or added k/v, patch (2, 2, 1)", dict(
            num_attention_heads=2, attention_head_dim=6, text_dim=8, freq_dim=6, ffn_dim=10, num_layers=4,
            in_channels=5, out_channels=None, image_dim=9, patch_size=[2, 2, 1], vace_layers=[3, 0, 1],
            vace_in_channels=3)),
    ],
    "WanAnimateTransformer3DModel": [
        ("default", "default", {}),
        ("animate-14b", "real: Wan-AI/Wan2.2-Animate-14B-Diffusers transformer config (diffusers "
         "scripts/convert_wan_to_diffusers.py Wan2.2-Animate-14B: CLIP image embedder, added k/v 5120)", dict(
            image_dim=1280, added_kv_proj_dim=5120, in_channels=36, out_channels=16, num_attention_heads=40,
            attention_head_dim=128, ffn_dim=13824, num_layers=40, text_dim=4096, motion_encoder_size=512,
            motion_style_dim=512, motion_dim=20, motion_encoder_dim=512, face_encoder_hidden_dim=1024,
            face_encoder_num_heads=4, inject_face_latents_blocks=5)),
        ("small", "perturbed: small sizes, 32px motion encoder with its own channel table", dict(
            num_attention_heads=2, attention_head_dim=8, text_dim=12, freq_dim=16, ffn_dim=24, num_layers=2,
            in_channels=12, latent_channels=4, out_channels=4, image_dim=10, motion_encoder_size=32,
            motion_encoder_channel_sizes={"4": 8, "8": 8, "16": 6, "32": 4}, motion_style_dim=8, motion_dim=3,
            motion_encoder_dim=6, face_encoder_hidden_dim=5, face_encoder_num_heads=2,
            inject_face_latents_blocks=1)),
        ("p1", "perturbed: latent_channels only (in_channels None), out_channels None, no image embedder, added "
         "k/v, no cross-attention norm, patch (1, 1, 2), 8px motion encoder, a face adapter every second block", dict(
            num_attention_heads=3, attention_head_dim=4, text_dim=10, freq_dim=8, ffn_dim=20, num_layers=5,
            in_channels=None, latent_channels=3, out_channels=None, image_dim=None, added_kv_proj_dim=7,
            cross_attn_norm=False, patch_size=[1, 1, 2], motion_encoder_size=8,
            motion_encoder_channel_sizes={"4": 5, "8": 9}, motion_style_dim=6, motion_dim=4,
            motion_encoder_dim=7, face_encoder_hidden_dim=3, face_encoder_num_heads=3,
            inject_face_latents_blocks=2)),
        ("p2", "perturbed: in_channels only (latent_channels None), image embedder with position embedding, 4px "
         "motion encoder (no residual blocks), more blocks per face adapter than blocks (no face adapter), "
         "patch (2, 1, 1)", dict(
            num_attention_heads=2, attention_head_dim=6, text_dim=6, freq_dim=4, ffn_dim=7, num_layers=3,
            in_channels=11, latent_channels=None, out_channels=2, image_dim=8, pos_embed_seq_len=6,
            patch_size=[2, 1, 1], motion_encoder_size=4, motion_encoder_channel_sizes={"4": 7},
            motion_style_dim=5, motion_dim=2, motion_encoder_dim=3, face_encoder_hidden_dim=4,
            face_encoder_num_heads=1, inject_face_latents_blocks=7)),
        ("p3", "perturbed: the default motion-encoder channel table at 64px (widths change between blocks), "
         "small transformer", dict(
            num_attention_heads=2, attention_head_dim=4, text_dim=6, freq_dim=4, ffn_dim=8, num_layers=4,
            in_channels=8, latent_channels=2, out_channels=3, image_dim=5, motion_encoder_size=64,
            motion_style_dim=12, motion_dim=5, motion_encoder_dim=9, face_encoder_hidden_dim=6,
            face_encoder_num_heads=2, inject_face_latents_blocks=3)),
        ("p4", "perturbed: a 12px motion encoder (not a power of two: channels['12'] feeds int(log2(12)) = 3 "
         "levels; outside the formula, the structural check)", dict(
            num_attention_heads=2, attention_head_dim=4, text_dim=6, freq_dim=4, ffn_dim=8, num_layers=2,
            in_channels=8, latent_channels=2, out_channels=2, image_dim=5, motion_encoder_size=12,
            motion_encoder_channel_sizes={"12": 5, "4": 6}, motion_style_dim=4, motion_dim=3,
            motion_encoder_dim=5, face_encoder_hidden_dim=3, face_encoder_num_heads=2,
            inject_face_latents_blocks=2)),
    ],
    "HunyuanVideo15Transformer3DModel": [
        ("default", "default", {}),  # = hunyuanvideo-community/HunyuanVideo-1.5-Diffusers-480p_i2v (and _distilled)
        ("480p-t2v", "real: hunyuanvideo-community/HunyuanVideo-1.5-Diffusers-480p_t2v transformer config (also "
         "480p_t2v_distilled; scripts/convert_hunyuan_video1_5_to_diffusers.py TRANSFORMER_CONFIGS)", dict(
            target_size=640, task_type="t2v")),
        ("720p-i2v", "real: hunyuanvideo-community/HunyuanVideo-1.5-Diffusers-720p_i2v transformer config (also "
         "720p_i2v_distilled; 720p_t2v is the same with task_type t2v)", dict(target_size=960, task_type="i2v")),
        ("480p-i2v-step-distilled", "real: hunyuanvideo-community/HunyuanVideo-1.5-Diffusers-480p_i2v_step_distilled "
         "transformer config (use_meanflow: the second timestep embedder)", dict(
            target_size=640, task_type="i2v", use_meanflow=True)),
        ("small", "perturbed: small sizes", dict(
            num_attention_heads=2, attention_head_dim=8, num_layers=2, num_refiner_layers=1, text_embed_dim=12,
            text_embed_2_dim=10, image_embed_dim=6, in_channels=5, out_channels=4, rope_axes_dim=[2, 2, 4])),
        ("p1", "perturbed: meanflow, layer-norm qk norm, truncated mlp_ratio, temporal patch 2, spatial patch 2, "
         "three refiner layers, out_channels None (= in_channels)", dict(
            num_attention_heads=3, attention_head_dim=6, num_layers=1, num_refiner_layers=3, mlp_ratio=2.7,
            patch_size=2, patch_size_t=2, qk_norm="layer_norm", text_embed_dim=14, text_embed_2_dim=7,
            image_embed_dim=9, in_channels=5, out_channels=None, use_meanflow=True, rope_axes_dim=[2, 2, 2])),
        ("p2", "perturbed: no qk norm, no double blocks, no refiner blocks, out_channels 0 (= in_channels), patch 3",
         dict(num_attention_heads=4, attention_head_dim=4, num_layers=0, num_refiner_layers=0, mlp_ratio=3.0,
              patch_size=3, qk_norm=None, text_embed_dim=8, text_embed_2_dim=3, image_embed_dim=5, in_channels=9,
              out_channels=0, rope_axes_dim=[0, 2, 2])),
        ("p3", "perturbed: fp32 layer-norm qk norm (no weights), meanflow, temporal patch 3, one head", dict(
            num_attention_heads=1, attention_head_dim=10, num_layers=2, num_refiner_layers=2, mlp_ratio=1.5,
            patch_size=2, patch_size_t=3, qk_norm="fp32_layer_norm", text_embed_dim=6, text_embed_2_dim=11,
            image_embed_dim=4, in_channels=3, out_channels=2, use_meanflow=True, rope_axes_dim=[4, 2, 4])),
    ],
    "AutoencoderKLHunyuanVideo15": [
        ("default", "default", {}),  # = hunyuanvideo-community/HunyuanVideo-1.5-Diffusers-* vae (every release)
        ("small", "perturbed: small sizes, three blocks, spatial ratio 4 (blocks 0 and 1 resample in space and "
         "time)", dict(block_out_channels=[8, 16, 16], layers_per_block=1, latent_channels=4,
                       spatial_compression_ratio=4)),
        ("p1", "perturbed: downsamplers keep their block's width (downsample_match_channel false), spatial ratio 8, "
         "temporal ratio 2, two layers", dict(
            block_out_channels=[8, 12, 16, 16], layers_per_block=2, latent_channels=3, in_channels=1, out_channels=2,
            spatial_compression_ratio=8, temporal_compression_ratio=2, downsample_match_channel=False)),
        ("p2", "perturbed: upsamplers keep their block's width (upsample_match_channel false), spatial ratio 2, "
         "temporal ratio 8 (decoder blocks 1 and 2 upsample in time only)", dict(
            block_out_channels=[4, 8, 8, 12, 16], layers_per_block=1, latent_channels=2,
            spatial_compression_ratio=2, temporal_compression_ratio=8, upsample_match_channel=False)),
        ("p3", "perturbed: six blocks, spatial ratio 12 (not a power of two), temporal ratio 1, narrower last block",
         dict(block_out_channels=[4, 4, 8, 8, 12, 8], layers_per_block=1, latent_channels=2, in_channels=2,
              out_channels=1, spatial_compression_ratio=12, temporal_compression_ratio=1)),
    ],
    "Flux2Transformer2DModel": [
        ("default", "default", {}),  # = black-forest-labs/FLUX.2-dev's transformer (convert_flux2_to_diffusers.py)
        ("klein-4b", "perturbed: FLUX.2 [klein] 4B config (black-forest-labs/FLUX.2-klein-4B and FLUX.2-klein-base-4B: "
         "5 double and 20 single blocks, 24 heads, 7680-wide Qwen3-4B text features, no guidance embedder)", dict(
            num_layers=5, num_single_layers=20, num_attention_heads=24, joint_attention_dim=7680,
            guidance_embeds=False)),
        ("klein-9b", "perturbed: FLUX.2 [klein] 9B config (black-forest-labs/FLUX.2-klein-9B, FLUX.2-klein-base-9B, "
         "FLUX.2-klein-9b-kv: 8 double and 24 single blocks, 32 heads, 12288-wide Qwen3-8B text features, no guidance "
         "embedder)", dict(num_layers=8, num_single_layers=24, num_attention_heads=32, joint_attention_dim=12288,
                           guidance_embeds=False)),
        ("small", "perturbed: small sizes", dict(
            num_layers=2, num_single_layers=3, attention_head_dim=8, num_attention_heads=2, joint_attention_dim=12,
            in_channels=8, timestep_guidance_channels=16, axes_dims_rope=[2, 2, 2, 2])),
        ("p1", "perturbed: patch 2, out_channels, mlp_ratio 2.5, no guidance embedder, other timestep channels", dict(
            num_layers=1, num_single_layers=2, attention_head_dim=6, num_attention_heads=3, joint_attention_dim=20,
            in_channels=12, out_channels=5, patch_size=2, mlp_ratio=2.5, guidance_embeds=False,
            timestep_guidance_channels=10, axes_dims_rope=[2, 2, 2])),
        ("p2", "perturbed: no double blocks, mlp_ratio 1.7 (int(12 * 1.7) = 20), guidance embedder", dict(
            num_layers=0, num_single_layers=2, attention_head_dim=3, num_attention_heads=4, joint_attention_dim=9,
            in_channels=5, mlp_ratio=1.7, timestep_guidance_channels=7, axes_dims_rope=[2, 0, 0, 2])),
        ("p3", "perturbed: no single blocks, one head of 10, patch 3, mlp_ratio 4", dict(
            num_layers=3, num_single_layers=0, attention_head_dim=10, num_attention_heads=1, joint_attention_dim=7,
            in_channels=6, patch_size=3, mlp_ratio=4.0, guidance_embeds=False, timestep_guidance_channels=12,
            axes_dims_rope=[4, 2, 2, 2])),
    ],
    "AutoencoderKLFlux2": [
        ("default", "default", {}),  # = the FLUX.2 VAE (black-forest-labs/FLUX.2-dev and the FLUX.2 [klein] repos)
        ("small-decoder", "perturbed: FLUX.2 small decoder config (black-forest-labs/FLUX.2-small-decoder: the full "
         "encoder, decoder_block_out_channels 96/192/384/384)", dict(decoder_block_out_channels=[96, 192, 384, 384])),
        ("small", "perturbed: small sizes", dict(
            block_out_channels=[8, 16], layers_per_block=1, norm_num_groups=4, latent_channels=4,
            down_block_types=["DownEncoderBlock2D"] * 2, up_block_types=["UpDecoderBlock2D"] * 2)),
        ("p1", "perturbed: a three-level decoder of its own widths behind a two-level encoder, attention in decoder "
         "blocks, no mid-block attention, no quant conv, patch 1x3", dict(
            block_out_channels=[8, 16], decoder_block_out_channels=[4, 12, 20], layers_per_block=2,
            norm_num_groups=4, latent_channels=3, in_channels=5, out_channels=2,
            down_block_types=["DownEncoderBlock2D"] * 2,
            up_block_types=["AttnUpDecoderBlock2D", "UpDecoderBlock2D", "AttnUpDecoderBlock2D"],
            mid_block_add_attention=False, use_quant_conv=False, patch_size=[1, 3])),
        ("p2", "perturbed: one level, attention in the encoder block, narrower decoder, no post quant conv, patch 2x3",
         dict(block_out_channels=[12], decoder_block_out_channels=[8], layers_per_block=3, norm_num_groups=4,
              latent_channels=2, in_channels=4, down_block_types=["AttnDownEncoderBlock2D"],
              up_block_types=["UpDecoderBlock2D"], use_post_quant_conv=False, patch_size=[2, 3])),
        ("p3", "perturbed: three levels, decoder widths given equal to the encoder's, attention blocks, patch 1x1",
         dict(block_out_channels=[8, 16, 24], decoder_block_out_channels=[8, 16, 24], layers_per_block=1,
              norm_num_groups=8, latent_channels=5,
              down_block_types=["DownEncoderBlock2D", "AttnDownEncoderBlock2D", "DownEncoderBlock2D"],
              up_block_types=["UpDecoderBlock2D", "UpDecoderBlock2D", "AttnUpDecoderBlock2D"], patch_size=[1, 1])),
    ],
    "StableAudioDiTModel": [
        ("default", "default", {}),
        ("open_1_0", "perturbed: stabilityai/stable-audio-open-1.0 transformer config (24 layers, 24 heads of 64, "
         "12 key/value heads; it equals the class defaults)", dict(
            sample_size=1024, in_channels=64, num_layers=24, attention_head_dim=64, num_attention_heads=24,
            num_key_value_attention_heads=12, out_channels=64, cross_attention_dim=768, time_proj_dim=256,
            global_states_input_dim=1536, cross_attention_input_dim=768)),
        ("open_small", "perturbed: stabilityai/stable-audio-open-small DiT sizes in diffusers' class (its "
         "model_config.json: embed_dim 1024, depth 16, 8 heads, T5 tokens projected to 1024, global cond 768; "
         "released in stable-audio-tools format only, whose q/k LayerNorms this class does not build)", dict(
            sample_size=256, in_channels=64, num_layers=16, attention_head_dim=128, num_attention_heads=8,
            num_key_value_attention_heads=8, out_channels=64, cross_attention_dim=1024, time_proj_dim=256,
            global_states_input_dim=768, cross_attention_input_dim=768)),
        ("small", "perturbed: small sizes, two layers, one key/value head", dict(
            sample_size=16, in_channels=4, out_channels=4, num_layers=2, attention_head_dim=8, num_attention_heads=2,
            num_key_value_attention_heads=1, cross_attention_dim=12, time_proj_dim=16, global_states_input_dim=10,
            cross_attention_input_dim=6)),
        ("p1", "perturbed: in_channels != out_channels, as many key/value heads as heads, odd widths", dict(
            sample_size=8, in_channels=5, out_channels=3, num_layers=3, attention_head_dim=6, num_attention_heads=3,
            num_key_value_attention_heads=3, cross_attention_dim=7, time_proj_dim=10, global_states_input_dim=9,
            cross_attention_input_dim=11)),
        ("p2", "perturbed: one layer, odd time_proj_dim, cross-attention wider than the model", dict(
            sample_size=8, in_channels=2, out_channels=2, num_layers=1, attention_head_dim=4, num_attention_heads=4,
            num_key_value_attention_heads=2, cross_attention_dim=20, time_proj_dim=9, global_states_input_dim=3,
            cross_attention_input_dim=20)),
    ],
    "AutoencoderOobleck": [
        ("default", "default", {}),
        ("open_1_0", "perturbed: stabilityai/stable-audio-open-1.0 vae config (Oobleck 128 channels, strides "
         "2/4/4/8/8, 64 latent channels, stereo 44.1 kHz; it equals the class defaults)", dict(
            encoder_hidden_size=128, downsampling_ratios=[2, 4, 4, 8, 8], channel_multiples=[1, 2, 4, 8, 16],
            decoder_channels=128, decoder_input_channels=64, audio_channels=2, sampling_rate=44100)),
        ("small", "perturbed: small sizes, two blocks", dict(
            encoder_hidden_size=4, downsampling_ratios=[2, 4], channel_multiples=[1, 2], decoder_channels=4,
            decoder_input_channels=2)),
        ("p1", "perturbed: three blocks, odd and unit strides, non-monotonic multiples, mono, encoder and decoder "
         "widths differ", dict(
            encoder_hidden_size=6, downsampling_ratios=[3, 1, 5], channel_multiples=[2, 1, 3], decoder_channels=4,
            decoder_input_channels=5, audio_channels=1, sampling_rate=16000)),
        ("p2", "perturbed: one block, three audio channels", dict(
            encoder_hidden_size=8, downsampling_ratios=[4], channel_multiples=[3], decoder_channels=10,
            decoder_input_channels=4, audio_channels=3)),
        ("p3", "perturbed: more channel multiples than strides (the last multiple sizes the encoder's top and the "
         "decoder's conv_in, the one at len(strides) the first decoder block)", dict(
            encoder_hidden_size=4, downsampling_ratios=[2, 2], channel_multiples=[2, 3, 5], decoder_channels=6,
            decoder_input_channels=2)),
    ],
    "StableAudioProjectionModel": [
        ("default", "default (with the required keys of stabilityai/stable-audio-open-1.0: text_encoder_dim 768, "
         "conditioning_dim 768, min_value 0, max_value 512; the class has no defaults)", dict(
            text_encoder_dim=768, conditioning_dim=768, min_value=0, max_value=512)),
        ("small", "perturbed: small sizes, text projection", dict(
            text_encoder_dim=6, conditioning_dim=4, min_value=0, max_value=10)),
        ("p1", "perturbed: no text projection (equal widths), small", dict(
            text_encoder_dim=8, conditioning_dim=8, min_value=-1, max_value=30)),
        ("p2", "perturbed: conditioning wider than the text encoder", dict(
            text_encoder_dim=5, conditioning_dim=14, min_value=0, max_value=256)),
    ],
    "HunyuanImageTransformer2DModel": [
        ("default", "default", {}),  # = HunyuanImage-2.1 without its ByT5 (glyph) text embedder
        ("hy21", "real: hunyuanvideo-community/HunyuanImage-2.1-Diffusers transformer config (scripts/"
         "convert_hunyuan_image_to_diffusers.py hunyuanimage2.1: ByT5 embedder of width 1472)",
         dict(text_embed_2_dim=1472)),
        ("hy21-distilled", "real: hunyuanvideo-community/HunyuanImage-2.1-Distilled-Diffusers transformer config "
         "(hunyuanimage2.1-distilled: guidance embedder and MeanFlow's second timestep embedder)",
         dict(text_embed_2_dim=1472, guidance_embeds=True, use_meanflow=True)),
        ("refiner", "real: hunyuanvideo-community/HunyuanImage-2.1-Refiner-Diffusers transformer config "
         "(hunyuanimage-refiner: 26 heads, 128 input channels, 3D patch (1, 1, 1), guidance, no ByT5)",
         dict(in_channels=128, out_channels=64, num_layers=20, num_single_layers=40, rope_axes_dim=[16, 56, 56],
              num_attention_heads=26, attention_head_dim=128, mlp_ratio=4, patch_size=[1, 1, 1],
              text_embed_dim=3584, guidance_embeds=True)),
        ("small", "perturbed: small sizes, ByT5 embedder", dict(
            num_attention_heads=2, attention_head_dim=8, num_layers=2, num_single_layers=2, num_refiner_layers=1,
            text_embed_dim=12, text_embed_2_dim=10, in_channels=4, out_channels=4, rope_axes_dim=[4, 4])),
        ("p1", "perturbed: 3D patch (2, 1, 3), guidance + MeanFlow, layer-norm qk norm, truncated mlp_ratio, "
         "out_channels None (= in_channels), three refiner layers", dict(
            num_attention_heads=3, attention_head_dim=6, num_layers=1, num_single_layers=3, num_refiner_layers=3,
            mlp_ratio=2.7, patch_size=[2, 1, 3], qk_norm="layer_norm", guidance_embeds=True, use_meanflow=True,
            text_embed_dim=14, text_embed_2_dim=7, in_channels=5, out_channels=None, rope_axes_dim=[2, 2, 2])),
        ("p2", "perturbed: no qk norm, no double blocks, no refiner blocks, 2D patch (2, 3), guidance only",
         dict(num_attention_heads=4, attention_head_dim=4, num_layers=0, num_single_layers=2, num_refiner_layers=0,
              mlp_ratio=3.0, patch_size=[2, 3], qk_norm=None, guidance_embeds=True, text_embed_dim=8,
              in_channels=9, out_channels=5, rope_axes_dim=[2, 2])),
        ("p3", "perturbed: fp32 layer-norm qk norm (no weights), no single blocks, MeanFlow without guidance, "
         "3D patch (3, 2, 1), ByT5 embedder", dict(
            num_attention_heads=2, attention_head_dim=10, num_layers=2, num_single_layers=0, num_refiner_layers=1,
            mlp_ratio=1.5, patch_size=[3, 2, 1], qk_norm="fp32_layer_norm", use_meanflow=True, text_embed_dim=6,
            text_embed_2_dim=20, in_channels=3, out_channels=2, rope_axes_dim=[4, 2, 4])),
    ],
    "AutoencoderKLHunyuanImage": [
        ("default", "default (with the required keys, which have no class defaults, at the HunyuanImage-2.1 vae's "
         "values: 3 / 3 / 64 channels, blocks [128, 256, 512, 512, 1024, 1024], 2 layers, ratio 32, size 384)",
         dict(in_channels=3, out_channels=3, latent_channels=64, block_out_channels=[128, 256, 512, 512, 1024, 1024],
              layers_per_block=2, spatial_compression_ratio=32, sample_size=384)),
        ("hy21", "real: hunyuanvideo-community/HunyuanImage-2.1-Diffusers vae config (also the -Distilled "
         "release's; scripts/convert_hunyuan_image_to_diffusers.py)", dict(
            in_channels=3, out_channels=3, latent_channels=64, block_out_channels=[128, 256, 512, 512, 1024, 1024],
            layers_per_block=2, spatial_compression_ratio=32, sample_size=384, scaling_factor=0.75289,
            downsample_match_channel=True, upsample_match_channel=True)),
        ("small", "perturbed: small sizes, two blocks", dict(
            in_channels=3, out_channels=3, latent_channels=8, block_out_channels=[32, 64], layers_per_block=1,
            spatial_compression_ratio=32, sample_size=64)),
        ("p1", "perturbed: downsamplers keep their width (downsample_match_channel False), ratio 2: only block 0 "
         "resamples, two layers, 4 in / 2 out channels", dict(
            in_channels=4, out_channels=2, latent_channels=12, block_out_channels=[32, 64, 96], layers_per_block=2,
            spatial_compression_ratio=2, sample_size=32, downsample_match_channel=False)),
        ("p2", "perturbed: narrowing then widening blocks, ratio 3 (not a power of two: blocks 0 and 1 resample), "
         "upsamplers keep their width, three layers", dict(
            in_channels=3, out_channels=3, latent_channels=16, block_out_channels=[64, 32, 32, 64],
            layers_per_block=3, spatial_compression_ratio=3, sample_size=48, upsample_match_channel=False)),
        ("p3", "perturbed: no encoder resnets (layers_per_block 0: one decoder resnet per block), ratio 1024 "
         "(every block but the last resamples), upsamplers keep their width", dict(
            in_channels=1, out_channels=1, latent_channels=32, block_out_channels=[32, 32, 64], layers_per_block=0,
            spatial_compression_ratio=1024, sample_size=32, upsample_match_channel=False)),
        ("p4", "perturbed: no encoder resnets and neither sampler matches widths, ratio 4 (blocks 0 and 1 resample)",
         dict(in_channels=3, out_channels=4, latent_channels=16, block_out_channels=[32, 64, 64, 96],
              layers_per_block=0, spatial_compression_ratio=4, sample_size=32, downsample_match_channel=False,
              upsample_match_channel=False)),
    ],
    "ControlNetUnionModel": [
        ("default", "default (with the required key addition_time_embed_dim 256: the class default None cannot build "
         "the control-type embedding)", dict(addition_time_embed_dim=256)),
        ("xinsir", "real: xinsir/controlnet-union-sdxl-1.0 config (SDXL ControlNet, 6 control types, conditioning "
         "embedding 16/32/96/256)", dict({k: v for k, v in SDXL.items() if k not in ("up_block_types", "sample_size")},
                                        conditioning_embedding_out_channels=[16, 32, 96, 256], num_control_type=6)),
        ("promax", "real: xinsir/controlnet-union-sdxl-1.0 promax config (config_promax.json: 8 control types, tile "
         "and repaint added)", dict({k: v for k, v in SDXL.items() if k not in ("up_block_types", "sample_size")},
                                    conditioning_embedding_out_channels=[16, 32, 96, 256], num_control_type=8)),
        ("small", "perturbed: small sizes", dict(
            block_out_channels=[8, 16], layers_per_block=1, cross_attention_dim=12, norm_num_groups=4,
            attention_head_dim=2, down_block_types=["CrossAttnDownBlock2D", "DownBlock2D"],
            conditioning_embedding_out_channels=[4, 8], addition_time_embed_dim=4, num_control_type=3,
            num_trans_channel=8, num_trans_head=2, num_proj_channel=8)),
        ("p1", "perturbed: text addition embedding from encoder_hid_dim (no encoder projection), timestep class "
         "embedding, two control transformer layers, projection width and heads off their defaults, per-block "
         "transformer layers, conditioning channels", dict(
            block_out_channels=[8, 16, 24], layers_per_block=2, transformer_layers_per_block=[1, 2, 3],
            down_block_types=["CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"], cross_attention_dim=20,
            norm_num_groups=8, attention_head_dim=[2, 4, 4], in_channels=5, conditioning_channels=1,
            conditioning_embedding_out_channels=[4, 6, 10], addition_embed_type="text", encoder_hid_dim=10,
            addition_embed_type_num_heads=2, class_embed_type="timestep", addition_time_embed_dim=6,
            num_control_type=4, num_trans_channel=12, num_trans_head=3, num_trans_layer=2, num_proj_channel=10)),
        ("p2", "perturbed: text_image addition embedding, per-block only cross attention, class embedding table, "
         "scale-shift resnets, num_attention_heads, linear projection, one-level conditioning embedding", dict(
            block_out_channels=[16, 32], layers_per_block=1, down_block_types=["DownBlock2D", "CrossAttnDownBlock2D"],
            cross_attention_dim=12, norm_num_groups=8, num_attention_heads=[2, 4], transformer_layers_per_block=2,
            only_cross_attention=[False, True], use_linear_projection=True, resnet_time_scale_shift="scale_shift",
            num_class_embeds=7, addition_embed_type="text_image", conditioning_embedding_out_channels=[8],
            addition_time_embed_dim=4, num_control_type=2, num_trans_channel=16, num_trans_head=4,
            num_proj_channel=16)),
        ("p3", "perturbed: one block of three layers, projection class embeddings, text_time addition embedding, no "
         "control transformer layers", dict(
            block_out_channels=[12], down_block_types=["CrossAttnDownBlock2D"], layers_per_block=3, norm_num_groups=4,
            attention_head_dim=3, cross_attention_dim=8, class_embed_type="projection",
            projection_class_embeddings_input_dim=6, addition_embed_type="text_time", addition_time_embed_dim=2,
            num_control_type=5, num_trans_channel=6, num_trans_head=1, num_trans_layer=0, num_proj_channel=4,
            in_channels=3, conditioning_channels=4, conditioning_embedding_out_channels=[2, 4, 6, 8])),
        ("p4", "perturbed: simple_projection class embedding (ControlNetUnionModel builds none for it; "
         "num_class_embeds then unused)", dict(
            block_out_channels=[8, 16], layers_per_block=1, cross_attention_dim=12, norm_num_groups=4,
            attention_head_dim=2, down_block_types=["CrossAttnDownBlock2D", "DownBlock2D"],
            conditioning_embedding_out_channels=[4, 8], addition_time_embed_dim=4, num_control_type=3,
            num_trans_channel=8, num_trans_head=2, num_proj_channel=8, class_embed_type="simple_projection",
            num_class_embeds=5, projection_class_embeddings_input_dim=6)),
    ],
    "QwenImageControlNetModel": [
        ("default", "default", {}),
        ("union", "real: InstantX/Qwen-Image-ControlNet-Union config (5 double blocks; its stale guidance_embeds / "
         "pooled_projection_dim keys are not init arguments and are ignored)", dict(num_layers=5)),
        ("inpainting", "real: InstantX/Qwen-Image-ControlNet-Inpainting config (6 double blocks, 4 extra condition "
         "channels for the packed mask)", dict(num_layers=6, extra_condition_channels=4)),
        ("small", "perturbed: small sizes", dict(num_layers=2, attention_head_dim=8, num_attention_heads=2,
                                                 joint_attention_dim=12, in_channels=8, out_channels=4,
                                                 axes_dims_rope=[2, 2, 4])),
        ("p1", "perturbed: extra condition channels, out_channels None, patch 1, three heads", dict(
            num_layers=3, attention_head_dim=6, num_attention_heads=3, joint_attention_dim=10, in_channels=12,
            out_channels=None, patch_size=1, extra_condition_channels=3, axes_dims_rope=[2, 2, 2])),
        ("p2", "perturbed: no blocks", dict(num_layers=0, attention_head_dim=4, num_attention_heads=4,
                                            joint_attention_dim=6, in_channels=4, out_channels=3,
                                            axes_dims_rope=[0, 2, 2])),
    ],
    "T2IAdapter": [
        ("default", "default", {}),
        ("sd15-canny", "real: TencentARC/t2iadapter_canny_sd15v2 config (full adapter, one input channel; the "
         "3-channel SD 1.5 adapters are the class default)", dict(in_channels=1)),
        ("sd14-color", "real: TencentARC/t2iadapter_color_sd14v1 (light adapter, as diffusers' "
         "convert_original_t2i_adapter.py builds it)", dict(adapter_type="light_adapter", channels=[320, 640, 1280],
                                                           num_res_blocks=4)),
        ("sdxl", "real: TencentARC/t2i-adapter-canny-sdxl-1.0 config (full_adapter_xl, downscale 16)", dict(
            adapter_type="full_adapter_xl", channels=[320, 640, 1280, 1280], downscale_factor=16, in_channels=3,
            num_res_blocks=2)),
        ("small", "perturbed: small sizes", dict(channels=[8, 16], num_res_blocks=1, downscale_factor=2)),
        ("p1", "perturbed: full adapter with equal neighbouring widths (no in_conv), three res blocks", dict(
            in_channels=2, channels=[4, 8, 8, 12], num_res_blocks=3, downscale_factor=4)),
        ("p2", "perturbed: full_adapter_xl with five widths (blocks past the third keep their width, no in_conv)",
         dict(adapter_type="full_adapter_xl", in_channels=1, channels=[4, 6, 10, 12, 12], num_res_blocks=1,
              downscale_factor=2)),
        ("p3", "perturbed: light adapter, four widths, two res blocks", dict(
            adapter_type="light_adapter", in_channels=2, channels=[8, 12, 16, 20], num_res_blocks=2,
            downscale_factor=2)),
        ("p4", "perturbed: light adapter with one width", dict(
            adapter_type="light_adapter", in_channels=3, channels=[8], num_res_blocks=1, downscale_factor=2)),
        ("p5", "perturbed: full adapter without res blocks", dict(
            in_channels=3, channels=[6, 10], num_res_blocks=0, downscale_factor=3)),
    ],
    "ZImageTransformer2DModel": [
        ("default", "default", {}),
        ("turbo", "perturbed: Tongyi-MAI/Z-Image-Turbo transformer config (axes_lens [1536, 512, 512]; the Z-Image "
         "base release is the same 6B architecture)", dict(axes_lens=[1536, 512, 512])),
        ("omni", "perturbed: Tongyi-MAI/Z-Image-Omni-Base shape (SigLIP2 features 1152 wide: siglip embedder, "
         "siglip refiner, siglip pad token)", dict(siglip_feat_dim=1152, axes_lens=[1536, 512, 512])),
        ("small", "perturbed: small sizes", dict(
            dim=64, n_heads=2, n_kv_heads=2, n_layers=2, n_refiner_layers=1, in_channels=4, cap_feat_dim=24,
            axes_dims=[8, 12, 12], axes_lens=[16, 16, 16])),
        ("p1", "perturbed: four patch entries (2-1, 2-2, 1-1 and 2-1 again: one embedder per key), no qk norm, "
         "SigLIP branch, width 99 + 1 (3 heads of 33; feed-forward int(100 / 3 * 8) = 266)", dict(
            all_patch_size=[2, 2, 1, 2], all_f_patch_size=[1, 2, 1, 1], dim=100, n_heads=3, n_kv_heads=1,
            n_layers=1, n_refiner_layers=2, in_channels=5, cap_feat_dim=9, siglip_feat_dim=11, qk_norm=False,
            axes_dims=[11, 10, 12], axes_lens=[8, 8, 8])),
        ("p2", "perturbed: width 288 (adaLN input capped at 256), patch 1 x 3 frames, three refiner layers", dict(
            all_patch_size=[1], all_f_patch_size=[3], dim=288, n_heads=4, n_kv_heads=4, n_layers=1,
            n_refiner_layers=3, in_channels=3, cap_feat_dim=7, axes_dims=[24, 24, 24], axes_lens=[8, 8, 8])),
        ("p3", "perturbed: no refiner layers (SigLIP embedder and pad token without a refiner), one head", dict(
            dim=48, n_heads=1, n_kv_heads=1, n_layers=3, n_refiner_layers=0, in_channels=2, cap_feat_dim=6,
            siglip_feat_dim=10, all_patch_size=[4], all_f_patch_size=[1], axes_dims=[16, 16, 16],
            axes_lens=[8, 8, 8])),
    ],
    "ZImageControlNetModel": [
        ("default", "default (with the required keys control_layers_places [0] and control_in_dim 16: the class "
         "defaults None cannot build)", dict(control_layers_places=[0], control_in_dim=16)),
        ("union", "perturbed: alibaba-pai/Z-Image-Turbo-Fun-Controlnet-Union config (hlky/Z-Image-Turbo-Fun-"
         "Controlnet-Union: 6 control blocks, 16 control channels, plain noise-refiner blocks)", dict(
            control_layers_places=[0, 5, 10, 15, 20, 25], control_in_dim=16)),
        ("union-2.0", "perturbed: Z-Image-Turbo-Fun-Controlnet-Union-2.0 config (hlky/...-2.0: 15 control blocks, "
         "33 control channels, add_control_noise_refiner 'control_layers': no refiner stored)", dict(
            control_layers_places=list(range(0, 30, 2)), control_refiner_layers_places=[0, 1], control_in_dim=33,
            add_control_noise_refiner="control_layers")),
        ("union-2.1", "perturbed: Z-Image-Turbo-Fun-Controlnet-Union-2.1 config (hlky/...-2.1: 15 control blocks, "
         "33 control channels, two control refiner blocks)", dict(
            control_layers_places=list(range(0, 30, 2)), control_refiner_layers_places=[0, 1], control_in_dim=33,
            add_control_noise_refiner="control_noise_refiner")),
        ("small", "perturbed: small sizes", dict(
            control_layers_places=[0, 1], control_in_dim=5, dim=64, n_heads=2, n_kv_heads=2, n_refiner_layers=1)),
        ("p1", "perturbed: control refiner blocks (3), places [2, 0, 7, 0] (two before_proj), two patch keys, no "
         "qk norm, width 99 + 1", dict(
            control_layers_places=[2, 0, 7, 0], control_refiner_layers_places=[0, 2], control_in_dim=7,
            add_control_noise_refiner="control_noise_refiner", all_patch_size=[2, 1], all_f_patch_size=[1, 2],
            dim=100, n_heads=3, n_kv_heads=1, n_refiner_layers=3, qk_norm=False)),
        ("p2", "perturbed: 'control_layers' (no refiner), width 288 (adaLN input capped at 256), patch 1 x 3 "
         "frames", dict(
            control_layers_places=[0, 4], control_in_dim=3, add_control_noise_refiner="control_layers",
            all_patch_size=[1], all_f_patch_size=[3], dim=288, n_heads=4, n_kv_heads=4, n_refiner_layers=2)),
        ("p3", "perturbed: plain refiner blocks (3), one control block, one head, patch 4", dict(
            control_layers_places=[0], control_in_dim=2, all_patch_size=[4], all_f_patch_size=[1], dim=48,
            n_heads=1, n_kv_heads=1, n_refiner_layers=3)),
    ],
    "QwenImage21Transformer2DModel": [
        ("default", "default", {}),
        ("qwen-image-2.1", "real: Qwen/Qwen-Image-2.1 transformer config (= the class defaults: 32 single-stream "
         "blocks of 32 x 128, patch 1, 64 latent channels in and out, Qwen3-VL-8B context 4096, SwiGLU ratio 3)",
         dict(patch_size=1, in_channels=64, out_channels=64, num_layers=32, attention_head_dim=128,
              num_attention_heads=32, context_in_dim=4096, mlp_ratio=3, axes_dims_rope=[16, 56, 56],
              causal_condition=True)),
        ("small", "perturbed: small sizes", dict(num_layers=2, num_attention_heads=2, attention_head_dim=8,
                                                 context_in_dim=12, in_channels=8, out_channels=8, mlp_ratio=2,
                                                 axes_dims_rope=[2, 2, 4])),
        ("p1", "perturbed: patch 2, out_channels None (= in_channels), SwiGLU ratio 4, no causal condition", dict(
            num_layers=3, num_attention_heads=3, attention_head_dim=6, context_in_dim=10, in_channels=5,
            out_channels=None, patch_size=2, mlp_ratio=4, axes_dims_rope=[2, 2, 2], causal_condition=False)),
        ("p2", "perturbed: one block, patch 3, out_channels apart from in_channels, ratio 1, wide context", dict(
            num_layers=1, num_attention_heads=5, attention_head_dim=4, context_in_dim=23, in_channels=3,
            out_channels=7, patch_size=3, mlp_ratio=1, axes_dims_rope=[0, 2, 2], eps=1e-5)),
        ("p3", "perturbed: no blocks", dict(
            num_layers=0, num_attention_heads=2, attention_head_dim=4, context_in_dim=6, in_channels=4,
            out_channels=2, mlp_ratio=5, axes_dims_rope=[2, 2, 0])),
    ],
    "AutoencoderKLQwenImage21": [
        ("default", "default", {}),
        ("qwen-image-2.1", "real: Qwen/Qwen-Image-2.1 vae config (= the class defaults: Wan 2.2-style residual VAE "
         "with 2-D convolutions, base 96, decoder 144, dim_mult 1/2/4/8/8, 64 latent channels, RGBA in and out)",
         dict(base_dim=96, decoder_base_dim=144, z_dim=64, dim_mult=[1, 2, 4, 8, 8], num_res_blocks=2,
              attn_scales=[], temperal_downsample=[False, True, True, True], is_residual=True, in_channels=4,
              out_channels=4, patch_size=None, scale_factor_temporal=8, scale_factor_spatial=16)),
        ("small", "perturbed: small sizes (residual, decoder wider than the encoder)", dict(
            base_dim=8, decoder_base_dim=12, z_dim=8, dim_mult=[1, 2, 2], num_res_blocks=1,
            temperal_downsample=[False, True], latents_mean=[0.0] * 8, latents_std=[1.0] * 8)),
        ("p1", "perturbed: Wan 2.1-style flat encoder (is_residual false), attention at scale 1/2, three res "
         "blocks, decoder as wide as the encoder, RGB in and 5 channels out", dict(
            base_dim=12, decoder_base_dim=None, z_dim=6, dim_mult=[1, 2, 3], num_res_blocks=3, attn_scales=[0.5],
            temperal_downsample=[False, True], is_residual=False, in_channels=3, out_channels=5,
            latents_mean=[0.0] * 6, latents_std=[1.0] * 6)),
        ("p2", "perturbed: residual, four levels, decoder narrower than the encoder, one channel in, patch 2, "
         "attn_scales (which the residual blocks ignore)", dict(
            base_dim=6, decoder_base_dim=4, z_dim=5, dim_mult=[1, 2, 4, 2], num_res_blocks=2, attn_scales=[1.0, 0.5],
            temperal_downsample=[True, False, True], in_channels=1, out_channels=2, patch_size=2,
            latents_mean=[0.0] * 5, latents_std=[1.0] * 5)),
        ("p3", "perturbed: flat encoder, five levels, one res block, attention at scales 1 and 1/4, wider decoder",
         dict(base_dim=4, decoder_base_dim=10, z_dim=3, dim_mult=[1, 1, 2, 2, 1], num_res_blocks=1,
              attn_scales=[1.0, 0.25], temperal_downsample=[False, True, False, True], is_residual=False,
              in_channels=3, out_channels=3, latents_mean=[0.0] * 3, latents_std=[1.0] * 3)),
        ("p4", "perturbed: residual, one level (no resamplers), three res blocks", dict(
            base_dim=10, decoder_base_dim=None, z_dim=2, dim_mult=[1], num_res_blocks=3, temperal_downsample=[],
            latents_mean=[0.0] * 2, latents_std=[1.0] * 2)),
    ],
    "MochiTransformer3DModel": [
        ("default", "default", {}),  # = genmo/mochi-1-preview transformer (the class defaults)
        ("mochi-1-preview", "real: genmo/mochi-1-preview transformer config (48 layers of 24 x 128 heads, "
         "out_channels null = in_channels)", dict(
            patch_size=2, num_attention_heads=24, attention_head_dim=128, num_layers=48, pooled_projection_dim=1536,
            in_channels=12, out_channels=None, qk_norm="rms_norm", text_embed_dim=4096, time_embed_dim=256,
            activation_fn="swiglu", max_sequence_length=256)),
        ("small", "perturbed: small sizes", dict(
            num_attention_heads=2, attention_head_dim=8, num_layers=2, pooled_projection_dim=12, in_channels=4,
            text_embed_dim=16, time_embed_dim=8)),
        ("p1", "perturbed: one block (the last, context_pre_only), geglu, odd head dim, patch 1, out_channels", dict(
            num_attention_heads=3, attention_head_dim=7, num_layers=1, pooled_projection_dim=10, in_channels=5,
            out_channels=7, patch_size=1, text_embed_dim=9, time_embed_dim=6, activation_fn="geglu")),
        ("p2", "perturbed: three blocks, gelu, patch 3, out_channels None, layer_norm qk_norm (unused by the "
         "attention)", dict(
            num_attention_heads=2, attention_head_dim=6, num_layers=3, pooled_projection_dim=8, in_channels=6,
            out_channels=None, patch_size=3, text_embed_dim=12, time_embed_dim=10, activation_fn="gelu",
            qk_norm="layer_norm", max_sequence_length=77)),
        ("p3", "perturbed: no blocks, gelu-approximate", dict(
            num_attention_heads=4, attention_head_dim=4, num_layers=0, pooled_projection_dim=6, in_channels=3,
            out_channels=2, text_embed_dim=8, time_embed_dim=4, activation_fn="gelu-approximate")),
        ("p4", "perturbed: geglu-approximate, one head, text stream wider than the image stream", dict(
            num_attention_heads=1, attention_head_dim=10, num_layers=2, pooled_projection_dim=20, in_channels=2,
            text_embed_dim=6, time_embed_dim=12, activation_fn="geglu-approximate")),
        ("p5", "perturbed: linear-silu, four blocks, patch 4", dict(
            num_attention_heads=2, attention_head_dim=4, num_layers=4, pooled_projection_dim=5, in_channels=4,
            out_channels=3, patch_size=4, text_embed_dim=7, time_embed_dim=8, activation_fn="linear-silu")),
    ],
    "AutoencoderKLMochi": [
        ("default", "default", {}),  # = genmo/mochi-1-preview vae (the class defaults)
        ("mochi-1-preview", "real: genmo/mochi-1-preview vae config (encoder 64-384, decoder 128-768, "
         "temporal x6, spatial x8)", dict(
            in_channels=15, out_channels=3, encoder_block_out_channels=[64, 128, 256, 384],
            decoder_block_out_channels=[128, 256, 512, 768], latent_channels=12, layers_per_block=[3, 3, 4, 6, 3],
            act_fn="silu", temporal_expansions=[1, 2, 3], spatial_expansions=[2, 2, 2],
            add_attention_block=[False, True, True, True, True], scaling_factor=1.0)),
        ("small", "perturbed: small sizes, two blocks", dict(
            encoder_block_out_channels=[32, 32], decoder_block_out_channels=[32, 64], latent_channels=4,
            layers_per_block=[1, 1, 1], temporal_expansions=[1], spatial_expansions=[2],
            add_attention_block=[False, True, True], latents_mean=[0.0] * 4, latents_std=[1.0] * 4)),
        ("p1", "perturbed: three blocks, attention in block_in only, per-block layers and expansions, "
         "non-monotone decoder widths", dict(
            in_channels=7, out_channels=2, encoder_block_out_channels=[32, 64, 96],
            decoder_block_out_channels=[64, 32, 96], latent_channels=5, layers_per_block=[2, 1, 3, 1],
            temporal_expansions=[2, 1], spatial_expansions=[1, 3], add_attention_block=[True, False, True, False],
            latents_mean=[0.0] * 5, latents_std=[1.0] * 5)),
        ("p2", "perturbed: encoder of three blocks, decoder of two, longer per-block lists (the decoder reads "
         "them from the end)", dict(
            encoder_block_out_channels=[32, 32, 64], decoder_block_out_channels=[32, 64], latent_channels=3,
            layers_per_block=[1, 2, 1, 2, 3], temporal_expansions=[1, 2, 3], spatial_expansions=[2, 1, 2],
            add_attention_block=[False, True, False, False, True], latents_mean=[0.0] * 3, latents_std=[1.0] * 3)),
        ("p3", "perturbed: one block each (no down / up blocks), an empty block_in, attention everywhere", dict(
            in_channels=4, out_channels=1, encoder_block_out_channels=[64], decoder_block_out_channels=[32],
            latent_channels=6, layers_per_block=[0, 2], temporal_expansions=[], spatial_expansions=[],
            add_attention_block=[True, True], latents_mean=[0.0] * 6, latents_std=[1.0] * 6)),
    ],
    "SkyReelsV2Transformer3DModel": [
        ("default", "default", {}),
        ("df-1.3b", "real: Skywork/SkyReels-V2-DF-1.3B-540P-Diffusers transformer config (diffusers "
         "scripts/convert_skyreelsv2_to_diffusers.py SkyReels-V2-DF-1.3B-540P: fps embedding and projection)", dict(
            num_attention_heads=12, attention_head_dim=128, ffn_dim=8960, num_layers=30, in_channels=16,
            out_channels=16, text_dim=4096, inject_sample_info=True)),
        ("df-14b", "real: Skywork/SkyReels-V2-DF-14B-540P-Diffusers transformer config (also DF-14B-720P, "
         "T2V-14B-540P and T2V-14B-720P: the same sizes, no fps embedding)", dict(
            num_attention_heads=40, attention_head_dim=128, ffn_dim=13824, num_layers=40, in_channels=16,
            out_channels=16, text_dim=4096, inject_sample_info=False)),
        ("i2v-1.3b", "real: Skywork/SkyReels-V2-I2V-1.3B-540P-Diffusers transformer config (CLIP image embedder, "
         "added k/v 1536, 36 input channels)", dict(
            num_attention_heads=12, attention_head_dim=128, ffn_dim=8960, num_layers=30, in_channels=36,
            out_channels=16, text_dim=4096, image_dim=1280, added_kv_proj_dim=1536)),
        ("i2v-14b", "real: Skywork/SkyReels-V2-I2V-14B-540P-Diffusers transformer config (also I2V-14B-720P: "
         "CLIP image embedder, added k/v 5120)", dict(
            num_attention_heads=40, attention_head_dim=128, ffn_dim=13824, num_layers=40, in_channels=36,
            out_channels=16, text_dim=4096, image_dim=1280, added_kv_proj_dim=5120)),
        ("flf2v-1.3b", "real: Skywork/SkyReels-V2-FLF2V-1.3B-540P-Diffusers transformer config (the I2V-1.3B "
         "sizes plus the first/last-frame image position embedding, 2 x 257 tokens)", dict(
            num_attention_heads=12, attention_head_dim=128, ffn_dim=8960, num_layers=30, in_channels=36,
            out_channels=16, text_dim=4096, image_dim=1280, added_kv_proj_dim=1536, pos_embed_seq_len=514)),
        ("small", "perturbed: small sizes, fps embedding", dict(
            num_attention_heads=2, attention_head_dim=8, text_dim=12, freq_dim=16, ffn_dim=24, num_layers=2,
            in_channels=4, out_channels=4, inject_sample_info=True)),
        ("p1", "perturbed: image embedder with position embedding, added k/v narrower than the inner width, no "
         "cross-attention norm, fps embedding, patch (1, 1, 2)", dict(
            num_attention_heads=3, attention_head_dim=4, text_dim=10, freq_dim=8, ffn_dim=20, num_layers=3,
            in_channels=6, out_channels=5, image_dim=14, added_kv_proj_dim=7, cross_attn_norm=False,
            pos_embed_seq_len=16, patch_size=[1, 1, 2], inject_sample_info=True)),
        ("p2", "perturbed: out_channels None, image embedder without position embedding or added k/v, qk_norm "
         "None (the q/k norms are built all the same), patch (2, 2, 1), no fps embedding", dict(
            num_attention_heads=2, attention_head_dim=6, text_dim=8, freq_dim=6, ffn_dim=10, num_layers=4,
            in_channels=5, out_channels=None, image_dim=9, patch_size=[2, 2, 1], qk_norm=None,
            num_frame_per_block=3)),
    ],
    "ChronoEditTransformer3DModel": [
        ("default", "default", {}),
        ("chronoedit-14b", "real: nvidia/ChronoEdit-14B-Diffusers transformer config (fine-tuned from "
         "Wan2.1-I2V-14B-720P: CLIP image embedder, added k/v 5120, 36 input channels)", dict(
            num_attention_heads=40, attention_head_dim=128, ffn_dim=13824, num_layers=40, in_channels=36,
            out_channels=16, text_dim=4096, image_dim=1280, added_kv_proj_dim=5120, rope_temporal_skip_len=8)),
        ("small", "perturbed: small sizes", dict(
            num_attention_heads=2, attention_head_dim=8, text_dim=12, freq_dim=16, ffn_dim=24, num_layers=2,
            in_channels=4, out_channels=4)),
        ("p1", "perturbed: image embedder with position embedding, added k/v narrower than the inner width, no "
         "cross-attention norm, patch (1, 1, 2), temporal skip 4", dict(
            num_attention_heads=3, attention_head_dim=4, text_dim=10, freq_dim=8, ffn_dim=20, num_layers=3,
            in_channels=6, out_channels=5, image_dim=14, added_kv_proj_dim=7, cross_attn_norm=False,
            pos_embed_seq_len=16, patch_size=[1, 1, 2], rope_temporal_skip_len=4)),
        ("p2", "perturbed: out_channels None, image embedder without position embedding or added k/v, qk_norm "
         "None (the q/k norms are built all the same), patch (2, 2, 1)", dict(
            num_attention_heads=2, attention_head_dim=6, text_dim=8, freq_dim=6, ffn_dim=10, num_layers=4,
            in_channels=5, out_channels=None, image_dim=9, patch_size=[2, 2, 1], qk_norm=None)),
    ],
    "HunyuanVideoFramepackTransformer3DModel": [
        ("default", "default", {}),  # the HunyuanVideo T2V sizes without the two FramePack embedders
        ("framepack-i2v", "real: lllyasviel/FramePackI2V_HY transformer config (also lllyasviel/"
         "FramePack_F1_I2V_HY_20250503; saved as HunyuanVideoTransformer3DModelPacked: the HunyuanVideo sizes plus the "
         "clean-latent history patch embedder and the SigLIP (1152) image projection)", dict(
            has_clean_x_embedder=True, has_image_proj=True, image_proj_dim=1152)),
        ("small", "perturbed: small sizes, both FramePack embedders", dict(
            num_attention_heads=2, attention_head_dim=8, num_layers=2, num_single_layers=2, num_refiner_layers=1,
            text_embed_dim=12, pooled_projection_dim=10, in_channels=4, out_channels=4, rope_axes_dim=[2, 2, 4],
            has_clean_x_embedder=True, has_image_proj=True, image_proj_dim=14)),
        ("p1", "perturbed: image projection only, no guidance embedder, layer-norm qk norm, truncated mlp_ratio, "
         "temporal patch 2, spatial patch 1, out_channels None (= in_channels), three refiner layers", dict(
            num_attention_heads=3, attention_head_dim=6, num_layers=1, num_single_layers=3, num_refiner_layers=3,
            mlp_ratio=2.7, patch_size=1, patch_size_t=2, qk_norm="layer_norm", guidance_embeds=False,
            text_embed_dim=14, pooled_projection_dim=6, in_channels=5, out_channels=None, rope_axes_dim=[2, 2, 2],
            has_image_proj=True, image_proj_dim=7)),
        ("p2", "perturbed: history patch embedder only, no qk norm, no double blocks, token_replace condition type "
         "(FramePack keeps the plain blocks), patch 3", dict(
            num_attention_heads=4, attention_head_dim=4, num_layers=0, num_single_layers=2, num_refiner_layers=2,
            mlp_ratio=3.0, patch_size=3, qk_norm=None, text_embed_dim=8, pooled_projection_dim=12, in_channels=9,
            out_channels=3, image_condition_type="token_replace", rope_axes_dim=[0, 2, 2], has_clean_x_embedder=True)),
        ("p3", "perturbed: fp32 layer-norm qk norm (no weights), no single blocks, no refiner blocks, temporal patch 3, "
         "out_channels 0 (= in_channels), both embedders given as ints", dict(
            num_attention_heads=2, attention_head_dim=10, num_layers=2, num_single_layers=0, num_refiner_layers=0,
            mlp_ratio=1.5, patch_size=2, patch_size_t=3, qk_norm="fp32_layer_norm", text_embed_dim=6,
            pooled_projection_dim=4, in_channels=3, out_channels=0, rope_axes_dim=[4, 2, 4], has_clean_x_embedder=1,
            has_image_proj=1, image_proj_dim=5)),
    ],
    "HunyuanDiT2DModel": [
        ("default", "default (with the required keys in_channels 4 and patch_size 2: the class defaults None cannot "
         "build)", dict(in_channels=4, patch_size=2)),
        ("v1.2", "real: Tencent-Hunyuan/HunyuanDiT-v1.2-Diffusers transformer config (also HunyuanDiT-v1.2-Diffusers-"
         "Distilled; 40 blocks of width 1408, no style / image-size conditioning)", dict(
            activation_fn="gelu-approximate", attention_head_dim=88, cross_attention_dim=1024,
            cross_attention_dim_t5=2048, hidden_size=1408, in_channels=4, learn_sigma=True, mlp_ratio=4.3637,
            norm_type="layer_norm", num_attention_heads=16, num_layers=40, patch_size=2, pooled_projection_dim=1024,
            sample_size=128, text_len=77, text_len_t5=256, use_style_cond_and_image_meta_size=False)),
        ("v1.1", "real: Tencent-Hunyuan/HunyuanDiT-v1.1-Diffusers transformer config (also HunyuanDiT-v1.1-Diffusers-"
         "Distilled and the v1.0 HunyuanDiT-Diffusers: the style embedder and image-size conditioning)", dict(
            activation_fn="gelu-approximate", attention_head_dim=88, cross_attention_dim=1024,
            cross_attention_dim_t5=2048, hidden_size=1408, in_channels=4, learn_sigma=True, mlp_ratio=4.3637,
            norm_type="layer_norm", num_attention_heads=16, num_layers=40, patch_size=2, pooled_projection_dim=1024,
            sample_size=128, text_len=77, text_len_t5=256, use_style_cond_and_image_meta_size=True)),
        ("small", "perturbed: small sizes (three blocks: the last has the long skip)", dict(
            num_attention_heads=2, attention_head_dim=8, hidden_size=16, in_channels=4, patch_size=2, num_layers=3,
            cross_attention_dim=12, cross_attention_dim_t5=10, pooled_projection_dim=6, text_len=5, text_len_t5=7,
            sample_size=8)),
        ("p1", "perturbed: geglu, no learned sigma, conditioning width apart from the block width, five blocks "
         "(two with skips), no style / image-size conditioning, patch 1", dict(
            num_attention_heads=3, attention_head_dim=4, hidden_size=10, in_channels=3, patch_size=1, num_layers=5,
            mlp_ratio=2.5, activation_fn="geglu", learn_sigma=False, cross_attention_dim=7, cross_attention_dim_t5=9,
            pooled_projection_dim=5, text_len=4, text_len_t5=6, sample_size=6,
            use_style_cond_and_image_meta_size=False)),
        ("p2", "perturbed: swiglu, one block (no skip), patch 3, truncated mlp_ratio", dict(
            num_attention_heads=2, attention_head_dim=6, hidden_size=14, in_channels=5, patch_size=3, num_layers=1,
            mlp_ratio=1.7, activation_fn="swiglu", cross_attention_dim=11, cross_attention_dim_t5=6,
            pooled_projection_dim=13, text_len=3, text_len_t5=2, sample_size=9)),
        ("p3", "perturbed: exact gelu, four blocks (the last with a skip), no style conditioning, learned sigma", dict(
            num_attention_heads=4, attention_head_dim=2, hidden_size=6, in_channels=2, patch_size=2, num_layers=4,
            mlp_ratio=3.0, activation_fn="gelu", cross_attention_dim=5, cross_attention_dim_t5=8,
            pooled_projection_dim=3, text_len=2, text_len_t5=5, sample_size=4,
            use_style_cond_and_image_meta_size=False)),
        ("p4", "perturbed: approximate-gelu (geglu-approximate) projection, two blocks (no skip), "
         "norm_type rms_norm (unused by the class)", dict(
            num_attention_heads=1, attention_head_dim=12, hidden_size=12, in_channels=6, patch_size=4, num_layers=2,
            mlp_ratio=0.5, activation_fn="geglu-approximate", cross_attention_dim=4, cross_attention_dim_t5=3,
            pooled_projection_dim=8, text_len=1, text_len_t5=1, sample_size=8, norm_type="rms_norm")),
        ("p5", "perturbed: linear-silu feed-forward, three blocks", dict(
            num_attention_heads=2, attention_head_dim=3, hidden_size=8, in_channels=1, patch_size=1, num_layers=3,
            mlp_ratio=2.0, activation_fn="linear-silu", cross_attention_dim=6, cross_attention_dim_t5=4,
            pooled_projection_dim=2, text_len=2, text_len_t5=3, sample_size=4)),
    ],
    "CosmosTransformer3DModel": [
        ("default", "default", {}),
        ("cosmos1-7b-v2w", "perturbed: Cosmos-1.0-Diffusion-7B-Video2World transformer config (the class default is "
         "7B-Text2World; +1 condition-mask channel)", dict(in_channels=17)),
        ("cosmos1-14b-t2w", "perturbed: Cosmos-1.0-Diffusion-14B-Text2World transformer config", dict(
            num_attention_heads=40, num_layers=36, rope_scale=(2.0, 2.0, 2.0))),
        ("cosmos1-14b-v2w", "perturbed: Cosmos-1.0-Diffusion-14B-Video2World transformer config", dict(
            in_channels=17, num_attention_heads=40, num_layers=36, rope_scale=(2.0, 2.0, 2.0))),
        ("predict2-2b-t2i", "perturbed: Cosmos-Predict2-2B-Text2Image transformer config (no learnable position "
         "embedding)", dict(num_attention_heads=16, rope_scale=(1.0, 4.0, 4.0), extra_pos_embed_type=None)),
        ("predict2-2b-v2w", "perturbed: Cosmos-Predict2-2B-Video2World transformer config", dict(
            in_channels=17, num_attention_heads=16, rope_scale=(1.0, 3.0, 3.0), extra_pos_embed_type=None)),
        ("predict2-14b-t2i", "perturbed: Cosmos-Predict2-14B-Text2Image transformer config", dict(
            num_attention_heads=40, num_layers=36, rope_scale=(1.0, 4.0, 4.0), extra_pos_embed_type=None)),
        ("predict2-14b-v2w", "perturbed: Cosmos-Predict2-14B-Video2World transformer config", dict(
            in_channels=17, num_attention_heads=40, num_layers=36, rope_scale=(20 / 24, 2.0, 2.0),
            extra_pos_embed_type=None)),
        ("predict2.5-2b", "perturbed: Cosmos-Predict2.5-2B transformer config (Cosmos-Reason1 text projection "
         "100352 -> 1024)", dict(
            in_channels=17, num_attention_heads=16, rope_scale=(1.0, 3.0, 3.0), extra_pos_embed_type=None,
            use_crossattn_projection=True, crossattn_proj_in_channels=100352, encoder_hidden_states_channels=1024)),
        ("predict2.5-14b", "perturbed: Cosmos-Predict2.5-14B transformer config", dict(
            in_channels=17, num_attention_heads=40, num_layers=36, rope_scale=(1.0, 3.0, 3.0),
            extra_pos_embed_type=None, use_crossattn_projection=True, crossattn_proj_in_channels=100352,
            encoder_hidden_states_channels=1024)),
        ("transfer2.5-2b", "perturbed: Cosmos-Transfer2.5-2B transformer config (image-context k/v in every "
         "cross-attention, SigLIP 1152 -> 2048 projection, control every 7 blocks)", dict(
            in_channels=17, num_attention_heads=16, rope_scale=(1.0, 3.0, 3.0), extra_pos_embed_type=None,
            use_crossattn_projection=True, crossattn_proj_in_channels=100352, encoder_hidden_states_channels=1024,
            controlnet_block_every_n=7, img_context_dim_in=1152, img_context_dim_out=2048,
            img_context_num_tokens=256)),
        ("small", "perturbed: small sizes", dict(
            in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=16, num_layers=2,
            text_embed_dim=24, adaln_lora_dim=8, max_size=(4, 16, 16))),
        ("p1", "perturbed: no padding-mask channel, no learnable position embedding, text projection, patch "
         "2 x 1 x 3, mlp_ratio 2.5, out != in", dict(
            in_channels=6, out_channels=5, num_attention_heads=3, attention_head_dim=12, num_layers=3,
            mlp_ratio=2.5, text_embed_dim=20, adaln_lora_dim=20, max_size=(8, 12, 12), patch_size=(2, 1, 3),
            concat_padding_mask=False, extra_pos_embed_type=None, use_crossattn_projection=True,
            crossattn_proj_in_channels=40, encoder_hidden_states_channels=28)),
        ("p2", "perturbed: image context (dim in 14, out 36 != width), learnable position tables of max_size "
         "(9, 10, 11) floor-divided by patch 2 x 3 x 2, mlp_ratio 4.1 (int(60 * 4.1) = 245)", dict(
            in_channels=3, out_channels=2, num_attention_heads=5, attention_head_dim=12, num_layers=2,
            mlp_ratio=4.1, text_embed_dim=11, adaln_lora_dim=7, max_size=(9, 10, 11), patch_size=(2, 3, 2),
            img_context_dim_in=14, img_context_dim_out=36, img_context_num_tokens=7, controlnet_block_every_n=2)),
        ("p3", "perturbed: one block, one head, patch 1 x 1 x 1, mlp_ratio 1, text projection and image context",
         dict(in_channels=2, out_channels=3, num_attention_heads=1, attention_head_dim=4, num_layers=1,
              mlp_ratio=1.0, text_embed_dim=9, adaln_lora_dim=3, max_size=(3, 5, 7), patch_size=(1, 1, 1),
              use_crossattn_projection=True, crossattn_proj_in_channels=6, encoder_hidden_states_channels=9,
              img_context_dim_in=5, img_context_dim_out=4)),
    ],
    "AutoencoderKLCosmos": [
        ("default", "default", {}),
        ("cv8x8x8", "perturbed: Cosmos-1.0-Tokenizer-CV8x8x8 / Cosmos-0.1-Tokenizer-CV8x8x8 VAE config as the "
         "diffusers conversion writes it (the Cosmos-1.0-Diffusion pipelines' vae; structure = the class default)",
         dict(in_channels=3, out_channels=3, latent_channels=16, encoder_block_out_channels=(128, 256, 512, 512),
              decode_block_out_channels=(256, 512, 512, 512), attention_resolutions=(32,), resolution=1024,
              num_layers=2, patch_size=4, patch_type="haar", scaling_factor=1.0, spatial_compression_ratio=8,
              temporal_compression_ratio=8, latents_mean=None, latents_std=None)),
        ("cv4x8x8", "perturbed: the CV8x8x8 sizes at Cosmos-0.1-Tokenizer-CV4x8x8's compression (temporal 4)",
         dict(temporal_compression_ratio=4, latents_mean=None, latents_std=None)),
        ("cv8x16x16", "perturbed: the CV8x8x8 sizes at Cosmos-0.1-Tokenizer-CV8x16x16's compression (spatial 16)",
         dict(spatial_compression_ratio=16, latents_mean=None, latents_std=None)),
        ("small", "perturbed: small sizes, attention in the first encoder block", dict(
            in_channels=3, out_channels=3, latent_channels=4, encoder_block_out_channels=(4, 8, 8),
            decode_block_out_channels=(8, 8, 8), attention_resolutions=(16,), resolution=32, num_layers=1,
            patch_size=2, spatial_compression_ratio=4, temporal_compression_ratio=4, latents_mean=None,
            latents_std=None)),
        ("p1", "perturbed: five levels, different decoder widths, patch 1 (rearrange), spatial 16 / temporal 2, "
         "attention at two resolutions", dict(
            in_channels=4, out_channels=2, latent_channels=3, encoder_block_out_channels=(4, 6, 8, 10, 12),
            decode_block_out_channels=(6, 8, 8, 10, 12), attention_resolutions=(64, 16), resolution=128,
            num_layers=2, patch_size=1, patch_type="rearrange", spatial_compression_ratio=16,
            temporal_compression_ratio=2, latents_mean=None, latents_std=None)),
        ("p2", "perturbed: temporal 16 over spatial 4 (temporal-only downsampler), three resnets, resolution 100 "
         "(floor-halved), attention in two encoder blocks and one decoder block", dict(
            latent_channels=5, encoder_block_out_channels=(4, 8, 12, 12), decode_block_out_channels=(6, 10, 6, 8),
            attention_resolutions=(25, 50, 24), resolution=100, num_layers=3, patch_size=2,
            spatial_compression_ratio=4, temporal_compression_ratio=16, latents_mean=None, latents_std=None)),
        ("p3", "perturbed: encoder of two levels, decoder of three (spatial-only upsampler), patch 4, spatial 12 "
         "(floor log2), temporal 2", dict(
            in_channels=1, out_channels=2, latent_channels=2, encoder_block_out_channels=(6, 4),
            decode_block_out_channels=(5, 7, 9), attention_resolutions=(16, 8), resolution=64, num_layers=1,
            patch_size=4, spatial_compression_ratio=12, temporal_compression_ratio=2, latents_mean=None,
            latents_std=None)),
    ],
    "LTX2VideoTransformer3DModel": [
        ("default", "default", {}),
        ("ltx2", "perturbed: Lightricks/LTX-2 (LTX-2.0, 19B audio-video) transformer config (conversion script "
         "convert_ltx2_to_diffusers.py, version 2.0)", dict(
            in_channels=128, out_channels=128, patch_size=1, patch_size_t=1, num_attention_heads=32,
            attention_head_dim=128, cross_attention_dim=4096, vae_scale_factors=[8, 32, 32], pos_embed_max_pos=20,
            base_height=2048, base_width=2048, gated_attn=False, cross_attn_mod=False, audio_in_channels=128,
            audio_out_channels=128, audio_patch_size=1, audio_patch_size_t=1, audio_num_attention_heads=32,
            audio_attention_head_dim=64, audio_cross_attention_dim=2048, audio_scale_factor=4,
            audio_pos_embed_max_pos=20, audio_sampling_rate=16000, audio_hop_length=160, audio_gated_attn=False,
            audio_cross_attn_mod=False, num_layers=48, activation_fn="gelu-approximate",
            qk_norm="rms_norm_across_heads", norm_elementwise_affine=False, norm_eps=1e-6, caption_channels=3840,
            attention_bias=True, attention_out_bias=True, rope_theta=10000.0, rope_double_precision=True,
            causal_offset=1, timestep_scale_multiplier=1000, cross_attn_timestep_scale_multiplier=1000,
            rope_type="split", use_prompt_embeddings=True, perturbed_attn=False)),
        ("ltx2.3", "perturbed: Lightricks/LTX-2.3 (22B) transformer config: gated attention, cross-attention "
         "modulation (9 block mod params, prompt adaLN), no caption projection (conversion script, version 2.3)", dict(
            in_channels=128, out_channels=128, num_attention_heads=32, attention_head_dim=128,
            cross_attention_dim=4096, gated_attn=True, cross_attn_mod=True, audio_in_channels=128,
            audio_out_channels=128, audio_num_attention_heads=32, audio_attention_head_dim=64,
            audio_cross_attention_dim=2048, audio_gated_attn=True, audio_cross_attn_mod=True, num_layers=48,
            caption_channels=3840, rope_type="split", use_prompt_embeddings=False, perturbed_attn=True)),
        ("ltx2.5", "perturbed: Lightricks/LTX-2.5 transformer config: LTX-2.3 plus a bias-free video feed-forward and "
         "the keyframe absolute-position embedding (conversion script, version 2.5)", dict(
            in_channels=128, out_channels=128, num_attention_heads=32, attention_head_dim=128,
            cross_attention_dim=4096, gated_attn=True, cross_attn_mod=True, audio_in_channels=128,
            audio_out_channels=128, audio_num_attention_heads=32, audio_attention_head_dim=64,
            audio_cross_attention_dim=2048, audio_gated_attn=True, audio_cross_attn_mod=True, num_layers=48,
            caption_channels=3840, rope_type="split", use_prompt_embeddings=False, perturbed_attn=True,
            ff_bias=False, use_keyframes_abs_pos_embedding=True)),
        ("small", "perturbed: small sizes (the conversion script's test config)", dict(
            in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=8, cross_attention_dim=16,
            audio_in_channels=4, audio_out_channels=4, audio_num_attention_heads=2, audio_attention_head_dim=4,
            audio_cross_attention_dim=8, num_layers=2, caption_channels=16)),
        ("p1", "perturbed: video-only gated attention and cross-attention modulation, no prompt embeddings, affine "
         "block norms, no q/k/v bias, geglu, bias-free video feed-forward, keyframe embedding, out_channels None",
         dict(in_channels=6, out_channels=None, num_attention_heads=3, attention_head_dim=4, cross_attention_dim=10,
              audio_in_channels=5, audio_out_channels=7, audio_num_attention_heads=2, audio_attention_head_dim=5,
              audio_cross_attention_dim=9, num_layers=3, caption_channels=14, gated_attn=True, cross_attn_mod=True,
              use_prompt_embeddings=False, norm_elementwise_affine=True, attention_bias=False,
              activation_fn="geglu", ff_bias=False, use_keyframes_abs_pos_embedding=True)),
        ("p2", "perturbed: audio-only gated attention and cross-attention modulation without the prompt adaLN, no "
         "attention output bias, swiglu, bias-free audio feed-forward, audio_out_channels None", dict(
            in_channels=5, out_channels=3, num_attention_heads=2, attention_head_dim=6, cross_attention_dim=7,
            audio_in_channels=6, audio_out_channels=None, audio_num_attention_heads=3, audio_attention_head_dim=2,
            audio_cross_attention_dim=11, num_layers=2, caption_channels=9, audio_gated_attn=True,
            audio_cross_attn_mod=True, use_prompt_adaln_single=False, attention_out_bias=False,
            activation_fn="swiglu", audio_ff_bias=False)),
        ("p3", "perturbed: video cross-attention modulation with the prompt adaLN, linear-silu feed-forward, no "
         "attention biases at all, affine norms, split rope, perturbed attention, one layer", dict(
            in_channels=3, out_channels=8, num_attention_heads=4, attention_head_dim=2, cross_attention_dim=12,
            audio_in_channels=2, audio_out_channels=3, audio_num_attention_heads=1, audio_attention_head_dim=10,
            audio_cross_attention_dim=4, num_layers=1, caption_channels=5, cross_attn_mod=True,
            attention_bias=False, attention_out_bias=False, norm_elementwise_affine=True,
            activation_fn="linear-silu", rope_type="split", perturbed_attn=True)),
        ("p4", "perturbed: plain gelu feed-forward, both modalities gated, patches 2",
         dict(in_channels=4, out_channels=4, num_attention_heads=1, attention_head_dim=10, cross_attention_dim=10,
              audio_in_channels=3, audio_out_channels=3, audio_num_attention_heads=2, audio_attention_head_dim=3,
              audio_cross_attention_dim=6, num_layers=2, caption_channels=6, activation_fn="gelu",
              gated_attn=True, audio_gated_attn=True, patch_size=2, patch_size_t=2, audio_patch_size=2)),
        ("p5", "perturbed: geglu-approximate feed-forward, both modalities modulated, no prompt embeddings", dict(
            in_channels=2, out_channels=6, num_attention_heads=2, attention_head_dim=4, cross_attention_dim=3,
            audio_in_channels=4, audio_out_channels=2, audio_num_attention_heads=4, audio_attention_head_dim=2,
            audio_cross_attention_dim=5, num_layers=2, caption_channels=7, activation_fn="geglu-approximate",
            cross_attn_mod=True, audio_cross_attn_mod=True, use_prompt_embeddings=False)),
    ],
    "AutoencoderKLLTX2Video": [
        ("default", "default", {}),
        ("ltx2", "perturbed: Lightricks/LTX-2 (LTX-2.0) video VAE config (conversion script "
         "convert_ltx2_to_diffusers.py, version 2.0)", dict(
            in_channels=3, out_channels=3, latent_channels=128, block_out_channels=[256, 512, 1024, 2048],
            down_block_types=["LTX2VideoDownBlock3D"] * 4, decoder_block_out_channels=[256, 512, 1024],
            layers_per_block=[4, 6, 6, 2, 2], decoder_layers_per_block=[5, 5, 5, 5],
            spatio_temporal_scaling=[True, True, True, True], decoder_spatio_temporal_scaling=[True, True, True],
            decoder_inject_noise=[False, False, False, False],
            downsample_type=["spatial", "temporal", "spatiotemporal", "spatiotemporal"],
            upsample_type=["spatiotemporal", "spatiotemporal", "spatiotemporal"], upsample_residual=[True, True, True],
            upsample_factor=[2, 2, 2], timestep_conditioning=False, patch_size=4, patch_size_t=1,
            resnet_norm_eps=1e-6, encoder_causal=True, decoder_causal=False, encoder_spatial_padding_mode="zeros",
            decoder_spatial_padding_mode="reflect", spatial_compression_ratio=32, temporal_compression_ratio=8)),
        ("ltx2.3", "perturbed: Lightricks/LTX-2.3 video VAE config, the same in LTX-2.5 (five decoder blocks, mixed "
         "upsample types and factors; conversion script, version 2.3)", dict(
            in_channels=3, out_channels=3, latent_channels=128, block_out_channels=[256, 512, 1024, 1024],
            down_block_types=["LTX2VideoDownBlock3D"] * 4, decoder_block_out_channels=[256, 512, 512, 1024],
            layers_per_block=[4, 6, 4, 2, 2], decoder_layers_per_block=[4, 6, 4, 2, 2],
            spatio_temporal_scaling=[True, True, True, True], decoder_spatio_temporal_scaling=[True, True, True, True],
            decoder_inject_noise=[False] * 5,
            downsample_type=["spatial", "temporal", "spatiotemporal", "spatiotemporal"],
            upsample_type=["spatiotemporal", "spatiotemporal", "temporal", "spatial"],
            upsample_residual=[False] * 4, upsample_factor=[2, 2, 1, 2], timestep_conditioning=False,
            patch_size=4, patch_size_t=1, resnet_norm_eps=1e-6, encoder_causal=True, decoder_causal=False,
            encoder_spatial_padding_mode="zeros", decoder_spatial_padding_mode="zeros",
            spatial_compression_ratio=32, temporal_compression_ratio=8)),
        ("ltx2-tc", "perturbed: the LTX-2 video VAE converted with timestep_conditioning=True (the conversion "
         "script's option)", dict(timestep_conditioning=True)),
        ("small", "perturbed: small sizes, two blocks", dict(
            block_out_channels=[8, 16], down_block_types=["LTX2VideoDownBlock3D"] * 2, latent_channels=4,
            layers_per_block=[1, 1, 1], spatio_temporal_scaling=[True, False], downsample_type=["spatial", "conv"],
            decoder_block_out_channels=[8, 16], decoder_layers_per_block=[1, 1, 1],
            decoder_spatio_temporal_scaling=[True, True], decoder_inject_noise=[False] * 3,
            upsample_type=["spatial", "temporal"], upsample_residual=[False] * 2, upsample_factor=[1, 2],
            patch_size=2)),
        ("p1", "perturbed: every downsampler type (conv, spatial, temporal, spatiotemporal, an unknown one that builds "
         "none), timestep conditioning, noise in some decoder blocks, widening decoder blocks (conv_in resnets), "
         "patch 2", dict(
            block_out_channels=[8, 16, 16, 32, 48], down_block_types=["LTX2VideoDownBlock3D"] * 5,
            downsample_type=["conv", "spatial", "none", "temporal", "spatiotemporal"],
            layers_per_block=[1, 2, 1, 1, 2, 1], spatio_temporal_scaling=[True, True, True, True, True],
            latent_channels=6, in_channels=3, out_channels=2, patch_size=2, decoder_block_out_channels=[8, 12, 24],
            decoder_layers_per_block=[1, 2, 1, 2], decoder_spatio_temporal_scaling=[True, False, True],
            decoder_inject_noise=[True, False, True, False], upsample_type=["spatial", "temporal", "spatiotemporal"],
            upsample_residual=[True, False, True], upsample_factor=[1, 1, 2], timestep_conditioning=True)),
        ("p2", "perturbed: booleans for the per-block lists (scaling, noise everywhere, residual), timestep "
         "conditioning, mixed upsample factors", dict(
            block_out_channels=[6, 12, 20], down_block_types=["LTX2VideoDownBlock3D"] * 3,
            downsample_type=["temporal", "spatial", "spatiotemporal"], layers_per_block=[2, 1, 3, 2],
            spatio_temporal_scaling=True, latent_channels=5, in_channels=4, out_channels=4, patch_size=1,
            decoder_block_out_channels=[8, 16, 16, 24], decoder_layers_per_block=[1, 2, 1, 1, 3],
            decoder_spatio_temporal_scaling=True, decoder_inject_noise=True, upsample_residual=True,
            upsample_type=["spatiotemporal", "spatial", "temporal", "spatial"], upsample_factor=[2, 1, 2, 2],
            timestep_conditioning=True, encoder_causal=False, decoder_causal=True)),
        ("p3", "perturbed: no scaling at all (booleans false), noise only in the mid block, one decoder block", dict(
            block_out_channels=[12, 12], down_block_types=["LTX2VideoDownBlock3D"] * 2,
            downsample_type=["conv", "conv"], layers_per_block=[1, 2, 3], spatio_temporal_scaling=False,
            latent_channels=3, patch_size=3, decoder_block_out_channels=[10], decoder_layers_per_block=[1, 2],
            decoder_spatio_temporal_scaling=False, decoder_inject_noise=[False, True], upsample_residual=False,
            upsample_type=["temporal"], upsample_factor=[1], timestep_conditioning=False)),
    ],
    "AutoencoderKLLTX2Audio": [
        ("default", "default", {}),
        ("ltx2", "perturbed: Lightricks/LTX-2 audio VAE config, the same in LTX-2.3 and 2.5 (conversion script "
         "convert_ltx2_to_diffusers.py)", dict(
            base_channels=128, output_channels=2, ch_mult=[1, 2, 4], num_res_blocks=2, attn_resolutions=None,
            in_channels=2, resolution=256, latent_channels=8, norm_type="pixel", causality_axis="height",
            dropout=0.0, mid_block_add_attention=False, sample_rate=16000, mel_hop_length=160, is_causal=True,
            mel_bins=64, double_z=True)),
        ("small", "perturbed: small sizes", dict(base_channels=8, ch_mult=[1, 2], num_res_blocks=1, latent_channels=4,
                                                 resolution=16)),
        ("p1", "perturbed: group norms (non-causal), attention at two resolutions, mid-block attention, single z",
         dict(base_channels=32, ch_mult=[1, 2, 1], num_res_blocks=2, attn_resolutions=[16, 8], resolution=32,
              norm_type="group", causality_axis="none", mid_block_add_attention=True, double_z=False,
              latent_channels=3, in_channels=1, output_channels=3)),
        ("p2", "perturbed: width-causal, four levels, one res block, attention at resolutions that differ between "
         "the encoder (10, 5, 2, 1) and the decoder (8, 4, 2, 1) with an odd resolution", dict(
            base_channels=4, ch_mult=[1, 3, 2, 2], num_res_blocks=1, attn_resolutions=[5, 4, 1], resolution=10,
            causality_axis="width", latent_channels=2, output_channels=1)),
        ("p3", "perturbed: width-compatibility causality, pixel-norm mid-block attention, three res blocks", dict(
            base_channels=6, ch_mult=[2, 1], num_res_blocks=3, resolution=8, attn_resolutions=[8],
            causality_axis="width-compatibility", mid_block_add_attention=True, latent_channels=5, in_channels=3)),
    ],
    "StableCascadeUNet": [
        ("default", "default", {}),
        ("prior", "real: stabilityai/stable-cascade-prior prior config (Stage C 3.6B; scripts/convert_stable_cascade.py)",
         dict(in_channels=16, out_channels=16, timestep_ratio_embedding_dim=64, patch_size=1, conditioning_dim=2048,
              block_out_channels=[2048, 2048], num_attention_heads=[32, 32], down_num_layers_per_block=[8, 24],
              up_num_layers_per_block=[24, 8], down_blocks_repeat_mappers=[1, 1], up_blocks_repeat_mappers=[1, 1],
              block_types_per_layer=[["SDCascadeResBlock", "SDCascadeTimestepBlock", "SDCascadeAttnBlock"]] * 2,
              clip_text_in_channels=1280, clip_text_pooled_in_channels=1280, clip_image_in_channels=768, clip_seq=4,
              kernel_size=3, dropout=[0.1, 0.1], self_attn=True, timestep_conditioning_type=["sca", "crp"],
              switch_level=[False])),
        ("prior-lite", "real: stabilityai/stable-cascade-prior prior_lite config (Stage C lite 1B; "
         "scripts/convert_stable_cascade_lite.py)", dict(
            in_channels=16, out_channels=16, timestep_ratio_embedding_dim=64, patch_size=1, conditioning_dim=1536,
            block_out_channels=[1536, 1536], num_attention_heads=[24, 24], down_num_layers_per_block=[4, 12],
            up_num_layers_per_block=[12, 4], down_blocks_repeat_mappers=[1, 1], up_blocks_repeat_mappers=[1, 1],
            block_types_per_layer=[["SDCascadeResBlock", "SDCascadeTimestepBlock", "SDCascadeAttnBlock"]] * 2,
            clip_text_in_channels=1280, clip_text_pooled_in_channels=1280, clip_image_in_channels=768, clip_seq=4,
            kernel_size=3, dropout=[0.1, 0.1], self_attn=True, timestep_conditioning_type=["sca", "crp"],
            switch_level=[False])),
        ("decoder", "real: stabilityai/stable-cascade decoder config (Stage B 1.5B; scripts/convert_stable_cascade.py)",
         dict(in_channels=4, out_channels=4, timestep_ratio_embedding_dim=64, patch_size=2, conditioning_dim=1280,
              block_out_channels=[320, 640, 1280, 1280], down_num_layers_per_block=[2, 6, 28, 6],
              up_num_layers_per_block=[6, 28, 6, 2], down_blocks_repeat_mappers=[1, 1, 1, 1],
              up_blocks_repeat_mappers=[3, 3, 2, 2], num_attention_heads=[0, 0, 20, 20],
              block_types_per_layer=[["SDCascadeResBlock", "SDCascadeTimestepBlock"]] * 2
              + [["SDCascadeResBlock", "SDCascadeTimestepBlock", "SDCascadeAttnBlock"]] * 2,
              clip_text_pooled_in_channels=1280, clip_seq=4, effnet_in_channels=16, pixel_mapper_in_channels=3,
              kernel_size=3, dropout=[0, 0, 0.1, 0.1], self_attn=True, timestep_conditioning_type=["sca"],
              switch_level=None)),
        ("decoder-lite", "real: stabilityai/stable-cascade decoder_lite config (Stage B lite 700M; "
         "scripts/convert_stable_cascade_lite.py)", dict(
            in_channels=4, out_channels=4, timestep_ratio_embedding_dim=64, patch_size=2, conditioning_dim=1280,
            block_out_channels=[320, 576, 1152, 1152], down_num_layers_per_block=[2, 4, 14, 4],
            up_num_layers_per_block=[4, 14, 4, 2], down_blocks_repeat_mappers=[1, 1, 1, 1],
            up_blocks_repeat_mappers=[2, 2, 2, 2], num_attention_heads=[0, 9, 18, 18],
            block_types_per_layer=[["SDCascadeResBlock", "SDCascadeTimestepBlock"]] * 2
            + [["SDCascadeResBlock", "SDCascadeTimestepBlock", "SDCascadeAttnBlock"]] * 2,
            clip_text_pooled_in_channels=1280, clip_seq=4, effnet_in_channels=16, pixel_mapper_in_channels=3,
            kernel_size=3, dropout=[0, 0, 0.1, 0.1], self_attn=True, timestep_conditioning_type=["sca"],
            switch_level=None)),
        ("small", "perturbed: small sizes (the prior's shape)", dict(
            in_channels=4, out_channels=4, timestep_ratio_embedding_dim=8, conditioning_dim=12,
            block_out_channels=[16, 16], num_attention_heads=[2, 2], down_num_layers_per_block=[1, 2],
            up_num_layers_per_block=[2, 1], clip_text_pooled_in_channels=10)),
        ("p1", "perturbed: decoder-like three levels with effnet and pixel mappers, patch 2, per-level block types, "
         "repeat mappers, one timestep condition, kernel 5, clip_seq 2", dict(
            in_channels=3, out_channels=5, timestep_ratio_embedding_dim=6, patch_size=2, conditioning_dim=10,
            block_out_channels=[8, 12, 16], num_attention_heads=[0, 2, 4], down_num_layers_per_block=[1, 2, 1],
            up_num_layers_per_block=[2, 1, 3], down_blocks_repeat_mappers=[1, 2, 3], up_blocks_repeat_mappers=[3, 1, 2],
            block_types_per_layer=[["SDCascadeResBlock", "SDCascadeTimestepBlock"],
                                   ["SDCascadeResBlock", "SDCascadeTimestepBlock", "SDCascadeAttnBlock"],
                                   ["SDCascadeAttnBlock", "SDCascadeResBlock"]],
            clip_text_pooled_in_channels=7, clip_seq=2, effnet_in_channels=5, pixel_mapper_in_channels=3,
            kernel_size=5, dropout=0.0, self_attn=False, timestep_conditioning_type=["sca"])),
        ("p2", "perturbed: switch levels (1x1 mappings), text and image clip mappers, three timestep conditions, heads "
         "not dividing the width, a level with no down layers, a timestep block first", dict(
            in_channels=6, out_channels=2, timestep_ratio_embedding_dim=10, conditioning_dim=9,
            block_out_channels=[12, 8, 14], num_attention_heads=[5, 3, 4], down_num_layers_per_block=[1, 0, 2],
            up_num_layers_per_block=[1, 2, 2], down_blocks_repeat_mappers=[2, 1, 1], up_blocks_repeat_mappers=[1, 2, 1],
            block_types_per_layer=[["SDCascadeResBlock", "SDCascadeAttnBlock", "SDCascadeTimestepBlock"],
                                   ["SDCascadeTimestepBlock", "SDCascadeResBlock"],
                                   ["SDCascadeResBlock", "SDCascadeAttnBlock"]],
            clip_text_in_channels=11, clip_text_pooled_in_channels=5, clip_image_in_channels=13, clip_seq=3,
            dropout=[0.0, 0.1, 0.0], self_attn=[True, False, True], timestep_conditioning_type=["sca", "crp", "xyz"],
            switch_level=[True, False])),
        ("p3", "perturbed: one level (no scalers, no skips), patch 3, effnet mapper only, no attention, no timestep "
         "conditions", dict(
            in_channels=2, out_channels=3, timestep_ratio_embedding_dim=4, patch_size=3, conditioning_dim=6,
            block_out_channels=[10], num_attention_heads=[0], down_num_layers_per_block=[2],
            up_num_layers_per_block=[1], down_blocks_repeat_mappers=[2], up_blocks_repeat_mappers=[3],
            block_types_per_layer=[["SDCascadeResBlock", "SDCascadeTimestepBlock"]], clip_text_pooled_in_channels=4,
            clip_seq=1, effnet_in_channels=7, kernel_size=1, dropout=0.0, timestep_conditioning_type=[])),
    ],
    "AutoencoderKLTemporalDecoder": [
        ("default", "default", {}),
        ("svd", "real: stabilityai/stable-video-diffusion-img2vid vae config (the same VAE in img2vid-xt and "
         "img2vid-xt-1-1: SD encoder, temporal decoder)", dict(
            block_out_channels=[128, 256, 512, 512], down_block_types=["DownEncoderBlock2D"] * 4, layers_per_block=2,
            latent_channels=4, sample_size=768, in_channels=3, out_channels=3)),
        ("small", "perturbed: small sizes, two blocks (GroupNorm(32) everywhere: widths are multiples of 32)", dict(
            block_out_channels=[32, 64], down_block_types=["DownEncoderBlock2D"] * 2, layers_per_block=1)),
        ("p1", "perturbed: three blocks, two layers, attention in the middle encoder block, other in/out and latent "
         "channels", dict(
            block_out_channels=[32, 64, 96], layers_per_block=2, in_channels=5, out_channels=2, latent_channels=6,
            down_block_types=["DownEncoderBlock2D", "AttnDownEncoderBlock2D", "DownEncoderBlock2D"])),
        ("p2", "perturbed: one block of 96, three layers (three mid resnets, four decoder resnets), 3 latent "
         "channels", dict(block_out_channels=[96], layers_per_block=3, latent_channels=3)),
        ("p3", "perturbed: four blocks with repeated widths, one layer, attention in every encoder block", dict(
            block_out_channels=[32, 32, 64, 64], layers_per_block=1, in_channels=1, out_channels=4, latent_channels=2,
            down_block_types=["AttnDownEncoderBlock2D"] * 4)),
        ("p4", "perturbed: narrowing widths (shortcuts in the encoder's second and the decoder's second block), four "
         "layers", dict(block_out_channels=[64, 32], layers_per_block=4, latent_channels=5,
                        down_block_types=["DownEncoderBlock2D"] * 2)),
    ],
    "UNetMotionModel": [
        ("default", "default", {}),
        ("sd15-v1-5-2", "real: the AnimateDiff unet as AnimateDiffPipeline builds and saves it (UNetMotionModel."
         "from_unet2d) from the Stable Diffusion 1.5 unet and guoyww/animatediff-motion-adapter-v1-5-2 (motion mid "
         "block, 32 frames)", dict(
            cross_attention_dim=768, num_attention_heads=8, sample_size=64, motion_max_seq_length=32,
            use_motion_mid_block=True, motion_num_attention_heads=8)),
        ("sd15-v1-5-3", "real: AnimateDiff unet from Stable Diffusion 1.5 and guoyww/animatediff-motion-adapter-v1-5-3 "
         "(no motion mid block: a plain UNetMidBlock2DCrossAttn)", dict(
            cross_attention_dim=768, num_attention_heads=8, sample_size=64, motion_max_seq_length=32,
            use_motion_mid_block=False)),
        ("sd15-v1-5", "real: AnimateDiff unet from Stable Diffusion 1.5 and guoyww/animatediff-motion-adapter-v1-5 "
         "(v1-4 / v1-5 motion modules: no mid block, 24 frames)", dict(
            cross_attention_dim=768, num_attention_heads=8, sample_size=64, motion_max_seq_length=24,
            use_motion_mid_block=False)),
        ("sdxl-beta", "real: AnimateDiffSDXLPipeline's unet from the SDXL base unet and "
         "guoyww/animatediff-motion-adapter-sdxl-beta (three blocks, text_time embedding, 1/2/10 transformer layers, "
         "no motion mid block)", dict(
            down_block_types=["DownBlockMotion", "CrossAttnDownBlockMotion", "CrossAttnDownBlockMotion"],
            up_block_types=["CrossAttnUpBlockMotion", "CrossAttnUpBlockMotion", "UpBlockMotion"],
            block_out_channels=[320, 640, 1280], num_attention_heads=[5, 10, 20], transformer_layers_per_block=[1, 2, 10],
            cross_attention_dim=2048, use_linear_projection=True, addition_embed_type="text_time",
            addition_time_embed_dim=256, projection_class_embeddings_input_dim=2816, sample_size=128,
            use_motion_mid_block=False, motion_max_seq_length=32)),
        ("small", "perturbed: small sizes, two blocks", dict(
            block_out_channels=[32, 64], layers_per_block=1, norm_num_groups=8, cross_attention_dim=16,
            num_attention_heads=2, motion_num_attention_heads=2, motion_max_seq_length=8, sample_size=16,
            down_block_types=["CrossAttnDownBlockMotion", "DownBlockMotion"],
            up_block_types=["UpBlockMotion", "CrossAttnUpBlockMotion"])),
        ("p1", "perturbed: three blocks, per-block layers, transformer and temporal transformer layers, head counts "
         "that do not divide the widths, per-block cross-attention widths, linear projection, PIA-style 9 input "
         "channels, two motion mid layers with their own transformer lists, time_cond_proj_dim", dict(
            block_out_channels=[16, 24, 40], layers_per_block=[1, 2, 1], transformer_layers_per_block=[2, 1, 3],
            temporal_transformer_layers_per_block=[1, 3, 2], num_attention_heads=[3, 5, 4],
            motion_num_attention_heads=[2, 3, 5], cross_attention_dim=[12, 20, 28], use_linear_projection=True,
            in_channels=9, out_channels=5, norm_num_groups=8, mid_block_layers=2,
            transformer_layers_per_mid_block=[1, 2], temporal_transformer_layers_per_mid_block=[2, 1],
            motion_max_seq_length=12, time_cond_proj_dim=10, sample_size=16,
            down_block_types=["CrossAttnDownBlockMotion", "CrossAttnDownBlockMotion", "DownBlockMotion"],
            up_block_types=["UpBlockMotion", "CrossAttnUpBlockMotion", "CrossAttnUpBlockMotion"])),
        ("p2", "perturbed: SDXL-like text_time with small sizes, reverse_transformer_layers_per_block, two temporal "
         "layers, no motion mid block (plain cross-attention mid block of two layers, 3 transformer layers from the "
         "last block)", dict(
            block_out_channels=[16, 32, 48], layers_per_block=2, norm_num_groups=8, sample_size=16,
            down_block_types=["DownBlockMotion", "CrossAttnDownBlockMotion", "CrossAttnDownBlockMotion"],
            up_block_types=["CrossAttnUpBlockMotion", "CrossAttnUpBlockMotion", "UpBlockMotion"],
            transformer_layers_per_block=[1, 2, 3], reverse_transformer_layers_per_block=[[3, 1, 2], [2, 2, 1], [1, 1, 1]],
            addition_embed_type="text_time", addition_time_embed_dim=8, projection_class_embeddings_input_dim=40,
            cross_attention_dim=24, num_attention_heads=[2, 4, 4], temporal_transformer_layers_per_block=2,
            motion_num_attention_heads=4, use_motion_mid_block=False, mid_block_layers=2, motion_max_seq_length=10)),
        ("p3", "perturbed: per-resnet transformer layers (lists: the mid block gets 1), an int reverse list, motion "
         "heads per block, three temporal layers in the motion mid block; encoder_hid_dim / encoder_hid_dim_type / a "
         "'text' addition type, which this class accepts and builds nothing for", dict(
            block_out_channels=[32, 48], layers_per_block=2, norm_num_groups=16, sample_size=16,
            down_block_types=["CrossAttnDownBlockMotion", "CrossAttnDownBlockMotion"],
            up_block_types=["CrossAttnUpBlockMotion", "CrossAttnUpBlockMotion"],
            transformer_layers_per_block=[[1, 2], [2, 1]], reverse_transformer_layers_per_block=2,
            num_attention_heads=4, motion_num_attention_heads=[4, 6], cross_attention_dim=20,
            temporal_transformer_layers_per_mid_block=3, motion_max_seq_length=6, encoder_hid_dim=10,
            encoder_hid_dim_type="text_proj", addition_embed_type="text", reverse_motion_num_attention_heads=[1, 1])),
        ("p4", "perturbed: one block, three layers, three motion mid layers (transformer layers 2, temporal [1, 2, "
         "1]), heads that do not divide the width", dict(
            block_out_channels=[32], layers_per_block=3, norm_num_groups=4, cross_attention_dim=8,
            num_attention_heads=3, motion_num_attention_heads=4, in_channels=3, out_channels=6, sample_size=8,
            down_block_types=["CrossAttnDownBlockMotion"], up_block_types=["CrossAttnUpBlockMotion"],
            mid_block_layers=3, transformer_layers_per_mid_block=2, temporal_transformer_layers_per_mid_block=[1, 2, 1],
            motion_max_seq_length=4)),
        ("x1", "perturbed: asymmetric reverse_temporal_transformer_layers_per_block (outside the formula: structural "
         "check)", dict(
            block_out_channels=[32, 64], layers_per_block=1, norm_num_groups=8, cross_attention_dim=16,
            num_attention_heads=2, motion_num_attention_heads=2, motion_max_seq_length=8, sample_size=16,
            down_block_types=["CrossAttnDownBlockMotion", "DownBlockMotion"],
            up_block_types=["UpBlockMotion", "CrossAttnUpBlockMotion"], temporal_transformer_layers_per_block=[1, 2],
            reverse_temporal_transformer_layers_per_block=[[1, 2], [3, 1]])),
    ],
    "Kandinsky5Transformer3DModel": [
        ("default", "default", {}),
        ("small", "perturbed: small sizes", {"axes_dims": [2, 2, 4], "ff_dim": 24, "in_text_dim": 10, "in_text_dim2": 6, "model_dim": 16, "num_text_blocks": 1, "num_visual_blocks": 2, "time_dim": 12}),
        ("i2i-lite", "perturbed: Kandinsky 5.0 Image Lite I2I config (kandinskylab/Kandinsky-5.0-I2I-Lite-sft-Diffusers: the T2I sizes with the image latents and mask channels, visual_cond)", {"axes_dims": [32, 48, 48], "ff_dim": 10240, "in_visual_dim": 16, "model_dim": 2560, "num_visual_blocks": 50, "out_visual_dim": 16, "visual_cond": True}),
        ("p1", "perturbed: visual_cond, patch (2, 1, 3), three text blocks and one visual block, odd widths, out_visual_dim unlike in_visual_dim, time_dim above model_dim", {"axes_dims": [2, 2, 2], "ff_dim": 11, "in_text_dim": 7, "in_text_dim2": 9, "in_visual_dim": 5, "model_dim": 18, "num_text_blocks": 3, "num_visual_blocks": 1, "out_visual_dim": 3, "patch_size": [2, 1, 3], "time_dim": 22, "visual_cond": True}),
        ("p2", "perturbed: no text blocks, patch (1, 1, 1), uneven rope axes (head 12 of a 24-wide model), nabla", {"attention_P": 0.8, "attention_type": "nabla", "axes_dims": [2, 4, 6], "ff_dim": 40, "in_text_dim": 5, "in_text_dim2": 4, "in_visual_dim": 2, "model_dim": 24, "num_text_blocks": 0, "num_visual_blocks": 3, "out_visual_dim": 6, "patch_size": [1, 1, 1], "time_dim": 8}),
        ("pro", "perturbed: Kandinsky 5.0 Video Pro config (kandinskylab/Kandinsky-5.0-T2V-Pro-sft-5s-Diffusers and Kandinsky-5.0-I2V-Pro-sft-5s-Diffusers: 19B, 60 visual and 4 text blocks)", {"axes_dims": [32, 48, 48], "ff_dim": 16384, "in_visual_dim": 16, "model_dim": 4096, "num_text_blocks": 4, "num_visual_blocks": 60, "out_visual_dim": 16, "time_dim": 1024, "visual_cond": True}),
        ("t2i-lite", "perturbed: Kandinsky 5.0 Image Lite T2I config (kandinskylab/Kandinsky-5.0-T2I-Lite-sft-Diffusers: 6B, 50 visual blocks, no visual_cond)", {"axes_dims": [32, 48, 48], "ff_dim": 10240, "in_visual_dim": 16, "model_dim": 2560, "num_visual_blocks": 50, "out_visual_dim": 16}),
        ("t2v-lite", "perturbed: Kandinsky 5.0 T2V Lite config (kandinskylab/Kandinsky-5.0-T2V-Lite-sft-5s-Diffusers; the pretrain / nocfg / distilled16steps 5s and I2V Lite releases share it: 2B, visual_cond)", {"ff_dim": 7168, "in_visual_dim": 16, "model_dim": 1792, "out_visual_dim": 16, "visual_cond": True}),
        ("t2v-lite-10s", "perturbed: Kandinsky 5.0 T2V Lite 10s config (Kandinsky-5.0-T2V-Lite-sft-10s-Diffusers: NABLA sparse attention settings, the same tensors)", {"attention_P": 0.9, "attention_add_sta": True, "attention_causal": False, "attention_glob": False, "attention_local": False, "attention_method": "topcdf", "attention_type": "nabla", "attention_wH": 3, "attention_wT": 11, "attention_wW": 3, "attention_window": 3, "ff_dim": 7168, "in_visual_dim": 16, "model_dim": 1792, "out_visual_dim": 16, "visual_cond": True}),
    ],
    "SanaVideoTransformer3DModel": [
        ("default", "default", {}),
        ("small", "perturbed: small sizes", {"attention_head_dim": 8, "caption_channels": 12, "cross_attention_dim": 16, "cross_attention_head_dim": 4, "in_channels": 4, "num_attention_heads": 2, "num_cross_attention_heads": 2, "num_layers": 2, "out_channels": 4, "rope_max_seq_len": 64, "sample_size": 8}),
        ("480p", "perturbed: SANA-Video 2B 480p config (Efficient-Large-Model/SANA-Video_2B_480p_diffusers: the converter's values, mlp_ratio 3, rms qk norm across heads, patch (1, 2, 2))", {"mlp_ratio": 3.0}),
        ("720p", "perturbed: SANA-Video 2B 720p config (convert_sana_video_to_diffusers.py --video_size 720: sample 22, patch (1, 1, 1))", {"mlp_ratio": 3.0, "patch_size": [1, 1, 1], "sample_size": 22}),
        ("p1", "perturbed: guidance embedder, no qk norm (qk_norm None), patch (2, 1, 2), out_channels None, attention bias, affine norm2, mlp_ratio 1.7 (truncated hidden width)", {"attention_bias": True, "attention_head_dim": 8, "caption_channels": 10, "cross_attention_dim": 18, "cross_attention_head_dim": 5, "guidance_embeds": True, "in_channels": 6, "mlp_ratio": 1.7, "norm_elementwise_affine": True, "num_attention_heads": 3, "num_cross_attention_heads": 2, "num_layers": 3, "out_channels": None, "patch_size": [2, 1, 2], "qk_norm": None, "rope_max_seq_len": 64, "sample_size": 8}),
        ("p2", "perturbed: layer-norm qk norm per head, cross-attention width and heads unlike the model's, patch (1, 3, 1)", {"attention_head_dim": 6, "caption_channels": 9, "cross_attention_dim": 20, "cross_attention_head_dim": 7, "in_channels": 5, "norm_elementwise_affine": True, "num_attention_heads": 4, "num_cross_attention_heads": 2, "num_layers": 2, "out_channels": 3, "patch_size": [1, 3, 1], "qk_norm": "layer_norm", "rope_max_seq_len": 64, "sample_size": 8}),
        ("p3", "perturbed: rms qk norm per head, no cross-attention (cross_attention_dim None), mlp_ratio 3", {"attention_head_dim": 6, "caption_channels": 7, "cross_attention_dim": None, "in_channels": 4, "mlp_ratio": 3.0, "num_attention_heads": 2, "num_layers": 2, "out_channels": 7, "qk_norm": "rms_norm", "rope_max_seq_len": 64, "sample_size": 8}),
        ("p4", "perturbed: layer-norm qk norm across heads, guidance embedder, one layer, mlp_ratio 0.5, patch (2, 2, 2)", {"attention_head_dim": 6, "caption_channels": 8, "cross_attention_dim": 10, "cross_attention_head_dim": 6, "guidance_embeds": True, "in_channels": 3, "mlp_ratio": 0.5, "num_attention_heads": 5, "num_cross_attention_heads": 1, "num_layers": 1, "out_channels": 2, "patch_size": [2, 2, 2], "qk_norm": "layer_norm_across_heads", "rope_max_seq_len": 64, "sample_size": 16}),
        ("p5", "perturbed: fp32 layer-norm qk norm (no weights), attention bias, three layers", {"attention_bias": True, "attention_head_dim": 8, "caption_channels": 6, "cross_attention_dim": 8, "cross_attention_head_dim": 3, "in_channels": 4, "num_attention_heads": 2, "num_cross_attention_heads": 4, "num_layers": 3, "out_channels": 4, "qk_norm": "fp32_layer_norm", "rope_max_seq_len": 64, "sample_size": 8}),
        ("p6", "perturbed: l2 qk norm (no weights), no blocks", {"attention_head_dim": 6, "caption_channels": 6, "cross_attention_dim": 8, "cross_attention_head_dim": 4, "in_channels": 4, "num_attention_heads": 2, "num_cross_attention_heads": 2, "num_layers": 0, "out_channels": 5, "qk_norm": "l2", "rope_max_seq_len": 64, "sample_size": 8}),
    ],
    "LongCatImageTransformer2DModel": [
        ("default", "default", {}),
        ("longcat-image", "real: meituan-longcat/LongCat-Image transformer config (also LongCat-Image-Dev and "
         "LongCat-Image-Edit, the same sizes: 10 double + 20 single blocks, 24 heads of 128, Qwen2.5-VL-7B's 3584 "
         "text width)", dict(
            patch_size=1, in_channels=64, num_layers=10, num_single_layers=20, attention_head_dim=128,
            num_attention_heads=24, joint_attention_dim=3584, pooled_projection_dim=3584,
            axes_dims_rope=[16, 56, 56])),
        ("small", "perturbed: small sizes (FLUX's small blocks)", _FLUX_SMALL),
        ("p1", "perturbed: patch 2, odd widths, pooled_projection_dim unlike the rest (it builds no tensor)", dict(
            num_layers=1, num_single_layers=2, attention_head_dim=6, num_attention_heads=3, joint_attention_dim=20,
            pooled_projection_dim=7, in_channels=12, patch_size=2, axes_dims_rope=[2, 2, 2])),
        ("p2", "perturbed: no double blocks", dict(
            num_layers=0, num_single_layers=2, attention_head_dim=4, num_attention_heads=4, joint_attention_dim=8,
            pooled_projection_dim=4, in_channels=4, axes_dims_rope=[2, 0, 2])),
        ("p3", "perturbed: no single blocks, patch 3, five heads", dict(
            num_layers=2, num_single_layers=0, attention_head_dim=4, num_attention_heads=5, joint_attention_dim=7,
            pooled_projection_dim=9, in_channels=6, patch_size=3, axes_dims_rope=[2, 2, 0])),
    ],
    "GlmImageTransformer2DModel": [
        ("default", "default", {}),
        ("glm-image", "real: zai-org/GLM-Image transformer config (the 7B diffusion decoder: 30 blocks, 32 heads of "
         "128, ByT5 glyph text width 1472, 16384-entry prior VQ codebook)", dict(
            patch_size=2, in_channels=16, out_channels=16, num_layers=30, attention_head_dim=128,
            num_attention_heads=32, text_embed_dim=1472, time_embed_dim=512, condition_dim=256,
            prior_vq_quantizer_codebook_size=16384)),
        ("small", "perturbed: small sizes", dict(
            num_layers=2, num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4,
            text_embed_dim=16, time_embed_dim=12, condition_dim=8, prior_vq_quantizer_codebook_size=32)),
        ("p1", "perturbed: patch 1, in/out channels differ, three layers, odd widths, time_embed_dim wider than "
         "the model", dict(
            patch_size=1, in_channels=5, out_channels=3, num_layers=3, num_attention_heads=3, attention_head_dim=6,
            text_embed_dim=10, time_embed_dim=22, condition_dim=6, prior_vq_quantizer_codebook_size=11)),
        ("p2", "perturbed: patch 4, one layer, condition_dim not a ratio of the rest, codebook of one", dict(
            patch_size=4, in_channels=2, out_channels=7, num_layers=1, num_attention_heads=4, attention_head_dim=4,
            text_embed_dim=20, time_embed_dim=8, condition_dim=5, prior_vq_quantizer_codebook_size=1)),
        ("p3", "perturbed: no transformer blocks", dict(
            num_layers=0, num_attention_heads=2, attention_head_dim=4, in_channels=3, out_channels=3,
            text_embed_dim=6, time_embed_dim=10, condition_dim=2, prior_vq_quantizer_codebook_size=5)),
    ],
    "BriaTransformer2DModel": [
        ("default", "default", {}),
        ("bria-3.2", "real: briaai/BRIA-3.2 transformer config (BRIA-3.1's architecture, per the model card): 8 double "
         "and 28 single blocks, 24 x 96 heads, 16 latent channels", dict(
            patch_size=1, in_channels=16, num_layers=8, num_single_layers=28, attention_head_dim=96,
            num_attention_heads=24, joint_attention_dim=4096, pooled_projection_dim=None, guidance_embeds=False,
            axes_dims_rope=[0, 48, 48], rope_theta=10000, time_theta=10000)),
        ("small", "perturbed: small sizes (FLUX's small blocks; no pooled projection)",
         {k: v for k, v in _FLUX_SMALL.items() if k != "pooled_projection_dim"}),
        ("p1", "perturbed: patch 2, odd widths, other rope / time thetas", dict(
            num_layers=1, num_single_layers=2, attention_head_dim=6, num_attention_heads=3, joint_attention_dim=20,
            in_channels=12, patch_size=2, axes_dims_rope=[2, 2, 2], rope_theta=100, time_theta=1000)),
        ("p2", "perturbed: no double blocks, a pooled_projection_dim that builds nothing", dict(
            num_layers=0, num_single_layers=2, attention_head_dim=4, num_attention_heads=4, joint_attention_dim=8,
            in_channels=4, pooled_projection_dim=7, axes_dims_rope=[2, 0, 2])),
        ("p3", "perturbed: no single blocks, patch 3 (guidance_embeds cannot build in diffusers 0.42: "
         "BriaTimestepProjEmbeddings is called without time_theta)", dict(
            num_layers=2, num_single_layers=0, attention_head_dim=4, num_attention_heads=5, joint_attention_dim=7,
            in_channels=6, patch_size=3, axes_dims_rope=[2, 2, 0])),
    ],
    "BriaFiboTransformer2DModel": [
        ("default", "default", {}),
        ("fibo", "real: briaai/FIBO transformer config (the FIBO paper's architecture table: 8 dual- and 38 "
         "single-stream blocks, 24 x 128 heads, rope (16, 56, 56); 48 latent channels of the Wan 2.2 VAE unpatched, "
         "text_encoder_dim 2048 = SmolLM3-3B's hidden size, joint_attention_dim 4096 = its last two layers "
         "concatenated; as mflux's FIBO transformer loads it)", dict(
            patch_size=1, in_channels=48, num_layers=8, num_single_layers=38, attention_head_dim=128,
            num_attention_heads=24, joint_attention_dim=4096, pooled_projection_dim=None, guidance_embeds=False,
            axes_dims_rope=[16, 56, 56], rope_theta=10000, time_theta=10000, text_encoder_dim=2048)),
        ("small", "perturbed: small sizes (FLUX's small blocks), small text encoder width",
         dict({k: v for k, v in _FLUX_SMALL.items() if k != "pooled_projection_dim"}, text_encoder_dim=10)),
        ("p1", "perturbed: guidance, patch 2, odd model width (caption projections to inner // 2)", dict(
            num_layers=1, num_single_layers=2, attention_head_dim=5, num_attention_heads=3, joint_attention_dim=20,
            in_channels=12, patch_size=2, guidance_embeds=True, axes_dims_rope=[2, 2, 2], text_encoder_dim=9)),
        ("p2", "perturbed: no double blocks, guidance", dict(
            num_layers=0, num_single_layers=3, attention_head_dim=4, num_attention_heads=4, joint_attention_dim=8,
            in_channels=4, guidance_embeds=True, axes_dims_rope=[2, 0, 2], text_encoder_dim=6)),
        ("p3", "perturbed: no single blocks, patch 3", dict(
            num_layers=2, num_single_layers=0, attention_head_dim=4, num_attention_heads=5, joint_attention_dim=7,
            in_channels=6, patch_size=3, axes_dims_rope=[2, 2, 0], text_encoder_dim=3)),
    ],
    "AllegroTransformer3DModel": [
        ("default", "default", {}),
        ("allegro-t2v", "perturbed: rhymes-ai/Allegro transformer config written out (the class default is the "
         "released T2V DiT, 2.8B; Allegro-TI2V's transformer is the repo's own AllegroTransformerTI2V3DModel, not "
         "a diffusers class)", dict(
            patch_size=2, patch_size_t=1, num_attention_heads=24, attention_head_dim=96, in_channels=4,
            out_channels=4, num_layers=32, cross_attention_dim=2304, attention_bias=True, sample_height=90,
            sample_width=160, sample_frames=22, activation_fn="gelu-approximate", norm_elementwise_affine=False,
            norm_eps=1e-6, caption_channels=4096)),
        ("small", "perturbed: small sizes", dict(
            num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4, num_layers=2,
            cross_attention_dim=16, caption_channels=12, sample_height=8, sample_width=8, sample_frames=4)),
        ("p1", "perturbed: affine block norms, no attention bias, geglu feed-forward, patch 1 (patch_size_t 2), "
         "cross_attention_dim None (the model width), out != in", dict(
            num_attention_heads=3, attention_head_dim=4, in_channels=3, out_channels=5, num_layers=3,
            cross_attention_dim=None, caption_channels=7, attention_bias=False, norm_elementwise_affine=True,
            activation_fn="geglu", patch_size=1, patch_size_t=2, sample_height=8, sample_width=8, sample_frames=4)),
        ("p2", "perturbed: swiglu feed-forward, patch 3, cross-attention width unlike the model's, one block, affine "
         "norms", dict(
            num_attention_heads=1, attention_head_dim=6, in_channels=2, out_channels=6, num_layers=1,
            cross_attention_dim=10, caption_channels=5, norm_elementwise_affine=True, activation_fn="swiglu",
            patch_size=3, sample_height=9, sample_width=9, sample_frames=2)),
        ("p3", "perturbed: geglu-approximate feed-forward, no attention bias, four blocks", dict(
            num_attention_heads=2, attention_head_dim=5, in_channels=6, out_channels=2, num_layers=4,
            cross_attention_dim=9, caption_channels=11, attention_bias=False, activation_fn="geglu-approximate",
            sample_height=8, sample_width=8, sample_frames=4)),
        ("p4", "perturbed: linear-silu feed-forward, patch 4", dict(
            num_attention_heads=4, attention_head_dim=3, in_channels=1, out_channels=1, num_layers=2,
            cross_attention_dim=12, caption_channels=3, activation_fn="linear-silu", patch_size=4,
            sample_height=8, sample_width=8, sample_frames=4)),
        ("p5", "perturbed: exact gelu feed-forward, no blocks", dict(
            num_attention_heads=2, attention_head_dim=4, in_channels=4, out_channels=3, num_layers=0,
            cross_attention_dim=8, caption_channels=6, activation_fn="gelu", sample_height=8, sample_width=8,
            sample_frames=4)),
    ],
    "AutoencoderKLAllegro": [
        ("default", "default", {}),
        ("allegro", "perturbed: rhymes-ai/Allegro vae config written out (the class default structure, the "
         "published 175M VideoVAE)", dict(
            in_channels=3, out_channels=3, block_out_channels=(128, 256, 512, 512),
            temporal_downsample_blocks=(True, True, False, False), temporal_upsample_blocks=(False, True, True, False),
            latent_channels=4, layers_per_block=2, norm_num_groups=32, temporal_compression_ratio=4,
            sample_size=320)),
        ("small", "perturbed: small sizes, two levels", dict(
            block_out_channels=(8, 16), down_block_types=("AllegroDownBlock3D",) * 2,
            up_block_types=("AllegroUpBlock3D",) * 2, temporal_downsample_blocks=(True, False),
            temporal_upsample_blocks=(False, True), layers_per_block=1, norm_num_groups=4)),
        ("p1", "perturbed: three levels, two layers per block, temporal up/down sampling at other levels, "
         "in/out/latent channels", dict(
            block_out_channels=(4, 8, 12), down_block_types=("AllegroDownBlock3D",) * 3,
            up_block_types=("AllegroUpBlock3D",) * 3, temporal_downsample_blocks=(False, True, True),
            temporal_upsample_blocks=(True, False, True), layers_per_block=2, norm_num_groups=4, in_channels=4,
            out_channels=2, latent_channels=3)),
        ("p2", "perturbed: five levels with repeated widths, three layers per block, no temporal upsampling", dict(
            block_out_channels=(8, 8, 16, 16, 24), down_block_types=("AllegroDownBlock3D",) * 5,
            up_block_types=("AllegroUpBlock3D",) * 5, temporal_downsample_blocks=(True, False, True, False, True),
            temporal_upsample_blocks=(False,) * 5, layers_per_block=3, norm_num_groups=8, in_channels=1,
            out_channels=5, latent_channels=6)),
        ("p3", "perturbed: one level (no spatial sampling), temporal down and up sampling in it", dict(
            block_out_channels=(6,), down_block_types=("AllegroDownBlock3D",), up_block_types=("AllegroUpBlock3D",),
            temporal_downsample_blocks=(True,), temporal_upsample_blocks=(True,), layers_per_block=1,
            norm_num_groups=2, latent_channels=2)),
        ("p4", "perturbed: two levels read from the default four-entry temporal lists (only the first two count)",
         dict(block_out_channels=(4, 8), down_block_types=("AllegroDownBlock3D",) * 2,
              up_block_types=("AllegroUpBlock3D",) * 2, layers_per_block=1, norm_num_groups=4)),
    ],
    "OmniGenTransformer2DModel": [
        ("default", "default (with the required rope_scaling of Shitao/OmniGen-v1-diffusers, Phi-3-mini-128k's su "
         "short/long factors, 48 each: the class default None cannot build; with it the class defaults are the "
         "OmniGen-v1 transformer, 3072 wide, 32 layers, 32064-token vocabulary, a 192x192 sin-cos table)", dict(
            rope_scaling={"type": "su", "short_factor": [
                1.05, 1.05, 1.05, 1.1, 1.1, 1.1, 1.2500000000000002, 1.2500000000000002, 1.4000000000000004,
                1.4500000000000004, 1.5500000000000005, 1.8500000000000008, 1.9000000000000008] + [2.000000000000001] * 19
                + [2.1000000000000005, 2.1000000000000005, 2.2, 2.3499999999999996, 2.3499999999999996,
                   2.3499999999999996, 2.3499999999999996, 2.3999999999999995, 2.3999999999999995, 2.6499999999999986,
                   2.6999999999999984, 2.8999999999999977, 2.9499999999999975, 3.049999999999997, 3.049999999999997,
                   3.049999999999997],
                "long_factor": [
                1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0799999237060547, 1.2299998998641968,
                1.2299998998641968, 1.2999999523162842, 1.4499999284744263, 1.5999999046325684, 1.6499998569488525,
                1.8999998569488525, 2.859999895095825, 3.68999981880188, 5.419999599456787, 5.489999771118164,
                5.489999771118164, 9.09000015258789, 11.579999923706055, 15.65999984741211, 15.769999504089355,
                15.789999961853027, 18.360000610351562, 21.989999771118164, 23.079999923706055, 30.009998321533203,
                32.35000228881836, 32.590003967285156, 35.56000518798828, 39.95000457763672, 53.840003967285156,
                56.20000457763672, 57.95000457763672, 59.29000473022461, 59.77000427246094, 59.920005798339844,
                61.190006256103516, 61.96000671386719, 62.50000762939453, 63.3700065612793, 63.48000717163086,
                63.48000717163086, 63.66000747680664, 63.850006103515625, 64.08000946044922, 64.760009765625,
                64.80001068115234, 64.81001281738281, 64.81001281738281]})),
        ("small", "perturbed: small sizes (diffusers' own test sizes, two layers)", dict(
            hidden_size=16, num_attention_heads=4, num_key_value_heads=4, intermediate_size=32, num_layers=2,
            pad_token_id=0, vocab_size=50, in_channels=4, time_step_dim=8, pos_embed_max_size=8,
            rope_scaling={"long_factor": [1.0, 2.0], "short_factor": [1.0, 2.0]})),
        ("p1", "perturbed: grouped keys/values (6 heads, 2 kv heads), patch 1, three channels, intermediate not a "
         "ratio of the width, pad token last, other rope / timestep settings (no tensors)", dict(
            hidden_size=24, num_attention_heads=6, num_key_value_heads=2, intermediate_size=20, num_layers=3,
            pad_token_id=36, vocab_size=37, in_channels=3, patch_size=1, time_step_dim=6, pos_embed_max_size=5,
            max_position_embeddings=64, original_max_position_embeddings=16, rope_base=500, flip_sin_to_cos=False,
            downscale_freq_shift=1, timestep_activation_fn="gelu", rms_norm_eps=1e-6,
            rope_scaling={"long_factor": [1.0, 2.0], "short_factor": [1.0, 1.5]})),
        ("p2", "perturbed: heads not dividing the width (20 wide, 3 heads of 6: keys/values 6 wide with one kv "
         "head), patch 4, one layer", dict(
            hidden_size=20, num_attention_heads=3, num_key_value_heads=1, intermediate_size=7, num_layers=1,
            pad_token_id=3, vocab_size=11, in_channels=5, patch_size=4, time_step_dim=10, pos_embed_max_size=4,
            rope_scaling={"long_factor": [1.0, 1.0, 1.0], "short_factor": [1.0, 1.0, 1.0]})),
        ("p3", "perturbed: no transformer layers", dict(
            hidden_size=8, num_attention_heads=2, num_key_value_heads=2, intermediate_size=12, num_layers=0,
            pad_token_id=0, vocab_size=9, in_channels=2, time_step_dim=4, pos_embed_max_size=3,
            rope_scaling={"long_factor": [1.0, 1.0], "short_factor": [1.0, 1.0]})),
    ],
    "CogView3PlusTransformer2DModel": [
        ("default", "default", {}),  # = THUDM/CogView3-Plus-3B's transformer (convert_cogview3_to_diffusers.py
        # builds CogView3PlusTransformer2DModel() with no arguments: 30 layers, 64 heads of 40)
        ("small", "perturbed: small sizes", dict(
            num_layers=2, num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4,
            text_embed_dim=16, time_embed_dim=12, condition_dim=8, pos_embed_max_size=8, sample_size=8)),
        ("p1", "perturbed: patch 1, in/out channels differ, three layers, odd head count, time_embed_dim wider "
         "than the model", dict(
            patch_size=1, in_channels=5, out_channels=3, num_layers=3, num_attention_heads=5, attention_head_dim=4,
            text_embed_dim=10, time_embed_dim=22, condition_dim=6, pos_embed_max_size=16, sample_size=16)),
        ("p2", "perturbed: patch 4, one layer, condition_dim not a ratio of the rest", dict(
            patch_size=4, in_channels=2, out_channels=7, num_layers=1, num_attention_heads=3, attention_head_dim=12,
            text_embed_dim=20, time_embed_dim=8, condition_dim=5, pos_embed_max_size=4, sample_size=8)),
        ("p3", "perturbed: no transformer blocks", dict(
            num_layers=0, num_attention_heads=2, attention_head_dim=4, in_channels=3, out_channels=3,
            text_embed_dim=6, time_embed_dim=10, condition_dim=2, pos_embed_max_size=4, sample_size=4)),
    ],
    "Flux3Transformer2DModel": [
        ("default", "default", {}),  # = black-forest-labs/flux-3-image-klein-base (single_file_utils "flux-3-image")
        ("klein", "perturbed: FLUX.3 image [klein] step-distilled config (black-forest-labs/flux-3-image-klein, "
         "single_file_utils 'flux-3-image-distilled': the klein-base sizes plus flow_map, the target-timestep "
         "embedder)", dict(flow_map=True)),
        ("small", "perturbed: small sizes", dict(
            num_layers=2, num_single_layers=3, attention_head_dim=8, num_attention_heads=2, joint_attention_dim=12,
            in_channels=8, cond_in_channels=8, timestep_channels=16, axes_dims_rope=[2, 2, 2, 2])),
        ("p1", "perturbed: flow map, reference channels other than the image's, mlp_ratio 2.5, other timestep "
         "channels", dict(
            num_layers=1, num_single_layers=2, attention_head_dim=6, num_attention_heads=3, joint_attention_dim=20,
            in_channels=12, cond_in_channels=20, mlp_ratio=2.5, timestep_channels=10, axes_dims_rope=[2, 2, 2],
            flow_map=True)),
        ("p2", "perturbed: no per-mode blocks, mlp_ratio 1.7 (int(12 * 1.7) = 20), odd channel counts", dict(
            num_layers=0, num_single_layers=2, attention_head_dim=3, num_attention_heads=4, joint_attention_dim=9,
            in_channels=5, cond_in_channels=7, mlp_ratio=1.7, timestep_channels=7, axes_dims_rope=[2, 0, 0, 2])),
        ("p3", "perturbed: no joint single blocks, one head of 10, mlp_ratio 4, flow map, narrower reference "
         "channels", dict(
            num_layers=3, num_single_layers=0, attention_head_dim=10, num_attention_heads=1, joint_attention_dim=7,
            in_channels=6, cond_in_channels=3, mlp_ratio=4.0, timestep_channels=12, axes_dims_rope=[4, 2, 2, 2],
            flow_map=True)),
    ],
    "Krea2Transformer2DModel": [
        ("default", "default", {}),  # = krea/Krea-2-Raw and krea/Krea-2-Turbo (single_file_utils "krea2"; 12.9B)
        ("small", "perturbed: small sizes", dict(
            in_channels=8, num_layers=2, attention_head_dim=8, num_attention_heads=2, num_key_value_heads=1,
            intermediate_size=24, timestep_embed_dim=16, text_hidden_dim=12, num_text_layers=3,
            text_num_attention_heads=2, text_num_key_value_heads=2, text_intermediate_size=20,
            num_layerwise_text_blocks=1, num_refiner_text_blocks=1, axes_dims_rope=[2, 2, 4])),
        ("p1", "perturbed: no grouped-query attention in the blocks, grouped-query text fusion, no layerwise text "
         "blocks, three refiner blocks", dict(
            in_channels=7, num_layers=1, attention_head_dim=6, num_attention_heads=3, num_key_value_heads=3,
            intermediate_size=20, timestep_embed_dim=10, text_hidden_dim=16, num_text_layers=5,
            text_num_attention_heads=4, text_num_key_value_heads=2, text_intermediate_size=18,
            num_layerwise_text_blocks=0, num_refiner_text_blocks=3, axes_dims_rope=[2, 2, 2])),
        ("p2", "perturbed: no refiner text blocks, one tapped text layer, one key/value head, odd widths", dict(
            in_channels=3, num_layers=3, attention_head_dim=4, num_attention_heads=4, num_key_value_heads=1,
            intermediate_size=13, timestep_embed_dim=6, text_hidden_dim=9, num_text_layers=1,
            text_num_attention_heads=3, text_num_key_value_heads=1, text_intermediate_size=11,
            num_layerwise_text_blocks=2, num_refiner_text_blocks=0, axes_dims_rope=[2, 0, 2])),
        ("p3", "perturbed: no transformer blocks, text width other than the model's, two kv groups", dict(
            in_channels=5, num_layers=0, attention_head_dim=8, num_attention_heads=2, num_key_value_heads=2,
            intermediate_size=9, timestep_embed_dim=4, text_hidden_dim=10, num_text_layers=2,
            text_num_attention_heads=5, text_num_key_value_heads=5, text_intermediate_size=7,
            num_layerwise_text_blocks=1, num_refiner_text_blocks=2, axes_dims_rope=[4, 2, 2])),
    ],
    "UNet3DConditionModel": [
        ("default", "default", {}),
        ("ms17b", "perturbed: ModelScope text-to-video-ms-1.7b unet config (ali-vilab / damo-vilab: the class defaults, "
         "which convert_ms_text_to_video_to_diffusers.py builds, sample_size 32); cerspense/zeroscope_v2_576w and "
         "zeroscope_v2_XL are fine-tunes of these weights with the same unet", dict(sample_size=32)),
        ("small", "perturbed: small sizes, two blocks", dict(
            block_out_channels=[8, 16], layers_per_block=1, norm_num_groups=4, cross_attention_dim=12,
            attention_head_dim=2, sample_size=8, down_block_types=["CrossAttnDownBlock3D", "DownBlock3D"],
            up_block_types=["UpBlock3D", "CrossAttnUpBlock3D"])),
        ("p1", "perturbed: three blocks of uneven widths, three layers per block, up block types not the down ones "
         "reversed, in/out channels, time_cond_proj_dim", dict(
            block_out_channels=[8, 24, 16], layers_per_block=3, norm_num_groups=4, cross_attention_dim=20,
            attention_head_dim=4, in_channels=5, out_channels=3, time_cond_proj_dim=7,
            down_block_types=["CrossAttnDownBlock3D", "CrossAttnDownBlock3D", "CrossAttnDownBlock3D"],
            up_block_types=["CrossAttnUpBlock3D", "UpBlock3D", "CrossAttnUpBlock3D"])),
        ("p2", "perturbed: widths not divisible by the head count (inner width heads * (width // heads)), "
         "cross-attention only at the low resolution, two layers", dict(
            block_out_channels=[12, 20], layers_per_block=2, norm_num_groups=4, cross_attention_dim=6,
            attention_head_dim=8, down_block_types=["DownBlock3D", "CrossAttnDownBlock3D"],
            up_block_types=["CrossAttnUpBlock3D", "CrossAttnUpBlock3D"])),
        ("p3", "perturbed: one block (no samplers), cross-attention, one head", dict(
            block_out_channels=[16], layers_per_block=2, norm_num_groups=8, cross_attention_dim=10,
            attention_head_dim=1, down_block_types=["CrossAttnDownBlock3D"], up_block_types=["CrossAttnUpBlock3D"])),
        ("p4", "perturbed: four blocks without cross-attention (the mid block keeps its transformers)", dict(
            block_out_channels=[4, 8, 8, 12], layers_per_block=1, norm_num_groups=2, cross_attention_dim=9,
            attention_head_dim=2, down_block_types=["DownBlock3D"] * 4, up_block_types=["UpBlock3D"] * 4)),
    ],
    "PriorTransformer": [
        ("default", "default", {}),
        ("k21", "perturbed: kandinsky-community/kandinsky-2-1-prior prior config (= the class defaults, as "
         "convert_kandinsky_to_diffusers.py builds it; kakaobrain/karlo-v1-alpha's unCLIP prior is the same)", dict(
            num_attention_heads=32, attention_head_dim=64, num_layers=20, embedding_dim=768, num_embeddings=77,
            additional_embeddings=4)),
        ("k22", "perturbed: kandinsky-community/kandinsky-2-2-prior prior config (CLIP ViT-bigG embeddings: "
         "embedding_dim 1280)", dict(
            num_attention_heads=32, attention_head_dim=64, num_layers=20, embedding_dim=1280, num_embeddings=77,
            additional_embeddings=4)),
        ("shap-e", "perturbed: openai/shap-e prior config (convert_shap_e_to_diffusers.py PRIOR_CONFIG: pre-norm, "
         "no text-state projection, no prd token, 1024 latent tokens)", dict(
            num_attention_heads=16, attention_head_dim=64, num_layers=24, embedding_dim=1024, num_embeddings=1024,
            additional_embeddings=0, time_embed_act_fn="gelu", norm_in_type="layer", encoder_hid_proj_type=None,
            added_emb_type=None, time_embed_dim=4096, embedding_proj_dim=768, clip_embed_dim=2048)),
        ("shap-e-img2img", "perturbed: openai/shap-e-img2img prior config (PRIOR_IMAGE_CONFIG: 8 heads of 128, "
         "layer-normed image embedding projection)", dict(
            num_attention_heads=8, attention_head_dim=128, num_layers=24, embedding_dim=1024, num_embeddings=1024,
            additional_embeddings=0, time_embed_act_fn="gelu", norm_in_type="layer", embedding_proj_norm_type="layer",
            encoder_hid_proj_type=None, added_emb_type=None, time_embed_dim=4096, embedding_proj_dim=1024,
            clip_embed_dim=2048)),
        ("small", "perturbed: small sizes", dict(
            num_attention_heads=2, attention_head_dim=4, num_layers=2, embedding_dim=6, num_embeddings=5,
            additional_embeddings=4)),
        ("p1", "perturbed: every optional module on (norm_in, embedding_proj_norm), separate time / projection / "
         "clip widths", dict(
            num_attention_heads=3, attention_head_dim=5, num_layers=3, embedding_dim=7, num_embeddings=6,
            additional_embeddings=2, norm_in_type="layer", embedding_proj_norm_type="layer", time_embed_dim=11,
            embedding_proj_dim=9, clip_embed_dim=13)),
        ("p2", "perturbed: every optional module off (no encoder_hidden_states_proj, no prd token), one layer",
         dict(num_attention_heads=4, attention_head_dim=2, num_layers=1, embedding_dim=10, num_embeddings=3,
              additional_embeddings=1, encoder_hid_proj_type=None, added_emb_type=None, time_embed_dim=6,
              clip_embed_dim=5)),
    ],
    "DiTTransformer2DModel": [
        ("default", "default", {}),
        ("xl-2-256", "real: facebook/DiT-XL-2-256 transformer config (DiT-XL/2 at 256px: 32x32 latents, learned "
         "sigma out_channels 8; released with _class_name Transformer2DModel, which diffusers remaps to this class "
         "for norm_type ada_norm_zero)", dict(sample_size=32, out_channels=8)),
        ("xl-2-512", "real: facebook/DiT-XL-2-512 transformer config (DiT-XL/2 at 512px: 64x64 latents, out_channels "
         "8; released as Transformer2DModel too)", dict(sample_size=64, out_channels=8)),
        ("small", "perturbed: small sizes", dict(num_attention_heads=2, attention_head_dim=8, num_layers=2,
                                                 sample_size=8, num_embeds_ada_norm=10)),
        ("p1", "perturbed: geglu feed-forward, affine ff norm, no attention bias, patch 1, 5 in / 3 out channels, "
         "three heads of 4, 7 classes", dict(num_attention_heads=3, attention_head_dim=4, num_layers=3, in_channels=5,
                                       out_channels=3, patch_size=1, sample_size=6, num_embeds_ada_norm=7,
                                       activation_fn="geglu", norm_elementwise_affine=True, attention_bias=False)),
        ("p2", "perturbed: swiglu feed-forward, patch 4, one layer, out_channels None", dict(
            num_attention_heads=4, attention_head_dim=3, num_layers=1, in_channels=3, patch_size=4, sample_size=8,
            num_embeds_ada_norm=3, activation_fn="swiglu")),
        ("p3", "perturbed: plain gelu feed-forward, no layers", dict(
            num_attention_heads=1, attention_head_dim=12, num_layers=0, in_channels=2, out_channels=6, sample_size=4,
            num_embeds_ada_norm=5, activation_fn="gelu")),
        ("p4", "perturbed: geglu-approximate feed-forward, affine ff norm", dict(
            num_attention_heads=2, attention_head_dim=10, num_layers=2, in_channels=4, out_channels=4, sample_size=4,
            num_embeds_ada_norm=12, activation_fn="geglu-approximate", norm_elementwise_affine=True)),
        ("p5", "perturbed: linear-silu feed-forward, patch 3", dict(
            num_attention_heads=2, attention_head_dim=4, num_layers=2, in_channels=1, patch_size=3, sample_size=9,
            num_embeds_ada_norm=2, activation_fn="linear-silu")),
    ],
    "Transformer2DModel": [
        ("default", "default (with the keys DiT's patched layout needs: in_channels 4, patch_size 2, sample_size 32, "
         "norm_type ada_norm_zero, num_embeds_ada_norm 1000; the class defaults set no input kind and cannot build)",
         dict(in_channels=4, patch_size=2, sample_size=32, norm_type="ada_norm_zero", num_embeds_ada_norm=1000)),
        ("dit-xl-2-256", "real: facebook/DiT-XL-2-256 transformer config as released (_class_name Transformer2DModel, "
         "scripts/convert_dit_to_diffusers.py's arguments; diffusers loads it as DiTTransformer2DModel)", dict(
            sample_size=32, num_layers=28, attention_head_dim=72, in_channels=4, out_channels=8, patch_size=2,
            attention_bias=True, num_attention_heads=16, activation_fn="gelu-approximate", num_embeds_ada_norm=1000,
            norm_type="ada_norm_zero", norm_elementwise_affine=False)),
        ("dit-xl-2-512", "real: facebook/DiT-XL-2-512 transformer config as released (Transformer2DModel, 64x64 "
         "latents)", dict(
            sample_size=64, num_layers=28, attention_head_dim=72, in_channels=4, out_channels=8, patch_size=2,
            attention_bias=True, num_attention_heads=16, activation_fn="gelu-approximate", num_embeds_ada_norm=1000,
            norm_type="ada_norm_zero", norm_elementwise_affine=False)),
        ("small", "perturbed: small DiT-style sizes", dict(
            num_attention_heads=2, attention_head_dim=8, num_layers=2, in_channels=4, out_channels=8, patch_size=2,
            sample_size=8, num_embeds_ada_norm=10, norm_type="ada_norm_zero", norm_elementwise_affine=False,
            activation_fn="gelu-approximate", attention_bias=True)),
        ("p1", "perturbed: ada_norm_zero with cross-attention (only_cross_attention), a caption projection, the class "
         "default geglu and affine norms, out_channels None", dict(
            num_attention_heads=3, attention_head_dim=4, num_layers=2, in_channels=3, patch_size=1, sample_size=4,
            num_embeds_ada_norm=6, norm_type="ada_norm_zero", cross_attention_dim=10, only_cross_attention=True,
            caption_channels=7)),
        ("p2", "perturbed: ada_norm_zero with double self-attention, swiglu, attention bias, patch 4", dict(
            num_attention_heads=2, attention_head_dim=6, num_layers=1, in_channels=2, out_channels=5, patch_size=4,
            sample_size=8, num_embeds_ada_norm=4, norm_type="ada_norm_zero", double_self_attention=True,
            activation_fn="swiglu", attention_bias=True, norm_elementwise_affine=False)),
        ("p3", "perturbed: ada_norm_zero with plain cross-attention, gelu", dict(
            num_attention_heads=2, attention_head_dim=6, num_layers=3, in_channels=4, patch_size=2, sample_size=4,
            num_embeds_ada_norm=9, norm_type="ada_norm_zero", cross_attention_dim=6, activation_fn="gelu")),
        ("x1", "perturbed: continuous input (a UNet-style transformer, no patches: outside the formula, structural "
         "check)", dict(in_channels=8, num_attention_heads=2, attention_head_dim=4, norm_num_groups=4,
                        cross_attention_dim=6)),
        ("x2", "perturbed: PixArt-alpha-style ada_norm_single patched input (PixArt's formula, as diffusers remaps it)",
         dict(in_channels=4, out_channels=8, patch_size=2, sample_size=8, norm_type="ada_norm_single",
              num_attention_heads=2, attention_head_dim=4, num_layers=2, cross_attention_dim=8, caption_channels=6,
              activation_fn="gelu-approximate", norm_elementwise_affine=False, attention_bias=True)),
        ("pixart-xl-2-1024-ms", "perturbed: PixArt-alpha/PixArt-XL-2-1024-MS's transformer config as released (saved as "
         "Transformer2DModel with ada_norm_single; diffusers loads it as PixArtTransformer2DModel)", dict(
             in_channels=4, out_channels=8, patch_size=2, sample_size=128, norm_type="ada_norm_single",
             num_attention_heads=16, attention_head_dim=72, num_layers=28, cross_attention_dim=1152,
             caption_channels=4096, activation_fn="gelu-approximate", norm_elementwise_affine=False, norm_eps=1e-6,
             attention_bias=True, num_embeds_ada_norm=1000)),
        ("pixart-xl-2-512x512", "perturbed: PixArt-alpha/PixArt-XL-2-512x512's transformer config (sample_size 64: "
         "no resolution / aspect-ratio embedders)", dict(
             in_channels=4, out_channels=8, patch_size=2, sample_size=64, norm_type="ada_norm_single",
             num_attention_heads=16, attention_head_dim=72, num_layers=28, cross_attention_dim=1152,
             caption_channels=4096, activation_fn="gelu-approximate", norm_elementwise_affine=False, norm_eps=1e-6,
             attention_bias=True, num_embeds_ada_norm=1000)),
    ],
    "LatteTransformer3DModel": [
        ("default", "default (with the required keys in_channels 4, patch_size 2 and caption_channels 4096: the class "
         "defaults None cannot build)", dict(in_channels=4, patch_size=2, caption_channels=4096)),
        ("latte-1", "real: maxin-cn/Latte-1 transformer config (text-to-video, PixArt-alpha 512 sizes: 28 spatial + "
         "28 temporal blocks of 1152, T5 4096 captions, ada_norm_single, learned sigma out_channels 8)", dict(
            num_attention_heads=16, attention_head_dim=72, in_channels=4, out_channels=8, num_layers=28,
            cross_attention_dim=1152, attention_bias=True, sample_size=64, patch_size=2,
            activation_fn="gelu-approximate", num_embeds_ada_norm=1000, norm_type="ada_norm_single",
            norm_elementwise_affine=False, norm_eps=1e-6, caption_channels=4096, video_length=16)),
        ("small", "perturbed: small Latte-1-style sizes (ada_norm_single, cross-attention)", dict(
            num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8, num_layers=2,
            cross_attention_dim=16, attention_bias=True, sample_size=8, patch_size=2,
            activation_fn="gelu-approximate", num_embeds_ada_norm=1000, norm_type="ada_norm_single",
            norm_elementwise_affine=False, caption_channels=12, video_length=4)),
        ("p1", "perturbed: layer_norm blocks with affine norms and cross-attention, geglu, no attention bias, "
         "out_channels None, patch 1", dict(
            num_attention_heads=3, attention_head_dim=4, in_channels=3, num_layers=2, cross_attention_dim=10,
            sample_size=4, patch_size=1, caption_channels=7, video_length=3)),
        ("p2", "perturbed: ada_norm_zero blocks (class-label embedders per block), no cross-attention, swiglu, "
         "attention bias", dict(
            num_attention_heads=2, attention_head_dim=6, in_channels=2, out_channels=6, num_layers=1, sample_size=8,
            patch_size=4, caption_channels=9, norm_type="ada_norm_zero", num_embeds_ada_norm=11,
            activation_fn="swiglu", attention_bias=True, norm_elementwise_affine=False)),
        ("p3", "perturbed: ada_norm blocks (timestep embedding tables) with cross-attention, linear-silu, affine ff "
         "norm", dict(
            num_attention_heads=2, attention_head_dim=4, in_channels=4, out_channels=3, num_layers=3,
            cross_attention_dim=5, sample_size=4, patch_size=2, caption_channels=6, norm_type="ada_norm",
            num_embeds_ada_norm=7, activation_fn="linear-silu")),
        ("p4", "perturbed: layer_norm_i2vgen blocks (no ff norm) with cross-attention, gelu", dict(
            num_attention_heads=1, attention_head_dim=8, in_channels=5, num_layers=2, cross_attention_dim=4,
            sample_size=6, patch_size=3, caption_channels=8, norm_type="layer_norm_i2vgen", activation_fn="gelu")),
        ("p5", "perturbed: ada_norm_single blocks without cross-attention (the spatial blocks keep norm2), affine "
         "norms, geglu-approximate, one layer, patch 8", dict(
            num_attention_heads=2, attention_head_dim=6, in_channels=4, out_channels=2, num_layers=1, sample_size=16,
            patch_size=8, caption_channels=5, norm_type="ada_norm_single", norm_elementwise_affine=True,
            activation_fn="geglu-approximate", video_length=2)),
        ("p6", "perturbed: ada_norm_single, no layers", dict(
            num_attention_heads=2, attention_head_dim=4, in_channels=4, num_layers=0, sample_size=4, patch_size=2,
            caption_channels=6, norm_type="ada_norm_single", cross_attention_dim=8)),
    ],
    "VQModel": [
        ("default", "default", {}),
        ("kandinsky22-movq", "perturbed: Kandinsky 2.1 / 2.2 MoVQ (kandinsky-community/kandinsky-2-2-decoder movq/, "
         "scripts/convert_kandinsky_movq_to_diffusers.py): spatial-norm decoder, 16384 codes of 4", dict(
            in_channels=3, out_channels=3, latent_channels=4, norm_type="spatial", num_vq_embeddings=16384,
            block_out_channels=[128, 256, 256, 512], vq_embed_dim=4, layers_per_block=2,
            down_block_types=["DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D", "AttnDownEncoderBlock2D"],
            up_block_types=["AttnUpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D"])),
        ("ldm-vq-f4", "perturbed: LDM VQ-f4 (the vqvae/config.json of CompVis's converted LDM pipelines such as "
         "ldm-celebahq-256): three blocks, 3 latent channels, 8192 codes", dict(
            block_out_channels=[128, 256, 512], layers_per_block=2, latent_channels=3, num_vq_embeddings=8192,
            down_block_types=["DownEncoderBlock2D"] * 3, up_block_types=["UpDecoderBlock2D"] * 3, sample_size=256)),
        ("vq-diffusion", "perturbed: VQ-Diffusion-style PatchVQGAN as scripts/convert_vq_diffusion_to_diffusers.py builds "
         "it (ch 128, ch_mult 1,1,2,2,4, attention at the last level, 256 latent channels, 4096 codes of 128; sizes "
         "not checked against microsoft/vq-diffusion-ithq's config.json)", dict(
            block_out_channels=[128, 128, 256, 256, 512], layers_per_block=2, latent_channels=256,
            num_vq_embeddings=4096, vq_embed_dim=128, norm_num_groups=32,
            down_block_types=["DownEncoderBlock2D"] * 4 + ["AttnDownEncoderBlock2D"],
            up_block_types=["AttnUpDecoderBlock2D"] + ["UpDecoderBlock2D"] * 4)),
        ("small", "perturbed: small sizes", dict(block_out_channels=[32, 64], layers_per_block=1, latent_channels=4,
                                                 num_vq_embeddings=16, down_block_types=["DownEncoderBlock2D"] * 2,
                                                 up_block_types=["UpDecoderBlock2D"] * 2)),
        ("p1", "perturbed: spatial-norm decoder with attention blocks and vq_embed_dim unlike the latent, two layers",
         dict(block_out_channels=[32, 64, 96], layers_per_block=2, latent_channels=5, vq_embed_dim=7,
              num_vq_embeddings=11, norm_type="spatial", in_channels=4, out_channels=2,
              down_block_types=["AttnDownEncoderBlock2D", "DownEncoderBlock2D", "AttnDownEncoderBlock2D"],
              up_block_types=["UpDecoderBlock2D", "AttnUpDecoderBlock2D", "AttnUpDecoderBlock2D"])),
        ("p2", "perturbed: no mid-block attention, spatial norm, one block of three layers", dict(
            block_out_channels=[32], layers_per_block=3, latent_channels=2, num_vq_embeddings=9, norm_type="spatial",
            mid_block_add_attention=False)),
        ("p3", "perturbed: group norm of 8, no mid-block attention, attention in every block, widening blocks", dict(
            block_out_channels=[8, 16, 24, 40], layers_per_block=1, norm_num_groups=8, latent_channels=6,
            vq_embed_dim=3, num_vq_embeddings=5, mid_block_add_attention=False,
            down_block_types=["AttnDownEncoderBlock2D"] * 4, up_block_types=["AttnUpDecoderBlock2D"] * 4)),
    ],
    "Ideogram4Transformer2DModel": [
        # = ideogram-ai/ideogram-v4 (also -fp8): transformer/ and unconditional_transformer/ are both the class
        # defaults (emb_dim 4608 = 18 x 256, 34 layers, intermediate 12288, adaln 512, Qwen3-VL features 53248)
        ("default", "default", {}),
        ("small", "perturbed: small sizes", dict(
            in_channels=8, num_layers=2, attention_head_dim=8, num_attention_heads=2, intermediate_size=24,
            adaln_dim=12, llm_features_dim=20, mrope_section=[2, 1, 1])),
        ("p1", "perturbed: five heads of 6, odd intermediate, adaln and text-feature widths, three layers", dict(
            in_channels=12, num_layers=3, attention_head_dim=6, num_attention_heads=5, intermediate_size=17,
            adaln_dim=7, llm_features_dim=33, mrope_section=[1, 1, 1])),
        ("p2", "perturbed: one head, adaln wider than the model, text features narrower than it, one layer", dict(
            in_channels=3, num_layers=1, attention_head_dim=4, num_attention_heads=1, intermediate_size=40,
            adaln_dim=30, llm_features_dim=5, mrope_section=[1, 0, 1])),
        ("p3", "perturbed: no transformer blocks (embedders and final layer alone)", dict(
            in_channels=5, num_layers=0, attention_head_dim=10, num_attention_heads=3, intermediate_size=9,
            adaln_dim=11, llm_features_dim=14, mrope_section=[2, 2, 1])),
    ],
    "ErnieImageTransformer2DModel": [
        ("default", "default", {}),
        ("ernie-image", "perturbed: baidu/ERNIE-Image transformer config (also ERNIE-Image-Turbo's: hidden 4096, "
         "32 heads, 36 layers, ffn 12288, text_in_dim 3072)", dict(
            hidden_size=4096, num_attention_heads=32, num_layers=36, ffn_hidden_size=12288, in_channels=128,
            out_channels=128, patch_size=1, text_in_dim=3072, rope_theta=256, rope_axes_dim=[32, 48, 48],
            eps=1e-6, qk_layernorm=True)),
        ("small", "perturbed: small sizes", dict(
            hidden_size=16, num_attention_heads=2, num_layers=2, ffn_hidden_size=24, in_channels=8,
            out_channels=8, text_in_dim=12, rope_axes_dim=[2, 2, 4])),
        ("p1", "perturbed: text width = hidden (no text_proj), patch 2, out channels other than in, hidden not "
         "divisible by the heads (20 // 3 = 6: attention inner width 18)", dict(
            hidden_size=20, num_attention_heads=3, num_layers=3, ffn_hidden_size=11, in_channels=6,
            out_channels=4, patch_size=2, text_in_dim=20, rope_axes_dim=[2, 2, 2])),
        ("p2", "perturbed: patch 3, one head, ffn narrower than hidden, one layer", dict(
            hidden_size=12, num_attention_heads=1, num_layers=1, ffn_hidden_size=7, in_channels=5,
            out_channels=2, patch_size=3, text_in_dim=10, rope_axes_dim=[4, 4, 4])),
        ("p3", "perturbed: no layers, text wider than hidden", dict(
            hidden_size=8, num_attention_heads=4, num_layers=0, ffn_hidden_size=16, in_channels=3,
            out_channels=3, patch_size=1, text_in_dim=30, rope_axes_dim=[0, 0, 2])),
    ],
    "I2VGenXLUNet": [
        ("default", "default", {}),
        ("i2vgenxl", "perturbed: ali-vilab/i2vgen-xl unet config (the class defaults, as convert_i2vgen_to_diffusers.py "
         "builds it, sample_size 32)", dict(sample_size=32)),
        ("small", "perturbed: small sizes, two blocks", dict(
            block_out_channels=[8, 16], layers_per_block=1, norm_num_groups=4, cross_attention_dim=12,
            attention_head_dim=2, sample_size=8, down_block_types=["CrossAttnDownBlock3D", "DownBlock3D"],
            up_block_types=["UpBlock3D", "CrossAttnUpBlock3D"])),
        ("p1", "perturbed: three blocks of uneven widths, three layers per block, up block types not the down ones "
         "reversed, in/out channels (conv_in takes 2 x in_channels, the image-latent encoders scale with it), "
         "num_attention_heads set (the class ignores it)", dict(
            block_out_channels=[8, 24, 16], layers_per_block=3, norm_num_groups=4, cross_attention_dim=20,
            attention_head_dim=4, in_channels=5, out_channels=3, num_attention_heads=3,
            down_block_types=["CrossAttnDownBlock3D", "CrossAttnDownBlock3D", "CrossAttnDownBlock3D"],
            up_block_types=["CrossAttnUpBlock3D", "UpBlock3D", "CrossAttnUpBlock3D"])),
        ("p2", "perturbed: widths not divisible by the head count, cross-attention only at the low resolution, "
         "in_channels 3", dict(
            block_out_channels=[12, 20], layers_per_block=2, norm_num_groups=4, cross_attention_dim=6,
            attention_head_dim=8, in_channels=3, down_block_types=["DownBlock3D", "CrossAttnDownBlock3D"],
            up_block_types=["CrossAttnUpBlock3D", "CrossAttnUpBlock3D"])),
        ("p3", "perturbed: one block (no samplers), cross-attention, one head, in_channels 2", dict(
            block_out_channels=[16], layers_per_block=2, norm_num_groups=8, cross_attention_dim=10,
            attention_head_dim=1, in_channels=2, out_channels=6, down_block_types=["CrossAttnDownBlock3D"],
            up_block_types=["CrossAttnUpBlock3D"])),
        ("p4", "perturbed: four blocks without cross-attention (the mid block keeps its transformers)", dict(
            block_out_channels=[4, 8, 8, 12], layers_per_block=1, norm_num_groups=2, cross_attention_dim=9,
            attention_head_dim=2, down_block_types=["DownBlock3D"] * 4, up_block_types=["UpBlock3D"] * 4)),
    ],
    "Kandinsky3UNet": [
        ("default", "default", {}),
        ("k3", "perturbed: kandinsky-community/kandinsky-3 unet config (and kandinsky-3 inpainting's, in_channels "
         "aside: the class defaults, which convert_kandinsky3_unet.py builds)", {}),
        ("small", "perturbed: small sizes, four levels", dict(
            in_channels=4, time_embedding_dim=12, groups=2, attention_head_dim=4, layers_per_block=1,
            block_out_channels=[8, 16, 16, 32], cross_attention_dim=8, encoder_hid_dim=6)),
        ("p1", "perturbed: three levels (the fixed attention pattern zips to the first three going down and the "
         "last three reversed going up), two blocks per level, in_channels 3, uneven widths", dict(
            in_channels=3, time_embedding_dim=10, groups=2, attention_head_dim=2, layers_per_block=2,
            block_out_channels=[12, 20, 8], cross_attention_dim=6, encoder_hid_dim=5)),
        ("p2", "perturbed: five levels (only four blocks each way are built), three blocks per level", dict(
            in_channels=2, time_embedding_dim=8, groups=1, attention_head_dim=3, layers_per_block=3,
            block_out_channels=[4, 6, 10, 8, 14], cross_attention_dim=9, encoder_hid_dim=7)),
        ("p3", "perturbed: two levels, one block per level (the up block's only ResNet keeps its input width)", dict(
            in_channels=5, time_embedding_dim=6, groups=1, attention_head_dim=4, layers_per_block=1,
            block_out_channels=[6, 14], cross_attention_dim=12, encoder_hid_dim=3)),
        ("p4", "perturbed: one level (no samplers; the up block still has attention)", dict(
            in_channels=4, time_embedding_dim=7, groups=2, attention_head_dim=2, layers_per_block=4,
            block_out_channels=[8], cross_attention_dim=5, encoder_hid_dim=9)),
    ],
    "AceStepTransformer1DModel": [
        ("default", "default", {}),  # = ACE-Step v1.5 2B DiT (turbo / base / sft share it)
        ("v15_turbo", "perturbed: ACE-Step/Ace-Step1.5 acestep-v15-turbo transformer as scripts/"
         "convert_ace_step_to_diffusers.py writes it (2048 wide, 24 layers, 16 heads / 8 kv heads of 128, "
         "alternating sliding / full layer_types; acestep-v15-base and -sft have the same sizes)", dict(
            hidden_size=2048, intermediate_size=6144, num_hidden_layers=24, num_attention_heads=16,
            num_key_value_heads=8, head_dim=128, in_channels=192, audio_acoustic_hidden_dim=64, patch_size=2,
            sliding_window=128, layer_types=["sliding_attention", "full_attention"] * 12, is_turbo=True,
            model_version="turbo")),
        ("v15_xl_turbo", "perturbed: ACE-Step/acestep-v15-xl-turbo-diffusers transformer (2560 wide, 9728 MLP, "
         "32 layers, 32 heads / 8 kv heads of 128, a 2048-wide condition encoder; the XL base and sft "
         "releases have the same sizes)", dict(
            hidden_size=2560, intermediate_size=9728, num_hidden_layers=32, num_attention_heads=32,
            num_key_value_heads=8, head_dim=128, in_channels=192, audio_acoustic_hidden_dim=64, patch_size=2,
            sliding_window=128, layer_types=["sliding_attention", "full_attention"] * 16, encoder_hidden_size=2048,
            is_turbo=True)),
        ("small", "perturbed: small sizes (diffusers' tests)", dict(
            hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
            head_dim=8, in_channels=12, audio_acoustic_hidden_dim=4)),
        ("p1", "perturbed: attention biases, patch 3, heads x head_dim != hidden, no GQA, odd layer count, "
         "explicit all-full layer_types, narrower condition encoder", dict(
            hidden_size=20, intermediate_size=28, num_hidden_layers=3, num_attention_heads=3, num_key_value_heads=3,
            head_dim=6, in_channels=7, audio_acoustic_hidden_dim=5, patch_size=3, attention_bias=True,
            layer_types=["full_attention"] * 3, encoder_hidden_size=10)),
        ("p2", "perturbed: patch 1, one layer, 4 heads / 2 kv heads of 4, wider condition encoder", dict(
            hidden_size=24, intermediate_size=40, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
            head_dim=4, in_channels=9, audio_acoustic_hidden_dim=3, patch_size=1, sliding_window=4,
            encoder_hidden_size=32)),
    ],
    "StableAudio3DiTModel": [
        ("default", "default", {}),  # = stable-audio-3-medium's DiT
        ("medium", "perturbed: stabilityai/stable-audio-3-medium DiT (and -medium-base; Stability-AI/stable-audio-3 "
         "dit_mlx_medium.py: 1536 wide, 24 layers, 24 heads of 64, differential attention, 64 memory tokens) as "
         "diffusers' stable_audio3 conversion infers it; it equals the class defaults", dict(
            io_channels=256, patch_size=1, embed_dim=1536, depth=24, num_heads=24, cond_token_dim=768,
            global_cond_dim=768, local_add_cond_dim=257, timestep_features_dim=256, ff_mult=4.0,
            num_memory_tokens=64, use_differential_attention=True)),
        ("small_music", "perturbed: stabilityai/stable-audio-3-small-music DiT (and -small-sfx, same sizes; "
         "Stability-AI/stable-audio-3 dit_mlx.py: 1024 wide, 20 layers, 16 heads of 64, standard attention)", dict(
            io_channels=256, patch_size=1, embed_dim=1024, depth=20, num_heads=16, cond_token_dim=768,
            global_cond_dim=768, local_add_cond_dim=257, timestep_features_dim=256, ff_mult=4.0,
            num_memory_tokens=64, use_differential_attention=False)),
        ("small", "perturbed: small sizes, differential attention", dict(
            io_channels=8, embed_dim=32, depth=2, num_heads=4, cond_token_dim=16, global_cond_dim=12,
            local_add_cond_dim=5, timestep_features_dim=16, ff_mult=2, num_memory_tokens=3)),
        ("p1", "perturbed: patch 3, no memory tokens, fractional ff_mult, odd rotary width (heads of 10)", dict(
            io_channels=5, patch_size=3, embed_dim=30, depth=3, num_heads=3, cond_token_dim=7, global_cond_dim=9,
            local_add_cond_dim=4, timestep_features_dim=12, ff_mult=2.5, num_memory_tokens=0,
            use_differential_attention=True)),
        ("p2", "perturbed: patch 2, standard attention, embed not a multiple of the heads, ff_mult 1.5, "
         "one memory token", dict(
            io_channels=6, patch_size=2, embed_dim=50, depth=1, num_heads=4, cond_token_dim=11, global_cond_dim=3,
            local_add_cond_dim=2, timestep_features_dim=10, ff_mult=1.5, num_memory_tokens=1,
            use_differential_attention=False)),
    ],
    "LuminaNextDiT2DModel": [
        ("default", "default (with the required key num_kv_heads 8: the class default None cannot build the "
         "qk LayerNorms across kv heads that qk_norm True asks for)", dict(num_kv_heads=8)),
        ("sft", "real: Alpha-VLLM/Lumina-Next-SFT-diffusers transformer config (Lumina-Next-SFT 2B, "
         "scripts/convert_lumina_to_diffusers.py; Gemma-2B caption features)", dict(
            sample_size=128, patch_size=2, in_channels=4, hidden_size=2304, num_layers=24, num_attention_heads=32,
            num_kv_heads=8, multiple_of=256, ffn_dim_multiplier=None, norm_eps=1e-05, learn_sigma=True, qk_norm=True,
            cross_attention_dim=2048, scaling_factor=1.0)),
        ("small", "perturbed: small sizes", dict(
            sample_size=16, hidden_size=32, num_layers=2, num_attention_heads=4, num_kv_heads=2, multiple_of=16,
            cross_attention_dim=12, in_channels=4)),
        ("p1", "perturbed: no qk norm with num_kv_heads None (full multi-head k/v), no learned sigma, "
         "ffn_dim_multiplier 1.3, patch 1", dict(
            sample_size=8, hidden_size=48, num_layers=3, num_attention_heads=4, num_kv_heads=None, qk_norm=False,
            learn_sigma=False, multiple_of=16, ffn_dim_multiplier=1.3, patch_size=1, in_channels=5,
            cross_attention_dim=10)),
        ("p2", "perturbed: width above 1024 (the time embedding and modulation inputs cap at 1024), "
         "ffn_dim_multiplier 0.25, four heads per kv group", dict(
            sample_size=8, hidden_size=1056, num_layers=1, num_attention_heads=8, num_kv_heads=2, multiple_of=64,
            ffn_dim_multiplier=0.25, cross_attention_dim=6, in_channels=3)),
        ("p3", "perturbed: single kv head, patch 3, no learned sigma, qk norm", dict(
            sample_size=9, hidden_size=48, num_layers=2, num_attention_heads=3, num_kv_heads=1, multiple_of=32,
            patch_size=3, in_channels=2, learn_sigma=False, cross_attention_dim=20)),
    ],
    "PRXTransformer2DModel": [
        ("default", "default", {}),  # = Photoroom/prx-256-t2i, -512-t2i(-sft, -distilled), prx-1024-t2i-beta (Flux VAE)
        ("dc-ae", "real: Photoroom/prx-512-t2i-dc-ae transformer config (DC-AE latents: 32 channels, patch 1; "
         "scripts/convert_prx_to_diffusers.py PRXDCAE)", dict(in_channels=32, patch_size=1)),
        ("pixel", "real: Photoroom/prxpixel-t2i transformer config (the ~7B pixel-space PRXPixel: RGB patches of 16 "
         "through a 768 bottleneck, resolution embedding, Qwen3-VL-Embedding-2B features; "
         "scripts/convert_prx_to_diffusers.py PRXPixel)", dict(
            in_channels=3, patch_size=16, context_in_dim=2048, hidden_size=3584, mlp_ratio=3.5, num_heads=28,
            depth=24, axes_dim=[64, 64], bottleneck_size=768, resolution_embeds=True)),
        ("small", "perturbed: small sizes", dict(
            in_channels=4, patch_size=2, context_in_dim=12, hidden_size=32, num_heads=2, depth=2, axes_dim=[8, 8])),
        ("p1", "perturbed: bottleneck and resolution embedding, mlp_ratio 2.7 (truncated width), patch 3", dict(
            in_channels=5, patch_size=3, context_in_dim=7, hidden_size=36, mlp_ratio=2.7, num_heads=3, depth=3,
            axes_dim=[6, 6], bottleneck_size=10, resolution_embeds=True)),
        ("p2", "perturbed: bottleneck without resolution embedding, no blocks, mlp_ratio 1, patch 1", dict(
            in_channels=6, patch_size=1, context_in_dim=9, hidden_size=24, mlp_ratio=1.0, num_heads=4, depth=0,
            axes_dim=[2, 4], bottleneck_size=30)),
        ("p3", "perturbed: resolution embedding without bottleneck, three rope axes, one block, mlp_ratio 5", dict(
            in_channels=3, patch_size=2, context_in_dim=5, hidden_size=40, mlp_ratio=5.0, num_heads=5, depth=1,
            axes_dim=[2, 2, 4], resolution_embeds=True)),
    ],
    "OvisImageTransformer2DModel": [
        ("default", "default", {}),  # = AIDC-AI/Ovis-Image-7B transformer (6 double, 27 single blocks, Qwen3 2048)
        ("small", "perturbed: small sizes (FLUX's small blocks)", dict(
            {k: v for k, v in _FLUX_SMALL.items() if k != "pooled_projection_dim"})),
        ("p1", "perturbed: out_channels, patch 2", dict(
            num_layers=1, num_single_layers=2, attention_head_dim=6, num_attention_heads=3, joint_attention_dim=20,
            in_channels=12, out_channels=5, patch_size=2, axes_dims_rope=[2, 2, 2])),
        ("p2", "perturbed: no double blocks, out_channels None", dict(
            num_layers=0, num_single_layers=2, attention_head_dim=4, num_attention_heads=4, joint_attention_dim=8,
            in_channels=4, out_channels=None, axes_dims_rope=[2, 0, 2])),
        ("p3", "perturbed: no single blocks, patch 3", dict(
            num_layers=2, num_single_layers=0, attention_head_dim=4, num_attention_heads=5, joint_attention_dim=7,
            in_channels=6, out_channels=9, patch_size=3, axes_dims_rope=[2, 2, 0])),
    ],
    "EasyAnimateTransformer3DModel": [
        ("default", "default (with the required keys in_channels 16, out_channels 16 and patch_size 2: the class "
         "defaults None cannot build)", dict(in_channels=16, out_channels=16, patch_size=2)),
        ("v51_12b", "perturbed: alibaba-pai/EasyAnimateV5.1-12b-zh(-diffusers) transformer config (text-to-video, "
         "48 MMDiT blocks of width 3072, Qwen2-VL text states through an RMSNorm)", dict(
            num_attention_heads=48, attention_head_dim=64, in_channels=16, out_channels=16, patch_size=2,
            num_layers=48, mmdit_layers=48, time_embed_dim=512, add_norm_text_encoder=True, text_embed_dim=3584,
            text_embed_dim_t5=None, after_norm=False, enable_text_attention_mask=True,
            add_noise_in_inpaint_model=True)),
        ("v51_12b_inp", "perturbed: alibaba-pai/EasyAnimateV5.1-12b-zh-InP(-diffusers) transformer config (latents + "
         "mask + masked-video latents: in_channels 33)", dict(
            num_attention_heads=48, attention_head_dim=64, in_channels=33, out_channels=16, patch_size=2,
            num_layers=48, mmdit_layers=48, time_embed_dim=512, add_norm_text_encoder=True, text_embed_dim=3584,
            after_norm=False, enable_text_attention_mask=True, add_noise_in_inpaint_model=True)),
        ("v51_12b_control", "perturbed: alibaba-pai/EasyAnimateV5.1-12b-zh-Control(-diffusers) transformer config "
         "(latents + control + reference latents: in_channels 48)", dict(
            num_attention_heads=48, attention_head_dim=64, in_channels=48, out_channels=16, patch_size=2,
            num_layers=48, mmdit_layers=48, time_embed_dim=512, add_norm_text_encoder=True, text_embed_dim=3584,
            after_norm=False, enable_text_attention_mask=True, add_noise_in_inpaint_model=True)),
        ("v51_7b", "perturbed: alibaba-pai/EasyAnimateV5.1-7b-zh(-diffusers) transformer config (36 blocks, the "
         "first 18 MMDiT, the rest one shared stream)", dict(
            num_attention_heads=48, attention_head_dim=64, in_channels=16, out_channels=16, patch_size=2,
            num_layers=36, mmdit_layers=18, time_embed_dim=512, add_norm_text_encoder=True, text_embed_dim=3584,
            after_norm=False, enable_text_attention_mask=True, add_noise_in_inpaint_model=True)),
        ("small", "perturbed: small sizes, two MMDiT blocks", dict(
            num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4, patch_size=2, num_layers=2,
            mmdit_layers=2, time_embed_dim=12, text_embed_dim=10)),
        ("p1", "perturbed: normed text projections with a second (T5) text input (its RMSNorm is as wide as the "
         "first text input), one MMDiT block of three, after_norm, patch 1, other out_channels", dict(
            num_attention_heads=3, attention_head_dim=4, in_channels=5, out_channels=3, patch_size=1, num_layers=3,
            mmdit_layers=1, time_embed_dim=7, add_norm_text_encoder=True, text_embed_dim=9, text_embed_dim_t5=11,
            after_norm=True)),
        ("p2", "perturbed: no MMDiT block, a plain second text projection, no elementwise-affine norms, GEGLU "
         "feed-forwards, patch 3", dict(
            num_attention_heads=2, attention_head_dim=6, in_channels=2, out_channels=5, patch_size=3, num_layers=2,
            mmdit_layers=0, time_embed_dim=10, text_embed_dim=8, text_embed_dim_t5=13, norm_elementwise_affine=False,
            activation_fn="geglu")),
        ("p3", "perturbed: mmdit_layers above num_layers (every block MMDiT), SwiGLU feed-forwards, after_norm "
         "without elementwise affine, one head", dict(
            num_attention_heads=1, attention_head_dim=10, in_channels=3, out_channels=2, patch_size=2, num_layers=2,
            mmdit_layers=5, time_embed_dim=6, text_embed_dim=4, after_norm=True, norm_elementwise_affine=False,
            activation_fn="swiglu")),
    ],
    "AutoencoderKLMagvit": [
        ("default", "default", {}),
        ("v51", "perturbed: EasyAnimate V5 / V5.1 vae config written out (alibaba-pai/EasyAnimateV5.1-12b-zh vae, "
         "the same in every V5.1 release: the class default structure)", dict(
            in_channels=3, latent_channels=16, out_channels=3, block_out_channels=[128, 256, 512, 512],
            down_block_types=["SpatialDownBlock3D", "SpatialTemporalDownBlock3D", "SpatialTemporalDownBlock3D",
                              "SpatialTemporalDownBlock3D"],
            up_block_types=["SpatialUpBlock3D", "SpatialTemporalUpBlock3D", "SpatialTemporalUpBlock3D",
                            "SpatialTemporalUpBlock3D"],
            layers_per_block=2, act_fn="silu", norm_num_groups=32, scaling_factor=0.7125, spatial_group_norm=True)),
        ("small", "perturbed: small sizes, two levels", dict(
            block_out_channels=[8, 16], down_block_types=["SpatialDownBlock3D", "SpatialTemporalDownBlock3D"],
            up_block_types=["SpatialUpBlock3D", "SpatialTemporalUpBlock3D"], layers_per_block=1, norm_num_groups=4,
            latent_channels=4)),
        ("p1", "perturbed: three levels, two layers per block, other block types per level, in/out/latent channels, "
         "no spatial group norm", dict(
            block_out_channels=[4, 8, 12], down_block_types=["SpatialTemporalDownBlock3D", "SpatialDownBlock3D",
                                                             "SpatialTemporalDownBlock3D"],
            up_block_types=["SpatialTemporalUpBlock3D", "SpatialTemporalUpBlock3D", "SpatialUpBlock3D"],
            layers_per_block=2, norm_num_groups=2, in_channels=4, out_channels=2, latent_channels=3,
            spatial_group_norm=False)),
        ("p2", "perturbed: five levels with repeated widths, three layers per block", dict(
            block_out_channels=[8, 8, 16, 16, 24], down_block_types=["SpatialDownBlock3D"] * 5,
            up_block_types=["SpatialTemporalUpBlock3D"] * 5, layers_per_block=3, norm_num_groups=8, in_channels=1,
            out_channels=5, latent_channels=6)),
        ("p3", "perturbed: one level (no down / up sampler)", dict(
            block_out_channels=[6], down_block_types=["SpatialTemporalDownBlock3D"],
            up_block_types=["SpatialUpBlock3D"], layers_per_block=1, norm_num_groups=2, latent_channels=2)),
        ("p4", "perturbed: no layers per block (the encoder levels hold only their samplers, the decoder levels one "
         "ResNet, so each upsampler keeps the level's input width), three levels", dict(
            block_out_channels=[4, 8, 6], down_block_types=["SpatialDownBlock3D"] * 3,
            up_block_types=["SpatialUpBlock3D"] * 3, layers_per_block=0, norm_num_groups=2, latent_channels=3)),
    ],
    "WanAnimate2Transformer3DModel": [
        # = Wan-AI/Wan2.2-Animate-2-14B-Diffusers' transformer (Wan 2.1 I2V 14B in the original Wan names)
        ("default", "default", {}),
        ("small", "perturbed: small sizes", dict(
            dim=32, ffn_dim=48, num_heads=2, num_layers=2, text_dim=12, freq_dim=16, in_dim=8, out_dim=4)),
        ("p1", "perturbed: no CLIP image branch (no img_emb, no add_k/add_v), no cross-attention norm, patch "
         "1 x 1 x 2, odd ffn", dict(
            dim=36, ffn_dim=50, num_heads=3, num_layers=3, text_dim=7, freq_dim=10, in_dim=5, out_dim=3,
            patch_size=(1, 1, 2), use_img_emb=False, cross_attn_norm=False)),
        ("p2", "perturbed: one block, patch 2 x 3 x 2, image branch without cross-attention norm, out_dim > in_dim",
         dict(dim=40, ffn_dim=24, num_heads=4, num_layers=1, text_dim=9, freq_dim=6, in_dim=3, out_dim=7,
              patch_size=(2, 3, 2), use_img_emb=True, cross_attn_norm=False, refer_stride=2)),
    ],
    "BriaFibo2Transformer2DModel": [
        # = briaai/fibo-2-turbo-merge's transformer (and the mopd checkpoint; scripts/convert_bria_fibo2_to_diffusers.py)
        ("default", "default", {}),
        ("small", "perturbed: small sizes", dict(
            in_channels=4, dim=64, n_layers=3, n_refiner_layers=1, n_heads=2, cap_feat_dim=24,
            injection_layer_ids=(1,), perceiver_num_layers=1, min_num_gist_tokens=4, max_num_gist_tokens=8,
            gist_step=4, axes_dims=(8, 12, 12), axes_lens=(16, 16, 16))),
        ("p1", "perturbed: width 300 (adaLN input capped at 256, ffn (300 * 8 // 3) // 64 * 64 = 768), 3 heads of "
         "100, patch 1, no noise refiner, injection ids 0 2 7 (7 beyond the 3 blocks)", dict(
            in_channels=5, patch_size=1, dim=300, n_layers=3, n_refiner_layers=0, n_heads=3, cap_feat_dim=11,
            injection_layer_ids=(0, 2, 7), perceiver_num_layers=2, min_num_gist_tokens=3, max_num_gist_tokens=6,
            gist_step=3, axes_dims=(32, 34, 34), axes_lens=(8, 8, 8))),
        ("p2", "perturbed: no injection blocks, no Perceiver layers (queries and final norm only), patch 3, width "
         "100 in 4 heads of 25 (ffn 256, not Z-Image's 266)", dict(
            in_channels=3, patch_size=3, dim=100, n_layers=2, n_refiner_layers=2, n_heads=4, cap_feat_dim=9,
            injection_layer_ids=(), perceiver_num_layers=0, min_num_gist_tokens=2, max_num_gist_tokens=5,
            gist_step=1, axes_dims=(8, 8, 9), axes_lens=(8, 8, 8))),
        ("p3", "perturbed: every block an injection block, three refiners, one head, odd gist count", dict(
            in_channels=2, dim=48, n_layers=2, n_refiner_layers=3, n_heads=1, cap_feat_dim=13,
            injection_layer_ids=(0, 1), perceiver_num_layers=3, min_num_gist_tokens=7, max_num_gist_tokens=7,
            gist_step=7, axes_dims=(16, 16, 16), axes_lens=(8, 8, 8))),
    ],
    "CosmosControlNetModel": [
        ("default", "default", {}),
        ("transfer2.5-2b", "real: nvidia/Cosmos-Transfer2.5-2B controlnet (edge / depth / seg / blur share it; "
         "scripts/convert_cosmos_to_diffusers.py CONTROLNET_CONFIGS): 4 blocks, 16 x 128 heads, SigLIP image "
         "context 1152 -> 2048, Cosmos-Reason1 text projection 100352 -> 1024", dict(
            n_controlnet_blocks=4, model_channels=2048, in_channels=130, latent_channels=18, num_attention_heads=16,
            attention_head_dim=128, mlp_ratio=4.0, text_embed_dim=1024, adaln_lora_dim=256, patch_size=(1, 2, 2),
            max_size=(128, 240, 240), rope_scale=(1.0, 3.0, 3.0), extra_pos_embed_type=None,
            img_context_dim_in=1152, img_context_dim_out=2048, use_crossattn_projection=True,
            crossattn_proj_in_channels=100352, encoder_hidden_states_channels=1024)),
        ("small", "perturbed: small sizes", dict(
            n_controlnet_blocks=2, in_channels=18, latent_channels=18, model_channels=32, num_attention_heads=2,
            attention_head_dim=16, mlp_ratio=2.0, text_embed_dim=24, adaln_lora_dim=4, max_size=(4, 16, 16))),
        ("p1", "perturbed: one block (before_proj and after_proj on it), embedding width 20 != block width 36, "
         "learnable position tables, text projection, patch 2 x 1 x 3", dict(
            n_controlnet_blocks=1, in_channels=7, latent_channels=5, model_channels=20, num_attention_heads=3,
            attention_head_dim=12, mlp_ratio=2.5, text_embed_dim=11, adaln_lora_dim=6, patch_size=(2, 1, 3),
            max_size=(8, 9, 12), extra_pos_embed_type="learnable", use_crossattn_projection=True,
            crossattn_proj_in_channels=15, encoder_hidden_states_channels=11)),
        ("p2", "perturbed: three blocks, image context (dim in 14, out 9), learnable tables of max_size (9, 10, 11) "
         "floor-divided by patch 2 x 3 x 2, mlp_ratio 4.1", dict(
            n_controlnet_blocks=3, in_channels=3, latent_channels=4, model_channels=60, num_attention_heads=5,
            attention_head_dim=12, mlp_ratio=4.1, text_embed_dim=13, adaln_lora_dim=7, patch_size=(2, 3, 2),
            max_size=(9, 10, 11), extra_pos_embed_type="learnable", img_context_dim_in=14, img_context_dim_out=9)),
        ("p3", "perturbed: no blocks (embedders only), image context dim 0 (no projection), patch 1 x 1 x 1",
         dict(n_controlnet_blocks=0, in_channels=2, latent_channels=3, model_channels=8, num_attention_heads=1,
              attention_head_dim=4, mlp_ratio=1.0, text_embed_dim=5, adaln_lora_dim=3, patch_size=(1, 1, 1),
              max_size=(3, 5, 7), img_context_dim_in=0)),
    ],
    "ConsisIDTransformer3DModel": [
        ("default", "default", {}),
        ("preview", "real: BestWishYsh/ConsisID-preview transformer config (CogVideoX-5b-I2V geometry: 48 heads, 42 "
         "layers, 32 input channels, rotary and learned positions; the identity modules: local facial extractor and "
         "21 perceiver cross-attentions at their defaults)", dict(
            num_attention_heads=48, attention_head_dim=64, in_channels=32, out_channels=16, num_layers=42,
            time_embed_dim=512, text_embed_dim=4096, use_rotary_positional_embeddings=True,
            use_learned_positional_embeddings=True, is_train_face=True, is_kps=False, cross_attn_interval=2,
            cross_attn_dim_head=128, cross_attn_num_heads=16, LFE_id_dim=1280, LFE_vit_dim=1024, LFE_depth=10,
            LFE_dim_head=64, LFE_num_heads=16, LFE_num_id_token=5, LFE_num_querie=32, LFE_output_dim=2048,
            LFE_ff_mult=4, LFE_num_scale=5)),
        ("small", "perturbed: small sizes with the identity modules (as diffusers' own tests build it)", dict(
            num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4, time_embed_dim=2,
            text_embed_dim=8, num_layers=1, sample_width=8, sample_height=8, sample_frames=8, max_text_seq_length=8,
            cross_attn_interval=1, is_train_face=True, cross_attn_dim_head=1, cross_attn_num_heads=1, LFE_id_dim=2,
            LFE_vit_dim=2, LFE_depth=5, LFE_dim_head=8, LFE_num_heads=2, LFE_num_id_token=1, LFE_num_querie=1,
            LFE_output_dim=10, LFE_ff_mult=1, LFE_num_scale=1)),
        ("p1", "perturbed: identity modules with a cross-attention every 3rd of 7 layers, a width not divisible by 3 "
         "(kv width int(inner / 3 * 2)), 6 extractor layers over 3 scales, learned positions, no attention bias, "
         "no norm affine, geglu", dict(
            num_attention_heads=2, attention_head_dim=8, in_channels=6, out_channels=3, time_embed_dim=10,
            text_embed_dim=7, num_layers=7, patch_size=1, sample_width=5, sample_height=3, sample_frames=7,
            temporal_compression_ratio=2, max_text_seq_length=5, attention_bias=False, norm_elementwise_affine=False,
            activation_fn="geglu", use_rotary_positional_embeddings=True, use_learned_positional_embeddings=True,
            is_train_face=True, cross_attn_interval=3, cross_attn_dim_head=4, cross_attn_num_heads=3, LFE_id_dim=9,
            LFE_vit_dim=12, LFE_depth=6, LFE_dim_head=5, LFE_num_heads=3, LFE_num_id_token=4, LFE_num_querie=7,
            LFE_output_dim=11, LFE_ff_mult=3, LFE_num_scale=3)),
        ("p2", "perturbed: no identity modules (is_kps set, which builds nothing), sin-cos positions, swiglu, patch 3",
         dict(num_attention_heads=4, attention_head_dim=4, in_channels=5, out_channels=2, time_embed_dim=9,
              text_embed_dim=5, num_layers=2, patch_size=3, sample_width=9, sample_height=6, sample_frames=5,
              max_text_seq_length=4, activation_fn="swiglu", is_kps=True)),
        ("p3", "perturbed: identity modules with a cross-attention interval above the layer count (no perceiver "
         "cross-attention), one scale, exact gelu, rotary positions", dict(
            num_attention_heads=4, attention_head_dim=3, in_channels=3, out_channels=5, time_embed_dim=6,
            text_embed_dim=4, num_layers=3, sample_width=4, sample_height=4, sample_frames=5, max_text_seq_length=3,
            activation_fn="gelu", use_rotary_positional_embeddings=True, is_train_face=True, cross_attn_interval=4,
            LFE_id_dim=3, LFE_vit_dim=6, LFE_depth=2, LFE_dim_head=2, LFE_num_heads=2, LFE_num_id_token=2,
            LFE_num_querie=3, LFE_output_dim=5, LFE_ff_mult=2, LFE_num_scale=1)),
        ("p4", "perturbed: identity modules with a cross-attention every layer, the extractor's depth over 2 "
         "scales, linear-silu, no norm affine, rotary positions", dict(
            num_attention_heads=3, attention_head_dim=2, in_channels=2, out_channels=2, time_embed_dim=5,
            text_embed_dim=3, num_layers=2, sample_width=4, sample_height=2, sample_frames=9, max_text_seq_length=2,
            activation_fn="linear-silu", norm_elementwise_affine=False, use_rotary_positional_embeddings=True,
            is_train_face=True, cross_attn_interval=1,
            cross_attn_dim_head=3, cross_attn_num_heads=2, LFE_id_dim=4, LFE_vit_dim=4, LFE_depth=4, LFE_dim_head=3,
            LFE_num_heads=1, LFE_num_id_token=3, LFE_num_querie=2, LFE_output_dim=7, LFE_ff_mult=1,
            LFE_num_scale=2)),
    ],
    "HunyuanDiT2DControlNetModel": [
        ("default", "default (with the required keys in_channels 4 and patch_size 2: the class defaults None cannot "
         "build)", dict(in_channels=4, patch_size=2)),
        ("v1.2", "real: Tencent-Hunyuan/HunyuanDiT-v1.2-ControlNet-Diffusers-Canny / -Depth / -Pose config (the v1.2 "
         "transformer config, 19 blocks of width 1408, no style / image-size conditioning; the stored num_layers, "
         "learn_sigma and norm_type keys are not arguments of this class)", dict(
            conditioning_channels=3, activation_fn="gelu-approximate", attention_head_dim=88, cross_attention_dim=1024,
            cross_attention_dim_t5=2048, hidden_size=1408, in_channels=4, mlp_ratio=4.3637, num_attention_heads=16,
            transformer_num_layers=40, patch_size=2, pooled_projection_dim=1024, sample_size=128, text_len=77,
            text_len_t5=256, use_style_cond_and_image_meta_size=False)),
        ("v1.1", "real: Tencent-Hunyuan/HunyuanDiT-v1.1-ControlNet-Diffusers-Canny / -Depth / -Pose config (as v1.2 "
         "with the style embedder and image-size conditioning)", dict(
            conditioning_channels=3, activation_fn="gelu-approximate", attention_head_dim=88, cross_attention_dim=1024,
            cross_attention_dim_t5=2048, hidden_size=1408, in_channels=4, mlp_ratio=4.3637, num_attention_heads=16,
            transformer_num_layers=40, patch_size=2, pooled_projection_dim=1024, sample_size=128, text_len=77,
            text_len_t5=256, use_style_cond_and_image_meta_size=True)),
        ("small", "perturbed: small sizes (six transformer layers: two ControlNet blocks)", dict(
            num_attention_heads=2, attention_head_dim=8, hidden_size=16, in_channels=4, patch_size=2,
            transformer_num_layers=6, cross_attention_dim=12, cross_attention_dim_t5=10, pooled_projection_dim=6,
            text_len=5, text_len_t5=7, sample_size=8)),
        ("p1", "perturbed: geglu, conditioning width apart from the block width, nine transformer layers (three "
         "blocks), no style / image-size conditioning, patch 1", dict(
            num_attention_heads=3, attention_head_dim=4, hidden_size=10, in_channels=3, patch_size=1,
            transformer_num_layers=9, mlp_ratio=2.5, activation_fn="geglu", cross_attention_dim=7,
            cross_attention_dim_t5=9, pooled_projection_dim=5, text_len=4, text_len_t5=6, sample_size=6,
            conditioning_channels=1, use_style_cond_and_image_meta_size=False)),
        ("p2", "perturbed: swiglu, three transformer layers (no ControlNet block at all), patch 3, truncated "
         "mlp_ratio", dict(
            num_attention_heads=2, attention_head_dim=6, hidden_size=14, in_channels=5, patch_size=3,
            transformer_num_layers=3, mlp_ratio=1.7, activation_fn="swiglu", cross_attention_dim=11,
            cross_attention_dim_t5=6, pooled_projection_dim=13, text_len=3, text_len_t5=2, sample_size=9)),
        ("p3", "perturbed: exact gelu, five transformer layers (one block), no style conditioning", dict(
            num_attention_heads=4, attention_head_dim=2, hidden_size=6, in_channels=2, patch_size=2,
            transformer_num_layers=5, mlp_ratio=3.0, activation_fn="gelu", cross_attention_dim=5,
            cross_attention_dim_t5=8, pooled_projection_dim=3, text_len=2, text_len_t5=5, sample_size=4,
            use_style_cond_and_image_meta_size=False)),
        ("p4", "perturbed: linear-silu feed-forward, eight transformer layers (three blocks), style conditioning",
         dict(num_attention_heads=2, attention_head_dim=3, hidden_size=8, in_channels=1, patch_size=1,
              transformer_num_layers=8, mlp_ratio=2.0, activation_fn="linear-silu", cross_attention_dim=6,
              cross_attention_dim_t5=4, pooled_projection_dim=2, text_len=2, text_len_t5=3, sample_size=4)),
    ],
    "SparseControlNetModel": [
        ("default", "default", {}),
        ("rgb", "real: guoyww/animatediff-sparsectrl-rgb config (the class defaults: a VAE-latent condition of 4 "
         "channels plus the mask, one zero convolution as the condition embedding)", dict(
            conditioning_channels=4, use_simplified_condition_embedding=True, motion_max_seq_length=32,
            cross_attention_dim=768)),
        ("scribble", "real: guoyww/animatediff-sparsectrl-scribble config (an RGB condition of 3 channels plus the "
         "mask through the ControlNet conditioning convolutions)", dict(
            conditioning_channels=3, use_simplified_condition_embedding=False, motion_max_seq_length=32,
            cross_attention_dim=768)),
        ("small", "perturbed: small sizes", dict(
            block_out_channels=[8, 16], layers_per_block=1, cross_attention_dim=12, norm_num_groups=4,
            attention_head_dim=2, motion_num_attention_heads=2, motion_max_seq_length=6,
            down_block_types=["CrossAttnDownBlockMotion", "DownBlockMotion"])),
        ("p1", "perturbed: three blocks, per-block transformer / temporal layers, heads, cross-attention widths and "
         "only-cross-attention, linear projection, scale-shift resnets, a two-layer mid transformer, the "
         "conditioning convolutions without the mask channel", dict(
            block_out_channels=[8, 16, 24], layers_per_block=2, transformer_layers_per_block=[1, 2, 3],
            temporal_transformer_layers_per_block=[2, 1, 3], transformer_layers_per_mid_block=2,
            cross_attention_dim=[20, 12, 9], only_cross_attention=[True, False, False], norm_num_groups=8,
            attention_head_dim=[2, 4, 4], motion_num_attention_heads=[2, 4, 2], use_linear_projection=True,
            resnet_time_scale_shift="scale_shift", in_channels=5, conditioning_channels=2,
            concat_conditioning_mask=False, use_simplified_condition_embedding=False,
            conditioning_embedding_out_channels=[4, 6, 10], motion_max_seq_length=9,
            down_block_types=["CrossAttnDownBlockMotion", "CrossAttnDownBlockMotion", "DownBlockMotion"])),
        ("p2", "perturbed: a plain block first, three layers per block with per-layer transformer and temporal "
         "layers, num_attention_heads over attention_head_dim, head counts that do not divide the channels, the "
         "mid transformer from the last block's layers", dict(
            block_out_channels=[12, 24], layers_per_block=3, transformer_layers_per_block=[1, 2],
            temporal_transformer_layers_per_block=[[1, 2, 1], [2, 1, 1]], num_attention_heads=[3, 5],
            attention_head_dim=7, motion_num_attention_heads=5, norm_num_groups=4, cross_attention_dim=10,
            conditioning_channels=1, motion_max_seq_length=4, in_channels=3,
            down_block_types=["DownBlockMotion", "CrossAttnDownBlockMotion"])),
        ("p3", "perturbed: one block, per-layer transformer layers in the last block (the mid transformer falls back "
         "to one layer), only cross attention, not simplified with one conditioning width", dict(
            block_out_channels=[16], layers_per_block=2, transformer_layers_per_block=[[2, 3]],
            temporal_transformer_layers_per_block=2, only_cross_attention=True, norm_num_groups=4,
            attention_head_dim=4, motion_num_attention_heads=4, cross_attention_dim=6,
            use_simplified_condition_embedding=False, conditioning_embedding_out_channels=[8],
            conditioning_channels=3, motion_max_seq_length=5, down_block_types=["CrossAttnDownBlockMotion"])),
    ],
    "Kandinsky6Transformer3DModel": [
        ("default", "default", {}),
        ("small", "perturbed: small sizes (the audio branch at the video widths, as the None defaults give)", {
            "axes_dims": [2, 2, 4], "ff_dim": 24, "in_audio_dim": 4, "in_text_dim": 10, "in_text_dim2": 6,
            "in_visual_dim": 4, "model_dim": 16, "num_text_blocks": 1, "num_visual_blocks": 2, "out_audio_dim": 4,
            "out_visual_dim": 4, "time_dim": 12}),
        ("lite", "real: Kandinsky 6.0 Lite config (kandinskylab/Kandinsky-6.0-Lite-5s-Diffusers transformer/config.json: "
         "32 fused blocks of 1792 video / 896 audio width, 40 audio latent channels, cross gates, two visual token "
         "types; time_dim_a unset = time_dim)", {
            **_K6_LITE}),
        ("lite-distill", "real: Kandinsky 6.0 Lite distill config (kandinskylab/Kandinsky-6.0-Lite-distill-5s-Diffusers: "
         "the Lite sizes with pi-Flow heads of n_grid 10 x the latent widths, 160 video / 400 audio channels; "
         "3,177,988,112 parameters, the published safetensors count)", {
            **_K6_LITE, "out_audio_dim": 400, "out_visual_dim": 160}),
        ("pro", "real: Kandinsky 6.0 Pro config (kandinskylab/Kandinsky-6.0-Pro-5s-Diffusers, formerly Pro-sft-5s: "
         "60 fused blocks of 4096 video / 2048 audio width, 4 text blocks per branch, 16 / 40 channel heads)", {
            **_K6_PRO}),
        ("pro-distill", "real: Kandinsky 6.0 Pro distill config (kandinskylab/Kandinsky-6.0-Pro-distill-5s-Diffusers "
         "transformer/config.json: the Pro sizes with pi-Flow heads of 160 video / 400 audio channels)", {
            **_K6_PRO, "out_audio_dim": 400, "out_visual_dim": 160}),
        ("p1", "perturbed: cross gates without fix_modulation, no visual_cond, patch (2, 1, 3), every audio width "
         "its own (model, time, ff, rope head), three visual token types, three text blocks and one fused block", {
            "axes_dims": [2, 2, 2], "axes_dims_a": [2, 2, 6], "cross_gates": True, "ff_dim": 11, "ff_dim_a": 13,
            "in_audio_dim": 6, "in_text_dim": 7, "in_text_dim2": 9, "in_visual_dim": 5, "model_dim": 18,
            "model_dim_a": 10, "num_text_blocks": 3, "num_visual_blocks": 1, "out_audio_dim": 4, "out_visual_dim": 3,
            "patch_size": [2, 1, 3], "time_dim": 22, "time_dim_a": 14, "visual_cond": False,
            "visual_token_type_num_embeddings": 3}),
        ("p2", "perturbed: no text blocks, patch (1, 1, 1), uneven rope axes, only ff_dim_a set (the other audio "
         "widths follow the video ones), no cross gates, three fused blocks", {
            "axes_dims": [2, 4, 6], "ff_dim": 40, "ff_dim_a": 9, "in_audio_dim": 3, "in_text_dim": 5,
            "in_text_dim2": 4, "in_visual_dim": 2, "model_dim": 24, "num_text_blocks": 0, "num_visual_blocks": 3,
            "out_audio_dim": 7, "out_visual_dim": 6, "patch_size": [1, 1, 1], "time_dim": 8,
            "visual_token_type_num_embeddings": 0}),
        ("p3", "perturbed: no fused blocks, cross gates, audio rope head unlike the video one at the same model "
         "width, time_dim_a set alone, one visual token type", {
            "axes_dims": [2, 2, 4], "axes_dims_a": [4, 4, 8], "cross_gates": True, "ff_dim": 24, "in_audio_dim": 5,
            "in_text_dim": 10, "in_text_dim2": 6, "in_visual_dim": 4, "model_dim": 16, "num_text_blocks": 2,
            "num_visual_blocks": 0, "out_audio_dim": 5, "out_visual_dim": 4, "time_dim": 12, "time_dim_a": 20,
            "visual_cond": False, "visual_token_type_num_embeddings": 1}),
        ("p4", "perturbed: visual_token_type_num_embeddings null, audio wider than video, fix_modulation and "
         "ca_rope without cross gates, patch (1, 2, 1)", {
            "audio_freqs_scaling": 0.5, "axes_dims": [2, 2, 2], "axes_dims_a": [2, 4, 4], "ca_rope": True,
            "ff_dim": 14, "ff_dim_a": 6, "fix_modulation": True, "in_audio_dim": 4, "in_text_dim": 9,
            "in_text_dim2": 3, "in_visual_dim": 3, "model_dim": 12, "model_dim_a": 20, "num_text_blocks": 1,
            "num_visual_blocks": 2, "out_audio_dim": 2, "out_visual_dim": 5, "patch_size": [1, 2, 1],
            "scale_factor": [1.0, 1.0, 1.0], "text_token_padding": True, "time_dim": 10,
            "visual_token_type_num_embeddings": None}),
    ],
    "Kandinsky6SRTransformer3DModel": [
        ("default", "default", {}),
        ("small", "perturbed: small sizes", {
            "axes_dims": [2, 2, 4], "ff_dim": 32, "in_visual_dim": 4, "model_dim": 16, "num_visual_blocks": 2,
            "out_visual_dim": 40, "time_dim": 8}),
        ("vsr", "real: Kandinsky 6.0 VSR config (kandinskylab/Kandinsky-6.0-VSR-5s-Diffusers, the flow-matching "
         "super-resolution DiT: the class defaults with a 64-channel velocity head)", {
            "axes_dims": [16, 24, 24], "ff_dim": 7168, "in_visual_dim": 64, "model_dim": 1792,
            "num_visual_blocks": 32, "out_visual_dim": 64, "patch_size": [1, 1, 1], "time_dim": 512}),
        ("vsr-distilled2steps", "real: Kandinsky 6.0 VSR distilled config (kandinskylab/Kandinsky-6.0-VSR-distilled2steps-"
         "5s-Diffusers: the 2-step pi-Flow DiT, a 640-channel head = n_grid 10 x 64; the class defaults)", {
            "axes_dims": [16, 24, 24], "ff_dim": 7168, "in_visual_dim": 64, "model_dim": 1792,
            "num_visual_blocks": 32, "out_visual_dim": 640, "patch_size": [1, 1, 1], "time_dim": 512}),
        ("p1", "perturbed: patch (2, 1, 3), odd widths, out_visual_dim unlike in_visual_dim, one block", {
            "axes_dims": [2, 2, 2], "ff_dim": 5, "in_visual_dim": 3, "model_dim": 12, "num_visual_blocks": 1,
            "out_visual_dim": 7, "patch_size": [2, 1, 3], "time_dim": 10}),
        ("p2", "perturbed: no blocks, patch (1, 2, 2)", {
            "axes_dims": [2, 2, 4], "ff_dim": 16, "in_visual_dim": 2, "model_dim": 8, "num_visual_blocks": 0,
            "out_visual_dim": 20, "patch_size": [1, 2, 2], "time_dim": 6}),
        ("p3", "perturbed: time_dim above model_dim, uneven rope axes, three blocks, other NABLA / tile settings "
         "(no tensor depends on them)", {
            "axes_dims": [4, 2, 4], "ff_dim": 9, "in_visual_dim": 5, "model_dim": 20, "nabla_threshold": 0.5,
            "nabla_window": [3, 3, 3], "num_visual_blocks": 3, "out_visual_dim": 5, "scale_factor": [1.0, 1.0, 1.0],
            "tile_sizes": [[256, 256]], "time_dim": 30}),
    ],
    "HeliosTransformer3DModel": [
        # the released BestWishYsh/Helios-Base, -Mid and -Distilled transformers are the class defaults (the 14B
        # Wan 2.1 sizes; FastVideo's and SGLang's HeliosArchConfig carry the same values): the default case
        ("default", "default", {}),
        ("small", "perturbed: small sizes", dict(num_attention_heads=2, attention_head_dim=8, text_dim=12,
                                                 freq_dim=16, ffn_dim=24, num_layers=2, in_channels=4,
                                                 out_channels=4, rope_dim=[4, 2, 2])),
        ("p1", "perturbed: added k/v, no cross-attention norm, no memory patches, per-head history scale, "
         "out_channels, patch [1, 1, 2]", dict(
            num_attention_heads=3, attention_head_dim=4, text_dim=10, freq_dim=8, ffn_dim=20, num_layers=3,
            in_channels=6, out_channels=5, added_kv_proj_dim=12, cross_attn_norm=False,
            has_multi_term_memory_patch=False, is_amplify_history=True, patch_size=[1, 1, 2], rope_dim=[2, 0, 2])),
        ("p2", "perturbed: scalar history scale, null out_channels, patch [2, 2, 1], no guidance cross-attention",
         dict(num_attention_heads=4, attention_head_dim=2, text_dim=7, freq_dim=6, ffn_dim=9, num_layers=1,
              in_channels=3, out_channels=None, is_amplify_history=True, history_scale_mode="scalar",
              guidance_cross_attn=False, zero_history_timestep=False, qk_norm=None, patch_size=[2, 2, 1],
              rope_dim=[2, 2, 2])),
    ],
    "MiniMaxH3Transformer3DModel": [
        ("default", "default", {}),
        ("h3", "real: MiniMax-H3 joint video + audio DiT as released (MiniMaxAI; diffusers' transformer_minimax_h3.py "
         "documents the class defaults as the released checkpoint: 50 blocks, hidden 5376, 56 x 128 heads)", {
            "num_attention_heads": 56, "attention_head_dim": 128, "hidden_size": 5376, "num_layers": 50,
            "num_refiner_layers": 2, "ffn_dim": 14336, "in_channels": 24, "audio_in_channels": 32,
            "patch_size": [1, 2, 2], "text_dim": 5120, "freq_dim": 256, "time_embed_hidden_dim": 5376,
            "time_embed_dim": 2688}),
        ("small", "perturbed: small sizes", {
            "num_attention_heads": 2, "attention_head_dim": 16, "hidden_size": 24, "num_layers": 2,
            "num_refiner_layers": 1, "ffn_dim": 40, "in_channels": 4, "audio_in_channels": 6, "text_dim": 20,
            "freq_dim": 8, "time_embed_hidden_dim": 24, "time_embed_dim": 12, "rope_freq_dim": 2}),
        ("p1", "perturbed: no refiner blocks, inner attention width below hidden, patch (2, 1, 3), odd widths", {
            "num_attention_heads": 3, "attention_head_dim": 6, "hidden_size": 30, "num_layers": 3,
            "num_refiner_layers": 0, "ffn_dim": 7, "in_channels": 5, "audio_in_channels": 3,
            "patch_size": [2, 1, 3], "text_dim": 11, "freq_dim": 6, "time_embed_hidden_dim": 9,
            "time_embed_dim": 13, "rope_freq_dim": 1}),
        ("p2", "perturbed: no blocks, three refiner blocks, time MLP wider than hidden", {
            "num_attention_heads": 4, "attention_head_dim": 8, "hidden_size": 16, "num_layers": 0,
            "num_refiner_layers": 3, "ffn_dim": 20, "in_channels": 2, "audio_in_channels": 9,
            "patch_size": [1, 1, 1], "text_dim": 7, "freq_dim": 10, "time_embed_hidden_dim": 50,
            "time_embed_dim": 5, "rope_freq_dim": 4}),
    ],
    "AutoencoderKLMiniMaxH3": [
        ("default", "default", {}),
        ("h3", "real: MiniMax-H3 video VAE as released (MiniMaxAI; causal 3D CNN encoder 16x spatial / 4x temporal, "
         "36-block ViT decoder: the class defaults, which diffusers documents as the released checkpoint)", {
            "in_channels": 3, "out_channels": 3, "latent_channels": 24,
            "block_out_channels": [128, 256, 256, 512, 512, 1024], "layers_per_block": 2,
            "spatial_downsample_factors": [2, 2, 2, 2, 1, 1], "temporal_downsample_factors": [1, 2, 2, 1, 1, 1],
            "norm_num_groups": 32, "decoder_num_layers": 36, "decoder_num_attention_heads": 32,
            "decoder_attention_head_dim": 64, "decoder_num_register_tokens": 4, "decoder_ffn_mult": 4}),
        ("small", "perturbed: small sizes", {
            "latent_channels": 4, "block_out_channels": [8, 16, 16], "layers_per_block": 1,
            "spatial_downsample_factors": [2, 2, 1], "temporal_downsample_factors": [1, 2, 1],
            "norm_num_groups": 4, "decoder_num_layers": 2, "decoder_num_attention_heads": 2,
            "decoder_attention_head_dim": 8, "decoder_num_register_tokens": 2, "decoder_ffn_mult": 2,
            "latents_mean": [0.0] * 4, "latents_std": [1.0] * 4}),
        ("p1", "perturbed: one level, no downsampler, 3 resnets, other in / out channels, one register token, no "
         "decoder blocks", {
            "in_channels": 2, "out_channels": 5, "latent_channels": 3, "block_out_channels": [6],
            "layers_per_block": 3, "spatial_downsample_factors": [1], "temporal_downsample_factors": [1],
            "norm_num_groups": 3, "decoder_num_layers": 0, "decoder_num_attention_heads": 3,
            "decoder_attention_head_dim": 4, "decoder_num_register_tokens": 1, "decoder_ffn_mult": 3,
            "decoder_rope_dim_ratio": 1.5, "latents_mean": [0.0] * 3, "latents_std": [1.0] * 3}),
        ("p2", "perturbed: five levels, temporal-only and spatial-only downsamplers, shrinking channels, 3 decoder "
         "blocks, 12-wide heads", {
            "in_channels": 4, "out_channels": 1, "latent_channels": 5, "block_out_channels": [4, 8, 6, 6, 10],
            "layers_per_block": 2, "spatial_downsample_factors": [2, 1, 1, 2, 1],
            "temporal_downsample_factors": [1, 2, 1, 2, 1], "norm_num_groups": 2, "decoder_num_layers": 3,
            "decoder_num_attention_heads": 1, "decoder_attention_head_dim": 12, "decoder_num_register_tokens": 0,
            "decoder_ffn_mult": 1, "decoder_rope_dim_ratio": 0.5, "latents_mean": [0.0] * 5,
            "latents_std": [1.0] * 5}),
    ],
    "ControlNetXSAdapter": [
        ("default", "default", {}),
        ("sd21-canny", "real: UmerHA/Testing-ConrolNetXS-SD2.1-canny, the conversion of vislearn's sd21_encD_canny_14m "
         "(control_model_ratio 0.0125: widths [4, 8, 16, 16] = the class default, plus the learned time embedding)",
         dict(learn_time_embedding=True)),
        ("sdxl-canny", "real: UmerHA/Testing-ConrolNetXS-SDXL-canny, the conversion of vislearn's sdxl_encD_canny_48m "
         "(control_model_ratio 0.1 of the SDXL unet, learn_embedding) as from_unet builds it: SDXL blocks, "
         "transformer layers [0, 2, 10], cross dim 2048, heads [5, 10, 20] from the unet's attention_head_dim",
         dict(learn_time_embedding=True, block_out_channels=[32, 64, 128], num_attention_heads=[5, 10, 20],
              base_block_out_channels=[320, 640, 1280], cross_attention_dim=2048,
              down_block_types=["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
              transformer_layers_per_block=[0, 2, 10], sample_size=128, upcast_attention=False)),
        ("small", "perturbed: small sizes", dict(
            block_out_channels=[4, 8], base_block_out_channels=[8, 16], num_attention_heads=2, cross_attention_dim=12,
            down_block_types=["CrossAttnDownBlock2D", "DownBlock2D"], conditioning_embedding_out_channels=[4, 8],
            sample_size=16)),
        ("p1", "perturbed: conv projections, learned time embedding, per-block heads / transformer layers / cross "
         "dims, heads not dividing the width, one conditioning channel", dict(
            learn_time_embedding=True, use_linear_projection=False, block_out_channels=[6, 9, 14],
            base_block_out_channels=[10, 20, 30], num_attention_heads=[1, 2, 3], transformer_layers_per_block=[1, 2, 3],
            cross_attention_dim=[8, 12, 16], conditioning_channels=1, conditioning_embedding_out_channels=[4, 6, 8],
            down_block_types=["CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"])),
        ("p2", "perturbed: no cross-attention down blocks (the mid block keeps its transformer), equal widths, "
         "one conditioning block", dict(
            block_out_channels=[8, 8, 8, 12, 12], base_block_out_channels=[16, 16, 24, 24, 40], num_attention_heads=4,
            down_block_types=["DownBlock2D"] * 5, conditioning_embedding_out_channels=[6], cross_attention_dim=10,
            transformer_layers_per_block=2, conditioning_channels=2)),
    ],
    "UNetControlNetXSModel": [
        ("default", "default", {}),
        ("sd21-canny", "real: stabilityai/stable-diffusion-2-1 unet fused with UmerHA/Testing-ConrolNetXS-SD2.1-canny "
         "(the default adapter widths [4, 8, 16, 16] with a learned time embedding), as from_unet builds it", dict(
            num_attention_heads=[5, 10, 20, 20], ctrl_learn_time_embedding=True)),
        ("sdxl-canny", "real: stabilityai/stable-diffusion-xl-base-1.0 unet fused with "
         "UmerHA/Testing-ConrolNetXS-SDXL-canny (adapter widths 0.1 of the unet's, learned time embedding)", dict(
            sample_size=128, down_block_types=["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
            up_block_types=["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"],
            block_out_channels=[320, 640, 1280], cross_attention_dim=2048, transformer_layers_per_block=[1, 2, 10],
            num_attention_heads=[5, 10, 20], addition_embed_type="text_time", addition_time_embed_dim=256,
            upcast_attention=False, projection_class_embeddings_input_dim=2816, ctrl_learn_time_embedding=True,
            ctrl_block_out_channels=[32, 64, 128], ctrl_num_attention_heads=[5, 10, 20])),
        ("small", "perturbed: small sizes", dict(
            sample_size=16, down_block_types=["CrossAttnDownBlock2D", "DownBlock2D"],
            up_block_types=["UpBlock2D", "CrossAttnUpBlock2D"], block_out_channels=[8, 16], norm_num_groups=4,
            cross_attention_dim=12, num_attention_heads=2, ctrl_block_out_channels=[4, 8], ctrl_num_attention_heads=2,
            ctrl_conditioning_embedding_out_channels=[4, 8])),
        ("p1", "perturbed: conv projections, text_time embedding, time-cond projection, per-block lists, learned "
         "control time embedding", dict(
            sample_size=16, down_block_types=["CrossAttnDownBlock2D", "DownBlock2D", "CrossAttnDownBlock2D"],
            up_block_types=["CrossAttnUpBlock2D", "UpBlock2D", "CrossAttnUpBlock2D"], block_out_channels=[8, 16, 24],
            norm_num_groups=4, cross_attention_dim=10, num_attention_heads=[2, 4, 3],
            transformer_layers_per_block=[2, 1, 3], use_linear_projection=False, addition_embed_type="text_time",
            addition_time_embed_dim=4, projection_class_embeddings_input_dim=22, time_cond_proj_dim=6,
            time_embedding_mix=0.5, ctrl_learn_time_embedding=True, ctrl_block_out_channels=[6, 9, 14],
            ctrl_num_attention_heads=[1, 3, 2], ctrl_conditioning_channels=1,
            ctrl_conditioning_embedding_out_channels=[4, 6, 8], ctrl_max_norm_num_groups=3)),
    ],
    "LTX2VideoDiffusionDecoderModel": [
        ("default", "default", {}),  # = the LTX-2.5 diffusion decoder (DiffVAE) as released: the class defaults
        # match the reference decoder (ships as a single-step x0 decoder)
        ("small", "perturbed: small sizes (diffusers' own test config: 8 latent channels, head_dim 8, widths "
         "32-16-8-8-8, one block per stage)", dict(
            latent_channels=8, decoder_head_dim=8, decoder_stage_channels=[32, 16, 8, 8, 8],
            decoder_stage_depths=[1, 1, 1, 1, 1], decoder_upsample_channel_reductions=[2, 2, 1, 1],
            decoder_t_emb_dim=16)),
        ("p1", "perturbed: three deterministic stages (reductions 2, 1, 3), uneven depths, patch 2, one output "
         "channel, head_dim 8, t_emb 20", dict(
            out_channels=1, latent_channels=5, patch_size=2, decoder_head_dim=8,
            decoder_stage_channels=[48, 24, 24, 8], decoder_stage_depths=[2, 1, 3, 2],
            decoder_stage_kernels=[[3, 3, 3], [3, 5, 5], [1, 3, 3]],
            decoder_upsample_strides=[[1, 2, 2], [2, 2, 2], [2, 1, 1]],
            decoder_upsample_channel_reductions=[2, 1, 3], decoder_stage5_kernel=[3, 3, 3], decoder_t_emb_dim=20,
            spatial_compression_ratio=8, temporal_compression_ratio=4)),
        ("p2", "perturbed: five deterministic stages, one of depth 0, a stride-1 upsampler, widening reduction "
         "free widths, one diffusion block, head_dim 16, patch 3, v prediction", dict(
            out_channels=4, latent_channels=6, patch_size=3, decoder_head_dim=16,
            decoder_stage_channels=[64, 64, 32, 32, 16, 16], decoder_stage_depths=[1, 0, 2, 1, 1, 1],
            decoder_stage_kernels=[[3, 3, 3]] * 5,
            decoder_upsample_strides=[[1, 1, 1], [2, 2, 2], [1, 2, 2], [2, 1, 1], [1, 2, 2]],
            decoder_upsample_channel_reductions=[1, 2, 1, 2, 1], decoder_stage5_kernel=[5, 5, 5],
            decoder_t_emb_dim=24, decoder_model_output_type="v", decoder_num_inference_steps=2)),
        ("p3", "perturbed: lists longer than the four strides need (six widths and depths: the diffusion stage "
         "reads the last, stage_channels[-1] and stage_depths[-1])", dict(
            latent_channels=8, decoder_head_dim=8, decoder_stage_channels=[32, 16, 16, 16, 8, 24],
            decoder_stage_depths=[1, 2, 1, 1, 5, 3], decoder_upsample_channel_reductions=[2, 1, 1, 2],
            decoder_t_emb_dim=16)),
    ],
    "UVit2DModel": [
        ("default", "default", {}),
        ("amused-256", "amused/amused-256 transformer (the class defaults at sample_size 16)", dict(sample_size=16)),
        ("amused-512", "amused/amused-512 transformer (the class defaults at sample_size 32)", dict(sample_size=32)),
        ("small", "perturbed: small sizes", dict(
            hidden_size=32, cond_embed_dim=16, micro_cond_encode_dim=8, micro_cond_embed_dim=40,
            encoder_hidden_size=24, vocab_size=72, codebook_size=64, in_channels=16, block_out_channels=24,
            num_res_blocks=2, block_num_heads=4, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=48, sample_size=8)),
        ("p1", "perturbed: biases, downsample and upsample, one res block, no elementwise affine", dict(
            hidden_size=48, use_bias=True, cond_embed_dim=20, micro_cond_encode_dim=4, micro_cond_embed_dim=20,
            encoder_hidden_size=12, vocab_size=40, codebook_size=33, in_channels=10, block_out_channels=16,
            num_res_blocks=1, downsample=True, upsample=True, block_num_heads=2, num_hidden_layers=3,
            num_attention_heads=6, intermediate_size=70, ln_elementwise_affine=False, sample_size=8)),
        ("p2", "perturbed: downsample only, three res blocks, biases, affine norms, block width = hidden size (no kv_mapper)", dict(
            hidden_size=40, use_bias=True, cond_embed_dim=8, micro_cond_encode_dim=6, micro_cond_embed_dim=30,
            encoder_hidden_size=20, vocab_size=50, codebook_size=45, in_channels=12, block_out_channels=40,
            num_res_blocks=3, downsample=True, upsample=False, block_num_heads=3, num_hidden_layers=1,
            num_attention_heads=5, intermediate_size=36, sample_size=8)),
        ("p3", "perturbed: upsample only, no biases, heads that do not divide the widths", dict(
            hidden_size=36, cond_embed_dim=10, micro_cond_encode_dim=2, micro_cond_embed_dim=14,
            encoder_hidden_size=9, vocab_size=30, codebook_size=21, in_channels=14, block_out_channels=20,
            num_res_blocks=2, upsample=True, block_num_heads=3, num_hidden_layers=2,
            num_attention_heads=5, intermediate_size=50, sample_size=8)),
    ],
    "UNet1DModel": [
        ("default", "default", {}),
        ("dance-diffusion", "harmonai/maestro-150k unet config.json (also glitch-440k, jmann-small-190k, "
         "jmann-large-580k, unlocked-250k, honk-140k: the same UNet) as diffusers 0.42 reads it; the released "
         "time_proj.weight is 8 wide, which diffusers >= 0.36 builds only with time_embedding_dim=16", dict(
            block_out_channels=[128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 512, 512, 512],
            extra_in_channels=16, sample_rate=16000, sample_size=65536, freq_shift=0,
            down_block_types=["DownBlock1DNoSkip"] + ["DownBlock1D"] * 7 + ["AttnDownBlock1D"] * 5,
            up_block_types=["AttnUpBlock1D"] * 5 + ["UpBlock1D"] * 7 + ["UpBlock1DNoSkip"])),
        ("dance-diffusion-legacy-time", "harmonai/maestro-150k as loaded with time_embedding_dim=16 "
         "(the released 8-wide time_proj.weight)", dict(
            block_out_channels=[128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 512, 512, 512],
            extra_in_channels=16, sample_rate=16000, sample_size=65536, freq_shift=0, time_embedding_dim=16,
            down_block_types=["DownBlock1DNoSkip"] + ["DownBlock1D"] * 7 + ["AttnDownBlock1D"] * 5,
            up_block_types=["AttnUpBlock1D"] * 5 + ["UpBlock1D"] * 7 + ["UpBlock1DNoSkip"])),
        ("small", "perturbed: small sizes", dict(
            block_out_channels=[8, 16], extra_in_channels=4,
            down_block_types=["DownBlock1DNoSkip", "AttnDownBlock1D"],
            up_block_types=["AttnUpBlock1D", "UpBlock1DNoSkip"])),
        ("p1", "perturbed: four blocks, other block order, odd widths, in/out channels", dict(
            block_out_channels=[12, 20, 28, 36], in_channels=3, out_channels=5, extra_in_channels=6,
            time_embedding_dim=10,
            down_block_types=["DownBlock1D", "AttnDownBlock1D", "DownBlock1DNoSkip", "AttnDownBlock1D"],
            up_block_types=["UpBlock1D", "AttnUpBlock1D", "UpBlock1DNoSkip", "AttnUpBlock1D"])),
        ("p2", "perturbed: three blocks, no extra channels, mid channels from the last block", dict(
            block_out_channels=[16, 24, 40], in_channels=1, out_channels=1,
            down_block_types=["AttnDownBlock1D", "DownBlock1DNoSkip", "DownBlock1D"],
            up_block_types=["UpBlock1DNoSkip", "UpBlock1D", "AttnUpBlock1D"])),
        ("p3", "perturbed: positional time embedding with a time MLP, two blocks", dict(
            block_out_channels=[20, 44], in_channels=4, out_channels=3, extra_in_channels=20,
            time_embedding_type="positional", use_timestep_embedding=True, act_fn="silu",
            down_block_types=["DownBlock1D", "AttnDownBlock1D"], up_block_types=["UpBlock1D", "UpBlock1D"])),
        ("p4", "perturbed: Fourier time embedding with a time MLP and an explicit width", dict(
            block_out_channels=[12, 16, 24], extra_in_channels=3, time_embedding_dim=6, use_timestep_embedding=True,
            act_fn="mish", down_block_types=["DownBlock1DNoSkip", "AttnDownBlock1D", "AttnDownBlock1D"],
            up_block_types=["AttnUpBlock1D", "UpBlock1DNoSkip", "UpBlock1D"])),
        ("hopper-unet-hor32", "Diffuser (Janner et al.) hopper-medium-v2 unet, horizon 32, as diffusers' "
         "convert_models_diffuser_to_diffusers.py writes it (bglick13/hopper-medium-v2-value-function-hor32 unet)", dict(
            down_block_types=["DownResnetBlock1D"] * 4, up_block_types=["UpResnetBlock1D"] * 3,
            mid_block_type="MidResTemporalBlock1D", out_block_type="OutConv1DBlock",
            block_out_channels=[32, 64, 128, 256], layers_per_block=1, downsample_each_block=False,
            in_channels=14, out_channels=14, extra_in_channels=0, time_embedding_type="positional",
            flip_sin_to_cos=False, freq_shift=1, act_fn="mish", norm_num_groups=8, use_timestep_embedding=True)),
        ("hopper-value-function-hor32", "Diffuser hopper-medium-v2 value function, horizon 32 "
         "(bglick13/hopper-medium-v2-value-function-hor32 value_function)", dict(
            down_block_types=["DownResnetBlock1D"] * 4, up_block_types=[],
            mid_block_type="ValueFunctionMidBlock1D", out_block_type="ValueFunction",
            block_out_channels=[32, 64, 128, 256], layers_per_block=1, downsample_each_block=True,
            in_channels=14, out_channels=14, extra_in_channels=0, time_embedding_type="positional",
            flip_sin_to_cos=False, freq_shift=1, act_fn="mish", norm_num_groups=8, use_timestep_embedding=True)),
        ("p5", "perturbed: resnet blocks, two layers each, as many up as down blocks, downsampling everywhere", dict(
            down_block_types=["DownResnetBlock1D"] * 3, up_block_types=["UpResnetBlock1D"] * 3,
            mid_block_type="MidResTemporalBlock1D", out_block_type="OutConv1DBlock",
            block_out_channels=[8, 24, 40], layers_per_block=2, downsample_each_block=True,
            in_channels=5, out_channels=7, extra_in_channels=3, time_embedding_type="fourier",
            act_fn="mish", norm_num_groups=4, use_timestep_embedding=True)),
        ("p6", "perturbed: value function, no extra resnet layers, Fourier time, no time MLP", dict(
            down_block_types=["DownResnetBlock1D"] * 2, up_block_types=[],
            mid_block_type="ValueFunctionMidBlock1D", out_block_type="ValueFunction",
            block_out_channels=[24, 64], layers_per_block=0, downsample_each_block=False,
            in_channels=3, out_channels=3, time_embedding_type="fourier",
            act_fn="mish", norm_num_groups=4, use_timestep_embedding=False)),
    ],
    "NucleusMoEImageTransformer2DModel": [
        ("default", "default", {}),
        ("nucleus-image", "real: NucleusAI/NucleusMoE-Image transformer config (as mirrored at FenomAI/Nucleus-Image: "
         "32 layers, 16 query / 4 kv heads, Qwen3-VL 4096 text, 64 experts, first three blocks dense)", dict(
            out_channels=16, num_layers=32, num_key_value_heads=4, joint_attention_dim=4096,
            dense_moe_strategy="leave_first_three_blocks_dense", num_experts=64, moe_intermediate_dim=1344,
            capacity_factors=[0.0, 0.0, 0.0, 4.0, 4.0] + [2.0] * 27, use_grouped_mm=True)),
        ("small", "perturbed: small sizes (inner 128 so the dense swiglu width is not 0)", dict(
            num_layers=5, num_attention_heads=4, attention_head_dim=32, joint_attention_dim=12, in_channels=8,
            out_channels=4, num_experts=4, moe_intermediate_dim=16, axes_dims_rope=[8, 12, 12])),
        ("p1", "perturbed: GQA (6 query / 2 kv heads), all_moe, per-layer capacity list, patch 3, sigmoid routing",
         dict(num_layers=3, num_attention_heads=6, attention_head_dim=24, num_key_value_heads=2,
              joint_attention_dim=10, in_channels=5, out_channels=7, patch_size=3, dense_moe_strategy="all_moe",
              num_experts=3, moe_intermediate_dim=20, capacity_factors=[1.0, 2.0, 3.0], use_sigmoid=True,
              axes_dims_rope=[4, 10, 10])),
        ("p2", "perturbed: moe_enabled false (every block dense), mlp_ratio 3.0, out_channels None (= in_channels), "
         "patch 1", dict(num_layers=2, num_attention_heads=5, attention_head_dim=40, joint_attention_dim=9,
                         in_channels=6, patch_size=1, moe_enabled=False, mlp_ratio=3.0, num_experts=5,
                         axes_dims_rope=[8, 16, 16])),
        ("p3", "perturbed: leave_first_block_dense, truncated mlp_ratio 2.7, kv heads = query heads", dict(
            num_layers=4, num_attention_heads=3, attention_head_dim=64, num_key_value_heads=3,
            joint_attention_dim=7, in_channels=4, dense_moe_strategy="leave_first_block_dense", mlp_ratio=2.7,
            num_experts=2, moe_intermediate_dim=12, axes_dims_rope=[16, 24, 24])),
        ("p4", "perturbed: all_dense strategy with moe_enabled true, one kv head", dict(
            num_layers=2, num_attention_heads=2, attention_head_dim=96, num_key_value_heads=1,
            joint_attention_dim=5, in_channels=3, out_channels=2, dense_moe_strategy="all_dense",
            axes_dims_rope=[16, 40, 40])),
        ("p5", "perturbed: an unknown dense_moe_strategy (diffusers' _is_moe_layer: every block MoE), "
         "leave_first_three_and_last_block_dense's neighbour at 5 layers", dict(
            num_layers=2, num_attention_heads=2, attention_head_dim=64, joint_attention_dim=6, in_channels=4,
            dense_moe_strategy="something_else", num_experts=3, moe_intermediate_dim=8,
            axes_dims_rope=[16, 24, 24])),
    ],
    "MotifVideoTransformer3DModel": [
        ("default", "default", {}),
        ("motif-video-2b", "real: Motif-Technologies/Motif-Video-2B transformer config values (as quoted by the "
         "ComfyUI MotifVideo nodes: 12 dual + 24 single blocks of which 8 DDT decoders, 12 heads x 128, T5Gemma2 "
         "2560 text, SigLIP 1152 image embeddings) with the model card's shared cross-attention in the single "
         "stage", dict(
            num_attention_heads=12, num_layers=12, num_single_layers=24, num_decoder_layers=8,
            text_embed_dim=2560, image_embed_dim=1152, enable_text_cross_attention_single=True)),
        ("small", "perturbed: small sizes", dict(
            num_attention_heads=2, attention_head_dim=8, num_layers=2, num_single_layers=2, text_embed_dim=12,
            in_channels=4, out_channels=4, rope_axes_dim=[2, 2, 4])),
        ("p1", "perturbed: image embedder, layer-norm qk norm, cross-attention in dual and single blocks, two of "
         "four single blocks decoders, temporal patch 2, spatial patch 1, truncated mlp_ratio", dict(
            num_attention_heads=3, attention_head_dim=6, num_layers=1, num_single_layers=4, num_decoder_layers=2,
            mlp_ratio=2.7, patch_size=1, patch_size_t=2, qk_norm="layer_norm", text_embed_dim=14,
            image_embed_dim=9, in_channels=5, out_channels=7, rope_axes_dim=[2, 2, 2],
            enable_text_cross_attention_dual=True, enable_text_cross_attention_single=True)),
        ("p2", "perturbed: no qk norm, no dual blocks, out_channels None (= in_channels), patch 3, single-stage "
         "cross-attention without decoders", dict(
            num_attention_heads=4, attention_head_dim=4, num_layers=0, num_single_layers=3, mlp_ratio=3.0,
            patch_size=3, qk_norm=None, text_embed_dim=8, in_channels=9, out_channels=None, rope_axes_dim=[0, 2, 2],
            enable_text_cross_attention_single=True)),
        ("p3", "perturbed: dual-stage cross-attention only, every single block a decoder (no cross-attention), "
         "patch_t 3, image embedder", dict(
            num_attention_heads=2, attention_head_dim=10, num_layers=2, num_single_layers=2, num_decoder_layers=2,
            mlp_ratio=1.5, patch_size=2, patch_size_t=3, text_embed_dim=6, image_embed_dim=5, in_channels=3,
            out_channels=2, rope_axes_dim=[4, 2, 4], enable_text_cross_attention_dual=True,
            enable_text_cross_attention_single=True)),
        ("p4", "perturbed: no single blocks, layer-norm qk norm", dict(
            num_attention_heads=2, attention_head_dim=6, num_layers=2, num_single_layers=0, text_embed_dim=5,
            in_channels=4, out_channels=3, qk_norm="layer_norm", rope_axes_dim=[2, 2, 2])),
    ],
    "JoyImageEditTransformer3DModel": [
        ("default", "default", {}),
        ("joyai-image-edit", "real: jdopensource/JoyAI-Image-Edit-Diffusers transformer config (16B MMDiT; also "
         "SpatialEdit-16B's original layout)", dict(
            patch_size=[1, 2, 2], in_channels=16, out_channels=16, hidden_size=4096, num_attention_heads=32,
            text_dim=4096, mlp_width_ratio=4.0, num_layers=40, rope_dim_list=[16, 56, 56], rope_type="rope",
            theta=10000)),
        ("small", "perturbed: small sizes", dict(hidden_size=16, num_attention_heads=2, text_dim=12, num_layers=2,
                                                 in_channels=4, rope_dim_list=[2, 2, 4])),
        ("p1", "perturbed: out_channels, uneven patch, fractional mlp_width_ratio truncated by int()", dict(
            hidden_size=12, num_attention_heads=3, text_dim=10, mlp_width_ratio=2.3, num_layers=3, in_channels=6,
            out_channels=5, patch_size=[2, 1, 3], rope_dim_list=[0, 2, 2], rope_type="mrope", theta=100)),
        ("p2", "perturbed: explicit null out_channels, odd head dim, narrow mlp, one block", dict(
            hidden_size=20, num_attention_heads=4, text_dim=7, mlp_width_ratio=1.5, num_layers=1, in_channels=3,
            out_channels=None, patch_size=[1, 3, 1], rope_dim_list=[1, 2, 2])),
        ("p3", "perturbed: no blocks, one head", dict(
            hidden_size=6, num_attention_heads=1, text_dim=9, mlp_width_ratio=3.0, num_layers=0, in_channels=2,
            out_channels=7, patch_size=[1, 1, 1], rope_dim_list=[2, 2, 2])),
    ],
    "AudioLDM2UNet2DConditionModel": [
        ("default", "default", {}),
        ("audioldm2", "perturbed: cvssp/audioldm2 (and audioldm2-music, the same 350M UNet) unet as the original "
         "AudioLDM2 config builds it (haoheliu/AudioLDM2 audioldm2/utils.py: model_channels 128, channel_mult 1/2/3/5, "
         "attention_resolutions 8/4/2 = the three lower blocks, 32-wide heads, num_res_blocks 2) with diffusers' extra "
         "self-attention before the GPT2 768 and Flan-T5 1024 cross-attentions; reconstructed, not checked against "
         "unet/config.json (346.9M against the model card's 350M)", dict(
            sample_size=64, in_channels=8, out_channels=8, block_out_channels=[128, 256, 384, 640],
            down_block_types=["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
            up_block_types=["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"],
            layers_per_block=2, attention_head_dim=[4, 8, 12, 20],
            cross_attention_dim=[[None, 768, 1024]] * 4)),
        ("audioldm2-large", "perturbed: cvssp/audioldm2-large unet (the original '-large-' config: context_dim "
         "768/1024/None, transformer_depth 2, plus diffusers' leading self-attention; reconstructed, not checked "
         "against unet/config.json: 718.0M against the model card's 750M)", dict(
            sample_size=64, in_channels=8, out_channels=8, block_out_channels=[128, 256, 384, 640],
            down_block_types=["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
            up_block_types=["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"],
            layers_per_block=2, attention_head_dim=[4, 8, 12, 20], transformer_layers_per_block=2,
            cross_attention_dim=[[None, 768, 1024, None]] * 4)),
        ("small", "perturbed: small sizes, two blocks, two cross-attentions per resnet", dict(
            block_out_channels=[8, 16], layers_per_block=1, sample_size=16, norm_num_groups=4, attention_head_dim=2,
            down_block_types=["CrossAttnDownBlock2D", "DownBlock2D"], up_block_types=["UpBlock2D", "CrossAttnUpBlock2D"],
            cross_attention_dim=[[8, 12], [8, 12]])),
        ("p1", "perturbed: three blocks, per-block layers and transformer layers, an extra self-attention (None) among "
         "three cross dims, linear projection, only cross attention, class embeddings, time_cond_proj_dim, kernels",
         dict(block_out_channels=[8, 16, 24], layers_per_block=[1, 2, 1], transformer_layers_per_block=[2, 1, 3],
              in_channels=9, out_channels=5, norm_num_groups=8, attention_head_dim=[2, 4, 4],
              use_linear_projection=True, sample_size=16, only_cross_attention=[True, False, True],
              cross_attention_dim=[[None, 12, 20], [6, None, 10], [None, 14, 28]],
              down_block_types=["CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"],
              up_block_types=["UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"],
              num_class_embeds=7, time_cond_proj_dim=10, conv_in_kernel=1, conv_out_kernel=5)),
        ("p2", "perturbed: plain int cross_attention_dim (one cross-attention per resnet), scale-shift resnets, "
         "timestep class embeddings concatenated, time_embedding_dim, four blocks", dict(
            block_out_channels=[8, 16, 16, 32], layers_per_block=1, norm_num_groups=4, attention_head_dim=[2, 2, 4, 4],
            cross_attention_dim=12, resnet_time_scale_shift="scale_shift", class_embed_type="timestep",
            class_embeddings_concat=True, time_embedding_dim=24, sample_size=16,
            down_block_types=["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
            up_block_types=["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D", "UpBlock2D"])),
        ("p3", "perturbed: four cross dims per block, projection class embedding, a single-element per-block list",
         dict(block_out_channels=[8, 16], layers_per_block=2, norm_num_groups=4, attention_head_dim=2,
              cross_attention_dim=[[4, None, 6, 10], [4, None, 6, 10]], class_embed_type="projection",
              projection_class_embeddings_input_dim=6, sample_size=16,
              down_block_types=["CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
              up_block_types=["CrossAttnUpBlock2D", "CrossAttnUpBlock2D"])),
        ("p4", "perturbed: simple_projection class embedding, only_cross_attention True everywhere, per-block dims "
         "of different lengths", dict(
            block_out_channels=[8, 16], layers_per_block=1, norm_num_groups=4, attention_head_dim=[2, 4],
            cross_attention_dim=[[10], [None, 6]], class_embed_type="simple_projection",
            projection_class_embeddings_input_dim=5, only_cross_attention=True, sample_size=16,
            down_block_types=["CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
            up_block_types=["CrossAttnUpBlock2D", "CrossAttnUpBlock2D"])),
    ],
    "AudioLDM2ProjectionModel": [
        ("default", "default: the three required widths (no defaults) at CLAP 512, Flan-T5-large 1024, GPT2 768",
         dict(text_encoder_dim=512, text_encoder_1_dim=1024, langauge_model_dim=768)),
        ("audioldm2", "perturbed: cvssp/audioldm2, -large, -music projection_model (CLAP projection 512, Flan-T5-large "
         "1024, GPT2 768 as the conversion script builds it)",
         dict(text_encoder_dim=512, text_encoder_1_dim=1024, langauge_model_dim=768)),
        ("tts", "perturbed: audioldm2-gigaspeech / -ljspeech-style projection over a 192-wide VITS encoder with a "
         "learned position table of 512 (not checked against the released config.json)",
         dict(text_encoder_dim=512, text_encoder_1_dim=192, langauge_model_dim=768,
              use_learned_position_embedding=True, max_seq_length=512)),
        ("small", "perturbed: small sizes", dict(text_encoder_dim=6, text_encoder_1_dim=10, langauge_model_dim=8)),
        ("p1", "perturbed: learned position embedding at small sizes",
         dict(text_encoder_dim=6, text_encoder_1_dim=10, langauge_model_dim=8, use_learned_position_embedding=True,
              max_seq_length=5)),
    ],
    "SanaWMTransformer3DModel": [
        # the class defaults are the released Efficient-Large-Model/SANA-WM_bidirectional 1600M transformer (its
        # docstring says so): the default case
        ("default", "default", {}),
        ("small", "perturbed: small sizes", dict(in_channels=8, num_layers=2, hidden_size=32, num_attention_heads=2,
                                                 linear_head_dim=8, caption_channels=12, chunk_plucker_channels=6,
                                                 softmax_every_n=2)),
        ("p1", "perturbed: plain MLP, q/k/v convs, no q/k, cross or y norms, no plucker, pred_sigma, patch [1, 2, 2], "
         "mlp_ratio 2.5", dict(
            in_channels=5, num_layers=3, hidden_size=24, num_attention_heads=3, linear_head_dim=12,
            caption_channels=7, ffn_type="mlp", k_conv_only=False, conv_kernel_size=3, qk_norm=False,
            cross_norm=False, y_norm=False, use_chunk_plucker_post_attn=False, pred_sigma=True, patch_size=[1, 2, 2],
            mlp_ratio=2.5, softmax_every_n=0)),
        ("p2", "perturbed: no feed-forward, no short convs, plucker projections in the first 2 of 4 blocks, no rope, "
         "patch [1, 1, 2]", dict(
            in_channels=6, num_layers=4, hidden_size=16, num_attention_heads=4, linear_head_dim=4,
            caption_channels=9, ffn_type="none", conv_kernel_size=0, chunk_plucker_post_attn_blocks=2,
            chunk_plucker_channels=10, use_pe=False, patch_size=[1, 1, 2], softmax_every_n=3)),
        ("p3", "perturbed: temporal kernel 5, mlp_ratio 1.5, plucker in every block (-1), patch [1, 2, 1], "
         "pred_sigma, conv kernel 2 on q/k/v, softmax every 2nd block", dict(
            in_channels=3, num_layers=3, hidden_size=40, num_attention_heads=5, linear_head_dim=20,
            caption_channels=11, t_kernel_size=5, mlp_ratio=1.5, chunk_plucker_post_attn_blocks=-1,
            chunk_plucker_channels=4, patch_size=[1, 2, 1], pred_sigma=True, conv_kernel_size=2,
            k_conv_only=False, softmax_every_n=2)),
    ],
    "AutoencoderKLMiniMaxH3Audio": [
        ("default", "default", {}),
        ("h3", "real: MiniMax-H3 audio VAE as released (MiniMaxAI; DAC encoder 64-wide with hop 800, 2048-wide trunk, "
         "32 latent channels, BigVGAN decoder 1024 wide: the class defaults, documented as the released checkpoint)", {
            "encoder_dim": 64, "encoder_rates": [2, 4, 4, 5, 5], "latent_dim": 2048, "latent_channels": 32,
            "num_attention_heads": 8, "decoder_dim": 1024, "decoder_rates": [5, 5, 2, 2, 2, 2, 2],
            "decoder_kernel_sizes": [9, 9, 4, 4, 4, 4, 4], "resblock_kernel_sizes": [3, 7, 11],
            "resblock_dilation_sizes": [[1, 3, 5], [1, 3, 5], [1, 3, 5]], "sampling_rate": 32000}),
        ("small", "perturbed: small sizes", {
            "encoder_dim": 2, "encoder_rates": [2, 2], "latent_dim": 8, "latent_channels": 4,
            "num_attention_heads": 2, "decoder_dim": 16, "decoder_rates": [2, 2], "decoder_kernel_sizes": [4, 4],
            "resblock_kernel_sizes": [3, 5], "resblock_dilation_sizes": [[1, 3], [1, 3]]}),
        ("p1", "perturbed: one encoder stage, three decoder stages, one AMP block with four dilations, odd widths", {
            "encoder_dim": 3, "encoder_rates": [8], "latent_dim": 12, "latent_channels": 3,
            "num_attention_heads": 3, "decoder_dim": 24, "decoder_rates": [2, 2, 2], "decoder_kernel_sizes": [4, 5, 6],
            "resblock_kernel_sizes": [7], "resblock_dilation_sizes": [[1, 2, 3, 4]]}),
        ("p2", "perturbed: three encoder stages, two decoder stages, AMP blocks with unequal dilation counts", {
            "encoder_dim": 1, "encoder_rates": [3, 2, 2], "latent_dim": 10, "latent_channels": 5,
            "num_attention_heads": 1, "decoder_dim": 20, "decoder_rates": [6, 2], "decoder_kernel_sizes": [12, 4],
            "resblock_kernel_sizes": [3, 5, 9], "resblock_dilation_sizes": [[1], [2, 4], [1, 3, 9]],
            "sampling_rate": 16000}),
    ],
    "AutoencoderRAE": [
        ("default", "default", {}),
        ("dinov2-vitxl", "real: nyu-visionx RAE-dinov2-wReg-base-ViTXL-n08 (DINOv2-with-registers base encoder, "
         "ViT-XL decoder 1152 wide, 28 layers, 16 heads, MLP 4096, patch 16, 224 encoder input; rebuilt from the RAE "
         "repo's ViT-XL decoder sizes and the release name (n08: noise_tau 0.8), no diffusers config.json read)", {
            "decoder_hidden_size": 1152, "decoder_num_hidden_layers": 28, "decoder_num_attention_heads": 16,
            "decoder_intermediate_size": 4096, "noise_tau": 0.8}),
        ("mae-vitxl", "real: nyu-visionx RAE-mae-base-p16-ViTXL-n08 (ViT-MAE base encoder, ViT-XL decoder)", {
            "encoder_type": "mae", "encoder_patch_size": 16, "decoder_hidden_size": 1152,
            "decoder_num_hidden_layers": 28, "decoder_num_attention_heads": 16, "decoder_intermediate_size": 4096}),
        ("small", "perturbed: small sizes", {
            "encoder_hidden_size": 64, "encoder_patch_size": 4, "encoder_num_hidden_layers": 1, "encoder_input_size": 16,
            "decoder_hidden_size": 32, "decoder_num_hidden_layers": 1, "decoder_num_attention_heads": 2,
            "decoder_intermediate_size": 40, "patch_size": 2}),
        ("p1", "perturbed: dinov2 encoder, odd depths, 4 channels, latent stats, explicit image_size (siglip2 "
         "cannot build under transformers 5: SiglipVisionModel has no vision_model)", {
            "image_size": 15, "encoder_hidden_size": 128, "encoder_patch_size": 8, "encoder_num_hidden_layers": 3,
            "encoder_input_size": 24, "decoder_hidden_size": 48, "decoder_num_hidden_layers": 2,
            "decoder_num_attention_heads": 3, "decoder_intermediate_size": 100, "patch_size": 5, "num_channels": 4,
            "latents_mean": [0.0] * 128, "latents_std": [1.0] * 128}),
        ("p2", "perturbed: mae encoder, one decoder layer wider than the encoder", {
            "encoder_type": "mae", "encoder_hidden_size": 64, "encoder_patch_size": 2, "encoder_num_hidden_layers": 2,
            "encoder_input_size": 8, "decoder_hidden_size": 96, "decoder_num_hidden_layers": 1,
            "decoder_num_attention_heads": 4, "decoder_intermediate_size": 30, "patch_size": 3}),
    ],
    "AutoencoderVidTok": [
        ("default", "default", {}),
        ("kl-causal-488-4chn", "real: microsoft/VidTok vidtok_kl_causal_488_4chn (the class defaults)", {}),
        ("kl-causal-488-16chn", "real: microsoft/VidTok vidtok_kl_causal_488_16chn (16 latent channels)", {
            "z_channels": 16}),
        ("kl-noncausal-488-4chn", "real: microsoft/VidTok vidtok_kl_noncausal_488_4chn (plain convolutions)", {
            "is_causal": False}),
        ("small", "perturbed: small sizes", {
            "ch": 8, "ch_mult": [1, 2], "num_res_blocks": 1, "z_channels": 2}),
        ("p1", "perturbed: five levels, explicit spatial / temporal down and up lists, non-causal, 4 in / 2 out "
         "channels, single z", {
            "in_channels": 4, "out_channels": 2, "ch": 4, "ch_mult": [1, 2, 3, 3, 5], "num_res_blocks": 3,
            "z_channels": 3, "double_z": False, "spatial_ds": [0, 2, 3], "tempo_ds": [1, 3],
            "spatial_us": [1, 2, 4], "tempo_us": [2], "is_causal": False}),
        ("p2", "perturbed: causal, narrowing channel multiples, one res block, temporal downsampling at a level "
         "without spatial downsampling (not built), upsampling lists (the FSQ releases cannot build on the meta "
         "device: FSQRegularizer calls Tensor.item())", {
            "ch": 6, "ch_mult": [2, 1, 3], "num_res_blocks": 1, "z_channels": 5, "spatial_ds": [1],
            "tempo_ds": [0, 1], "spatial_us": [0, 2], "tempo_us": [0, 1, 2]}),
    ],
    "AutoencoderSAME": [
        ("default", "default", {}),
        ("same-s", "real: stabilityai/SAME-S as released (the class defaults, documented as SAME-S)", {}),
        ("same-l", "real: stabilityai/SAME-L (Stable Audio 3 Medium's autoencoder) as the class docstring loads it: "
         "256 channels, 12 transformer layers, 8 trailing sinusoidal decoder layers", {
            "encoder_channels": 256, "encoder_transformer_depths": [12], "decoder_sinusoidal_blocks": [8]}),
        ("small", "perturbed: small sizes", {
            "patch_size": 4, "encoder_channels": 8, "encoder_c_mults": [2], "encoder_strides": [2],
            "encoder_transformer_depths": [1], "latent_dim": 4, "dim_heads": 8}),
        ("p1", "perturbed: three levels (two keep their width: no mapping conv), unequal depths, head dim above the "
         "width, mono, sinusoidal blocks per level", {
            "audio_channels": 1, "patch_size": 8, "encoder_channels": 4, "encoder_c_mults": [2, 2, 5],
            "encoder_strides": [2, 3, 2], "encoder_transformer_depths": [2, 1, 3], "latent_dim": 6, "dim_heads": 16,
            "encoder_sinusoidal_blocks": [1, 0, 2], "decoder_sinusoidal_blocks": [0, 1, 1]}),
        ("p2", "perturbed: plain (non-differential) attention, ff_mult 4, two levels narrowing then widening", {
            "audio_channels": 3, "patch_size": 2, "encoder_channels": 5, "encoder_c_mults": [3, 1],
            "encoder_strides": [4, 2], "encoder_transformer_depths": [1, 2], "latent_dim": 7, "dim_heads": 5,
            "use_differential_attention": False, "ff_mult": 4, "sliding_window": 2, "sampling_rate": 48000}),
    ],
    "AutoencoderKLKVAE": [
        ("default", "default", {}),
        ("kvae-2d-1.0", "release: kandinskylab/KVAE-2D-1.0 (diffusers/ subfolder; 8x8 spatial compression, 16 latent channels per its model card: the class defaults, config.json not seen)", dict(
            in_channels=3, channels=128, num_enc_blocks=2, num_dec_blocks=2, z_channels=16, double_z=True,
            ch_mult=[1, 2, 4, 8], sample_size=1024)),
        ("small", "perturbed: small sizes", dict(channels=32, ch_mult=[1, 2], num_enc_blocks=1, num_dec_blocks=1,
                                                 z_channels=4, sample_size=64)),
        ("p1", "perturbed: per-level encoder block list, three decoder blocks, no double_z, 4 input channels",
         dict(channels=32, ch_mult=[1, 3, 2], num_enc_blocks=[1, 2, 3], num_dec_blocks=3, z_channels=8,
              double_z=False, in_channels=4, sample_size=64)),
        ("p2", "perturbed: one level, wider first level, no decoder extra blocks, 1 input channel",
         dict(channels=64, ch_mult=[2], num_enc_blocks=2, num_dec_blocks=0, z_channels=5, in_channels=1,
              sample_size=64)),
    ],
    "AutoencoderKLKVAEAudio": [
        ("default", "default", {}),
        ("kvae-audio", "release: kandinskylab/KVAE-Audio (48 kHz mono, 64 latent channels; the class defaults, whose 166,871,218 parameters match the published 166.9M)", dict(
            encoder_dim=64, encoder_rates=[2, 3, 4, 5, 8], latent_dim=2048, codebook_dim=64, decoder_dim=1536,
            decoder_rates=[8, 5, 4, 3, 2], sample_rate=48000, num_channels=1, attn_num_heads=8)),
        ("small", "perturbed: small sizes", dict(encoder_dim=4, encoder_rates=[2, 3], latent_dim=16, codebook_dim=4,
                                                 decoder_dim=16, decoder_rates=[3, 2], attn_num_heads=2)),
        ("p1", "perturbed: one encoder stride, three decoder strides, stereo, widths halving 24 -> 3", dict(
            encoder_dim=6, encoder_rates=[5], latent_dim=12, codebook_dim=3, decoder_dim=24,
            decoder_rates=[2, 2, 4], num_channels=2, attn_num_heads=3)),
        ("p2", "perturbed: four encoder strides incl. unit ones, odd decoder width (floor halving), 3 channels", dict(
            encoder_dim=3, encoder_rates=[1, 2, 1, 3], latent_dim=10, codebook_dim=7, decoder_dim=9,
            decoder_rates=[3, 1], num_channels=3, attn_num_heads=5, sample_rate=16000)),
    ],
    "AutoencoderKLKVAEVideo": [
        ("default", "default", {}),
        ("kvae-3d-1.0", "release: kandinskylab/KVAE-3D-1.0 (diffusers/ subfolder; 4x8x8 compression, 16 latent channels per its model card: the class defaults, config.json not seen)", dict(
            ch=128, ch_mult=[1, 2, 4, 8], num_res_blocks=2, in_channels=3, out_ch=3, z_channels=16,
            temporal_compress_times=4)),
        ("small", "perturbed: small sizes", dict(ch=32, ch_mult=[1, 2], num_res_blocks=1, z_channels=4,
                                                 temporal_compress_times=2)),
        ("p1", "perturbed: three levels, no temporal compression, 3 res blocks, in/out channels differ",
         dict(ch=32, ch_mult=[1, 3, 2], num_res_blocks=3, z_channels=8, in_channels=4, out_ch=2,
              temporal_compress_times=1)),
        ("p2", "perturbed: four levels, temporal compression 8 (every downsampler), one res block",
         dict(ch=32, ch_mult=[2, 1, 2, 3], num_res_blocks=1, z_channels=6, temporal_compress_times=8)),
    ],
    "AnyFlowTransformer3DModel": [
        ("default", "default", {}),
        ("t2v-14b", "release: nvidia/AnyFlow-Wan2.1-T2V-14B-Diffusers (the Wan2.1 T2V 14B sizes, the class defaults; "
         "its config.json was not seen)", dict(num_attention_heads=40, attention_head_dim=128, ffn_dim=13824,
                                                 num_layers=40, in_channels=16, out_channels=16, text_dim=4096)),
        ("small", "perturbed: small sizes", dict(num_attention_heads=2, attention_head_dim=8, text_dim=12,
                                                 freq_dim=16, ffn_dim=24, num_layers=2, in_channels=4,
                                                 out_channels=4)),
        ("p1", "perturbed: image embedder, no cross-attention norm, odd patch, out_channels differs, t-r delta", dict(
            num_attention_heads=3, attention_head_dim=4, text_dim=10, freq_dim=8, ffn_dim=20, num_layers=3,
            in_channels=6, out_channels=5, image_dim=14, cross_attn_norm=False, patch_size=[2, 1, 3],
            deltatime_type="t-r", gate_value=0.5)),
        ("p2", "perturbed: out_channels null (the input width), one layer", dict(
            num_attention_heads=4, attention_head_dim=2, text_dim=7, freq_dim=6, ffn_dim=9, num_layers=1,
            in_channels=5, out_channels=None)),
    ],
    "AnyFlowFARTransformer3DModel": [
        ("default", "default", {}),
        ("far-1.3b", "release: nvidia/AnyFlow-FAR-Wan2.1-1.3B-Diffusers (the Wan2.1 T2V 1.3B sizes; its config.json "
         "was not seen)", dict(num_attention_heads=12, attention_head_dim=128, ffn_dim=8960, num_layers=30,
                               in_channels=16, out_channels=16, text_dim=4096)),
        ("small", "perturbed: small sizes", dict(num_attention_heads=2, attention_head_dim=8, text_dim=12,
                                                 freq_dim=16, ffn_dim=24, num_layers=2, in_channels=4,
                                                 out_channels=4)),
        ("p1", "perturbed: image embedder, no cross-attention norm, other compressed patch, out_channels differs",
         dict(num_attention_heads=3, attention_head_dim=4, text_dim=10, freq_dim=8, ffn_dim=20, num_layers=3,
              in_channels=6, out_channels=5, image_dim=14, cross_attn_norm=False, patch_size=[1, 1, 2],
              compressed_patch_size=[2, 3, 2], full_chunk_limit=2, chunk_partition=[2, 2, 1])),
        ("p2", "perturbed: out_channels null (the input width), one layer, compressed patch 1x2x2", dict(
            num_attention_heads=4, attention_head_dim=2, text_dim=7, freq_dim=6, ffn_dim=9, num_layers=1,
            in_channels=5, out_channels=None, patch_size=[1, 1, 1], compressed_patch_size=[1, 2, 2])),
    ],
    "TransformerTemporalModel": [
        ("default", "default (with the required key in_channels 320: the class default None cannot build its "
         "GroupNorm)", dict(in_channels=320)),
        ("modelscope_in", "perturbed: ModelScope text-to-video-ms-1.7b's transformer_in as UNet3DConditionModel "
         "builds it (8 heads of attention_head_dim 64 over block_out_channels[0] 320, one layer)",
         dict(num_attention_heads=8, attention_head_dim=64, in_channels=320, num_layers=1, norm_num_groups=32)),
        ("modelscope_temp", "perturbed: a ModelScope text-to-video-ms-1.7b temp_attentions module at 640 channels "
         "as CrossAttnDownBlock3D builds it (10 heads of 64, cross_attention_dim 1024 but double self-attention)",
         dict(num_attention_heads=10, attention_head_dim=64, in_channels=640, num_layers=1,
              cross_attention_dim=1024, norm_num_groups=32)),
        ("small", "perturbed: small sizes, two layers", dict(
            num_attention_heads=2, attention_head_dim=8, in_channels=32, num_layers=2, norm_num_groups=8)),
        ("p1", "perturbed: cross-attention (no double self-attention), qkv bias, gelu, no affine norms, "
         "out_channels set (unused)", dict(
             num_attention_heads=3, attention_head_dim=8, in_channels=12, out_channels=16, num_layers=3,
             norm_num_groups=4, cross_attention_dim=20, double_self_attention=False, attention_bias=True,
             activation_fn="gelu", norm_elementwise_affine=False)),
        ("p2", "perturbed: sinusoidal positional embeddings (persistent pe buffer), single attention, "
         "geglu-approximate", dict(
             num_attention_heads=3, attention_head_dim=6, in_channels=12, num_layers=2, norm_num_groups=4,
             double_self_attention=False, positional_embeddings="sinusoidal", num_positional_embeddings=24,
             activation_fn="geglu-approximate")),
        ("p3", "perturbed: swiglu, double self-attention with a cross_attention_dim set, qkv bias, sinusoidal "
         "positions", dict(
             num_attention_heads=4, attention_head_dim=6, in_channels=16, num_layers=1, norm_num_groups=2,
             cross_attention_dim=40, attention_bias=True, activation_fn="swiglu",
             positional_embeddings="sinusoidal", num_positional_embeddings=7)),
        ("p4", "perturbed: linear-silu, cross-attention (no double self-attention), four layers", dict(
             num_attention_heads=2, attention_head_dim=7, in_channels=6, num_layers=4, norm_num_groups=3,
             cross_attention_dim=9, double_self_attention=False, activation_fn="linear-silu")),
        ("p5", "perturbed: gelu-approximate, no layers at all", dict(
             num_attention_heads=2, attention_head_dim=4, in_channels=10, num_layers=0, norm_num_groups=5,
             activation_fn="gelu-approximate")),
    ],
    "UniDiffuserModel": [
        ("default", "default (with the required keys sample_size 64, patch_size 2, in_channels 4 and out_channels 4: "
         "the class defaults None cannot build)", dict(sample_size=64, patch_size=2, in_channels=4, out_channels=4)),
        ("v1", "perturbed: thu-ml/unidiffuser-v1 unet (scripts/convert_unidiffuser_to_diffusers.py big config with "
         "--version 1: data type embedding)", dict(
             text_dim=64, clip_img_dim=512, num_text_tokens=77, num_attention_heads=24, attention_head_dim=64,
             in_channels=4, out_channels=4, num_layers=30, dropout=0.0, norm_num_groups=32, attention_bias=False,
             sample_size=64, patch_size=2, activation_fn="gelu", num_embeds_ada_norm=1000, norm_type="layer_norm",
             block_type="unidiffuser", pre_layer_norm=False, use_timestep_embedding=False,
             norm_elementwise_affine=True, use_patch_pos_embed=False, ff_final_dropout=True,
             use_data_type_embedding=True)),
        ("v0", "perturbed: UniDiffuser-v0 (the convert script's big config with --version 0: no data type "
         "embedding)", dict(
             text_dim=64, clip_img_dim=512, num_text_tokens=77, num_attention_heads=24, attention_head_dim=64,
             in_channels=4, out_channels=4, num_layers=30, sample_size=64, patch_size=2, activation_fn="gelu",
             num_embeds_ada_norm=1000, norm_type="layer_norm", ff_final_dropout=True,
             use_data_type_embedding=False)),
        ("small", "perturbed: small sizes (the convert script's test config)", dict(
            text_dim=32, clip_img_dim=32, num_text_tokens=77, num_attention_heads=2, attention_head_dim=8,
            in_channels=4, out_channels=4, num_layers=2, sample_size=16, patch_size=2, activation_fn="gelu",
            num_embeds_ada_norm=1000, norm_type="layer_norm")),
        ("p1", "perturbed: timestep embeddings, UTransformerBlock with pre-LayerNorm, qkv bias, cross-attention, "
         "geglu, odd layer count, out_channels differs, no affine norms, patch position buffer (not saved)", dict(
             text_dim=12, clip_img_dim=10, num_text_tokens=5, num_attention_heads=3, attention_head_dim=4,
             in_channels=4, out_channels=6, num_layers=5, sample_size=16, patch_size=4, activation_fn="geglu",
             block_type="utransformer", pre_layer_norm=True, attention_bias=True, cross_attention_dim=24,
             use_timestep_embedding=True, norm_elementwise_affine=False, use_patch_pos_embed=True)),
        ("p2", "perturbed: ada_norm (AdaLayerNorm per block), only-cross-attention, swiglu, data type embedding",
         dict(text_dim=6, clip_img_dim=9, num_text_tokens=3, num_attention_heads=2, attention_head_dim=5,
              in_channels=3, out_channels=3, num_layers=4, sample_size=8, patch_size=2, activation_fn="swiglu",
              norm_type="ada_norm", num_embeds_ada_norm=10, cross_attention_dim=14, only_cross_attention=True,
              use_data_type_embedding=True)),
        ("p3", "perturbed: ada_norm_zero (plain LayerNorms in these blocks), geglu-approximate, 3 layers, "
         "UTransformerBlock", dict(
             text_dim=8, clip_img_dim=5, num_text_tokens=2, num_attention_heads=2, attention_head_dim=3,
             in_channels=2, out_channels=5, num_layers=3, sample_size=6, patch_size=3,
             activation_fn="geglu-approximate", norm_type="ada_norm_zero", num_embeds_ada_norm=7,
             block_type="utransformer", use_timestep_embedding=True)),
        ("p4", "perturbed: ada_norm with cross-attention (AdaLayerNorm norm2 too), linear-silu, qkv bias, "
         "patch size 1", dict(
             text_dim=4, clip_img_dim=4, num_text_tokens=1, num_attention_heads=1, attention_head_dim=8,
             in_channels=1, out_channels=2, num_layers=6, sample_size=4, patch_size=1, activation_fn="linear-silu",
             norm_type="ada_norm", num_embeds_ada_norm=5, cross_attention_dim=3, attention_bias=True)),
    ],
    "DreamLiteTransformer2DModel": [
        ("default", "default (with the required key in_channels 32: the class default None raises)",
         dict(in_channels=32)),
        ("unet-1280", "release-derived: the 1280-channel stage DreamLiteUNetModel builds at its class defaults (as "
         "carlofkl/DreamLite-base: 64 heads of 20, cross-attention 2048, rms_norm qk, one kv head, ff_mult 6; "
         "not a component of its own)", dict(
             num_attention_heads=64, attention_head_dim=20, in_channels=1280, cross_attention_dim=2048,
             qk_norm="rms_norm", num_kv_heads=1, ff_mult=6)),
        ("no-self-attn", "release-derived: the 640-channel no-self-attention stage of DreamLiteUNetModel's defaults",
         dict(num_attention_heads=64, attention_head_dim=10, in_channels=640, cross_attention_dim=2048,
              qk_norm="rms_norm", num_kv_heads=1, ff_mult=6, use_self_attention=False)),
        ("small", "perturbed: small sizes", dict(num_attention_heads=2, attention_head_dim=8, in_channels=8,
                                                 norm_num_groups=4, cross_attention_dim=12, num_layers=2)),
        ("p1", "perturbed: linear projection, out_channels, gelu, attention bias, layer_norm qk, GQA, no self-attn",
         dict(num_attention_heads=4, attention_head_dim=3, in_channels=6, out_channels=5, norm_num_groups=3,
              cross_attention_dim=7, num_layers=3, use_linear_projection=True, activation_fn="gelu",
              attention_bias=True, qk_norm="layer_norm", num_kv_heads=2, ff_mult=3, use_self_attention=False)),
        ("p2", "perturbed: no cross-attention, no norm affine, geglu-approximate, rms_norm_across_heads, mult 1",
         dict(num_attention_heads=3, attention_head_dim=4, in_channels=4, norm_num_groups=2, num_layers=1,
              norm_elementwise_affine=False, activation_fn="geglu-approximate", qk_norm="rms_norm_across_heads",
              num_kv_heads=1, ff_mult=1)),
        ("p3", "perturbed: double self-attention, only_cross_attention, swiglu, layer_norm_across_heads", dict(
            num_attention_heads=2, attention_head_dim=5, in_channels=6, norm_num_groups=2, num_layers=2,
            cross_attention_dim=9, double_self_attention=True, only_cross_attention=True, activation_fn="swiglu",
            qk_norm="layer_norm_across_heads", num_kv_heads=2, ff_mult=2)),
    ],
    "AutoencoderKLWan": [
        ("default", "default", {}),
        ("wan2.2", "perturbed: Wan2.2 TI2V 5B VAE config (residual, patch 2, 48 latent channels)", dict(
            base_dim=160, decoder_base_dim=256, z_dim=48, is_residual=True, patch_size=2,
            in_channels=12, out_channels=12, scale_factor_spatial=16,
            latents_mean=[0.0] * 48, latents_std=[1.0] * 48)),
        ("small", "perturbed: small sizes", dict(base_dim=8, z_dim=4, dim_mult=[1, 2], num_res_blocks=1,
                                                 temperal_downsample=[True], latents_mean=[0.0] * 4,
                                                 latents_std=[1.0] * 4)),
        ("p1", "perturbed: attention scales, three res blocks", dict(
            base_dim=12, z_dim=6, dim_mult=[1, 2, 3], num_res_blocks=3, attn_scales=[0.5],
            temperal_downsample=[False, True], latents_mean=[0.0] * 6, latents_std=[1.0] * 6)),
        ("p2", "perturbed: three levels, three res blocks, decoder_base_dim, temporal downsampling first", dict(
            base_dim=8, decoder_base_dim=12, z_dim=5, dim_mult=[1, 3, 2], num_res_blocks=3,
            temperal_downsample=[True, False], in_channels=4, out_channels=2, latents_mean=[0.0] * 5,
            latents_std=[1.0] * 5)),
        ("p3", "perturbed: four levels, one res block, no temporal downsampling", dict(
            base_dim=4, z_dim=3, dim_mult=[2, 2, 4, 1], num_res_blocks=1, temperal_downsample=[False, False, False],
            latents_mean=[0.0] * 3, latents_std=[1.0] * 3)),
        ("p4", "perturbed: attention at scales 1 and 1/4 (two attention levels shift the flat list), four levels",
         dict(base_dim=4, z_dim=3, dim_mult=[1, 2, 2, 1], num_res_blocks=2, attn_scales=[1.0, 0.25],
              temperal_downsample=[True, False, True], latents_mean=[0.0] * 3, latents_std=[1.0] * 3)),
        ("r1", "perturbed: Wan2.2-style residual VAE, small sizes, temporal downsampling first", dict(
            base_dim=8, z_dim=4, dim_mult=[1, 2, 2], num_res_blocks=1, temperal_downsample=[True, False],
            is_residual=True, latents_mean=[0.0] * 4, latents_std=[1.0] * 4)),
        ("r2", "perturbed: residual VAE, patch 2, wider decoder, two res blocks, temporal downsampling last", dict(
            base_dim=4, decoder_base_dim=16, z_dim=3, dim_mult=[1, 2, 2], num_res_blocks=2,
            temperal_downsample=[False, True], is_residual=True, patch_size=2, in_channels=12, out_channels=12,
            latents_mean=[0.0] * 3, latents_std=[1.0] * 3)),
    ],
}

# AutoencoderKLHunyuanImageRefiner takes AutoencoderKLHunyuanVideo15's arguments and defaults (the default is
# hunyuanvideo-community/HunyuanImage-2.1-Refiner-Diffusers' vae: the conversion script builds it with no arguments)
CASES["AutoencoderKLHunyuanImageRefiner"] = CASES["AutoencoderKLHunyuanVideo15"]
# JoyImageEditPlusTransformer3DModel: JoyImageEditTransformer3DModel's arguments, defaults and tensors (only its forward
# differs); its release is the same TRANSFORMER_CONFIG in diffusers' JoyImage conversion recipe
CASES["JoyImageEditPlusTransformer3DModel"] = [
    ("joyai-image-edit-plus", "real: jdopensource/JoyAI-Image-Edit-Plus-Diffusers transformer config (the "
     "JoyAI-Image-Edit layout: one TRANSFORMER_CONFIG in diffusers' JoyImage conversion recipe)", overrides)
    if name == "joyai-image-edit" else (name, variant, overrides)
    for name, variant, overrides in CASES["JoyImageEditTransformer3DModel"]]
# SanaWMLTX2RefinerTransformer3DModel is LTX2VideoTransformer3DModel's __init__ verbatim (same arguments, defaults and
# tensors): LTX-2's cases (the SANA-WM_bidirectional-diffusers refiner/transformer config itself was not found)
CASES["SanaWMLTX2RefinerTransformer3DModel"] = [
    (name, variant if name == "default" else f"{variant} (as SANA-WM's refiner, which loads LTX-2's configs unchanged)",
     overrides) for name, variant, overrides in CASES["LTX2VideoTransformer3DModel"]]

DTYPES = {"float32": "F32", "float16": "F16", "bfloat16": "BF16", "float64": "F64", "int64": "I64", "int32": "I32",
          "uint8": "U8", "bool": "BOOL", "int8": "I8"}


def _st_dtype(dtype: Any) -> str:
    return DTYPES[str(dtype).replace("torch.", "")]


def record(model: Any, tmp: str) -> list[tuple[str, str, list[int]]]:
    """Run the real save_pretrained with the safetensors writer replaced by a recorder."""
    import safetensors.torch

    written: list[tuple[str, str, list[int]]] = []
    original = safetensors.torch.save_file

    def recorder(tensors: dict[str, Any], filename: str, metadata: Any = None) -> None:
        written.extend((n, _st_dtype(t.dtype), list(t.shape)) for n, t in tensors.items())

    safetensors.torch.save_file = recorder
    try:
        model.save_pretrained(tmp, max_shard_size="1000GB")
    finally:
        safetensors.torch.save_file = original
    return written


def dump(cls_name: str, case: str, variant: str, overrides: dict[str, Any]) -> None:
    import diffusers
    import torch

    cls = getattr(diffusers, cls_name)
    dest = OUT / cls_name / f"{cls_name}-{case}"
    with torch.device("meta"):
        model = cls(**overrides)
    params = {n for n, _ in model.named_parameters()}
    with tempfile.TemporaryDirectory() as tmp:
        layout = record(model, tmp)
        config = json.loads(Path(tmp, "config.json").read_text())
    names = [n for n, _, _ in layout]
    buffers = [n for n in names if n not in params]
    parameters = model.num_parameters()
    elements = sum(math.prod(s) for _, _, s in layout)
    notes = []
    non_persistent = sorted(n for n, _ in model.named_buffers() if n not in set(names))
    if non_persistent:
        notes.append(f"non-persistent buffers (not saved): {', '.join(non_persistent[:8])}"
                     + (" ..." if len(non_persistent) > 8 else ""))
    if elements <= VERIFY_LIMIT:
        notes.append(verify(cls, overrides, layout, config))
    else:
        notes.append("meta only (too large to build for real here)")
    assert elements - sum(math.prod(s) for n, _, s in layout if n in buffers) == parameters, (cls_name, case)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    (dest / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    (dest / "layout.json.gz").write_bytes(gzip.compress(json.dumps(
        {"class": cls_name, "produced_by": f"diffusers {diffusers.__version__}, torch {torch.__version__}",
         "tensors": layout}).encode(), mtime=0))
    truth = {"class": cls_name, "parameters": parameters, "persistent_buffers": buffers, "tied_dropped": [],
             "variant": variant, "notes": "; ".join(notes)}
    (dest / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    print(f"{cls_name}-{case}: {len(layout)} tensors, {parameters:,} parameters", flush=True)


def verify(cls: Any, overrides: dict[str, Any], layout: list[tuple[str, str, list[int]]],
           config: dict[str, Any]) -> str:
    """Build for real on CPU, save for real, and compare the headers and config.json with the recording."""
    import torch
    from safetensors import safe_open

    torch.manual_seed(0)
    model = cls(**overrides)
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        real_config = json.loads(Path(tmp, "config.json").read_text())
        real = []
        for f in sorted(Path(tmp).glob("*.safetensors")):
            with safe_open(str(f), "pt") as h:
                for n in h.keys():
                    s = h.get_slice(n)
                    real.append((n, s.get_dtype(), list(s.get_shape())))
    if sorted(real) != sorted(layout) or real_config != config:
        raise SystemExit(f"{cls.__name__}: the real save differs from the recording")
    return "Real CPU save_pretrained cross-check: verified"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated class names")
    args = parser.parse_args(argv)
    only = {c for c in args.only.split(",") if c}
    for cls_name, cases in CASES.items():
        if only and cls_name not in only:
            continue
        for case, variant, overrides in cases:
            try:
                dump(cls_name, case, variant, overrides)
            except SystemExit:
                raise
            except Exception as e:  # noqa: BLE001 - report and go on: the list says what could not be built
                print(f"{cls_name}-{case}: cannot build: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
