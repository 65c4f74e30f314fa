"""Dump folders written by the real tools: a diffusers pipeline, a sentence-transformers model, a diffusers LoRA.

DEV-ONLY TOOL (like tools/dump_peft.py): run with /work/devenv/bin/python (torch 2.13 CPU, transformers 5.23,
diffusers 0.42, sentence-transformers 6.2, peft 0.21). Each case builds tiny random models on CPU, lets the
library save them (``save_pretrained`` with and without ``variant="fp16"``, ``SentenceTransformer.save``,
``save_lora_weights``), and keeps what was written: every JSON file verbatim and, for every safetensors file,
its tensor names, dtypes and shapes. ``fixtures/kinds/<case>.json.gz``; tests rebuild the folders header-only.

    /work/devenv/bin/python tools/dump_kinds.py [--only CASE ...]
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
    unet = UNet2DConditionModel(block_out_channels=(8, 16), layers_per_block=1, sample_size=16, in_channels=4,
                                out_channels=4, down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                                up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"), cross_attention_dim=12,
                                norm_num_groups=4, attention_head_dim=2)
    vae = AutoencoderKL(block_out_channels=(8, 16), in_channels=3, out_channels=3, latent_channels=4,
                        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
                        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"), norm_num_groups=4)
    text = CLIPTextModel(CLIPTextConfig(hidden_size=12, intermediate_size=24, num_hidden_layers=2,
                                        num_attention_heads=2, vocab_size=100, max_position_embeddings=16))
    pipe = StableDiffusionPipeline(unet=unet, vae=vae, text_encoder=text, tokenizer=None, scheduler=DDIMScheduler(),
                                   safety_checker=None, feature_extractor=None, requires_safety_checker=False)
    pipe.save_pretrained(tmp)
    pipe.to(torch.float16).save_pretrained(tmp, variant="fp16")


def _sentence_transformers(tmp: str) -> None:
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as base:
        BertModel(BertConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2,
                             vocab_size=50, max_position_embeddings=32)).save_pretrained(base)
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
    unet = UNet2DConditionModel(block_out_channels=(8, 16), layers_per_block=1, sample_size=16, in_channels=4,
                                out_channels=4, down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                                up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"), cross_attention_dim=12,
                                norm_num_groups=4, attention_head_dim=2)
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
    unet = UNet2DConditionModel(block_out_channels=(8, 16), layers_per_block=1, sample_size=16, in_channels=4,
                                out_channels=4, down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                                up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"), cross_attention_dim=12,
                                norm_num_groups=4, attention_head_dim=2)
    unet.add_adapter(LoraConfig(r=4, lora_alpha=8, target_modules=["to_k", "to_q", "to_v", "to_out.0"]))
    peft_sd = {f"unet.{k}": v for k, v in get_peft_model_state_dict(unet).items()}
    kohya = convert_state_dict_to_kohya(peft_sd)
    save_file({k: v.contiguous() for k, v in kohya.items()}, f"{tmp}/kohya_lora.safetensors")


CASES = {"tiny-sd-pipeline": _tiny_sd, "tiny-kohya-lora": _kohya_lora, "tiny-sentence-transformers": _sentence_transformers,
         "tiny-diffusers-lora": _diffusers_lora}


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
        CASES[case](tmp)
        files: dict[str, object] = {}
        for root, _, names in os.walk(tmp):
            for name in names:
                path = Path(root, name)
                rel = path.relative_to(tmp).as_posix()
                if name.endswith(".safetensors"):
                    files[rel] = {"tensors": _header(path)}
                elif name.endswith(".json"):
                    files[rel] = {"json": json.loads(path.read_text())}
    return {"case": case, "versions": {"diffusers": diffusers.__version__, "transformers": transformers.__version__,
                                       "sentence_transformers": sentence_transformers.__version__},
            "files": dict(sorted(files.items()))}


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
