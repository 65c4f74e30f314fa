"""A Hub audit against a stand-in that misbehaves as servers, proxies and CDNs do (tests/support/hubstub.py ``Fault``).

For every fault: what the audit says while it lasts (a retry that hides it, or one exit-3 sentence naming the file and
what the server did; never a finding that is not the repo's), that nothing it spoiled was cached, and that the next
audit with the same cache gives the healthy repo's verdict once it has cleared; time, requests and bytes bounded.
"""

from __future__ import annotations

import json
import threading
import time
import tracemalloc
from pathlib import Path

import pytest
from huggingface_hub import constants

from auditor.core.errors import AuditError, HubError
from auditor.read.sources import hubhttp
from auditor.read.sources.hubcache import HeaderCache
from auditor.read.sources.huberrors import FileChanged, RevisionMoved
from auditor.run.audit import audit
from auditor.run.dispatch import audit_target
from tests.support import build
from tests.support.cli import run_cli
from tests.support.hub import source
from tests.support.hubstub import DEFAULT_TOKEN, Fault, HubStub, Repo, RepoFile, fake_commit

REPO = "org/qwen"
SHARD = "model-00003-of-00004.safetensors"
INDEX = "model.safetensors.index.json"
MB = 1_000_000
SHARDS = {f"model-0000{i}-of-00004.safetensors" for i in range(1, 5)}


@pytest.fixture
def qwen(tmp_path: Path) -> Path:
    """Six files: config.json, the index and four shards (Qwen3-0.6B's layout, header-only)."""
    return build.build_layout(tmp_path / "qwen", "Qwen__Qwen3-0.6B", shards=4)


@pytest.fixture
def healthy(hub: HubStub, qwen: Path) -> dict:
    """The repo on the stand-in, and its healthy verdict as a local audit gives it."""
    hub.add_repo_from_dir(REPO, qwen)
    return comparable(audit(qwen))


def comparable(report) -> dict:
    """A report's JSON without where it was read, and with a Hub repo's words for its own broken files (upload it
    again, not download it again: decided on the source's kind) as a local audit says them."""
    doc = json.loads(
        json.dumps(report.to_dict()),
        object_hook=lambda d: {k: said_locally(v) if k == "message" else v for k, v in d.items()},
    )
    doc.pop("target"), doc.pop("source")
    return doc


def said_locally(message: str) -> str:
    from auditor.read.header import SHORT_FILE
    from auditor.report.rootcause import ROOT_CODES, advice

    for code in ROOT_CODES:
        message = message.replace(f"; {advice(code, True)}", f"; {advice(code, False)}")
    return message.replace(SHORT_FILE[True], SHORT_FILE[False])


def cached(name: str) -> list[Path]:
    return list(Path(constants.HF_ASSETS_CACHE).rglob(name))


def gets(hub: HubStub, name: str) -> list:
    return [r for r in hub.requests if r.method == "GET" and r.path.split("?")[0].endswith("/" + name)]


def after_the_fault(
    hub: HubStub, healthy: dict, *, refetched: set[str] | None = None, racing: frozenset[str] = frozenset()
) -> None:
    """The fault is over: the next audit, with the same cache, gives the healthy verdict; ``refetched``: the only
    files it had to fetch again (everything else came from the cache), ``racing`` those that may also have been
    (config.json, fetched beside an index that failed, may not have been cached yet when the audit stopped)."""
    hub.clear_faults()
    hub.reset_log()
    assert comparable(audit(REPO, source=source(REPO))) == healthy
    if refetched is not None:
        fetched = {r.path.split("?")[0].rsplit("/", 1)[-1] for r in hub.requests if "/resolve/" in r.path}
        assert refetched <= fetched <= refetched | racing


# -- an HTML error page answered with 200 -------------------------------------------------------------------


