"""Hub benchmark: st-audit vs huggingface_hub on a DeepSeek-V3-shaped repo (163 shards), side by side.

The repo is served by the stand-in Hub (tests/support/hubstub.py) from header-only sparse files, with 50 ms added
to every request, so nothing touches the network. Measured in one process, one after the other, each
with a fresh huggingface_hub cache:

* ``st-audit`` (``auditor.run.audit`` on a Hub repo id: listing, index, config, every header, full audit);
* ``huggingface_hub.HfApi().get_safetensors_metadata`` (index + every header, no validation);
* ``st-audit`` again on the same commit (header cache: no header requests);
* ``st-audit`` against a server that ignores Range (answers 200 with the whole 685B-parameter files);
* the ``st-audit audit`` command end to end in a subprocess (includes Python start-up and imports).

Targets (issue 4): st-audit <= 1.0 s wall; header bytes <= 1.2x the sum of the header sizes; with Range
ignored, under 64 MB received for the whole repo. Issue 14: st-audit <= 0.5x huggingface_hub's wall.

Run: ``python bench/hub_bench.py`` (or ``main()``); ``--latency``, ``--shards``, ``--strict`` (exit 1
when a target is missed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: the repository root, for tests.support
    sys.path.insert(0, str(ROOT))

REPO = "deepseek-ai/DeepSeek-V3"
MB = 1_000_000


def build_repo(directory: Path, shards: int) -> Path:
    """The DeepSeek-V3 layout as header-only shards (tests.support.realistic when available)."""
    try:
        from tests.support.realistic import deepseek_v3_fp8  # type: ignore[import-not-found]
    except ImportError:
        deepseek_v3_fp8 = None  # type: ignore[assignment]  # the helper is optional here
    if deepseek_v3_fp8 is not None and shards == 163:
        result = deepseek_v3_fp8(directory)
        return Path(result) if result is not None else directory
    from tests.support import build

    return build.build_layout(directory, "deepseek-ai__DeepSeek-V3", shards=shards)


def header_sizes(directory: Path) -> dict[str, int]:
    """8 + N for every shard named by the index (what a perfect client would have to read)."""
    index = json.loads((directory / "model.safetensors.index.json").read_text())
    sizes = {}
    for shard in sorted(set(index["weight_map"].values())):
        with open(directory / shard, "rb") as f:
            sizes[shard] = 8 + int.from_bytes(f.read(8), "little")
    return sizes


def _isolate(home: Path, endpoint: str) -> None:
    """Point huggingface_hub at the stand-in and a private HF_HOME (constants are fixed at import time)."""
    os.environ.update(HF_HOME=str(home), HF_ENDPOINT=endpoint, HF_HUB_DISABLE_TELEMETRY="1")
    for key in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_HUB_OFFLINE"):
        os.environ.pop(key, None)
    no_proxy = ",".join(filter(None, [os.environ.get("NO_PROXY", ""), "127.0.0.1,localhost"]))
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = no_proxy
    from huggingface_hub import constants

    old_home = constants.HF_HOME
    for name, value in list(vars(constants).items()):
        if isinstance(value, str) and value.startswith(old_home):
            setattr(constants, name, str(home) + value[len(old_home) :])
    constants.ENDPOINT = endpoint
    constants.HUGGINGFACE_CO_URL_TEMPLATE = endpoint + "/{repo_id}/resolve/{revision}/{filename}"
    constants.HF_HUB_DISABLE_TELEMETRY = True
    constants.HF_HUB_OFFLINE = False


def _shard_traffic(hub: Any) -> tuple[int, int]:
    gets = [r for r in hub.requests if r.method == "GET" and r.path.split("?")[0].endswith(".safetensors")]
    return len(gets), sum(r.bytes_sent for r in gets)


def run_st_audit(hub: Any, home: Path, *, use_cache: bool = False) -> dict[str, Any]:
    from auditor.read.sources.hub import HubSource
    from auditor.run.audit import audit

    _isolate(home, hub.url)
    hub.reset_log()
    marks: dict[str, float] = {}
    start = time.perf_counter()

    def progress(line: str) -> None:
        if line.startswith("hub: "):  # printed once every header is fetched and validated (end of read_headers)
            marks["fetched"] = time.perf_counter() - start

    source = HubSource(REPO, endpoint=hub.url, use_cache=use_cache, progress=progress)
    report = audit(REPO, source=source)
    wall = time.perf_counter() - start
    hub.wait_idle(10)
    shard_requests, shard_bytes = _shard_traffic(hub)
    return {
        "wall": wall,
        "fetch_wall": marks.get("fetched", wall),
        "requests": hub.request_count,
        "bytes": hub.bytes_sent,
        "client_requests": source.traffic.requests,
        "client_bytes": source.traffic.bytes,
        "shard_requests": shard_requests,
        "shard_bytes": shard_bytes,
        "exit_code": report.exit_code,
        "tensors": report.totals.tensors,
        "findings": len(report.findings),
        "cache_hits": source.cache_hits,
    }


def run_hf(hub: Any, home: Path) -> dict[str, Any]:
    from huggingface_hub import HfApi

    _isolate(home, hub.url)
    hub.reset_log()
    start = time.perf_counter()
    meta = HfApi(endpoint=hub.url, token=False).get_safetensors_metadata(REPO)
    wall = time.perf_counter() - start
    hub.wait_idle(10)
    shard_requests, shard_bytes = _shard_traffic(hub)
    return {
        "wall": wall,
        "fetch_wall": wall,
        "requests": hub.request_count,
        "bytes": hub.bytes_sent,
        "shard_requests": shard_requests,
        "shard_bytes": shard_bytes,
        "tensors": sum(len(f.tensors) for f in meta.files_metadata.values()),
    }


def run_cli(hub: Any, home: Path) -> dict[str, Any]:
    env = hub.hf_env(home)
    hub.reset_log()
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "auditor", "audit", REPO, "--format", "json", "--no-cache"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    wall = time.perf_counter() - start
    source = json.loads(proc.stdout)["source"] if proc.stdout.startswith("{") else {}
    return {
        "wall": wall,
        "exit_code": proc.returncode,
        "requests": hub.request_count,
        "reported": source.get("http"),
        "stderr": proc.stderr.strip().splitlines()[-1:],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05, help="seconds added to every request (0.05)")
    parser.add_argument("--shards", type=int, default=163)
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)

    from tests.support.hubstub import HubStub

    with tempfile.TemporaryDirectory(prefix="st-audit-hub-bench-") as tmp:
        work = Path(tmp)
        t0 = time.perf_counter()
        directory = build_repo(work / "DeepSeek-V3", args.shards)
        sizes = header_sizes(directory)
        header_total = sum(sizes.values())
        index_bytes = (directory / "model.safetensors.index.json").stat().st_size
        print(
            f"repo: {REPO}-shaped, {len(sizes)} shards, headers {header_total / MB:.2f} MB in total, "
            f"index {index_bytes / MB:.2f} MB (built in {time.perf_counter() - t0:.1f} s); "
            f"{args.latency * 1000:.0f} ms added per request"
        )

        from auditor.run.audit import audit

        t1 = time.perf_counter()
        audit(directory)
        local_wall = time.perf_counter() - t1
        with HubStub(latency=args.latency) as hub:
            hub.add_repo_from_dir(REPO, directory)
            _isolate(work / "hf-warmup", hub.url)
            import auditor.read.sources.hub  # noqa: F401  (imports out of the timings, for both tools)

            ours = run_st_audit(hub, work / "hf-st-audit")
            theirs = run_hf(hub, work / "hf-hub")
            _ = run_st_audit(hub, work / "hf-st-audit-2", use_cache=True)  # fills a cache for the warm run
            warm = run_st_audit(hub, work / "hf-st-audit-2", use_cache=True)
            hub.ignore_range = True
            ignoring = run_st_audit(hub, work / "hf-st-audit-norange")
            hub.ignore_range = False
            cli = run_cli(hub, work / "hf-cli")

    rows = [
        ("st-audit audit (full audit)", ours),
        ("HfApi.get_safetensors_metadata", theirs),
        ("st-audit, same commit again", warm),
        ("st-audit, server ignores Range", ignoring),
    ]
    print()
    print(f"{'':34} {'wall s':>7} {'fetch s':>8} {'requests':>9} {'bytes MB':>9} {'shard reqs':>11} {'shard MB':>9}")
    for label, r in rows:
        print(
            f"{label:34} {r['wall']:7.2f} {r['fetch_wall']:8.2f} {r['requests']:9d} {r['bytes'] / MB:9.2f} "
            f"{r['shard_requests']:11d} {r['shard_bytes'] / MB:9.2f}"
        )
    print("  (fetch s: until every header is fetched and validated; wall s adds inventory and reconciliation)")
    print(
        f"{'st-audit CLI (subprocess, cold)':34} {cli['wall']:7.2f} {cli['requests']:9d}   (reported {cli['reported']})"
    )
    print()
    print(
        f"st-audit: {ours['tensors']:,} tensors, exit {ours['exit_code']}, {ours['findings']} findings; "
        f"client counted {ours['client_requests']} requests / {ours['client_bytes'] / MB:.2f} MB "
        f"(server: {ours['requests']} / {ours['bytes'] / MB:.2f} MB)"
    )
    print(f"huggingface_hub: {theirs['tensors']:,} tensors")
    print(f"the same audit of the local directory takes {local_wall:.2f} s (no network at all)")

    checks = [
        (f"st-audit wall {ours['wall']:.2f} s <= 1.0 s", ours["wall"] <= 1.0),
        (f"st-audit fetch+validate {ours['fetch_wall']:.2f} s <= 1.0 s", ours["fetch_wall"] <= 1.0),
        (
            f"header bytes {ours['shard_bytes'] / MB:.2f} MB <= 1.2 x {header_total / MB:.2f} MB "
            f"(= {ours['shard_bytes'] / header_total:.3f}x)",
            ours["shard_bytes"] <= 1.2 * header_total,
        ),
        (
            f"Range ignored: {ignoring['bytes'] / MB:.2f} MB sent by the server < 64 MB "
            f"(client read {ignoring['client_bytes'] / MB:.2f} MB)",
            ignoring["bytes"] < 64 * MB,
        ),
        (f"same commit again: {warm['shard_requests']} header requests == 0", warm["shard_requests"] == 0),
        (
            f"st-audit <= 0.5x huggingface_hub's metadata fetch ({theirs['wall']:.2f} s): "
            f"{ours['wall'] / theirs['wall']:.2f}x",
            ours["wall"] <= 0.5 * theirs["wall"],
        ),
    ]
    print()
    for text, ok in checks:
        print(f"  [{'ok' if ok else 'MISS'}] {text}")
    total_ratio = ours["bytes"] / header_total
    print(
        f"  (all traffic incl. listing, index and config: {ours['bytes'] / MB:.2f} MB = {total_ratio:.2f}x "
        "the header sizes; the index alone is "
        f"{index_bytes / MB:.2f} MB)"
    )
    return 1 if args.strict and not all(ok for _, ok in checks) else 0


if __name__ == "__main__":
    sys.exit(main())
