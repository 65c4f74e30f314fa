"""Parts that are not a model of their own: PEFT adapters, LoRA files, sentence-transformers modules, single-file diffusion checkpoints."""
