"""Auditing a Hub repo (auditor/read/sources/hub.py) against the stand-in Hub: outcomes, requests and bytes.

In-process tests patch huggingface_hub's import-time constants (endpoint, cache paths) as
tests/test_support_hubstub.py does; CLI tests run ``python -m auditor`` with ``HubStub.hf_env``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest
from huggingface_hub import constants

from auditor.core.errors import HubError, NotASafetensorsCheckpoint, TargetNotFound
from auditor.run.audit import audit
from tests.support import build
from tests.support.cli import run_cli
from tests.support.hub import source
from tests.support.hubstub import DEFAULT_TOKEN, HubStub, RepoFile
from tests.support.paths import ROOT

TAG_COMMIT = "2" * 40


@pytest.fixture
def qwen(tmp_path: Path) -> Path:
    return build.build_layout(tmp_path / "qwen3-8b", "Qwen__Qwen3-8B", shards=5)


def header_sizes(directory: Path) -> dict[str, int]:
    sizes = {}
    for p in directory.glob("*.safetensors"):
        with open(p, "rb") as f:
            sizes[p.name] = 8 + int.from_bytes(f.read(8), "little")
    return sizes


def shard_gets(hub: HubStub) -> list:
    return [r for r in hub.requests if r.method == "GET" and r.path.split("?")[0].endswith(".safetensors")]


def comparable(report) -> dict:
    doc = json.loads(json.dumps(report.to_dict()))
    doc.pop("target"), doc.pop("source")
    return doc


# -- same audit as local ---------------------------------------------------------------------------------


def test_hub_audit_equals_local_audit(hub, qwen):
    repo = hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    local = audit(qwen)
    src = source("Qwen/Qwen3-8B")
    remote = audit("Qwen/Qwen3-8B", source=src)
    assert comparable(remote) == comparable(local)
    assert remote.exit_code == local.exit_code == 0
    assert remote.source == {
        "kind": "hub",
        "repo": "Qwen/Qwen3-8B",
        "revision": None,
        "commit": repo.commit,
        "http": {"requests": hub.request_count, "bytes": hub.bytes_sent},
    }
    assert src.lfs_sha256["model-00001-of-00005.safetensors"] and len(src.lfs_sha256) == 5


def test_one_range_request_per_shard_and_few_bytes(hub, qwen):
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    gets = shard_gets(hub)
    sizes = header_sizes(qwen)
    assert sorted(Path(r.path).name for r in gets) == sorted(sizes)  # exactly one request per shard
    assert all(r.status == 206 and r.range.startswith("bytes=0-") for r in gets)
    assert sum(r.bytes_sent for r in gets) <= 1.2 * sum(sizes.values())
    assert all(r.bytes_sent >= sizes[Path(r.path).name] for r in gets)
    # no weights: listing + one GET each for config and index + one range per shard
    assert hub.request_count == 1 + 2 + 5
    assert not any(r.method == "HEAD" for r in hub.requests)
    assert not any(r.method == "GET" and r.range is None and r.path.endswith(".safetensors") for r in hub.requests)


def test_the_cli_path_parses_the_index_once_and_sizes_each_range_from_it(hub, qwen, monkeypatch):
    """Through kind discovery (the CLI's path), the index is parsed once, by the source, which starts the shard
    requests from it with ranges sized by the names it lists: still one request per shard, few bytes."""
    from auditor.read.sources import hub as hub_module
    from auditor.run.dispatch import audit_target

    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    parsed: list[int] = []
    real_loads = hub_module.loads
    monkeypatch.setattr(hub_module, "loads", lambda raw: parsed.append(len(raw)) or real_loads(raw))
    report = audit_target("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    index_bytes = (qwen / "model.safetensors.index.json").stat().st_size
    assert report.exit_code == 0 and parsed.count(index_bytes) == 1
    gets, sizes = shard_gets(hub), header_sizes(qwen)
    assert sorted(Path(r.path).name for r in gets) == sorted(sizes)
    assert sum(r.bytes_sent for r in gets) <= 1.2 * sum(sizes.values())


def test_a_large_index_starts_the_header_fetches_from_the_listing(hub, qwen):
    """Above the index size threshold (lowered here), every numbered shard's fetch starts when the listing
    arrives, before the index is read; the audit is the same, each shard read in at most two requests."""
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    index_bytes = (qwen / "model.safetensors.index.json").stat().st_size
    src = source("Qwen/Qwen3-8B", listed_start_bytes=index_bytes)
    src.list_files()
    assert sorted(src._started) == sorted(header_sizes(qwen))  # nothing read from the index yet
    assert comparable(audit("Qwen/Qwen3-8B", source=src)) == comparable(audit(qwen))
    names = [Path(r.path).name for r in shard_gets(hub)]
    assert sorted(set(names)) == sorted(header_sizes(qwen)) and all(names.count(n) <= 2 for n in names)
    # a smaller index is awaited: nothing starts from the listing alone
    small = source("Qwen/Qwen3-8B", listed_start_bytes=index_bytes + 1, use_cache=False)
    small.list_files()
    assert not small._started


def test_the_listing_start_needs_the_whole_numbered_set(hub, qwen):
    """A numbered shard missing from the listing: the set is not the one the name promises, so nothing starts
    before the index says which files it maps (and the missing shard is reported as usual)."""
    (qwen / "model-00003-of-00005.safetensors").unlink()
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    src = source("Qwen/Qwen3-8B", listed_start_bytes=1)
    src.list_files()
    assert not src._started
    report = audit("Qwen/Qwen3-8B", source=src)
    assert "index-shard-missing" in {f.code for f in report.findings}


def test_large_header_needs_one_exact_second_range(hub, tmp_path):
    path = tmp_path / "model.safetensors"
    build.write_file(path, [("w", "F32", [4, 4])], {"pad": "p" * 150_000})
    n = int.from_bytes(path.read_bytes()[:8], "little")
    hub.add_repo("org/big", {"model.safetensors": path, "config.json": "{}"})
    report = audit("org/big", source=source("org/big"))
    assert report.totals.tensors == 1
    ranges = [r.range for r in shard_gets(hub)]
    assert ranges == ["bytes=0-65535", f"bytes=65536-{8 + n - 1}"]
    assert all(r.status == 206 for r in shard_gets(hub))


def test_single_file_repo(hub, make_checkpoint):
    d = make_checkpoint([("model.embed_tokens.weight", "BF16", [8, 4]), ("lm_head.weight", "BF16", [8, 4])])
    hub.add_repo_from_dir("org/tiny", d)
    report = audit("org/tiny", source=source("org/tiny"))
    assert report.totals.parameters == 64
    (get,) = shard_gets(hub)
    assert get.status == 206 and get.bytes_sent == (d / "model.safetensors").stat().st_size  # clamped to the file


def test_revision_is_resolved_and_pinned(hub, qwen):
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen, revisions={"v1.0": TAG_COMMIT})
    report = audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B", revision="v1.0"))
    assert report.source["revision"] == "v1.0" and report.source["commit"] == TAG_COMMIT
    assert hub.requests[0].path.startswith("/api/models/Qwen/Qwen3-8B/revision/v1.0")
    assert all(f"/resolve/{TAG_COMMIT}/" in r.path for r in hub.requests[1:])


# -- header cache ----------------------------------------------------------------------------------------


def test_second_audit_of_same_commit_makes_no_header_requests(hub, qwen):
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    first = audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    hub.reset_log()
    src = source("Qwen/Qwen3-8B")
    second = audit("Qwen/Qwen3-8B", source=src)
    assert comparable(second) == comparable(first)
    assert [r.path.split("?")[0] for r in hub.requests] == ["/api/models/Qwen/Qwen3-8B"]  # listing only
    assert src.cache_hits == 5 and second.source["http"]["requests"] == 1
    cached = list(Path(constants.HF_ASSETS_CACHE).rglob("model-00001-of-00005.safetensors"))
    payload = cached[0].read_bytes().split(b"\n", 1)[1]  # after the entry's checksum line
    assert len(cached) == 1 and len(payload) == header_sizes(qwen)["model-00001-of-00005.safetensors"]
    hub.reset_log()
    audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B", use_cache=False))
    assert len(shard_gets(hub)) == 5


def test_damaged_cache_entry_is_fetched_again(hub, qwen):
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    (entry,) = Path(constants.HF_ASSETS_CACHE).rglob("model-00002-of-00005.safetensors")
    entry.write_bytes(entry.read_bytes()[:100])
    hub.reset_log()
    report = audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    assert report.exit_code == 0
    assert [Path(r.path).name for r in shard_gets(hub)] == ["model-00002-of-00005.safetensors"]


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x04
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("where", ["json", "length", "checksum-line"])
def test_one_flipped_bit_in_a_cached_header_is_refetched_not_reported(hub, qwen, where):
    """A damaged entry (valid length, damaged JSON, or a damaged checksum line) is the cache's fault, not the repo's."""
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    first = audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    (entry,) = Path(constants.HF_ASSETS_CACHE).rglob("model-00003-of-00005.safetensors")
    body = entry.read_bytes().index(b"\n") + 1
    _flip(entry, {"json": body + 8 + 40, "length": body + 1, "checksum-line": 30}[where])
    hub.reset_log()
    src = source("Qwen/Qwen3-8B")
    second = audit("Qwen/Qwen3-8B", source=src)
    assert second.exit_code == first.exit_code == 0 and comparable(second) == comparable(first)
    assert [Path(r.path).name for r in shard_gets(hub)] == ["model-00003-of-00005.safetensors"]
    assert src.cache_hits == 4
    hub.reset_log()
    audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))  # the refetched entry was stored intact
    assert shard_gets(hub) == []


def test_cache_entry_fetched_for_another_file_version_is_stale(hub, qwen):
    """An entry records the size and LFS sha256 it was fetched for; a listing that says otherwise refetches."""
    from auditor.read.sources.hubcache import HeaderCache

    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    src = source("Qwen/Qwen3-8B")
    audit("Qwen/Qwen3-8B", source=src)
    name = "model-00004-of-00005.safetensors"
    (entry,) = Path(constants.HF_ASSETS_CACHE).rglob(name)
    payload = entry.read_bytes().split(b"\n", 1)[1]
    HeaderCache(entry.parent).store(name, payload, size=src._files[name] + 1, etag=src.lfs_sha256[name])
    hub.reset_log()
    report = audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    assert report.exit_code == 0
    assert [Path(r.path).name for r in shard_gets(hub)] == [name]


def test_cache_entry_of_the_old_layout_is_refetched(hub, qwen):
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    name = "model-00001-of-00005.safetensors"
    (entry,) = Path(constants.HF_ASSETS_CACHE).rglob(name)
    entry.write_bytes(entry.read_bytes().split(b"\n", 1)[1])  # bare header bytes, as before the checksum
    hub.reset_log()
    assert audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B")).exit_code == 0
    assert [Path(r.path).name for r in shard_gets(hub)] == [name]


# -- never download weights ------------------------------------------------------------------------------


def test_server_ignoring_range_is_cut_off_after_the_header(hub, qwen):
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    hub.ignore_range = True
    src = source("Qwen/Qwen3-8B")
    report = audit("Qwen/Qwen3-8B", source=src)
    assert report.exit_code == 0 and report.totals.tensors == 399
    assert hub.wait_idle(10)
    sizes = header_sizes(qwen)
    gets = shard_gets(hub)
    assert len(gets) == 5 and all(r.status == 200 for r in gets)
    file_bytes = sum((qwen / name).stat().st_size for name in sizes)
    assert file_bytes > 10**10  # 16 GB of (sparse) weights...
    assert sum(r.bytes_sent for r in gets) < 5 * 4 * 1024**2  # ...of which a few MB at most left the server
    assert src.traffic.bytes < 5 * 1024**2


def test_truncated_shard_is_caught_from_the_listed_size(hub, qwen):
    shard = qwen / "model-00003-of-00005.safetensors"
    files = {p.name: RepoFile(path=p) for p in qwen.iterdir()}
    files[shard.name] = RepoFile(path=shard, truncate_to=shard.stat().st_size - 1000)
    hub.add_repo("Qwen/Qwen3-8B", files)
    report = audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    codes = {(f.code, f.files) for f in report.findings}
    assert ("file-truncated", (shard.name,)) in codes
    assert report.exit_code == 1
    assert len(shard_gets(hub)) == 5  # found from the header and the listing, no extra reads


def test_trailing_bytes_are_caught_from_the_listed_size(hub, qwen):
    shard = qwen / "model-00001-of-00005.safetensors"
    with open(shard, "r+b") as f:
        f.truncate(shard.stat().st_size + 64)  # 64 bytes after the tensor data, listed and served
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    report = audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    assert [f.code for f in report.findings if shard.name in f.files] == ["file-trailing-bytes"]


def test_a_listing_that_disagrees_with_the_served_size_stops_the_audit(hub, qwen):
    """The listing says one size, the server's Content-Range another: another version of the file is being served,
    so nothing of it is parsed, reported or cached (exit 3), rather than a trailing-bytes finding that is not the
    repo's."""
    from auditor.read.sources.huberrors import FileChanged

    shard = qwen / "model-00001-of-00005.safetensors"
    files = {p.name: RepoFile(path=p) for p in qwen.iterdir()}
    files[shard.name] = RepoFile(path=shard, listed_size=shard.stat().st_size + 64)
    hub.add_repo("Qwen/Qwen3-8B", files)
    with pytest.raises(
        FileChanged,
        match=rf"the server's {shard.name} of Qwen/Qwen3-8B has [\d,]+ bytes, but the "
        r"listing of commit \w+ says [\d,]+",
    ) as caught:
        audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    assert int(caught.value.served) == int(caught.value.expected) - 64 and caught.value.exit_code == 3
    assert not list(Path(constants.HF_ASSETS_CACHE).rglob(shard.name))


def test_lfs_pointer_served_as_shard_is_not_safetensors(hub, qwen):
    files = {p.name: RepoFile(path=p) for p in qwen.iterdir()}
    name = "model-00004-of-00005.safetensors"
    files[name] = RepoFile(data=b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 1\n")
    hub.add_repo("Qwen/Qwen3-8B", files)
    report = audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    assert any(f.code == "not-safetensors" and "LFS pointer" in f.message for f in report.findings)


# -- faults ----------------------------------------------------------------------------------------------


def test_500s_are_retried(hub, qwen):
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    hub.fail_first = 2
    report = audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    assert report.exit_code == 0
    assert [r.status for r in hub.requests[:3]] == [500, 500, 200]
    assert report.source["http"]["requests"] == hub.request_count == 2 + 1 + 2 + 5


def test_range_requests_are_retried_on_503_and_429(hub, qwen):
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    src = source("Qwen/Qwen3-8B", workers=1)
    files = src.list_files()
    for prefetch in src._small.values():  # config and index, fetched in the background
        prefetch.result()
    names = sorted(n for n in files if n.endswith(".safetensors"))
    hub.fail_first, hub.fail_status = 2, 503
    headers = src.read_headers(names, {n: files[n] for n in names}, {})
    assert all(h.ok for h in headers.values())
    assert [r.status for r in shard_gets(hub)].count(503) == 2
    hub.fail_first, hub.fail_status, hub.retry_after = 1, 429, "0.3"
    start = time.monotonic()
    src2 = source("Qwen/Qwen3-8B", workers=1, use_cache=False)
    src2.list_files()
    assert time.monotonic() - start >= 0.3  # waited as long as Retry-After said, not the 0.01 s backoff


def test_retries_are_bounded(hub, qwen):
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    hub.fail_first = 100
    with pytest.raises(HubError, match="kept failing with HTTP 500 after 3 retries"):
        audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B", max_retries=3))
    assert hub.request_count == 4


def test_long_retry_after_is_reported_not_slept(hub, qwen):
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    hub.fail_first, hub.fail_status, hub.retry_after = 5, 429, "3600"
    start = time.monotonic()
    with pytest.raises(HubError, match="rate-limiting.*retry after 3600 s"):
        audit("Qwen/Qwen3-8B", source=source("Qwen/Qwen3-8B"))
    assert time.monotonic() - start < 5 and hub.request_count == 1


def test_gated_repo(hub, qwen):
    hub.add_repo_from_dir("meta/gated", qwen, gated=True)
    with pytest.raises(HubError, match=r"gated repo: accept its terms at .*/meta/gated, then set HF_TOKEN"):
        audit("meta/gated", source=source("meta/gated"))
    with pytest.raises(HubError, match="not been granted access"):
        audit("meta/gated", source=source("meta/gated", token="hf_not_approved"))
    assert audit("meta/gated", source=source("meta/gated", token=DEFAULT_TOKEN)).exit_code == 0
    assert hub.requests[-1].headers["authorization"] == f"Bearer {DEFAULT_TOKEN}"


def test_missing_and_private_repos_and_revisions(hub, qwen):
    hub.add_repo_from_dir("org/private", qwen, private=True)
    with pytest.raises(TargetNotFound, match="org/nope was not found.*if it is private, set HF_TOKEN"):
        audit("org/nope", source=source("org/nope"))
    with pytest.raises(TargetNotFound, match="org/private was not found"):
        audit("org/private", source=source("org/private"))
    assert audit("org/private", source=source("org/private", token=DEFAULT_TOKEN)).exit_code == 0
    with pytest.raises(TargetNotFound, match="revision 'nope' does not exist in org/private"):
        audit("org/private", source=source("org/private", token=DEFAULT_TOKEN, revision="nope"))


def test_pickle_only_repo(hub):
    hub.add_repo("org/old", {"config.json": "{}", "pytorch_model.bin": b"\x80\x02" + b"\0" * 100})
    with pytest.raises(NotASafetensorsCheckpoint, match=r"only pytorch_model\.bin.*pickle files can run code"):
        audit("org/old", source=source("org/old"))
    assert hub.request_count == 1  # the listing was enough: nothing downloaded


def test_shard_missing_from_server_is_a_finding(hub, qwen):
    files = {p.name: RepoFile(path=p) for p in qwen.iterdir()}
    hub.add_repo("Qwen/Qwen3-8B", files)
    src = source("Qwen/Qwen3-8B")
    listed = src.list_files()
    del hub.repos["Qwen/Qwen3-8B"].files["model-00005-of-00005.safetensors"]  # listed, then gone
    headers = src.read_headers(
        ["model-00005-of-00005.safetensors"],
        {"model-00005-of-00005.safetensors": listed["model-00005-of-00005.safetensors"]},
        {},
    )
    (h,) = headers.values()
    assert [f.code for f in h.findings] == ["file-unreadable"]


def test_progress_and_traffic_summary(hub, qwen):
    hub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
    lines: list[str] = []
    audit(
        "Qwen/Qwen3-8B",
        progress=lines.append,
        source=source("Qwen/Qwen3-8B", workers=1, progress=lines.append, progress_interval=0),
    )
    assert lines[0] == "reading 5 headers from Qwen/Qwen3-8B"
    assert "  4/5 headers" in [line.split(" (")[0] for line in lines]
    assert lines[-1].startswith(
        f"hub: Qwen/Qwen3-8B@default branch (commit {hub.repos['Qwen/Qwen3-8B'].commit[:12]}): "
        f"{hub.request_count} requests, "
    )


# -- the command line ------------------------------------------------------------------------------------


def test_cli_audit_json_and_exit_codes(tmp_path, qwen):
    with HubStub() as stub:
        stub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
        env = stub.hf_env(tmp_path / "home")
        proc = run_cli("audit", "Qwen/Qwen3-8B", "--format", "json", env=env)
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        jsonschema.validate(doc, json.loads((ROOT / "auditor" / "schema" / "report.schema.json").read_text()))
        assert doc["source"]["kind"] == "hub" and doc["source"]["commit"] == stub.repos["Qwen/Qwen3-8B"].commit
        assert doc["source"]["http"] == {"requests": stub.request_count, "bytes": stub.bytes_sent}
        assert f"{stub.request_count} requests" in proc.stderr
        stub.reset_log()
        again = run_cli("audit", "Qwen/Qwen3-8B", "--format", "json", env=env)
        assert again.returncode == 0 and stub.request_count == 1
        stub.reset_log()
        fresh = run_cli("audit", "Qwen/Qwen3-8B", "--format", "json", "--no-cache", env=env)
        assert fresh.returncode == 0 and len(shard_gets(stub)) == 5


@pytest.mark.parametrize(
    ("setup", "extra_env", "message"),
    [
        ("missing", {}, "org/x was not found"),
        ("gated", {}, "is a gated repo: accept its terms"),
        ("pickle", {}, "only pytorch_model.bin"),
        ("down", {}, "cannot reach the Hub at http://127.0.0.1:9"),
        ("offline", {"HF_HUB_OFFLINE": "1"}, "offline mode is on (HF_HUB_OFFLINE=1)"),
    ],
)
def test_cli_errors_exit_3_with_one_line(tmp_path, qwen, setup, extra_env, message):
    with HubStub() as stub:
        if setup == "gated":
            stub.add_repo_from_dir("org/x", qwen, gated=True)
        if setup == "pickle":
            stub.add_repo("org/x", {"pytorch_model.bin": b"\x80\x02"})
        env = {**stub.hf_env(tmp_path / "home"), **extra_env}
        if setup == "down":
            env["HF_ENDPOINT"] = "http://127.0.0.1:9"
        proc = run_cli("audit", "org/x", env=env)
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert message in lines[-1] and lines[-1].startswith("st-audit: error: ")
    assert "Traceback" not in proc.stderr


def test_cli_formula_reads_only_config(tmp_path, qwen):
    with HubStub() as stub:
        stub.add_repo_from_dir("Qwen/Qwen3-8B", qwen)
        proc = run_cli("formula", "Qwen/Qwen3-8B", "--format", "json", env=stub.hf_env(tmp_path / "home"))
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["model_type"] == "qwen3"
        # the listing (as audit starts: an unreachable Hub fails at once), then config.json: no weights, no HEAD
        requests = [(r.method, r.path) for r in stub.requests]
        assert len(requests) == 2 and requests[0][1].startswith("/api/models/Qwen/Qwen3-8B")
        assert requests[1][0] == "GET" and requests[1][1].endswith("/config.json")


def test_huggingface_hub_is_imported_only_for_hub_targets(qwen):
    root = Path(__file__).resolve().parent.parent / "auditor"
    importers = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if re.search(r"^\s*(from|import)\s+huggingface_hub", p.read_text(encoding="utf-8"), re.M)
    )
    assert "read/sources/hub.py" in importers and all(
        p.startswith("read/sources/hub") for p in importers
    )  # the Hub source
    code = (
        "import sys; from auditor.run.audit import audit; audit(sys.argv[1]); print('huggingface_hub' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(qwen)], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_cli_subprocesses_cannot_reach_the_network() -> None:
    """run_cli's children carry the same guard as the test process: a non-loopback connection fails there."""
    import subprocess
    import sys

    from tests.support.cli import NETGUARD

    code = "import socket; s = socket.socket(); s.settimeout(1); s.connect(('192.0.2.1', 443))"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": NETGUARD, "PATH": ""},
    )
    assert proc.returncode != 0 and "tried to reach the network" in proc.stderr


def test_the_listing_start_reads_six_digit_shard_totals(hub, tmp_path):
    """DeepSeek-V3's own naming (-00001-of-000163) is a numbered set too: its fetches start from the listing."""
    shards = {f"w{i}": f"model-0000{i}-of-000003.safetensors" for i in (1, 2, 3)}
    path = build.build_checkpoint(tmp_path / "ds", [(n, "F32", [4]) for n in shards], weight_map=shards)
    hub.add_repo_from_dir("org/ds", path)
    src = source("org/ds", listed_start_bytes=1)
    src.list_files()
    assert sorted(src._started) == sorted(shards.values())
    assert audit("org/ds", source=src).totals.tensors == 3
