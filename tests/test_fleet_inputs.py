"""Which targets a fleet run audits: a file of targets (comments, stdin), a Hub organisation's listing (the real
huggingface_hub client against the stand-in Hub, paginated as the Hub paginates), and ``--shard I/N`` (disjoint
shares that together cover the list, stable as the list grows)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from auditor.core.errors import HubError, UsageError
from auditor.fleet.inputs import HubListing, Shard, list_hub_models, read_target_file, select
from tests.support import build
from tests.support.cli import run_cli


def test_a_target_file_takes_one_target_per_line_with_comments(tmp_path: Path) -> None:
    listed = tmp_path / "targets.txt"
    listed.write_text("# the models we ship\norg/a@v1.0\n\n  ./local/model   # trailing note\ns3://bucket/x\n#org/b\n")
    assert read_target_file(str(listed)) == ["org/a@v1.0", "./local/model", "s3://bucket/x"]


def test_a_missing_target_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        read_target_file(str(tmp_path / "nope.txt"))
    proc = run_cli("audit", "--from", str(tmp_path / "nope.txt"))
    assert proc.returncode == 2 and "nope.txt: no such file" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("count", [1, 2, 3, 7, 16])
def test_shards_are_disjoint_and_cover_the_list(count: int) -> None:
    targets = [f"org/model-{i}" for i in range(2000)] + [f"./runs/ckpt-{i}" for i in range(500)]
    shares = [list(select(targets, Shard(i, count))) for i in range(1, count + 1)]
    seen = Counter(t for share in shares for t in share)
    assert set(seen) == set(targets) and set(seen.values()) == {1}
    mean = len(targets) / count  # balanced as a uniform hash is: every share within 5 standard deviations
    assert all(abs(len(s) - mean) <= 5 * mean**0.5 for s in shares), [len(s) for s in shares]


def test_a_target_keeps_its_shard_when_the_list_grows() -> None:
    before = [f"org/m{i}" for i in range(300)]
    after = before + [f"org/new{i}" for i in range(300)]
    for i in (1, 2, 3):
        assert set(select(before, Shard(i, 3))) <= set(select(after, Shard(i, 3)))


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "a/b", "1", "-1/3"])
def test_a_bad_shard_is_refused_with_how_to_write_it(text: str) -> None:
    with pytest.raises(UsageError, match="--shard"):
        Shard.parse(text)


def test_shards_of_one_list_on_the_command_line_cover_it(tmp_path: Path) -> None:
    folders = [build.build_layout(tmp_path / f"m{i}", "Qwen__Qwen3-0.6B") for i in range(5)]
    listed = tmp_path / "list.txt"
    listed.write_text("".join(f"{f}\n" for f in folders))
    covered: list[str] = []
    for i in (1, 2, 3):
        proc = run_cli("audit", "--from", str(listed), "--shard", f"{i}/3", "-f", "jsonl", "-j", "1")
        docs = [json.loads(line) for line in proc.stdout.splitlines()]
        assert docs[-1]["summary"]["targets"] == len(docs) - 1
        assert f"shard {i}/3: {len(docs) - 1} of 5 targets" in proc.stderr
        covered += [d["fleet"]["target"] for d in docs[:-1]]
    assert sorted(covered) == sorted(str(f) for f in folders)


def test_targets_can_come_from_stdin(tmp_path: Path) -> None:
    model = build.build_layout(tmp_path / "m", "Qwen__Qwen3-0.6B")
    import subprocess
    import sys

    from tests.support.cli import NETGUARD

    proc = subprocess.run(
        [sys.executable, "-m", "auditor", "audit", "--from", "-", "-f", "summary"],
        input=f"# from a pipe\n{model}\n",
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "PYTHONPATH": NETGUARD},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"PASS: {model}")
    assert "PASS: 1 targets: 1 pass, 0 fail" in proc.stderr


def test_an_organisation_is_listed_through_the_hub_api_page_by_page(hub, tmp_path: Path) -> None:
    model = build.build_layout(tmp_path / "m", "Qwen__Qwen3-0.6B")
    hub.page_size = 7
    for i in range(23):
        hub.add_repo_from_dir(f"acme/model-{i:02d}", model, tags=("safetensors",) if i % 2 else ("pytorch",))
    hub.add_repo_from_dir("other/model", model)
    hub.add_repo_from_dir("acme/secret", model, private=True)
    listed = list_hub_models(HubListing("acme"))
    assert listed == [f"hf://acme/model-{i:02d}" for i in range(23)]
    pages = [r for r in hub.requests if r.path.startswith("/api/models?")]
    assert len(pages) == 4  # 7 + 7 + 7 + 2: the Link header was followed
    assert list_hub_models(HubListing("acme", ("safetensors",))) == [
        f"hf://acme/model-{i:02d}" for i in range(1, 23, 2)
    ]
    assert list_hub_models(HubListing("acme", limit=3)) == [f"hf://acme/model-{i:02d}" for i in range(3)]


def test_a_listing_the_hub_refuses_is_one_sentence(hub) -> None:
    hub.fail_first, hub.fail_status = 100, 403
    with pytest.raises(HubError, match="could not list the models of acme on the Hub: HTTP 403"):
        list_hub_models(HubListing("acme"))