@pytest.mark.parametrize("name", [SHARD, INDEX])
def test_an_html_page_answered_with_200_is_retried_never_parsed_or_cached(hub, healthy, name):
    fault = hub.inject(Fault("html", file=name))  # once: the retry gets the file
    assert comparable(audit(REPO, source=source(REPO))) == healthy
    assert fault.served == 1 and [r.status for r in gets(hub, name)] == [200, 206 if name == SHARD else 200]
    hub.reset_log()
    assert comparable(audit(REPO, source=source(REPO))) == healthy and gets(hub, name) == []  # the retry was cached


@pytest.mark.parametrize("name", [SHARD, INDEX])
def test_an_html_page_that_lasts_is_one_error_naming_the_file_and_nothing_is_cached(hub, healthy, name):
    hub.inject(Fault("html", file=name, times=None))
    with pytest.raises(
        HubError,
        match=rf"could not read {name} from {REPO} at .*: the server answered HTTP 200 with "
        r"a \d+-byte HTML page instead of the file \(5 attempts\)",
    ) as caught:
        audit(REPO, source=source(REPO))
    assert caught.value.exit_code == 3 and "not-safetensors" not in str(caught.value)
    assert len(gets(hub, name)) == 5 and cached(name) == []
    after_the_fault(
        hub, healthy, refetched={name} if name == SHARD else {name, *SHARDS}, racing=frozenset({"config.json"})
    )  # no shard without the index


def test_an_html_page_on_the_listing_is_retried(hub, healthy):
    hub.inject(Fault("html", listing=True))
    assert comparable(audit(REPO, source=source(REPO))) == healthy


# -- bodies cut short ---------------------------------------------------------------------------------------


def test_an_index_cut_short_is_never_cached(hub, healthy, qwen):
    """A body whole by its own Content-Length but shorter than the listed file: retried, then one error."""
    size = (qwen / INDEX).stat().st_size
    hub.inject(Fault("short", file=INDEX, keep=1000, times=None))
    with pytest.raises(
        HubError,
        match=rf"could not read {INDEX} from {REPO} .*: the server sent 1,000 bytes where "
        rf"the listing says {size:,} \(5 attempts\)",
    ):
        audit(REPO, source=source(REPO))
    assert cached(INDEX) == []
    after_the_fault(hub, healthy, refetched={INDEX, *SHARDS}, racing=frozenset({"config.json"}))


@pytest.mark.parametrize(("action", "name"), [("short", SHARD), ("cut", SHARD), ("cut", INDEX)])
def test_a_body_cut_short_once_is_retried(hub, healthy, action, name):
    """A 206 shorter than its Content-Range, or a connection closed mid-body: the retry gets the whole answer."""
    fault = hub.inject(Fault(action, file=name, keep=100))
    assert comparable(audit(REPO, source=source(REPO))) == healthy
    assert fault.served == 1 and len(gets(hub, name)) == 2
    after_the_fault(hub, healthy, refetched=set())


# -- one revision per audit -----------------------------------------------------------------------------------


def moved(tmp_path: Path) -> Repo:
    """The repo after a push: one more tensor (in the last shard and the index)."""
    b = build.build_layout(tmp_path / "qwen-b", "Qwen__Qwen3-0.6B", shards=4, extra=[("lm_head.extra", "BF16", [8])])
    return Repo(files={p.name: RepoFile(path=p) for p in b.iterdir()}, commit=fake_commit("pushed"))


@pytest.mark.parametrize("skip", [0, 4])
def test_a_branch_that_moves_mid_audit_stops_it_naming_both_commits(hub, healthy, tmp_path, skip):
    """The listing says commit A; from the ``skip``-th download on, the server answers from B (X-Repo-Commit B). Never
    B's tensors reported as A's findings (an unexpected tensor, a false truncation), never B's bytes cached as A's."""
    a = hub.repos[REPO].commit
    b = moved(tmp_path)
    hub.inject(Fault("commit", repo=b, skip=skip, times=None))
    with pytest.raises(
        RevisionMoved,
        match=rf"{REPO} changed while it was being audited: \S+ was answered from "
        rf"commit {b.commit}, not {a} \(the commit this audit reads\)",
    ) as caught:
        audit(REPO, source=source(REPO, workers=1))
    assert (caught.value.expected, caught.value.served) == (a, b.commit) and caught.value.exit_code == 3
    for entry in Path(constants.HF_ASSETS_CACHE).rglob("*.safetensors"):  # whatever was cached is A's
        assert b"lm_head.extra" not in entry.read_bytes() and entry.parent.name == a
    after_the_fault(hub, healthy)


