"""What a target is (transformers model, PEFT adapter, diffusers pipeline, ...) and its parts, decided from file names and small manifests before any header is read."""
