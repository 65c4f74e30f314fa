"""Checkpoint sources: a local directory or file, or a Hugging Face Hub repo (headers over HTTP ranges)."""