def test_the_cli_says_one_line_for_a_moved_branch(tmp_path, qwen):
    with HubStub() as stub:
        stub.add_repo_from_dir(REPO, qwen)
        b = moved(tmp_path)
        stub.inject(Fault("commit", repo=b, skip=2, times=None))
        proc = run_cli("audit", REPO, env=stub.hf_env(tmp_path / "home"))
    assert proc.returncode == 3 and proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()[-1:]
    assert line.startswith(f"st-audit: error: {REPO} changed while it was being audited") and b.commit in line
    assert "no such file or directory" not in proc.stderr and "Traceback" not in proc.stderr


# -- two versions of one file -------------------------------------------------------------------------------


@pytest.fixture
def big(hub: HubStub, tmp_path: Path) -> tuple[Path, dict]:
    """A single-file repo whose header (150 kB of metadata) takes two ranges; its healthy verdict."""
    path = tmp_path / "big" / "model.safetensors"
    path.parent.mkdir()
    build.write_file(path, [("w", "F32", [4, 4])], {"pad": "p" * 150_000})
    hub.add_repo(REPO, {"model.safetensors": path, "config.json": "{}"})
    (path.parent / "config.json").write_text("{}")
    return path, comparable(audit(path.parent))


def other_version(tmp_path: Path) -> RepoFile:
    path = tmp_path / "other.safetensors"
    build.write_file(path, [("w", "F32", [4, 4])], {"pad": "q" * 150_000})
    return RepoFile(path=path, sha256="e" * 64)


def test_two_versions_of_one_file_across_its_ranges_are_never_stitched(hub, big, tmp_path):
    path, healthy = big
    hub.inject(Fault("version", file="model.safetensors", data=other_version(tmp_path), skip=1, times=None))
    with pytest.raises(
        FileChanged,
        match=r"model.safetensors of org/qwen changed while it was being read: its first "
        r"range is version [0-9a-f]{64}, a later one e{64}",
    ):
        audit(REPO, source=source(REPO))
    assert [r.range for r in gets(hub, "model.safetensors")] == [
        "bytes=0-65535",
        f"bytes=65536-{path.stat().st_size - 65}",
    ]
    assert cached("model.safetensors") == []
    after_the_fault(hub, healthy, refetched={"model.safetensors"})


def test_another_version_than_the_listing_says_is_not_read(hub, big, tmp_path):
    _, healthy = big
    hub.inject(Fault("version", file="model.safetensors", data=other_version(tmp_path), times=None))
    with pytest.raises(
        FileChanged,
        match=r"the server answered model.safetensors of org/qwen with version e{64}, but "
        r"the listing of commit \w{12} gives [0-9a-f]{64}",
    ):
        audit(REPO, source=source(REPO))
    assert len(gets(hub, "model.safetensors")) == 1 and cached("model.safetensors") == []
    after_the_fault(hub, healthy, refetched={"model.safetensors"})


def test_another_version_of_the_index_is_not_read(hub, healthy, tmp_path):
    """A non-LFS file's ETag is its git blob id: one the listing does not give is another version."""
    index = b'{"metadata": {}, "weight_map": {}}'
    hub.inject(Fault("version", file=INDEX, data=RepoFile(data=index), times=None))
    with pytest.raises(FileChanged, match=rf"the server answered {INDEX} of {REPO} with version [0-9a-f]{{40}}"):
        audit(REPO, source=source(REPO))
    assert cached(INDEX) == []
    after_the_fault(hub, healthy, refetched={INDEX, *SHARDS}, racing=frozenset({"config.json"}))


# -- a length field that claims more than the JSON holds ---------------------------------------------------------


