"""`make bench`, content part: `st-audit verify` against the hashing floor and its peers, side by side in one run.

The checkpoint is TinyLlama-1.1B's layout (fixtures/layouts, dumped from transformers) filled with real random
BF16 data (finite values) and written by the safetensors library: one 2.2 GB `model.safetensors`, as that repo
ships it, then the same model as 4 shards (where `--jobs` can hash files in parallel). Each is laid out as a
Hugging Face cache (blobs named by sha256, a snapshot of symlinks, refs/main) so that `hf cache verify` can
check it against the local Hub stand-in, which lists the real digests. Contenders, each a fresh process
(start-up included), interleaved, page cache warm:

- floor: Python's hashlib.sha256 over the same files in one thread (every byte must be hashed: the floor);
- `sha256sum` (coreutils);
- `hf cache verify` (huggingface_hub CLI: hashes and compares with the Hub's listing);
- `st-audit verify SNAPSHOT` (header audit + sha256 of every file compared with the blob names + NaN/Inf/zero/
  duplicate/tied checks on every tensor), default `--jobs` (the core count), and with `--jobs 1`.

Targets (issue 12): st-audit <= 1.3x the floor, below both peers, peak memory < 300 MiB.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "work" / "verify"
sys.path.insert(0, str(ROOT))  # run as a script: the repository root, for tests.support
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
REPO = "bench/tinyllama"
LAYOUT = "TinyLlama__TinyLlama-1.1B-Chat-v1.0"
SHARDS = 4  # the second run: the same model saved as 4 shards + index (as a 1 GB max_shard_size would)

FLOOR = """
import hashlib, sys, pathlib
buf = bytearray(1 << 20); view = memoryview(buf)  # 1 MiB: hashlib's fastest buffer here (8 MiB: +25% CPU)
for p in sys.argv[1:]:
    h = hashlib.sha256()
    with open(p, "rb", buffering=0) as f:
        while n := f.readinto(buf):
            h.update(view[:n])
    print(h.hexdigest(), p)
"""


def build(cache: Path, repo: str, shards: int) -> tuple[Path, dict[str, tuple[Path, str]]]:
    """The fake cache of ``repo`` (built once); returns the snapshot and {file: (blob path, sha256)}."""
    from tests.support.hubstub import fake_commit

    commit = fake_commit(repo)
    folder = cache / ("models--" + repo.replace("/", "--"))
    snapshot = folder / "snapshots" / commit
    manifest = folder / "bench-manifest.json"
    if manifest.exists():
        files: dict[str, tuple[Path, str]] = {k: (Path(p), d) for k, (p, d) in json.loads(manifest.read_text()).items()}
        return snapshot, files
    import numpy as np
    from safetensors import TensorSpec, serialize_file

    from tests.support.build import load_config, load_layout, shard

    layout = load_layout(LAYOUT)
    (folder / "blobs").mkdir(parents=True, exist_ok=True)
    snapshot.mkdir(parents=True, exist_ok=True)
    (folder / "refs").mkdir(exist_ok=True)
    (folder / "refs" / "main").write_text(commit)
    rng = np.random.default_rng(12)
    parts = shard(layout["tensors"], shards) if shards > 1 else [layout["tensors"]]
    names = (
        ["model.safetensors"]
        if shards == 1
        else [f"model-{i + 1:05d}-of-{len(parts):05d}.safetensors" for i in range(len(parts))]
    )
    contents: list[tuple[str, Path | bytes]] = []
    weight_map, total = {}, 0
    for name, part in zip(names, parts, strict=True):
        # random BF16 bit patterns with the top exponent bit cleared: every value finite, |x| < 2
        arrays = {t: rng.integers(0, 1 << 16, size=shape, dtype=np.uint16) & np.uint16(0xBFFF) for t, _, shape in part}
        tmp = folder / "blobs" / f"{name}.tmp"
        specs = {
            t: TensorSpec(dtype="bfloat16", shape=a.shape, data_ptr=a.ctypes.data, data_len=a.nbytes)
            for t, a in arrays.items()
        }
        serialize_file(specs, str(tmp), metadata={"format": "pt"})
        total += sum(a.nbytes for a in arrays.values())
        weight_map.update(dict.fromkeys(arrays, name))
        del arrays, specs
        contents.append((name, tmp))
    contents.append(("config.json", (json.dumps(load_config(layout["config_file"]), indent=2) + "\n").encode()))
    if shards > 1:
        index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
        contents.append(("model.safetensors.index.json", (json.dumps(index, indent=2) + "\n").encode()))
    files = {}
    for name, content in contents:
        digest = _sha256(content) if isinstance(content, Path) else hashlib.sha256(content).hexdigest()
        blob = folder / "blobs" / digest
        if isinstance(content, Path):
            os.replace(content, blob)
        else:
            blob.write_bytes(content)
        link = snapshot / name
        if link.is_symlink():
            link.unlink()
        link.symlink_to(os.path.relpath(blob, snapshot))
        files[name] = (blob, digest)
    manifest.write_text(json.dumps({k: [str(p), d] for k, (p, d) in files.items()}))
    return snapshot, files


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(8 << 20):
            h.update(block)
    return h.hexdigest()


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int, int, str]:
    """Wall seconds, CPU seconds, peak RSS (bytes), exit code and the end of stderr of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return (
        wall,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss * 1024,
        os.waitstatus_to_exitcode(status),
        err.decode(errors="replace")[-300:],
    )


