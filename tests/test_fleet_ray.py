"""``--engine ray`` on a real Ray cluster started here (``ray start --head`` on loopback): the same target lines as
the local engine, the driver's Hub settings reaching the tasks through Ray's runtime environment (the cluster itself
was started without them) and never the output, the same exit code, ``--resume`` on the same file.

One test, so one cluster per run whatever pytest-xdist does; Ray is an optional extra (``st-audit[ray]``), installed
by ``make install``: without it this skips with a reason, except where CI requires it (``ST_AUDIT_REQUIRE_RAY``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import build
from tests.support.cli import NETGUARD
from tests.support.hubstub import HubStub
from tests.support.resources import absent

# a one-machine cluster on loopback: Ray otherwise advertises the machine's network address, which the tests'
# network guard (rightly) refuses
LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
SECRET = "hf_test_token_that_must_never_reach_the_output"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def cluster() -> Iterator[str]:
    if importlib.util.find_spec("ray") is None:
        absent("Ray is not installed (pip install 'st-audit[ray]'; make install does)", "ST_AUDIT_REQUIRE_RAY")
    ray = shutil.which("ray", path=os.path.dirname(sys.executable)) or shutil.which("ray")
    assert ray is not None
    port = _free_port()
    # Ray's unix sockets live under --temp-dir, and a socket path must stay under ~107 bytes: not pytest's tmp_path
    temp = tempfile.mkdtemp(prefix="st-audit-ray-", dir="/tmp")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "RAY_"))}
    head = subprocess.Popen(
        [
            ray,
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={temp}",
        ],
        env={**env, **LOOPBACK},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert head.poll() is None, "ray start --head exited"
                time.sleep(0.2)
        yield address
    finally:
        os.killpg(head.pid, signal.SIGKILL)  # a throwaway cluster: no draining (30 s) once the test is done
        head.wait(timeout=30)
        shutil.rmtree(temp, ignore_errors=True)


def _lines(path: Path) -> dict[str, dict[str, Any]]:
    out = {}
    for line in path.read_text().splitlines():
        doc = json.loads(line)
        if "fleet" in doc:
            doc = {k: v for k, v in doc.items() if k != "fleet"}
            if isinstance(doc.get("source"), dict):
                doc["source"].pop("http", None)
            out[json.loads(line)["fleet"]["target"]] = doc
    return out


def test_the_ray_engine_gives_the_local_engines_lines(cluster: str, tmp_path: Path) -> None:
    good = build.build_layout(tmp_path / "good", "Qwen__Qwen3-0.6B", shards=2)
    broken = build.build_layout(tmp_path / "broken", "Qwen__Qwen3-0.6B", shards=2)
    (broken / sorted(p.name for p in broken.glob("*.safetensors"))[0]).unlink()
    with HubStub(valid_tokens={SECRET}) as hub:
        for i in range(3):
            hub.add_repo_from_dir(f"acme/m{i}", good, private=i == 2)  # the private one needs the token
        listed = tmp_path / "targets.txt"
        listed.write_text(f"{good}\n{broken}\nhf://acme\n{tmp_path / 'missing'}\n")
        env = {**hub.hf_env(tmp_path / "hf"), **LOOPBACK, "HF_TOKEN": SECRET, "PYTHONPATH": NETGUARD}
        env.pop("RAY_ADDRESS", None)
        runs = {}
        for name, extra in (("local", []), ("ray", ["--engine", "ray", "--ray-address", cluster])):
            out = tmp_path / f"{name}.jsonl"
            proc = subprocess.run(
                [sys.executable, "-m", "auditor", "audit", "--from", str(listed), "-o", str(out), *extra],
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                cwd=tmp_path,
            )
            assert proc.returncode == 3, proc.stderr
            assert "ERROR: 6 targets: 4 pass, 1 fail, 1 could not be audited (exit 3)" in proc.stderr, proc.stderr
            assert SECRET not in out.read_text() + proc.stderr + proc.stdout
            runs[name] = _lines(out)
        assert runs["ray"] == runs["local"]
        assert runs["ray"]["hf://acme/m2"]["verdict"] == "pass"  # read with the driver's token, on the cluster
        # the same file resumed on the cluster: nothing left to audit, the same exit code
        hub.reset_log()
        again = subprocess.run(
            [
                sys.executable,
                "-m",
                "auditor",
                "audit",
                "--from",
                str(listed),
                "-o",
                str(tmp_path / "ray.jsonl"),
                "--resume",
                "--engine",
                "ray",
            ],
            env={**env, "RAY_ADDRESS": cluster},
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
        assert again.returncode == 3 and "(5 already reported)" in again.stderr, again.stderr
        assert not [r for r in hub.requests if "/resolve/" in r.path]  # no header fetched again