def claims_100_mb(path: Path, tensors: int = 380) -> int:
    """A header whose length field says 100,000,000 bytes while its JSON ends after ~30 kB (zeros follow, as data
    would); the file is long enough for the claim. Returns the JSON's length."""
    doc, offset = {}, 0
    for i in range(tensors):
        doc[f"model.layers.{i}.weight"] = {"dtype": "F32", "shape": [4, 4], "data_offsets": [offset, offset + 64]}
        offset += 64
    raw = json.dumps(doc, separators=(",", ":")).encode()
    with open(path, "wb") as f:
        f.write((100_000_000).to_bytes(8, "little") + raw)
        f.truncate(8 + 100_000_000 + offset)
    return len(raw)


@pytest.mark.parametrize("layout", ["single file", "sharded", "range ignored"])
def test_a_length_field_of_100_million_costs_what_the_json_costs(hub, tmp_path, layout):
    """The same finding as the local audit (which reads all 100 MB), from < 1 MB fetched, memory bounded by the JSON:
    the first range holds the JSON's end (single file), or its first range is a few hundred bytes (sized from an
    index naming one tensor) and growing ranges reach it, or the server sends the whole file (read as one stream)."""
    folder = tmp_path / "m"
    folder.mkdir()
    name = "model.safetensors" if layout != "sharded" else "model-00001-of-00002.safetensors"
    json_bytes = claims_100_mb(folder / name)
    assert 25_000 < json_bytes < 35_000
    (folder / "config.json").write_text("{}")
    if layout == "sharded":
        build.write_file(folder / "model-00002-of-00002.safetensors", [("b", "F32", [4])])
        weight_map = {"model.layers.0.weight": name, "b": "model-00002-of-00002.safetensors"}
        (folder / INDEX).write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    hub.add_repo_from_dir(REPO, folder)
    hub.ignore_range = layout == "range ignored"
    local = audit(folder)
    (finding,) = [f for f in local.findings if f.code == "header-invalid-json"]
    assert "Extra data" in finding.message
    src = source(REPO)
    tracemalloc.start()
    try:
        remote = audit(REPO, source=src)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    said = [f.message for f in remote.findings if f.code == "header-invalid-json"]
    assert [said_locally(m) for m in said] == [finding.message]
    assert said[0].endswith("; the stored file itself is broken: export and upload it again")  # the repo's own file
    assert comparable(remote) == comparable(local)
    assert src.traffic.bytes < MB and peak < 16 * MB  # the claim alone took 100 MB, and 424 MiB at the peak
    hub.wait_idle(10)
    sent = sum(r.bytes_sent for r in gets(hub, name))
    assert sent < (4 * MB if layout == "range ignored" else MB)  # a stream cut off leaves socket buffers behind
    assert len(gets(hub, name)) <= 2 and cached(name) == []  # an invalid header is never cached


def test_a_header_padded_far_beyond_its_json_is_read_whole_and_cached(hub, tmp_path):
    """Spaces are valid padding (the reference's serde_json allows trailing whitespace): 2 MB of them are read, in
    growing ranges, and the header is valid, as on disk."""
    folder = tmp_path / "p"
    folder.mkdir()
    head, data = build.header_bytes([("w", "F32", [4, 4])], {"format": "pt"})
    raw = head[8:] + b" " * 2_000_000
    with open(folder / "model.safetensors", "wb") as f:
        f.write(len(raw).to_bytes(8, "little") + raw)
        f.truncate(8 + len(raw) + data)
    hub.add_repo_from_dir(REPO, folder)
    assert comparable(audit(REPO, source=source(REPO))) == comparable(audit(folder))
    ranges = [r.range for r in gets(hub, "model.safetensors")]
    assert len(ranges) == 3 and ranges[0] == "bytes=0-65535"  # 64 kB, then 512 kB, then the rest (4x)
    hub.reset_log()
    assert audit(REPO, source=source(REPO)).exit_code == 0 and gets(hub, "model.safetensors") == []  # cached


# -- deadlines -----------------------------------------------------------------------------------------------


