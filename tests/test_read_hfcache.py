"""The Hugging Face cache as audit reads it (issue 32): a ``models--org--name`` folder and a snapshot folder are
targets of ``audit``, ``lock`` and ``diff`` as of ``verify``; offline, ``audit org/name`` uses a complete cached
snapshot and says so; a short commit unambiguous in the cache works, and the 12 characters st-audit prints can be
pasted back. The cache is filled by the real huggingface_hub client from the stand-in Hub (``HubStub.download``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import build
from tests.support.cli import run_cli
from tests.support.hubstub import HubStub

OLD = "abcdef1234560000000000000000000000000001"
NEW = "abcdef1234561111111111111111111111111112"  # shares 12 characters with OLD: ambiguous at that length


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hfcache")
    return {
        "old": build.build_layout(root / "old", "tiny-qwen3_moe", shards=3),
        "new": build.build_layout(root / "new", "tiny-mixtral", shards=2),
    }


@pytest.fixture
def cached(models: dict[str, Path], tmp_path: Path) -> Iterator[tuple[HubStub, dict[str, str], Path]]:
    """org/m in the stand-in Hub at two commits, both downloaded into one cache by the real client (refs/main: NEW)."""
    with HubStub() as hub:
        env = hub.hf_env(tmp_path / "home")
        hub.add_repo_from_dir("org/m", models["old"], commit=OLD)
        hub.download("org/m", env)
        hub.add_repo_from_dir("org/m", models["new"], commit=NEW)
        hub.download("org/m", env)
        hub.reset_log()
        yield hub, env, tmp_path / "home" / "hub" / "models--org--m"


def _json(*args: str, env: dict[str, str]) -> tuple[int, dict[str, Any], str]:
    proc = run_cli("audit", *args, "-f", "json", env=env)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def _findings(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["message"]) for f in doc["findings"]]


def test_a_cache_repo_folder_and_a_snapshot_folder_are_audit_targets(
    cached: tuple[HubStub, dict[str, str], Path], models: dict[str, Path]
) -> None:
    hub, env, folder = cached
    code, doc, err = _json(str(folder), env=env)
    assert code == 0, err
    assert doc["source"]["kind"] == "hf-cache" and doc["source"]["repo"] == "org/m"
    assert doc["source"]["commit"] == NEW and doc["source"]["path"] == str((folder / "snapshots" / NEW).resolve())
    assert f"hf cache: org/m@main snapshot {NEW[:12]}" in err
    local = json.loads(run_cli("audit", str(models["new"]), "-f", "json").stdout)
    assert _findings(doc) == _findings(local) and doc["totals"] == local["totals"]
    # --revision picks another snapshot of the repo folder: a full commit, or a short one unambiguous in the cache
    code, doc, err = _json(str(folder), "--revision", OLD[:13], env=env)
    assert code == 0 and doc["source"]["commit"] == OLD and len(doc["files"]) == 3, err
    proc = run_cli("audit", str(folder), "--revision", OLD[:12], env=env)
    assert proc.returncode == 2 and "ambiguous" in proc.stderr and proc.stderr.count("\n") == 1
    # a snapshot folder itself
    code, doc, err = _json(str(folder / "snapshots" / OLD), env=env)
    assert code == 0 and doc["source"]["kind"] == "hf-cache" and doc["source"]["commit"] == OLD, err
    assert f"hf cache: org/m snapshot {OLD[:12]}" in err
    assert hub.request_count == 0  # the cache is read, the Hub never asked


def test_the_cache_line_on_stderr_shows_its_path_safely(
    cached: tuple[HubStub, dict[str, str], Path], tmp_path: Path
) -> None:
    """The progress line naming a cache snapshot's folder goes to a terminal or a CI log: a folder name with a
    newline, a workflow command and a terminal escape is shown with visible escapes (tests/support/hostile.py)."""
    import shutil

    from tests.support import hostile

    _, env, folder = cached
    moved = tmp_path / hostile.FOLDER / "models--org--m"
    shutil.copytree(folder, moved, symlinks=True)
    proc = run_cli("audit", str(moved), "-f", "summary", env=env)
    assert proc.returncode == 0, proc.stderr
    hostile.inert(proc.stderr)
    hostile.inert(proc.stdout)
    assert "hf cache: org/m@main snapshot " in proc.stderr and hostile.SHOWN_FILE in proc.stderr


def test_lock_and_diff_take_cache_folders(cached: tuple[HubStub, dict[str, str], Path], tmp_path: Path) -> None:
    hub, env, folder = cached
    lock = tmp_path / "m.lock.json"
    proc = run_cli("lock", str(folder), "-o", str(lock), env=env)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(lock.read_text())
    assert doc["source"] == {"repo": "org/m", "commit": NEW}
    assert all(len(f["sha256"]) == 64 for f in doc["files"] if f["name"].endswith(".safetensors"))
    proc = run_cli("diff", str(folder), "org/m", "-f", "json", env=env)  # the cache against the Hub: the same
    assert proc.returncode == 0 and json.loads(proc.stdout)["identical"] is True, proc.stderr
    proc = run_cli("diff", str(folder / "snapshots" / OLD), str(lock), "-f", "json", env=env)
    assert proc.returncode == 1 and json.loads(proc.stdout)["identical"] is False, proc.stderr


def test_offline_a_complete_cached_snapshot_is_audited_and_says_so(
    cached: tuple[HubStub, dict[str, str], Path], models: dict[str, Path]
) -> None:
    hub, env, folder = cached
    offline = {**env, "HF_HUB_OFFLINE": "1"}
    code, doc, err = _json("org/m", env=offline)
    assert code == 0, err
    assert doc["source"]["kind"] == "hf-cache" and doc["source"]["commit"] == NEW and doc["source"]["repo"] == "org/m"
    assert "offline (HF_HUB_OFFLINE): headers read from the cached files" in err
    online = json.loads(run_cli("audit", "org/m", "-f", "json", env=env).stdout)
    assert _findings(doc) == _findings(online) and doc["totals"] == online["totals"]
    hub.reset_log()
    # a short commit (the 12 characters st-audit prints are ambiguous here: 13 are not) and a full one
    code, doc, err = _json(f"org/m@{OLD[:13]}", env=offline)
    assert code == 0 and doc["source"]["commit"] == OLD and len(doc["files"]) == 3, err
    proc = run_cli("audit", f"org/m@{OLD[:12]}", env=offline)
    assert proc.returncode == 2 and f"{OLD[:12]} is ambiguous" in proc.stderr
    code, doc, _ = _json(f"org/m@{OLD}", env=offline)
    assert code == 0 and doc["source"]["commit"] == OLD
    assert hub.request_count == 0


def test_offline_an_incomplete_snapshot_is_not_audited_as_the_repo(
    cached: tuple[HubStub, dict[str, str], Path],
) -> None:
    """A shard missing from the snapshot (an interrupted download): the snapshot is not the repo, so offline mode
    says what it always said rather than reporting a missing shard the repo does not lack."""
    hub, env, folder = cached
    (folder / "snapshots" / NEW / "model-00002-of-00002.safetensors").unlink()
    proc = run_cli("audit", "org/m", env={**env, "HF_HUB_OFFLINE": "1"})
    assert proc.returncode == 3 and "offline mode is on" in proc.stderr and "hf cache" not in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_the_commit_st_audit_prints_can_be_pasted_back_offline(models: dict[str, Path], tmp_path: Path) -> None:
    """Audited online once (headers cached by st-audit, nothing in the Hugging Face cache), then offline with the
    12 characters of the commit the progress line printed."""
    with HubStub() as hub:
        hub.add_repo_from_dir("org/once", models["old"])
        env = hub.hf_env(tmp_path / "home")
        online = run_cli("audit", "org/once", "-f", "json", env=env)
        assert online.returncode == 0, online.stderr
        printed = re.search(r"\(commit ([0-9a-f]{12})\)", online.stderr)
        assert printed is not None, online.stderr
        assert not (tmp_path / "home" / "hub" / "models--org--once").exists()
        hub.reset_log()
        code, doc, err = _json(f"org/once@{printed[1]}", env={**env, "HF_HUB_OFFLINE": "1"})
        assert code == 0, err
        assert doc["source"]["kind"] == "hub" and doc["source"]["commit"] == hub.repos["org/once"].commit
        assert hub.request_count == 0


def test_resolver_kinds_without_a_request(
    cached: tuple[HubStub, dict[str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What each string resolves to (the library's view of the same rules)."""
    from auditor.read.targets import CacheTarget, HubTarget, LocalTarget, StoreTarget, resolve

    hub, env, folder = cached
    for key in ("HF_HOME", "HF_ENDPOINT"):
        monkeypatch.setenv(key, env[key])
    assert isinstance(resolve(str(folder)), CacheTarget)
    assert isinstance(resolve(str(folder / "snapshots" / OLD / "config.json")), CacheTarget)
    assert isinstance(resolve(str(folder.parent)), LocalTarget)
    online = resolve("org/m")
    assert isinstance(online, HubTarget) and online.guessed and online.revision is None
    expanded = resolve(f"org/m@{OLD[:13]}")
    # expanded from the cache, still read from the Hub online
    assert isinstance(expanded, HubTarget) and expanded.revision == OLD
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    offline = resolve("hf://org/m")
    assert isinstance(offline, CacheTarget) and offline.from_hub and offline.commit == NEW
    assert isinstance(resolve("s3://bucket/prefix"), StoreTarget)
    assert hub.request_count == 0
