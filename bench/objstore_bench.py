"""Object-store benchmark: an 8B sharded model on an S3 stand-in, requests and bytes against its header bytes.

Meta-Llama-3-8B as released (its real index: fixtures/Meta-Llama-3-8B.model.safetensors.index.json, 4 shards,
16 GB; tensors from transformers' layout dump) is built header-only (tests/support/build.py: the data region is
a sparse hole) and served as ``s3://models/meta-llama/Meta-Llama-3-8B`` by the folder-backed S3 stand-in
(tests/support/s3files.py: moto's reads, without moto's whole-object reads; tests/test_support_s3files.py checks
they match), with 50 ms added to every request. ``st-audit audit`` runs in a subprocess through the real s3fs
client, as a user runs it; requests and body bytes are counted at the server.

Target (issue 31): bytes received for the shards <= 1.1x the sum of their headers (8 + N each).

Run: ``python bench/objstore_bench.py`` (``--latency``, ``--strict``: exit 1 when the target is missed).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: the repository root, for tests.support
    sys.path.insert(0, str(ROOT))

INDEX = ROOT / "fixtures" / "Meta-Llama-3-8B.model.safetensors.index.json"
LAYOUT = "meta-llama__Meta-Llama-3-8B"
KEY = "meta-llama/Meta-Llama-3-8B"


def build_model(bucket: Path) -> Path:
    """The release's files, header-only: its index's weight_map decides which shard holds which tensor."""
    from tests.support import build

    layout = build.load_layout(LAYOUT)
    index = json.loads(INDEX.read_text())
    folder = build.build_checkpoint(
        bucket / KEY,
        [tuple(t) for t in layout["tensors"]],
        config=build.load_config(layout["config_file"]),
        weight_map=index["weight_map"],
    )
    built = json.loads((folder / "model.safetensors.index.json").read_text())["metadata"]["total_size"]
    assert built == index["metadata"]["total_size"], (built, index["metadata"]["total_size"])  # the release's bytes
    return folder


def header_sizes(folder: Path) -> dict[str, int]:
    sizes = {}
    for shard in sorted(folder.glob("*.safetensors")):
        with open(shard, "rb") as f:
            sizes[shard.name] = 8 + int.from_bytes(f.read(8), "little")
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05, help="seconds added to every request")
    parser.add_argument("--strict", action="store_true", help="exit 1 when the target is missed")
    args = parser.parse_args(argv)
    from tests.support.s3files import S3Files

    with tempfile.TemporaryDirectory(prefix="st-audit-s3bench-") as tmp:
        bucket = Path(tmp) / "bucket"
        folder = build_model(bucket)
        headers = header_sizes(folder)
        with S3Files(bucket, bucket="models", latency=args.latency) as s3:
            started = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "auditor", "audit", f"s3://models/{KEY}", "-f", "json"],
                capture_output=True,
                text=True,
                env=s3.env(),
                timeout=600,
            )
            wall = time.perf_counter() - started
            reads = s3.requests
    if proc.returncode != 0 or not proc.stdout:
        print(f"objstore bench: st-audit failed (exit {proc.returncode}): {proc.stderr.strip()}")
        return 1
    report = json.loads(proc.stdout)
    shard_reads = [r for r in reads if r.path.endswith(".safetensors")]
    shard_bytes = sum(r.body_bytes for r in shard_reads)
    header_total = sum(headers.values())
    total_bytes = sum(r.body_bytes for r in reads)
    ratio = shard_bytes / header_total
    print(
        f"object store (S3 stand-in, {args.latency * 1000:.0f} ms per request): Meta-Llama-3-8B, "
        f"{len(headers)} shards, {report['totals']['parameters']:,} parameters, verdict {report['verdict']}"
    )
    print(
        f"  st-audit audit s3://...: {wall:.2f} s wall (CLI, Python start-up and s3fs import included), "
        f"{len(reads)} requests ({sum(r.method == 'HEAD' for r in reads)} HEAD), {total_bytes:,} bytes received"
    )
    print(
        f"  shard headers: {len(shard_reads)} ranged reads, {shard_bytes:,} bytes received for {header_total:,} "
        f"header bytes = {ratio:.3f}x (target <= 1.1x: {'met' if ratio <= 1.1 else 'NOT met'})"
    )
    print(
        f"  client counted {report['source']['http']['requests']} reads / {report['source']['http']['bytes']:,} "
        "bytes (listing bodies not counted)"
    )
    return 1 if args.strict and ratio > 1.1 else 0


if __name__ == "__main__":
    sys.exit(main())
