"""Locks and diffs see content: sha256 per file, source commit, tool version; failing checkpoints are not locked."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.support.arrays import config, flip_byte, tiny_arrays, write
from tests.support.cli import run_cli
from tests.support.hubstub import HubStub


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    return write(tmp_path / "clean", tiny_arrays(), config())


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_diff_calls_a_truncated_copy_different(clean: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut"
    shutil.copytree(clean, cut)
    with open(cut / "model.safetensors", "r+b") as f:
        f.truncate((cut / "model.safetensors").stat().st_size - 10)
    proc = run_cli("diff", str(clean), str(cut), "--format", "json")
    assert proc.returncode == 1, proc.stdout
    doc = json.loads(proc.stdout)
    assert doc["identical"] is False
    size = (clean / "model.safetensors").stat().st_size
    assert doc["content_changes"] == [{"file": "model.safetensors", "by": "size", "a": size, "b": size - 10}]
    assert run_cli("diff", str(clean), str(clean)).returncode == 0


def test_diff_verify_compares_by_sha256(clean: Path, tmp_path: Path) -> None:
    other = tmp_path / "flipped"
    shutil.copytree(clean, other)
    flip_byte(other / "model.safetensors")
    assert run_cli("diff", str(clean), str(other)).returncode == 0  # same size, headers only: cannot tell
    proc = run_cli("diff", str(clean), str(other), "--verify", "--format", "json", "-q")
    assert proc.returncode == 1
    (change,) = json.loads(proc.stdout)["content_changes"]
    assert change == {
        "file": "model.safetensors",
        "by": "sha256",
        "a": sha(clean / "model.safetensors"),
        "b": sha(other / "model.safetensors"),
    }


def test_lock_verify_records_hashes_and_verify_lock_reports_content_drift(clean: Path, tmp_path: Path) -> None:
    lock = tmp_path / "st-audit.lock.json"
    proc = run_cli("lock", str(clean), "--verify", "-o", str(lock))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(lock.read_text())
    from auditor import __version__

    assert doc["st_audit_version"] == __version__
    assert doc["files"][0]["sha256"] == sha(clean / "model.safetensors")
    proc = run_cli("verify", str(clean), "--lock", str(lock), "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["findings"] == []

    retrained = tmp_path / "retrained"  # same names, shapes and sizes; other values
    write(retrained, tiny_arrays(seed=7), config())
    assert run_cli("audit", str(retrained), "--lock", str(lock)).returncode == 0  # headers cannot see it
    proc = run_cli("verify", str(retrained), "--lock", str(lock), "--format", "json")
    assert proc.returncode == 1
    (drift,) = json.loads(proc.stdout)["findings"]
    assert drift["code"] == "lock-drift" and drift["files"] == ["model.safetensors"] and "sha256" in drift["message"]


def test_old_lock_without_hashes_still_loads(clean: Path, tmp_path: Path) -> None:
    lock = tmp_path / "old.lock.json"
    assert run_cli("lock", str(clean), "--verify", "-o", str(lock)).returncode == 0
    doc = json.loads(lock.read_text())
    del doc["st_audit_version"]
    for f in doc["files"]:
        del f["sha256"]
    lock.write_text(json.dumps(doc))
    proc = run_cli("verify", str(clean), "--lock", str(lock), "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["findings"] == []
    cut = tmp_path / "cut"
    shutil.copytree(clean, cut)
    with open(cut / "model.safetensors", "ab") as f:
        f.write(b"\0" * 8)
    proc = run_cli("audit", str(cut), "--lock", str(lock), "--format", "json", "--ignore", "file-trailing-bytes")
    drift = [f for f in json.loads(proc.stdout)["findings"] if f["code"] == "lock-drift"]
    assert proc.returncode == 1 and len(drift) == 1 and "size" in drift[0]["message"]


def test_lock_refuses_a_failing_checkpoint_unless_forced(tmp_path: Path) -> None:
    arrays = tiny_arrays()
    nan = arrays["model.layers.0.mlp.up_proj.weight"][1].copy()
    nan[0, 0] = 0x7FC0
    arrays["model.layers.0.mlp.up_proj.weight"] = ("BF16", nan)
    path = write(tmp_path / "nan", arrays, config())
    lock = tmp_path / "lock.json"
    assert run_cli("lock", str(path), "-o", str(lock)).returncode == 0  # headers are fine
    lock.unlink()
    proc = run_cli("lock", str(path), "--verify", "-o", str(lock))
    assert proc.returncode == 1 and not lock.exists() and "tensor-nan" in proc.stderr and "--force" in proc.stderr
    proc = run_cli("lock", str(path), "--verify", "--force", "-o", str(lock))
    assert proc.returncode == 0 and lock.exists()
    with open(path / "model.safetensors", "r+b") as f:
        f.truncate((path / "model.safetensors").stat().st_size - 100)
    lock.unlink()
    proc = run_cli("lock", str(path), "-o", str(lock))
    assert proc.returncode == 1 and not lock.exists() and "file-truncated" in proc.stderr


def test_lock_of_a_hub_repo_records_listing_hashes_and_commit(clean: Path, tmp_path: Path) -> None:
    with HubStub() as hub:
        hub.add_repo("org/tiny", {p.name: p for p in clean.iterdir()})
        env = hub.hf_env(tmp_path / "home")
        lock = tmp_path / "hub.lock.json"
        proc = run_cli("lock", "org/tiny", "-o", str(lock), env=env)
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(lock.read_text())
        assert doc["source"] == {"repo": "org/tiny", "commit": hub.repos["org/tiny"].commit}
        assert doc["files"][0]["sha256"] == sha(clean / "model.safetensors")
        local = tmp_path / "local"
        shutil.copytree(clean, local)
        assert run_cli("verify", str(local), "--lock", str(lock), "-q").returncode == 0
        flip_byte(local / "model.safetensors")
        proc = run_cli("verify", str(local), "--lock", str(lock), "--format", "json", "-q")
        assert proc.returncode == 1 and [f["code"] for f in json.loads(proc.stdout)["findings"]] == ["lock-drift"]
        proc = run_cli("diff", str(lock), "org/tiny", "-q", env=env)
        assert proc.returncode == 0
        np.testing.assert_equal(sha(local / "model.safetensors") != sha(clean / "model.safetensors"), True)


def test_lock_of_a_cache_snapshot_records_the_hub_digests_without_reading(clean: Path, tmp_path: Path) -> None:
    with HubStub() as hub:
        hub.add_repo("org/tiny", {p.name: p for p in clean.iterdir()})
        env = hub.hf_env(tmp_path / "home")
        hub.download("org/tiny", env)
    folder = tmp_path / "home" / "hub" / "models--org--tiny"
    lock = tmp_path / "cache.lock.json"
    assert run_cli("lock", str(folder), "-o", str(lock)).returncode == 0
    doc = json.loads(lock.read_text())
    assert doc["source"]["repo"] == "org/tiny" and len(doc["source"]["commit"]) == 40
    assert doc["files"][0]["sha256"] == sha(clean / "model.safetensors")


def test_lock_verify_of_a_variant_holds_the_variants_content(tmp_path: Path) -> None:
    """A folder with the default weights (BF16) and the fp16 variant beside them, both written by the safetensors
    library, as ``save_pretrained(variant="fp16")`` leaves them: ``lock --variant fp16 --verify`` locks the fp16
    file and its sha256, not the default one (the variant reaches verify with the rest of the options)."""
    folder = write(tmp_path / "model", tiny_arrays(), config())
    fp16 = {
        name: (
            "F16",
            np.asarray(np.random.default_rng(1).standard_normal(bits.shape) * 0.02, np.float16).view(np.uint16),
        )
        for name, (_, bits) in tiny_arrays().items()
    }
    write(folder, fp16, None, file_name="model.fp16.safetensors")
    lock = tmp_path / "fp16.lock.json"
    proc = run_cli("lock", str(folder), "--variant", "fp16", "--verify", "-o", str(lock), "-q")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(lock.read_text())
    assert [(f["name"], f["sha256"]) for f in doc["files"]] == [
        ("model.fp16.safetensors", sha(folder / "model.fp16.safetensors"))
    ]
    assert {g["dtype"] for g in doc["groups"]} == {"F16"}
    # the same lock holds the fp16 files and not the default ones: a diff of the variant against it is identical
    assert run_cli("audit", str(folder), "--variant", "fp16", "--lock", str(lock), "-q").returncode == 0
    assert run_cli("audit", str(folder), "--lock", str(lock), "-q").returncode == 1