def test_a_trickling_server_is_cut_off_at_the_request_deadline(hub, healthy):
    """One byte every 50 ms: every read is quick, so only a deadline per request (0.5 s here; 30 s by default) ends
    it. Two attempts, then one error naming the file."""
    hub.inject(Fault("trickle", file=SHARD, interval=0.05, times=None))
    start = time.monotonic()
    with pytest.raises(
        HubError,
        match=rf"could not read {SHARD} from {REPO} .*: no whole answer within 0.5 s \(the "
        r"per-request timeout\) \(2 attempts\)",
    ):
        audit(REPO, source=source(REPO, timeout=0.5, max_retries=1))
    elapsed = time.monotonic() - start
    assert 1.0 <= elapsed < 2.0
    assert all(r.bytes_sent <= 0.5 / 0.05 + 2 for r in gets(hub, SHARD))  # the trickle ended with the request
    after_the_fault(hub, healthy, refetched={SHARD})


def test_a_trickling_listing_is_cut_off_too(hub, healthy):
    hub.inject(Fault("trickle", listing=True, interval=0.05, times=None))
    start = time.monotonic()
    with pytest.raises(HubError, match=rf"did not list {REPO}: no whole answer within 0.3 s"):
        audit(REPO, source=source(REPO, timeout=0.3, max_retries=1))
    assert time.monotonic() - start < 1.5
    after_the_fault(hub, healthy)


def test_a_stalled_server_is_cut_off_at_the_request_deadline(hub, healthy):
    hub.latency = 1.0  # nothing at all for a second
    start = time.monotonic()
    with pytest.raises(HubError, match=r"did not list org/qwen: no whole answer within 0.2 s"):
        audit(REPO, source=source(REPO, timeout=0.2, max_retries=0))
    assert time.monotonic() - start < 0.8
    hub.latency = 0.0
    after_the_fault(hub, healthy)


def test_the_audit_has_a_deadline_of_its_own(hub, healthy):
    """Retries within each request's deadline, but not past the audit's."""
    hub.inject(Fault("trickle", file=SHARD, interval=0.05, times=None))
    start = time.monotonic()
    with pytest.raises(HubError, match=rf"the audit of {REPO} ran out of time \(its 1.2 s\) while reading {SHARD}"):
        audit(REPO, source=source(REPO, timeout=0.5, max_retries=10, audit_timeout=1.2))
    assert time.monotonic() - start < 1.8


# -- resets, 503 storms, gzip, CDN redirects -------------------------------------------------------------------


def test_a_reset_on_one_of_six_files_names_that_file_not_the_network(hub, healthy):
    hub.inject(Fault("reset", file=SHARD, times=None))
    with pytest.raises(HubError) as caught:
        audit(REPO, source=source(REPO, workers=1))
    message = str(caught.value)
    assert message.startswith(
        f"could not read {SHARD} from {REPO} at {hub.url}: the connection was reset (5 attempts); "
    )
    assert "of it had been read: try again later" in message and "cannot reach" not in message
    assert len(gets(hub, SHARD)) == 5 and cached(SHARD) == []
    after_the_fault(hub, healthy, refetched={SHARD})


def test_resets_that_pass_are_retried(hub, healthy):
    fault = hub.inject(Fault("reset", file=SHARD, times=2))
    assert comparable(audit(REPO, source=source(REPO))) == healthy and fault.served == 2


def test_a_503_storm_on_the_shards_is_retried_then_named(hub, healthy, qwen):
    hub.fail_first, hub.fail_status = 3, 503
    assert comparable(audit(REPO, source=source(REPO))) == healthy
    hub.reset_log()
    hub.fail_first = 1000
    src = source(REPO, max_retries=2, use_cache=False)
    with pytest.raises(HubError, match=r"kept failing with HTTP 503 after 2 retries"):
        audit(REPO, source=src)
    hub.fail_first = 0
    src = source(REPO, use_cache=False, workers=1, max_retries=2)
    files = src.list_files()
    src.read_small(INDEX), src.read_small("config.json")  # read_json would start the header fetches already
    hub.fail_first = 1000
    with pytest.raises(
        HubError,
        match=rf"could not read model-00001-of-00004.safetensors from {REPO} .*: the server "
        r"answered HTTP 503 \(3 attempts\); 2 other files of it had been read",
    ):
        src.read_headers(["model-00001-of-00004.safetensors"], files, {})
    hub.fail_first = 0


