"""Dump ground-truth PEFT adapter layouts written by the real PEFT library.

DEV-ONLY TOOL. torch, transformers and peft are NOT runtime or test dependencies of st-audit: this script
runs in a separate virtualenv (a dev venv, $DEVENV: torch 2.13 CPU, transformers 5.23, peft 0.21) and
its output, ``fixtures/peft/*.json.gz``, is committed. Each case builds a tiny random base model on CPU,
wraps it with ``get_peft_model`` under one adapter config, calls ``save_pretrained`` and keeps what PEFT
wrote: ``adapter_config.json`` verbatim, the header of ``adapter_model.safetensors`` (names, dtypes, shapes;
no data), the base model's ``config.json`` and its parameter count. Tests rebuild header-only adapters from
these dumps; nothing is generated from st-audit's own code.

    $DEVENV/bin/python tools/dump_peft.py [--only CASE ...]
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import struct
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "peft"

TINY = {  # small but not degenerate: distinct sizes so transposed shapes would show
    "llama": dict(
        hidden_size=64,
        intermediate_size=160,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=256,
        max_position_embeddings=128,
    ),
    "qwen2": dict(
        hidden_size=64,
        intermediate_size=144,
        num_hidden_layers=3,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=300,
        max_position_embeddings=128,
        tie_word_embeddings=True,
    ),
    "gemma": dict(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=1,
        head_dim=32,
        vocab_size=256,
        max_position_embeddings=128,
    ),
    "gpt2": dict(n_embd=48, n_layer=2, n_head=4, vocab_size=200, n_positions=64),
    "bert": dict(
        hidden_size=48,
        intermediate_size=96,
        num_hidden_layers=2,
        num_attention_heads=4,
        vocab_size=200,
        max_position_embeddings=64,
    ),
    "t5": dict(d_model=48, d_ff=96, num_layers=2, num_decoder_layers=2, num_heads=4, d_kv=12, vocab_size=200),
}

# case -> (base family, transformers auto class, peft config class, kwargs)
CASES: dict[str, tuple[str, str, str, dict]] = {
    "llama-qv": (
        "llama",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(task_type="CAUSAL_LM", r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"]),
    ),
    "llama-all-linear-rank-pattern": (
        "llama",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(
            task_type="CAUSAL_LM",
            r=8,
            target_modules="all-linear",
            rank_pattern={"q_proj": 4, "model.layers.1.mlp.down_proj": 2},
            alpha_pattern={"v_proj": 32},
        ),
    ),
    "llama-dora-rslora": (
        "llama",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(
            task_type="CAUSAL_LM",
            r=4,
            use_dora=True,
            use_rslora=True,
            target_modules=["q_proj", "k_proj", "o_proj", "gate_proj"],
        ),
    ),
    "llama-embedding-head": (
        "llama",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(task_type="CAUSAL_LM", r=4, target_modules=["embed_tokens", "lm_head", "v_proj"]),
    ),
    "llama-bias-lora-only-save-head": (
        "llama",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(
            task_type="CAUSAL_LM",
            r=6,
            bias="lora_only",
            target_modules=["q_proj", "up_proj"],
            modules_to_save=["lm_head"],
        ),
    ),
    "llama-bias-all": (
        "llama",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(task_type="CAUSAL_LM", r=2, bias="all", target_modules=["o_proj"]),
    ),
    "llama-seq-cls": (
        "llama",
        "AutoModelForSequenceClassification",
        "LoraConfig",
        dict(task_type="SEQ_CLS", r=8, target_modules=["q_proj", "v_proj"]),
    ),
    "qwen2-regex": (
        "qwen2",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(task_type="CAUSAL_LM", r=8, target_modules=r".*mlp\.(gate|up)_proj"),
    ),
    "qwen2-layers-to-transform": (
        "qwen2",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(task_type="CAUSAL_LM", r=8, target_modules=["k_proj", "down_proj"], layers_to_transform=[0, 2]),
    ),
    "qwen2-tied-embedding": (
        "qwen2",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(task_type="CAUSAL_LM", r=4, target_modules=["embed_tokens", "q_proj"]),
    ),
    "gemma-default-targets": ("gemma", "AutoModelForCausalLM", "LoraConfig", dict(task_type="CAUSAL_LM", r=16)),
    "gpt2-fan-in-fan-out": (
        "gpt2",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(task_type="CAUSAL_LM", r=8, target_modules=["c_attn", "c_proj"], fan_in_fan_out=True),
    ),
    "gpt2-seq-cls": (
        "gpt2",
        "AutoModelForSequenceClassification",
        "LoraConfig",
        dict(task_type="SEQ_CLS", r=4, target_modules=["c_attn"], fan_in_fan_out=True),
    ),
    "gpt2-bias-lora-only": (
        "gpt2",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(task_type="CAUSAL_LM", r=4, bias="lora_only", target_modules=["c_attn"]),
    ),
    "gpt2-bias-all": (
        "gpt2",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(task_type="CAUSAL_LM", r=4, bias="all", target_modules=["c_fc"]),
    ),
    "llama-all-linear-literal": (
        "llama",
        "AutoModelForCausalLM",
        "LoraConfig",
        dict(task_type="CAUSAL_LM", r=2, target_modules="all-linear"),
    ),
    "bert-seq-cls": (
        "bert",
        "AutoModelForSequenceClassification",
        "LoraConfig",
        dict(task_type="SEQ_CLS", r=8, target_modules=["query", "value"]),
    ),
    "bert-bias-lora-only": (
        "bert",
        "AutoModelForSequenceClassification",
        "LoraConfig",
        dict(task_type="SEQ_CLS", r=4, bias="lora_only", target_modules=["query", "key", "dense"]),
    ),
    "bert-bias-all-mlm": (
        "bert",
        "AutoModelForMaskedLM",
        "LoraConfig",
        dict(r=4, bias="all", target_modules=["value"], modules_to_save=["decoder"]),
    ),
    "t5-seq2seq": ("t5", "AutoModelForSeq2SeqLM", "LoraConfig", dict(task_type="SEQ_2_SEQ_LM", r=8)),
    "llama-loha": (
        "llama",
        "AutoModelForCausalLM",
        "LoHaConfig",
        dict(task_type="CAUSAL_LM", r=4, target_modules=["q_proj", "v_proj"]),
    ),
    "llama-lokr": (
        "llama",
        "AutoModelForCausalLM",
        "LoKrConfig",
        dict(task_type="CAUSAL_LM", r=4, target_modules=["q_proj", "v_proj"]),
    ),
    "llama-prompt-tuning": (
        "llama",
        "AutoModelForCausalLM",
        "PromptTuningConfig",
        dict(task_type="CAUSAL_LM", num_virtual_tokens=10),
    ),
    "llama-prefix-tuning": (
        "llama",
        "AutoModelForCausalLM",
        "PrefixTuningConfig",
        dict(task_type="CAUSAL_LM", num_virtual_tokens=6),
    ),
}


def read_header(path: Path) -> dict:
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    return header


def dump(case: str) -> dict:
    import peft
    import torch
    import transformers

    family, auto, peft_cls, kwargs = CASES[case]
    torch.manual_seed(0)
    config = transformers.AutoConfig.for_model(family, **TINY[family])
    if auto == "AutoModelForSequenceClassification":
        config.num_labels = 3
        config.pad_token_id = 0
    model = getattr(transformers, auto).from_config(config)
    base_parameters = sum(p.numel() for p in model.parameters())
    with tempfile.TemporaryDirectory() as tmp:
        model.config.save_pretrained(tmp + "/base")
        base_config = json.loads(Path(tmp, "base", "config.json").read_text())
        peft_model = peft.get_peft_model(model, getattr(peft, peft_cls)(**kwargs))
        peft_model.save_pretrained(tmp + "/adapter")
        adapter_config = json.loads(Path(tmp, "adapter", "adapter_config.json").read_text())
        header = read_header(Path(tmp, "adapter", "adapter_model.safetensors"))
    meta = header.pop("__metadata__", None)
    tensors = [[name, h["dtype"], h["shape"]] for name, h in sorted(header.items())]
    return {
        "case": case,
        "family": family,
        "auto_class": auto,
        "peft_config_class": peft_cls,
        "versions": {"peft": peft.__version__, "transformers": transformers.__version__, "torch": torch.__version__},
        "base_config": base_config,
        "base_parameters": base_parameters,
        "adapter_config": adapter_config,
        "metadata": meta,
        "tensors": tensors,
        "adapter_parameters": sum(_prod(s) for _, _, s in tensors),
    }


def _prod(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def write(case: str, doc: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9, filename="") as gz:
        gz.write(json.dumps(doc, indent=1, sort_keys=True).encode())
    (OUT / f"{case}.json.gz").write_bytes(buf.getvalue())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    for case in args.only or CASES:
        doc = dump(case)
        write(case, doc)
        print(
            f"{case}: {len(doc['tensors'])} tensors, {doc['adapter_parameters']:,} adapter parameters "
            f"on a {doc['base_parameters']:,}-parameter {doc['family']}",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