def bench(repo: str, shards: int) -> None:
    from tests.support.hubstub import HubStub, RepoFile

    cache = WORK / "hub"
    if not (cache / ("models--" + repo.replace("/", "--")) / "bench-manifest.json").exists():
        # built in a child: a child process inherits its parent's peak RSS, which would then read 2 GB for all
        subprocess.run([sys.executable, __file__, "--build", repo, str(shards)], check=True)
    snapshot, files = build(cache, repo, shards)
    total = sum(p.stat().st_size for p, _ in files.values())
    py = sys.executable
    bindir = Path(py).parent
    paths = [str(snapshot / name) for name in sorted(files)]
    for p in paths:  # warm the page cache
        _sha256(Path(p))
    with HubStub() as hub:
        hub.add_repo(repo, {name: RepoFile(path=blob, sha256=digest) for name, (blob, digest) in files.items()})
        env = hub.hf_env(WORK / "home")
        env["HF_HUB_CACHE"] = str(cache)
        contenders = {
            "hashlib floor (1 thread)": [py, "-c", FLOOR, *paths],
            "sha256sum": ["sha256sum", *paths],
            "hf cache verify": [str(bindir / "hf"), "cache", "verify", repo],
            "st-audit verify": [str(bindir / "st-audit"), "verify", str(snapshot), "--format", "json", "-q"],
            "st-audit verify --jobs 1": [
                str(bindir / "st-audit"),
                "verify",
                str(snapshot),
                "--format",
                "json",
                "-q",
                "--jobs",
                "1",
            ],
        }
        results: dict[str, list[tuple[float, int]]] = {k: [] for k in contenders}
        cpu: dict[str, list[float]] = {k: [] for k in contenders}
        for _ in range(ROUNDS):
            for name, cmd in contenders.items():
                wall, seconds, rss, code, err = run(cmd, env)
                if code != 0:
                    print(f"{name} exited {code}: {err}")
                results[name].append((wall, rss))
                cpu[name].append(seconds)
    floor = statistics.median(w for w, _ in results["hashlib floor (1 thread)"])
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"Verify {total / 1e9:.2f} GB in {len(files)} files ({LAYOUT} layout, random BF16, "
        f"{'one model.safetensors' if shards == 1 else f'{shards} shards'}, page cache warm), {cores} cores, "
        f"load {os.getloadavg()[0]:.1f}; median of {ROUNDS} interleaved runs"
    )
    print(f"{'contender':28} {'wall s':>8} {'GB/s':>7} {'vs floor':>9} {'CPU s':>7} {'peak MiB':>9}")
    for name, rows in results.items():
        wall = statistics.median(w for w, _ in rows)
        peak = max(r for _, r in rows) / 2**20
        print(
            f"{name:28} {wall:8.2f} {total / wall / 1e9:7.2f} {wall / floor:8.2f}x "
            f"{statistics.median(cpu[name]):7.2f} {peak:9.1f}"
        )
    ours = statistics.median(w for w, _ in results["st-audit verify"])
    peers = min(statistics.median(w for w, _ in results[k]) for k in ("sha256sum", "hf cache verify"))
    peak = max(r for _, r in results["st-audit verify"]) / 2**20
    print(
        f"targets: <= 1.3x floor ({ours / floor:.2f}x: {'met' if ours <= 1.3 * floor else 'NOT met'}), "
        f"below both peers ({ours:.2f} s vs {peers:.2f} s: {'met' if ours < peers else 'NOT met'}), "
        f"peak < 300 MiB ({peak:.0f} MiB: {'met' if peak < 300 else 'NOT met'})"
    )
    print()


def main() -> None:
    bench(REPO, 1)
    bench(REPO + "-sharded", SHARDS)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--build"]:
        build(WORK / "hub", sys.argv[2], int(sys.argv[3]))
    else:
        main()
