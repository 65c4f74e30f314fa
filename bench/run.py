"""`make bench`: st-audit vs its peers, measured side by side in one run (not a timed test).

Local: the DeepSeek-V3 FP8 layout (163 shards, 91,991 tensors) built header-only, audited by
`st-audit audit DIR --format json`, against safetensors' `safe_open` listing every tensor's name, dtype and
shape, and against `huggingface_hub.get_local_safetensors_metadata`. Each contender is a fresh Python
process (interpreter start-up included for all), run interleaved several times; medians of wall time and
the peak resident memory of the process are printed, with ratios.
Hub: bench/hub_bench.py (a DeepSeek-V3-shaped repo behind the local Hub stand-in, 50 ms per request).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "work"
sys.path.insert(0, str(ROOT))  # run as a script: the repository root, for tests.support
ROUNDS = 5

SAFE_OPEN = """
import sys, pathlib
from safetensors import safe_open
n = 0
for p in sorted(pathlib.Path(sys.argv[1]).glob("*.safetensors")):
    with safe_open(str(p), framework="numpy") as f:
        for k in f.keys():
            s = f.get_slice(k)
            n += bool((k, s.get_dtype(), s.get_shape()))
print(n)
"""
# What any single-process Python audit must do per tensor, and nothing else: read each header and the index, parse
# them with the fastest decoder measured (orjson), check each tensor's byte extent against its dtype and shape, and
# group its name by module template with one regex split (the fastest per-name grouping measured). No reconciliation,
# no report, no package imports. Its ratio is a floor for the targets: an audit that also explains what it finds
# cannot be faster in one Python process.
FLOOR = r"""
import os, re, struct, sys
from array import array
import orjson
SIZES = {"F8_E4M3": 1, "F8_E5M2": 1, "BF16": 2, "F16": 2, "F32": 4, "F64": 8, "I8": 1, "U8": 1, "I32": 4, "I64": 8}
split = re.compile(r"\.(0|[1-9][0-9]*)(?=\.)").split
d = sys.argv[1]
groups = {}
n = 0
for f in sorted(os.listdir(d)):
    if f.endswith(".index.json"):
        with open(os.path.join(d, f), "rb") as fh:
            orjson.loads(fh.read())
    if not f.endswith(".safetensors"):
        continue
    with open(os.path.join(d, f), "rb") as fh:
        header = orjson.loads(fh.read(struct.unpack("<Q", fh.read(8))[0]))
    header.pop("__metadata__", None)
    starts = []
    for name, t in header.items():
        shape, (a, b), dtype = t["shape"], t["data_offsets"], t["dtype"]
        e = SIZES[dtype]
        for s in shape:
            e *= s
        if e != b - a:
            sys.exit(f"{f}: {name}: bad extent")
        starts.append(a)
        parts = split(f".{name}.")
        key = (".{}".join(parts[0::2])[1:-1] if len(parts) > 1 else name, dtype, tuple(shape))
        g = groups.get(key)
        if g is None:
            g = groups[key] = (array("q"), [])
        g[0].extend(map(int, parts[1::2]))
        g[1].append(name)
    starts.sort()
    n += len(header)
print(n, len(groups))
os._exit(0)
"""
HF_LOCAL = """
import sys
from huggingface_hub import get_local_safetensors_metadata
m = get_local_safetensors_metadata(sys.argv[1])
print(sum(len(f.tensors) for f in m.files_metadata.values()))
"""


def build_deepseek(directory: Path) -> Path:
    marker = directory / "model.safetensors.index.json"
    if marker.exists():
        return directory
    try:
        from tests.support.realistic import deepseek_v3_fp8
    except ImportError:  # pragma: no cover - the FP8 builder ships with the MoE fixtures
        from tests.support.build import build_layout

        return build_layout(directory, "deepseek-ai__DeepSeek-V3", shards=163)
    return deepseek_v3_fp8(directory)


def run(cmd: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (bytes) and stdout of one process.

    Linux counts a child's peak from before its exec, when it was a copy of this process: so the measuring
    process must stay small, and checkpoints are built in a child of their own (``--build``)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss * 1024, out.decode()[:200]


def main() -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    ckpt = WORK / "DeepSeek-V3"
    if "--build" in sys.argv:
        build_deepseek(ckpt)
        return
    py = sys.executable
    subprocess.run([py, __file__, "--build"], check=True)  # see run(): this process stays small
    st_audit = str(Path(py).parent / "st-audit")
    contenders = {
        "st-audit audit --format json": [st_audit, "audit", str(ckpt), "--format", "json", "--quiet"],
        "safetensors safe_open (list)": [py, "-c", SAFE_OPEN, str(ckpt)],
        "hf get_local_safetensors_metadata": [py, "-c", HF_LOCAL, str(ckpt)],
        "floor: Python read+parse+check+group": [py, "-c", FLOOR, str(ckpt)],
    }
    results: dict[str, list[tuple[float, int]]] = {k: [] for k in contenders}
    for _ in range(ROUNDS):
        for name, cmd in contenders.items():
            wall, rss, _ = run(cmd)
            results[name].append((wall, rss))
    base = statistics.median(w for w, _ in results["safetensors safe_open (list)"])
    print(f"Local audit of the DeepSeek-V3 FP8 layout ({ckpt}), median of {ROUNDS} interleaved runs")
    print(f"{'contender':38} {'wall s':>8} {'vs safe_open':>13} {'peak MiB':>9}")
    for name, rows in results.items():
        wall = statistics.median(w for w, _ in rows)
        peak = max(r for _, r in rows) / 2**20
        print(f"{name:38} {wall:8.3f} {wall / base:12.2f}x {peak:9.1f}")
    ours = statistics.median(w for w, _ in results["st-audit audit --format json"])
    peak = max(r for _, r in results["st-audit audit --format json"]) / 2**20
    print(
        f"targets (issue 14): st-audit <= 1.5x safe_open wall ({ours / base:.2f}x: "
        f"{'met' if ours <= 1.5 * base else 'NOT met'}; then 1.0x), peak < 150 MiB ({peak:.0f} MiB: "
        f"{'met' if peak < 150 else 'NOT met'})"
    )
    floor = statistics.median(w for w, _ in results["floor: Python read+parse+check+group"])
    print(
        f"floor of any one-process Python audit (headers and index read, parsed, extents checked, names grouped; "
        f"nothing reconciled or reported): {floor / base:.2f}x safe_open"
    )
    print()
    hub = ROOT / "bench" / "hub_bench.py"
    if hub.exists():
        subprocess.run([py, str(hub)], check=False)


if __name__ == "__main__":
    main()
