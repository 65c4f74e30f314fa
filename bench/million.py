"""`make bench`, scale part: a DeepSeek-V3-shaped checkpoint grown to ~250k and ~1,000,000 tensors in 500 and
2,000 shards (the same MoE layer repeated: more layers, same shapes), header-only, audited side by side with
safetensors' `safe_open` listing. Shows that time grows linearly with the tensor count and that no fixed cap
(index size, tensor budget) fails a healthy checkpoint this large.

Targets (issue 14): at 1,000,000 tensors, st-audit <= 3x safe_open's listing and peak memory < 600 MiB; the audit
passes (exit 0). Each contender is a fresh process, interleaved; medians of ``BENCH_ROUNDS`` (default 3).

Run: ``python bench/million.py`` (``--sizes 250000,1000000``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "work"
sys.path.insert(0, str(ROOT))  # run as a script: the repository root, for tests.support
sys.path.insert(0, str(ROOT / "bench"))

from run import FLOOR, SAFE_OPEN, run  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
PER_SHARD = 500  # tensors per shard, as in the 1M-tensor / 2,000-shard checkpoint


def build(directory: Path, target: int) -> tuple[Path, int, int]:
    """DeepSeek-V3 (FP8, MTP) with its last MoE layer repeated until ~``target`` tensors; (dir, tensors, shards)."""
    from tests.support import build as fb
    from tests.support.realistic import deepseek_mtp_layer, fp8_block_quantize

    layout = fb.load_layout("deepseek-ai__DeepSeek-V3")
    config = dict(fb.load_config(layout["config_file"]))
    base = [(n, d, list(s)) for n, d, s in layout["tensors"]]
    layers = config["num_hidden_layers"]
    src = f"model.layers.{layers - 1}."
    template = [(n[len(src) :], d, s) for n, d, s in base if n.startswith(src)]
    per_layer = 2 * len(template)  # weights + their FP8 scale_inv, roughly
    extra = max(0, (target - 92_000) // per_layer)
    grown = base + [
        (f"model.layers.{layer}.{n}", d, s) for layer in range(layers, layers + extra) for n, d, s in template
    ]
    config["num_hidden_layers"] = layers + extra
    mtp = deepseek_mtp_layer(layers + extra, layers + extra - 1, grown, config["hidden_size"], config["vocab_size"])
    tensors = fp8_block_quantize(grown + mtp, tuple(config["quantization_config"]["weight_block_size"]))
    shards = max(1, len(tensors) // PER_SHARD)
    marker = directory / "model.safetensors.index.json"
    if not marker.exists():
        parts = fb.shard(tensors, shards)
        weight_map = {
            t[0]: f"model-{i + 1:05d}-of-{len(parts):05d}.safetensors" for i, part in enumerate(parts) for t in part
        }
        fb.build_checkpoint(directory, tensors, config=config, weight_map=weight_map)
    return directory, len(tensors), shards


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="250000,1000000")
    parser.add_argument("--build", type=int, help="only build the checkpoint of this size; print its counts")
    args = parser.parse_args(argv)
    if args.build:
        _, count, shards = build(WORK / f"scale-{args.build}", args.build)
        print(json.dumps([count, shards]))
        return
    py = sys.executable
    st_audit = str(Path(py).parent / "st-audit")
    rows = []
    for target in (int(s) for s in args.sizes.split(",")):
        # built in a child: a child's peak memory includes this process's at fork time (see run.run)
        built = subprocess.run([py, __file__, "--build", str(target)], capture_output=True, text=True, check=True)
        count, shards = json.loads(built.stdout.splitlines()[-1])
        ckpt = WORK / f"scale-{target}"
        ours, theirs, floor, codes = [], [], [], set()
        for _ in range(ROUNDS):
            wall, rss, out = run([st_audit, "audit", str(ckpt), "--format", "summary", "--quiet"])
            ours.append((wall, rss))
            codes.add(out.split(":")[0])
            theirs.append(run([py, "-c", SAFE_OPEN, str(ckpt)])[:2])
            floor.append(run([py, "-c", FLOOR, str(ckpt)])[0])
        rows.append(
            (
                count,
                shards,
                statistics.median(w for w, _ in ours),
                max(r for _, r in ours) / 2**20,
                statistics.median(w for w, _ in theirs),
                max(r for _, r in theirs) / 2**20,
                statistics.median(floor),
                codes,
            )
        )
    print(f"Scale: DeepSeek-V3 layout grown to more layers, median of {ROUNDS} interleaved runs")
    print(
        f"{'tensors':>10} {'shards':>7} {'st-audit s':>11} {'peak MiB':>9} {'safe_open s':>12} {'peak MiB':>9} "
        f"{'ratio':>6}  {'st-audit per 100k':>18}  {'floor':>6}  verdict"
    )
    for count, shards, ours_w, ours_m, theirs_w, theirs_m, floor_w, codes in rows:
        print(
            f"{count:>10,} {shards:>7,} {ours_w:>11.2f} {ours_m:>9.0f} {theirs_w:>12.2f} {theirs_m:>9.0f} "
            f"{ours_w / theirs_w:>5.2f}x  {ours_w / count * 1e5:>16.2f} s  {floor_w / theirs_w:>5.2f}x  "
            f"{'/'.join(sorted(codes))}"
        )
    print("floor: any one-process Python audit's share of the work (bench/run.py's FLOOR), vs safe_open")
    count, _, ours_w, ours_m, theirs_w, _, _, codes = rows[-1]
    print(
        f"targets at {count:,} tensors: <= 3x safe_open ({ours_w / theirs_w:.2f}x: "
        f"{'met' if ours_w <= 3 * theirs_w else 'NOT met'}), < 600 MiB ({ours_m:.0f} MiB: "
        f"{'met' if ours_m < 600 else 'NOT met'}), healthy checkpoint passes ({'/'.join(sorted(codes))}: "
        f"{'met' if codes == {'PASS'} else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
