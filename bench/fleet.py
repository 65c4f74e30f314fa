"""Fleet benchmark (issue 31): many targets in one run, side by side with the one-at-a-time run of the same list.

1. ``--repos`` Hub repos (a Qwen3-0.6B layout, header-only) on the stand-in Hub (tests/support/hubstub.py) with
   ``--latency`` added to every request, listed as ``hf://bench``: ``st-audit audit hf://bench -f jsonl --jobs 1``
   (one repo at a time, as st-audit ran several targets before fleets) against the default (``--jobs`` 16 here, one
   process per core), and against the ideal (requests x latency / targets in flight). Goal: >= 8x faster than one
   at a time.
2. Peak memory of a fleet run against its length: ``--memory-targets`` local targets (one small model folder under
   that many names) against a tenth of them. Goal: flat, < 300 MiB in the largest process.

Every run is the ``st-audit`` command in a fresh process (interpreter start-up, imports and the Hub listing
included), with no header cache. Run: ``python bench/fleet.py`` (``--repos``, ``--latency``, ``--memory-targets``,
``--strict``: exit 1 when a goal is missed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: the repository root, for tests.support
    sys.path.insert(0, str(ROOT))


def _run(args: list[str], env: dict[str, str]) -> tuple[float, int, dict[str, Any]]:
    """Wall seconds, exit code and summary line of one ``st-audit audit`` run."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "auditor", "audit", *args, "-q"], env=env, capture_output=True, text=True, timeout=3600
    )
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"bench/fleet.py: st-audit exited {proc.returncode}: {proc.stderr[-500:]}")
    last = [line for line in proc.stdout.splitlines() if line.startswith('{"schema_version":1,"summary"')]
    summary = json.loads(last[-1])["summary"] if last else {}
    return wall, proc.returncode, summary


def _peak_child_mib() -> float:
    """The largest resident size of any process this one has waited for so far (Linux: KiB)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def hub_fleet(repos: int, latency: float, work: Path) -> dict[str, Any]:
    from tests.support import build
    from tests.support.hubstub import HubStub

    model = build.build_layout(work / "model", "Qwen__Qwen3-0.6B")
    with HubStub(latency=latency) as hub:
        for i in range(repos):
            hub.add_repo_from_dir(f"bench/model-{i:04d}", model)
        env = {**hub.hf_env(work / "hf"), "PYTHONDONTWRITEBYTECODE": "1"}
        results = {}
        for name, extra in (("one at a time (--jobs 1)", ["--jobs", "1"]), ("fleet (default --jobs)", [])):
            hub.reset_log()
            wall, code, summary = _run(["hf://bench", "-f", "jsonl", "--no-cache", *extra], env)
            assert summary.get("pass") == repos, summary
            results[name] = {"wall": wall, "requests": hub.request_count}
    return results


def memory(targets: int, work: Path) -> dict[int, tuple[float, float]]:
    """Peak MiB of the largest process and wall seconds, for ``targets`` and a tenth of them."""
    from tests.support import build

    model = build.build_layout(work / "small", "Qwen__Qwen3-0.6B")
    names = work / "names"
    names.mkdir()
    for i in range(targets):
        os.symlink(model, names / f"m{i:05d}")
    out = {}
    for count in (targets // 10, targets):
        listed = work / f"list-{count}.txt"
        listed.write_text("".join(f"{names / f'm{i:05d}'}\n" for i in range(count)))
        # each size in a fresh child of a fresh child, so RUSAGE_CHILDREN holds only that run's processes
        code = (
            f"import resource,subprocess,sys,time;t=time.perf_counter();"
            f"p=subprocess.run([sys.executable,'-m','auditor','audit','--from',{str(listed)!r},'-f','jsonl','-o',"
            f"{str(work / f'out-{count}.jsonl')!r},'-q']);"
            f"print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024,time.perf_counter()-t,p.returncode)"
        )
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=7200, cwd=ROOT)
        peak, wall, rc = proc.stdout.split()
        if rc not in ("0", "1"):
            raise SystemExit(f"bench/fleet.py: the {count}-target run exited {rc}: {proc.stderr[-500:]}")
        out[count] = (float(peak), float(wall))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repos", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--memory-targets", type=int, default=10_000)
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args()
    missed = []
    with tempfile.TemporaryDirectory(prefix="st-audit-fleet-bench-") as tmp:
        work = Path(tmp)
        results = hub_fleet(args.repos, args.latency, work)
        one, fleet = results["one at a time (--jobs 1)"], results["fleet (default --jobs)"]
        jobs = max(16, 2 * (os.cpu_count() or 1))
        ideal = fleet["requests"] * args.latency / jobs
        print(
            f"{args.repos} Hub repos (Qwen3-0.6B layout) on the stand-in Hub, {args.latency * 1000:.0f} ms per "
            f"request, {os.cpu_count()} cores"
        )
        print(f"{'run':34} {'wall s':>8} {'requests':>9} {'vs one at a time':>17} {'vs ideal':>9}")
        for name, r in results.items():
            print(
                f"{name:34} {r['wall']:8.2f} {r['requests']:9,} {one['wall'] / r['wall']:16.1f}x "
                f"{r['wall'] / ideal:8.1f}x"
            )
        print(f"{'ideal (requests x latency / ' + str(jobs) + ')':34} {ideal:8.2f}")
        speedup = one["wall"] / fleet["wall"]
        print(f"goal: >= 8x faster than one at a time ({speedup:.1f}x: {'met' if speedup >= 8 else 'MISSED'})")
        if speedup < 8:
            missed.append("speed-up")
        if args.memory_targets:
            print()
            peaks = memory(args.memory_targets, work)
            print(f"{'local targets':>14} {'peak MiB (largest process)':>27} {'wall s':>8} {'targets/s':>10}")
            for count, (peak, wall) in peaks.items():
                print(f"{count:14,} {peak:27.1f} {wall:8.1f} {count / wall:10.1f}")
            small, large = peaks[args.memory_targets // 10][0], peaks[args.memory_targets][0]
            flat = large < 300 and large <= 1.2 * small + 10
            print(f"goal: flat, < 300 MiB ({small:.0f} -> {large:.0f} MiB: {'met' if flat else 'MISSED'})")
            if not flat:
                missed.append("memory")
    if args.strict and missed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
