"""Checkpoints holding real values, written by the safetensors library itself from numpy bit patterns (the tests
of ``verify`` and of content in locks and diffs): transformers' tiny tied Qwen2 layout filled with random BF16."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from safetensors import TensorSpec, serialize_file

from .build import load_config, load_layout

LAYOUT = "tiny-qwen2-tied"
NUMPY_DTYPES = {
    "BF16": "bfloat16",
    "F16": "float16",
    "F32": "float32",
    "F64": "float64",
    "F8_E4M3": "float8_e4m3fn",
    "F8_E5M2": "float8_e5m2",
    "F8_E4M3FNUZ": "float8_e4m3fnuz",
    "F8_E5M2FNUZ": "float8_e5m2fnuz",
    "F8_E8M0": "float8_e8m0fnu",
    "I32": "int32",
}


def bf16(values: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (the upper half of each float32, as torch truncates)."""
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def write(
    directory: Path,
    arrays: dict[str, tuple[str, np.ndarray]],
    config: dict | None,
    file_name: str = "model.safetensors",
) -> Path:
    """Write ``{name: (dtype, bit-pattern array)}`` with the safetensors library itself."""
    directory.mkdir(parents=True, exist_ok=True)
    specs = {
        name: TensorSpec(dtype=NUMPY_DTYPES[dtype], shape=a.shape, data_ptr=a.ctypes.data, data_len=a.nbytes)
        for name, (dtype, a) in arrays.items()
    }
    serialize_file(specs, str(directory / file_name), metadata={"format": "pt"})
    if config is not None:
        (directory / "config.json").write_text(json.dumps(config))
    return directory


def tiny_arrays(seed: int = 0) -> dict[str, tuple[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return {
        name: ("BF16", bf16(rng.standard_normal(shape) * 0.02)) for name, dtype, shape in load_layout(LAYOUT)["tensors"]
    }


def config() -> dict:
    return load_config(load_layout(LAYOUT)["config_file"])


def flip_byte(path: Path, offset_from_end: int = 1000) -> None:
    """Change one low-order mantissa byte near the end of the data: a different file, still finite values."""
    size = path.stat().st_size
    with open(path, "r+b") as f:
        pos = size - offset_from_end
        pos -= pos % 2  # BF16 little-endian: the even byte holds the low mantissa bits
        f.seek(pos)
        b = f.read(1)
        f.seek(pos)
        f.write(bytes([b[0] ^ 0x01]))


def write_sharded(
    directory: Path, arrays: dict[str, tuple[str, np.ndarray]], config: dict | None, shards: int = 2
) -> Path:
    """As ``save_pretrained`` with a small ``max_shard_size``: ``model-0000k-of-0000n.safetensors`` in order, each
    written by the safetensors library, and ``model.safetensors.index.json`` (total_size: the tensor bytes)."""
    names = list(arrays)
    per = -(-len(names) // shards)
    weight_map: dict[str, str] = {}
    for k in range(shards):
        file_name = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: arrays[n] for n in names[k * per : (k + 1) * per]}
        write(directory, part, config if k == 0 else None, file_name=file_name)
        weight_map.update(dict.fromkeys(part, file_name))
    total = sum(a.nbytes for _, a in arrays.values())
    (directory / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2)
    )
    return directory


def lfs_pointer(path: Path) -> None:
    """Replace ``path`` by the pointer file Git LFS leaves in a checkout that did not fetch it (``lfs: false`` in CI,
    ``GIT_LFS_SKIP_SMUDGE=1``): the pointer format of the Git LFS specification (spec/v1: version, oid, size)."""
    import hashlib

    data = path.read_bytes()
    path.write_text(
        f"version https://git-lfs.github.com/spec/v1\noid sha256:{hashlib.sha256(data).hexdigest()}\nsize {len(data)}\n"
    )