@pytest.mark.parametrize("name", ["config.json", SHARD])
def test_a_gzip_body_nobody_asked_for_is_decoded(hub, healthy, name):
    fault = hub.inject(Fault("gzip", file=name))
    assert comparable(audit(REPO, source=source(REPO))) == healthy and fault.served == 1
    after_the_fault(hub, healthy, refetched=set())


def test_lfs_files_redirected_to_a_cdn_get_no_token(hub, qwen):
    """The Hub answers LFS downloads with a 302 to another host; the token must not follow it, and the commit and
    version on the redirect are what is checked."""
    hub.add_repo_from_dir(REPO, qwen, private=True)
    hub.cdn = True
    report = audit(REPO, source=source(REPO, token=DEFAULT_TOKEN))
    assert comparable(report) == comparable(audit(qwen))
    cdn = [r for r in hub.requests if r.path.startswith("/cdn/")]
    assert len(cdn) == 4 and all("authorization" not in r.headers for r in cdn)
    assert all(
        r.headers.get("authorization") == f"Bearer {DEFAULT_TOKEN}" for r in hub.requests if "/resolve/" in r.path
    )


def test_a_fault_on_the_cdn_is_retried(hub, qwen):
    hub.add_repo_from_dir(REPO, qwen)
    hub.cdn = True
    fault = hub.inject(Fault("html", file=SHARD))
    assert comparable(audit(REPO, source=source(REPO))) == comparable(audit(qwen)) and fault.served == 1


# -- the cache re-checks what it holds -------------------------------------------------------------------------


def test_a_cached_entry_that_is_not_a_whole_header_is_fetched_again(hub, healthy):
    """An intact envelope of the listed size and version whose payload is an error page (as an older st-audit could
    store): never parsed as the repo's header."""
    src = source(REPO)
    audit(REPO, source=src)
    (entry,) = cached(SHARD)
    HeaderCache(entry.parent).store(
        SHARD, b"<!DOCTYPE html><html>502</html>", size=src._files[SHARD], etag=src.lfs_sha256[SHARD]
    )
    after_the_fault(hub, healthy, refetched={SHARD})
    assert b"<!DOCTYPE" not in entry.read_bytes()


def test_a_cached_index_that_does_not_parse_is_fetched_again(hub, healthy, qwen):
    src = source(REPO)
    audit(REPO, source=src)
    (entry,) = cached(INDEX)
    HeaderCache(entry.parent).store(
        INDEX, (qwen / INDEX).read_bytes()[:500], size=src._files[INDEX], etag=src.git_sha1[INDEX]
    )
    after_the_fault(hub, healthy, refetched={INDEX})


# -- one gate for the process ----------------------------------------------------------------------------------


def test_a_429_seen_by_one_source_makes_every_source_wait(hub, qwen):
    """Two sources in one process (the fleet): one gets 429 with Retry-After; the other, starting its audit after
    that, sends nothing until the pause is over."""
    hub.add_repo_from_dir("org/a", qwen)
    hub.add_repo_from_dir("org/b", qwen)
    hub.fail_first, hub.fail_status, hub.retry_after = 1, 429, "0.6"
    results: dict[str, object] = {}
    first = threading.Thread(target=lambda: results.update(a=audit("org/a", source=source("org/a"))))
    first.start()
    deadline = time.monotonic() + 10
    while hubhttp.GATE.paused_until(hub.url) <= time.monotonic() and time.monotonic() < deadline:
        time.sleep(0.005)
    resume = hubhttp.GATE.paused_until(hub.url)
    assert resume > time.monotonic()
    results["b"] = audit("org/b", source=source("org/b"))
    first.join(30)
    assert set(results) == {"a", "b"}
    b_requests = [r for r in hub.requests if "org/b" in r.path]
    assert min(r.at for r in b_requests) >= resume - 0.01
    assert all(report.exit_code == 0 for report in results.values())  # type: ignore[attr-defined]
    assert [r.status for r in hub.requests].count(429) == 1


