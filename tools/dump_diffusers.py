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
        ("k22", "perturbed: Kandinsky 2.2-style simple cross-attention blocks (outside the formula: structural check)",
         dict(block_out_channels=[8, 16], layers_per_block=1, sample_size=16, cross_attention_dim=12,
              norm_num_groups=4, attention_head_dim=4, encoder_hid_dim=14, encoder_hid_dim_type="image_proj",
              addition_embed_type="image", resnet_time_scale_shift="scale_shift",
              down_block_types=["ResnetDownsampleBlock2D", "SimpleCrossAttnDownBlock2D"],
              mid_block_type="UNetMidBlock2DSimpleCrossAttn",
              up_block_types=["SimpleCrossAttnUpBlock2D", "ResnetUpsampleBlock2D"])),
        ("p8", "perturbed: text addition embedding from the cross-attention width (no encoder_hid_dim)",
         dict(UNET_SMALL, addition_embed_type="text", addition_embed_type_num_heads=3, time_embedding_dim=24)),
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
    # no spec claims these: they must get the structural check without a false alarm
    "AutoencoderTiny": [
        ("default", "default (TAESD)", {}),
        ("taesdxl-like", "perturbed: 16 latent channels, narrower decoder", dict(
            latent_channels=16, decoder_block_out_channels=[32, 32, 32, 32], num_decoder_blocks=[2, 2, 2, 1])),
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
