"""The fake Hub (tests/support/hubstub.py) speaks the protocol the real huggingface_hub client expects.

Every huggingface_hub call here goes to the stub: ``endpoint=`` is passed
explicitly and the import-time constants (endpoint, HF_HOME paths, telemetry)
are patched, so nothing can reach huggingface.co or the user's cache.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from huggingface_hub import HfApi, hf_hub_download
from huggingface_hub.errors import (
    EntryNotFoundError,
    GatedRepoError,
    HfHubHTTPError,
    NotASafetensorsRepoError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils import get_session
from safetensors.numpy import save_file

from tests.support.hubstub import DEFAULT_TOKEN, HubStub, RepoFile, fake_commit

PR_COMMIT = "1" * 40


# -- fixtures ------------------------------------------------------------------------


@pytest.fixture
def api(hub: HubStub) -> HfApi:
    return HfApi(endpoint=hub.url, token=False)


def _shard(path: Path, tensors: dict[str, np.ndarray], metadata: dict[str, str] | None = None) -> Path:
    save_file(tensors, str(path), metadata=metadata)
    return path


@pytest.fixture
def model_dirs(tmp_path: Path) -> dict[str, Path]:
    """A single-file safetensors repo and a two-shard repo on disk."""
    single = tmp_path / "single"
    single.mkdir()
    (single / "config.json").write_text(json.dumps({"model_type": "tiny", "hidden_size": 4}))
    _shard(single / "model.safetensors", {"w": np.zeros((2, 3), np.float32), "b": np.ones(3, np.float16)})

    sharded = tmp_path / "sharded"
    (sharded / "sub dir").mkdir(parents=True)
    (sharded / "config.json").write_text("{}")
    (sharded / "sub dir" / "notes.txt").write_text("hello")
    _shard(sharded / "model-00001-of-00002.safetensors", {"a.weight": np.zeros((4, 4), np.float32)})
    _shard(
        sharded / "model-00002-of-00002.safetensors",
        {"b.weight": np.zeros((2, 8), np.int8), "b.bias": np.zeros(8, np.int64)},
    )
    index = {
        "metadata": {"total_size": 64 + 16 + 64},
        "weight_map": {
            "a.weight": "model-00001-of-00002.safetensors",
            "b.weight": "model-00002-of-00002.safetensors",
            "b.bias": "model-00002-of-00002.safetensors",
        },
    }
    (sharded / "model.safetensors.index.json").write_text(json.dumps(index))
    return {"single": single, "sharded": sharded}


# -- model_info ----------------------------------------------------------------------


def test_model_info_lists_files_and_sizes_with_files_metadata(hub, api, model_dirs):
    repo = hub.add_repo_from_dir("org/sharded", model_dirs["sharded"])
    info = api.model_info("org/sharded")
    assert info.id == "org/sharded"
    assert info.sha == repo.commit == fake_commit("org/sharded")
    names = sorted(s.rfilename for s in info.siblings)
    assert "sub dir/notes.txt" in names and "model-00002-of-00002.safetensors" in names
    assert all(s.size is None for s in info.siblings)  # plain listing: names only

    info = api.model_info("org/sharded", files_metadata=True)
    assert hub.requests[-1].path.endswith("?blobs=true")
    by_name = {s.rfilename: s for s in info.siblings}
    shard = model_dirs["sharded"] / "model-00002-of-00002.safetensors"
    assert by_name["model-00002-of-00002.safetensors"].size == shard.stat().st_size
    lfs = by_name["model-00002-of-00002.safetensors"].lfs
    assert lfs.size == shard.stat().st_size
    assert lfs.sha256 == hashlib.sha256(shard.read_bytes()).hexdigest()  # small file: real hash
    notes = by_name["sub dir/notes.txt"]
    assert notes.size == 5 and notes.lfs is None
    assert notes.blob_id == hashlib.sha1(b"blob 5\0hello").hexdigest()


def test_model_info_accepts_requests_style_blobs_param(hub):
    hub.add_repo("org/a", {"model.safetensors": b"x" * 10})
    r = get_session().get(f"{hub.url}/api/models/org/a", params={"blobs": "True"})
    assert r.status_code == 200
    assert r.json()["siblings"][0]["lfs"]["size"] == 10


@pytest.mark.parametrize(
    ("revision", "encoded"),
    [("main", "main"), ("refs/pr/1", "refs%2Fpr%2F1"), (PR_COMMIT, PR_COMMIT), ("v1.0", "v1.0")],
)
def test_model_info_revisions(hub, api, revision, encoded):
    repo = hub.add_repo("legacy", {"config.json": "{}"}, revisions={"refs/pr/1": PR_COMMIT, "v1.0": "2" * 40})
    info = api.model_info("legacy", revision=revision)
    assert info.sha == repo.resolve_revision(revision)
    assert info.sha == {"main": fake_commit("legacy"), "v1.0": "2" * 40}.get(revision, PR_COMMIT)
    assert hub.requests[-1].path == f"/api/models/legacy/revision/{encoded}"


def test_model_info_extra_info_and_gated_listing(hub, api):
    hub.add_repo(
        "org/gated",
        {"model.safetensors": b"\0" * 8},
        gated=True,
        extra_info={"safetensors": {"parameters": {"BF16": 7}, "total": 7}},
    )
    info = api.model_info("org/gated")  # listing a gated repo needs no token, as on the Hub
    assert info.gated == "manual"
    assert info.safetensors.total == 7 and info.safetensors.parameters == {"BF16": 7}


# -- hf_hub_download -----------------------------------------------------------------


@pytest.mark.parametrize("revision", [None, "refs/pr/1", PR_COMMIT])
def test_hf_hub_download_config(hub, model_dirs, tmp_path, revision):
    repo = hub.add_repo_from_dir("org/single", model_dirs["single"], revisions={"refs/pr/1": PR_COMMIT})
    path = hf_hub_download(
        "org/single", "config.json", revision=revision, endpoint=hub.url, cache_dir=tmp_path / "c", token=False
    )
    assert Path(path).read_bytes() == (model_dirs["single"] / "config.json").read_bytes()
    commit = repo.resolve_revision(revision or "main")
    assert f"snapshots/{commit}/config.json" in Path(path).as_posix()
    assert [(r.method, r.status) for r in hub.requests] == [("HEAD", 200), ("GET", 200)]


def test_hf_hub_download_lfs_file_uses_linked_etag(hub, model_dirs, tmp_path):
    hub.add_repo_from_dir("org/single", model_dirs["single"])
    path = hf_hub_download("org/single", "model.safetensors", endpoint=hub.url, cache_dir=tmp_path / "c", token=False)
    data = (model_dirs["single"] / "model.safetensors").read_bytes()
    assert Path(path).read_bytes() == data
    blob = Path(path).resolve()
    assert blob.name == hashlib.sha256(data).hexdigest()  # the cache names the blob after X-Linked-Etag


def test_head_headers(hub):
    hub.add_repo("org/a", {"config.json": b"{}", "model.safetensors": b"0123456789"})
    s = get_session()
    small = s.head(f"{hub.url}/org/a/resolve/main/config.json")
    assert small.status_code == 200 and small.content == b""
    assert small.headers["x-repo-commit"] == fake_commit("org/a")
    assert small.headers["etag"] == f'"{hashlib.sha1(b"blob 2" + bytes([0]) + b"{}").hexdigest()}"'
    assert small.headers["content-length"] == "2" and "x-linked-size" not in small.headers
    big = s.head(f"{hub.url}/org/a/resolve/main/model.safetensors")
    assert big.headers["x-linked-size"] == "10" and big.headers["accept-ranges"] == "bytes"
    assert big.headers["x-linked-etag"] == f'"{hashlib.sha256(b"0123456789").hexdigest()}"'


# -- safetensors metadata ------------------------------------------------------------


def test_get_safetensors_metadata_sharded(hub, api, model_dirs):
    hub.add_repo_from_dir("org/sharded", model_dirs["sharded"])
    meta = api.get_safetensors_metadata("org/sharded")
    assert meta.sharded is True
    assert meta.metadata == {"total_size": 144}
    assert meta.weight_map["b.bias"] == "model-00002-of-00002.safetensors"
    shard2 = meta.files_metadata["model-00002-of-00002.safetensors"]
    assert shard2.tensors["b.weight"].dtype == "I8" and shard2.tensors["b.weight"].shape == [2, 8]
    assert meta.parameter_count == {"F32": 16, "I8": 16, "I64": 8}
    shard_gets = [r for r in hub.requests if r.method == "GET" and "model-0000" in r.path]
    assert len(shard_gets) == 2
    assert all(r.range == "bytes=0-100000" and r.status == 206 for r in shard_gets)
    head = hub.requests[0]
    assert (head.method, head.status) == ("HEAD", 404) and head.path.endswith("/model.safetensors")


def test_get_safetensors_metadata_single_file(hub, api, model_dirs):
    hub.add_repo_from_dir("org/single", model_dirs["single"])
    meta = api.get_safetensors_metadata("org/single")
    assert meta.sharded is False
    assert meta.weight_map == {"w": "model.safetensors", "b": "model.safetensors"}
    assert meta.parameter_count == {"F32": 6, "F16": 3}


def test_header_over_100kb_needs_exact_second_range(hub, api, tmp_path):
    path = _shard(tmp_path / "big.safetensors", {"x": np.arange(4, dtype=np.float32)}, {"pad": "p" * 150_000})
    hub.add_repo("org/bighdr", {"model.safetensors": path})
    meta = api.get_safetensors_metadata("org/bighdr")
    assert meta.files_metadata["model.safetensors"].metadata == {"pad": "p" * 150_000}
    ranges = [r.range for r in hub.requests if r.method == "GET"]
    n = int.from_bytes(path.read_bytes()[:8], "little")
    assert ranges == ["bytes=0-100000", f"bytes=8-{n + 7}"]


def test_not_a_safetensors_repo(hub, api):
    hub.add_repo("org/pt", {"pytorch_model.bin": b"\0" * 4})
    with pytest.raises(NotASafetensorsRepoError):
        api.get_safetensors_metadata("org/pt")


def test_truncated_shard_and_listed_size(hub, api, model_dirs):
    shard = model_dirs["single"] / "model.safetensors"
    real = shard.stat().st_size
    hub.add_repo(
        "org/trunc",
        {
            "model.safetensors": RepoFile(path=shard, truncate_to=real - 5),
            "x.bin": RepoFile(data=b"abc", listed_size=99),
        },
    )
    info = api.model_info("org/trunc", files_metadata=True)
    sizes = {s.rfilename: s.size for s in info.siblings}
    assert sizes == {"model.safetensors": real - 5, "x.bin": 99}
    s = get_session()
    head = s.head(f"{hub.url}/org/trunc/resolve/main/model.safetensors")
    assert head.headers["x-linked-size"] == head.headers["content-length"] == str(real - 5)
    tail = s.get(f"{hub.url}/org/trunc/resolve/main/model.safetensors", headers={"Range": "bytes=-3"})
    assert tail.headers["content-range"] == f"bytes {real - 8}-{real - 6}/{real - 5}"
    assert tail.content == shard.read_bytes()[real - 8 : real - 5]
    assert s.get(f"{hub.url}/org/trunc/resolve/main/x.bin").content == b"abc"  # listing lies, body does not
    # the header is intact, so the client still parses it: only a size check can catch the truncation
    assert api.get_safetensors_metadata("org/trunc").parameter_count == {"F32": 6, "F16": 3}


# -- errors --------------------------------------------------------------------------


def test_unknown_and_private_repos_are_repo_not_found(hub, api):
    hub.add_repo("org/private", {"config.json": "{}"}, private=True)
    with pytest.raises(RepositoryNotFoundError) as exc:
        api.model_info("org/missing")
    assert exc.value.response.status_code == 401
    assert exc.value.response.headers["x-error-code"] == "RepoNotFound"
    with pytest.raises(RepositoryNotFoundError):
        api.model_info("org/private")
    with pytest.raises(RepositoryNotFoundError):
        hf_hub_download("org/private", "config.json", endpoint=hub.url, token="hf_wrong")
    assert HfApi(endpoint=hub.url, token=DEFAULT_TOKEN).model_info("org/private").private is True
    assert hub.requests[-1].headers["authorization"] == f"Bearer {DEFAULT_TOKEN}"


def test_revision_not_found(hub, api, tmp_path):
    hub.add_repo("org/a", {"config.json": "{}"})
    with pytest.raises(RevisionNotFoundError):
        api.model_info("org/a", revision="nope")
    with pytest.raises(RevisionNotFoundError):
        hf_hub_download("org/a", "config.json", revision="f" * 40, endpoint=hub.url, cache_dir=tmp_path, token=False)
    assert hub.requests[-1].status == 404


def test_entry_not_found(hub, tmp_path):
    hub.add_repo("org/a", {"config.json": "{}"})
    with pytest.raises(EntryNotFoundError):
        hf_hub_download("org/a", "missing.json", endpoint=hub.url, cache_dir=tmp_path, token=False)
    assert hub.requests[-1].status == 404
    assert json.loads(get_session().get(f"{hub.url}/org/a/resolve/main/missing.json").content) == {
        "error": 'missing.json does not exist on "main"'
    }


def test_gated_repo(hub, tmp_path):
    hub.add_repo("org/gated", {"config.json": '{"ok": 1}', "model.safetensors": b"\0" * 8}, gated="auto")
    with pytest.raises(GatedRepoError) as exc:
        hf_hub_download("org/gated", "config.json", endpoint=hub.url, cache_dir=tmp_path, token=False)
    assert exc.value.response.status_code == 401
    with pytest.raises(GatedRepoError) as exc:
        hf_hub_download("org/gated", "config.json", endpoint=hub.url, cache_dir=tmp_path, token="hf_not_approved")
    assert exc.value.response.status_code == 403
    with pytest.raises(GatedRepoError):  # file_exists re-raises GatedRepoError
        HfApi(endpoint=hub.url, token=False).get_safetensors_metadata("org/gated")
    path = hf_hub_download("org/gated", "config.json", endpoint=hub.url, cache_dir=tmp_path, token=DEFAULT_TOKEN)
    assert json.loads(Path(path).read_text()) == {"ok": 1}


def test_unknown_route_and_agent_harnesses(hub):
    s = get_session()
    assert s.get(f"{hub.url}/api/agent-harnesses").status_code == 404
    r = s.get(f"{hub.url}/api/models/org/a/commits/main")
    assert r.status_code == 404 and "x-error-code" not in r.headers
    assert hub.request_count == 1  # the telemetry probe is not counted
    assert len(hub.requests) == 2


def test_tree_listing_is_what_verify_repo_checksums_compares(hub, api, tmp_path: Path) -> None:
    """list_repo_tree parses the stub's tree; verify_repo_checksums (hf cache verify) accepts a true copy and
    names a changed file, with the real sha256 (LFS) and git blob id (other files)."""
    data = b"\x08" + b"\0" * 7 + b"{}      " + bytes(range(64))
    hub.add_repo("org/t", {"model.safetensors": data, "config.json": "{}", "sub/x.json": "[]"})
    entries = {e.path: e for e in api.list_repo_tree("org/t", recursive=True)}
    assert set(entries) == {"model.safetensors", "config.json", "sub/x.json"}
    assert entries["model.safetensors"].lfs.sha256 == hashlib.sha256(data).hexdigest()
    assert (
        entries["config.json"].lfs is None and entries["config.json"].blob_id == hashlib.sha1(b"blob 2\0{}").hexdigest()
    )
    local = tmp_path / "copy"
    (local / "sub").mkdir(parents=True)
    (local / "model.safetensors").write_bytes(data)
    (local / "config.json").write_text("{}")
    (local / "sub" / "x.json").write_text("[]")
    result = api.verify_repo_checksums("org/t", local_dir=local)
    assert result.checked_count == 3 and not result.mismatches and not result.missing_paths
    (local / "config.json").write_text("{ }")
    assert [m["path"] for m in api.verify_repo_checksums("org/t", local_dir=local).mismatches] == ["config.json"]


# -- range semantics -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("range_header", "status", "content_range", "body"),
    [
        ("bytes=2-4", 206, "bytes 2-4/10", b"234"),
        ("bytes=0-0", 206, "bytes 0-0/10", b"0"),
        ("bytes=7-", 206, "bytes 7-9/10", b"789"),
        ("bytes=-3", 206, "bytes 7-9/10", b"789"),
        ("bytes=-50", 206, "bytes 0-9/10", b"0123456789"),
        ("bytes=5-100000", 206, "bytes 5-9/10", b"56789"),
        ("bytes=10-", 416, "bytes */10", None),
        ("bytes=10-20", 416, "bytes */10", None),
        ("bytes=-0", 416, "bytes */10", None),
        ("bytes=0-1,4-5", 200, None, b"0123456789"),  # multi-range: ignored
        ("bytes=5-2", 200, None, b"0123456789"),  # invalid: ignored
        (None, 200, None, b"0123456789"),
    ],
)
def test_range_semantics(hub, range_header, status, content_range, body):
    hub.add_repo("org/a", {"model.safetensors": b"0123456789"})
    headers = {"Range": range_header} if range_header else {}
    r = get_session().get(f"{hub.url}/org/a/resolve/main/model.safetensors", headers=headers)
    assert r.status_code == status
    assert r.headers.get("content-range") == content_range
    assert r.headers["content-length"] == str(len(r.content))
    if body is not None:
        assert r.content == body
        assert hub.bytes_sent == len(body)


def test_sparse_file_is_read_by_range_only(hub, tmp_path):
    big = tmp_path / "huge.safetensors"
    size = 8 * 1024**3  # 8 GiB of holes: reading it whole would be obvious
    with open(big, "wb") as f:
        f.write(b"HEAD")
        f.seek(size - 4)
        f.write(b"TAIL")
    hub.add_repo("org/huge", {"model.safetensors": big})
    url = f"{hub.url}/org/huge/resolve/main/model.safetensors"
    start = time.monotonic()
    assert get_session().get(url, headers={"Range": "bytes=-4"}).content == b"TAIL"
    assert get_session().get(url, headers={"Range": "bytes=0-3"}).content == b"HEAD"
    info = HfApi(endpoint=hub.url, token=False).model_info("org/huge", files_metadata=True)
    assert info.siblings[0].size == size and len(info.siblings[0].lfs.sha256) == 64  # fake hash, no reading
    assert time.monotonic() - start < 2
    assert [r.bytes_sent for r in hub.requests[:2]] == [4, 4]


def test_ignore_range_streams_and_client_can_stop_early(hub, tmp_path):
    big = tmp_path / "big.safetensors"
    size = 512 * 1024**2
    with open(big, "wb") as f:
        f.truncate(size)
    hub.add_repo("org/big", {"model.safetensors": big, "small.safetensors": b"0123456789"})
    hub.ignore_range = True
    s = get_session()
    small = s.get(f"{hub.url}/org/big/resolve/main/small.safetensors", headers={"Range": "bytes=2-4"})
    assert small.status_code == 200 and small.content == b"0123456789" and "content-range" not in small.headers
    hub.reset_log()
    with s.stream("GET", f"{hub.url}/org/big/resolve/main/model.safetensors", headers={"Range": "bytes=0-7"}) as r:
        assert r.status_code == 200 and r.headers["content-length"] == str(size)
        got = 0
        for chunk in r.iter_bytes():
            got += len(chunk)
            if got >= 64 * 1024:
                break
    assert hub.wait_idle(5)
    (entry,) = hub.requests
    assert entry.status == 200 and entry.range == "bytes=0-7"
    assert 64 * 1024 <= hub.bytes_sent < 32 * 1024**2  # the transfer stopped long before 512 MiB


def test_ignore_range_still_parses_small_headers(hub, api, model_dirs):
    hub.add_repo_from_dir("org/single", model_dirs["single"])
    hub.ignore_range = True
    meta = api.get_safetensors_metadata("org/single")
    assert meta.parameter_count == {"F32": 6, "F16": 3}
    get = [r for r in hub.requests if r.method == "GET"][-1]
    assert get.status == 200 and get.bytes_sent == (model_dirs["single"] / "model.safetensors").stat().st_size


# -- failure and latency knobs -------------------------------------------------------


def test_fail_first_429_with_retry_after(hub, api):
    hub.add_repo("org/a", {"config.json": "{}"})
    hub.fail_first, hub.fail_status, hub.retry_after = 2, 429, "7"
    assert get_session().get(f"{hub.url}/api/agent-harnesses").status_code == 404  # not consumed
    for _ in range(2):
        with pytest.raises(HfHubHTTPError) as exc:
            api.model_info("org/a")
        assert exc.value.response.status_code == 429
        assert exc.value.response.headers["retry-after"] == "7"
    assert hub.fail_first == 0
    assert api.model_info("org/a").id == "org/a"
    assert [r.status for r in hub.requests if not r.is_telemetry] == [429, 429, 200]
    assert hub.request_count == 3


def test_fail_first_default_500_without_retry_after(hub, api):
    hub.add_repo("org/a", {"config.json": "{}"})
    hub.fail_first = 1
    with pytest.raises(HfHubHTTPError) as exc:
        api.model_info("org/a")
    assert exc.value.response.status_code == 500 and "retry-after" not in exc.value.response.headers


def test_latency(hub, api):
    hub.add_repo("org/a", {"config.json": "{}"})
    hub.latency = 0.2
    start = time.monotonic()
    api.model_info("org/a")
    assert time.monotonic() - start >= 0.2


# -- HF_ENDPOINT in a subprocess -----------------------------------------------------


def test_subprocess_via_hf_endpoint_env(hub, model_dirs, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_should_be_dropped")
    hub.add_repo_from_dir("org/sharded", model_dirs["sharded"])
    script = textwrap.dedent(
        """
        from huggingface_hub import HfApi, hf_hub_download
        print(open(hf_hub_download("org/sharded", "sub dir/notes.txt")).read())
        print(HfApi().get_safetensors_metadata("org/sharded").parameter_count["I64"])
        """
    )
    env = hub.hf_env(tmp_path / "sub_home")
    assert "HF_TOKEN" not in env and env["HF_ENDPOINT"] == hub.url
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["hello", "8"]
    assert not any(r.is_telemetry for r in hub.requests)
    assert all("authorization" not in r.headers for r in hub.requests)
    assert (tmp_path / "sub_home" / "hub" / "models--org--sharded").is_dir()


def test_stub_stops_cleanly():
    with HubStub() as stub:
        url = stub.url
        stub.add_repo("a", {"f": b"1"})
        assert get_session().get(f"{url}/a/resolve/main/f").content == b"1"
    with pytest.raises(RuntimeError):
        _ = stub.url
    with pytest.raises(Exception):  # noqa: B017 - the port is closed: connection refused
        get_session().get(f"{url}/a/resolve/main/f", timeout=2)


# -- faults --------------------------------------------------------------------------


def test_a_fault_skips_then_spoils_then_ends(hub):
    from tests.support.hubstub import Fault

    hub.add_repo("org/a", {"config.json": '{"a": 1}', "other.json": "{}"})
    fault = hub.inject(Fault("html", file="config.json", skip=1, times=1))
    url = f"{hub.url}/org/a/resolve/main/config.json"
    answers = [get_session().get(url) for _ in range(3)]
    assert [(r.status_code, r.content.startswith(b"<!DOCTYPE")) for r in answers] == [
        (200, False),
        (200, True),
        (200, False),
    ]
    assert get_session().get(f"{hub.url}/org/a/resolve/main/other.json").content == b"{}"  # another file: untouched
    assert fault.served == 1 and [r.fault for r in hub.requests] == [None, "html", None, None]
    with pytest.raises(ValueError, match="unknown fault action"):
        Fault("teapot")
    with pytest.raises(ValueError, match="needs the repo"):
        Fault("commit")
