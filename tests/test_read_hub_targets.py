"""Hub targets as users write them, against the local Hub stand-in (tests/support/hubstub.py), run through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import build
from tests.support.cli import run_cli
from tests.support.hubstub import HubStub, fake_commit

PR_COMMIT = fake_commit("pr-3")
TAG_COMMIT = fake_commit("v1")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build.build_layout(tmp_path_factory.mktemp("hub") / "qwen", "Qwen__Qwen3-0.6B", shards=2)


@pytest.fixture
def stub(small: Path):
    with HubStub() as hub:
        hub.add_repo_from_dir("org/model", small, revisions={"v1": TAG_COMMIT, "refs/pr/3": PR_COMMIT})
        hub.add_repo_from_dir("gpt2", small)
        yield hub


def _commits_asked(stub: HubStub) -> list[str]:
    return [r.path for r in stub.requests if r.path.startswith("/api/models/")]


@pytest.mark.parametrize(
    "target,revision",
    [
        ("org/model", None),
        ("org/model@v1", "v1"),
        ("hf://org/model", None),
        ("hf://org/model@refs/pr/3", "refs/pr/3"),
        ("https://huggingface.co/org/model", None),
        ("https://huggingface.co/org/model/tree/v1", "v1"),
        ("https://huggingface.co/org/model/tree/refs%2Fpr%2F3", "refs/pr/3"),
    ],
)
def test_hub_target_forms(stub: HubStub, tmp_path: Path, target: str, revision: str | None) -> None:
    proc = run_cli("audit", target, "-f", "json", env=stub.hf_env(tmp_path / "home"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["source"]["repo"] == "org/model" and doc["source"]["revision"] == revision
    expected = {None: stub.repos["org/model"].commit, "v1": TAG_COMMIT, "refs/pr/3": PR_COMMIT}[revision]
    assert doc["source"]["commit"] == expected


def test_revision_given_twice_must_agree(stub: HubStub, tmp_path: Path) -> None:
    proc = run_cli("audit", "org/model@v1", "--revision", "main", env=stub.hf_env(tmp_path / "home"))
    assert proc.returncode == 2 and "give it once" in proc.stderr


def test_bare_legacy_id_needs_hub(stub: HubStub, tmp_path: Path) -> None:
    env = stub.hf_env(tmp_path / "home")
    proc = run_cli("audit", "gpt2", env=env, cwd=tmp_path)
    assert proc.returncode == 3 and "no such file or directory" in proc.stderr and "--hub" in proc.stderr
    proc = run_cli("audit", "--hub", "gpt2", "-f", "summary", env=env, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("PASS: gpt2"), proc.stderr


def test_org_name_neither_local_nor_on_the_hub_says_both(stub: HubStub, tmp_path: Path) -> None:
    proc = run_cli("audit", "org/absent", env=stub.hf_env(tmp_path / "home"), cwd=tmp_path)
    assert proc.returncode == 3 and len(proc.stderr.strip().splitlines()) == 1
    assert "no such file or directory, and not readable as a Hub repo" in proc.stderr and "not found" in proc.stderr


def test_diff_two_revisions_of_one_repo(stub: HubStub, tmp_path: Path) -> None:
    proc = run_cli("diff", "org/model@v1", "org/model@refs/pr/3", "-f", "json", env=stub.hf_env(tmp_path / "home"))
    assert proc.returncode == 0, proc.stderr  # the stub serves the same files at every revision
    assert json.loads(proc.stdout)["identical"] is True
    asked = _commits_asked(stub)
    assert any("revision/v1" in p for p in asked) and any("revision/refs%2Fpr%2F3" in p for p in asked), asked


def test_offline_mode_audits_a_pinned_commit_from_the_header_cache(stub: HubStub, tmp_path: Path) -> None:
    env = stub.hf_env(tmp_path / "home")
    online = run_cli("audit", "org/model", "-f", "json", env=env)
    assert online.returncode == 0, online.stderr
    commit = json.loads(online.stdout)["source"]["commit"]
    stub.reset_log()
    offline = {**env, "HF_HUB_OFFLINE": "1"}
    proc = run_cli("audit", f"org/model@{commit}", "-f", "json", env=offline)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["source"]["commit"] == commit and stub.request_count == 0
    proc = run_cli("audit", "org/model", env=offline)
    assert proc.returncode == 3 and "org/model@COMMIT" in proc.stderr