def test_a_429_pauses_the_workers_already_running(hub, qwen):
    """Two sources auditing at once; a shard request of one gets 429 (Retry-After 0.5): no request from either starts
    until the pause is over (those already sent when it came are answered)."""
    hub.add_repo_from_dir("org/a", qwen)
    hub.add_repo_from_dir("org/b", qwen)
    hub.latency = 0.02
    hub.fail_first, hub.fail_status, hub.retry_after = 1, 429, "0.5"
    reports = {}
    threads = [
        threading.Thread(target=lambda r=repo: reports.update({r: audit(r, source=source(r, workers=2))}))
        for repo in ("org/a", "org/b")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert {r: rep.exit_code for r, rep in reports.items()} == {"org/a": 0, "org/b": 0}
    (limited,) = [r for r in hub.requests if r.status == 429]
    resume = hubhttp.GATE.paused_until(hub.url)
    assert resume >= limited.at + 0.5
    started_during = [r for r in hub.requests if limited.at + 0.1 < r.at < resume - 0.02]
    assert started_during == []


def test_the_gate_is_one_budget_for_every_source(hub, qwen, monkeypatch):
    """The gate's limit holds for all the sources of the process together, not per source."""
    monkeypatch.setattr(hubhttp.GATE, "limit", 2)
    for repo in ("org/a", "org/b", "org/c"):
        hub.add_repo_from_dir(repo, qwen)
    hub.latency = 0.03
    reports = []
    threads = [
        threading.Thread(target=lambda r=repo: reports.append(audit(r, source=source(r, use_cache=False))))
        for repo in ("org/a", "org/b", "org/c")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [r.exit_code for r in reports] == [0, 0, 0]
    assert hub.peak_in_flight == 2


# -- Hub errors are the Hub's --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setup", "says"),
    [
        ("gated", "is a gated repo: accept its terms"),
        ("rate-limited", "is rate-limiting requests (HTTP 429, retry after 3600 s)"),
    ],
)
def test_a_hub_shaped_target_gets_the_hubs_error_not_no_such_file(hub, qwen, setup, says):
    if setup == "gated":
        hub.add_repo_from_dir(REPO, qwen, gated=True)
    else:
        hub.add_repo_from_dir(REPO, qwen)
        hub.fail_first, hub.fail_status, hub.retry_after = 5, 429, "3600"
    with pytest.raises(AuditError) as caught:
        audit_target(REPO)
    assert says in str(caught.value) and "no such file or directory" not in str(caught.value)


def test_a_request_ends_at_its_deadline_not_at_the_next_byte(hub, healthy):
    """A byte every 0.4 s: the second would come after the 0.5 s deadline; the request ends at the deadline (the
    watchdog shuts the socket), not when that byte or a read timeout arrives."""
    hub.inject(Fault("trickle", file=SHARD, interval=0.4, times=None))
    src = source(REPO, timeout=0.5, max_retries=0)
    files = src.list_files()
    src.read_json(INDEX)
    start = time.monotonic()
    with pytest.raises(HubError, match="no whole answer within 0.5 s"):
        src.read_headers([SHARD], files, {})
    assert 0.45 < time.monotonic() - start < 0.65


def test_a_base_models_config_lookup_is_bounded_too(hub, qwen, monkeypatch):
    """The one lookup outside a source (a PEFT adapter's base config.json) has a deadline as well: the adapter's audit
    goes on without it, on time."""
    from auditor.read.sources.hub import fetch_json

    hub.add_repo_from_dir(REPO, qwen)
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    assert fetch_json(REPO, timeout=2)["model_type"] == "qwen3"
    hub.inject(Fault("trickle", file="config.json", interval=0.05, times=None))
    start = time.monotonic()
    with pytest.raises(OSError, match="no whole answer within 0.3 s"):
        fetch_json(REPO, timeout=0.3)
    assert time.monotonic() - start < 0.6
