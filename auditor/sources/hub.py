"""A Hugging Face Hub repo as a checkpoint source, read without downloading any weights.

Everything goes through ``huggingface_hub`` (endpoint from ``HF_ENDPOINT``, token from ``HF_TOKEN`` /
``--token`` / the saved login, offline mode, its error classes); this is the only module that imports it.

1. ``model_info(files_metadata=True)`` resolves the revision to a commit and lists every file with its
   size (and LFS sha256).
2. ``hf_hub_download`` (pinned to that commit, so a second run is served from its cache) fetches the
   small files: the index and config.json, prefetched concurrently.
3. Each shard's header is fetched with HTTP Range requests on huggingface_hub's own HTTP session,
   concurrently. The first range is sized from the index (the names of the tensors it maps to the shard),
   so almost every shard needs one request; a second request asks for exactly the missing bytes. A
   server that ignores Range and answers 200 with the whole file is read only up to the end of the
   header, then the connection is closed.
4. The bytes go to the same parser as local files (``read_header_length`` then ``parse_header``), with
   the listed file size, so truncation and trailing bytes are judged exactly as on disk.
5. Headers are cached under the huggingface_hub assets cache, keyed by (repo, commit, file).

Faults: 429 / 5xx / connection resets / timeouts are retried with bounded exponential backoff (honouring
``Retry-After``); everything else becomes one actionable ``AuditError`` sentence (exit 3).
"""

from __future__ import annotations

import contextvars
import json
import os
import posixpath
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from huggingface_hub import HfApi, constants, hf_hub_download, hf_hub_url
from huggingface_hub.errors import (
    DisabledRepoError,
    EntryNotFoundError,
    GatedRepoError,
    HFValidationError,
    HfHubHTTPError,
    LocalEntryNotFoundError,
    OfflineModeIsEnabled,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils import build_hf_headers, cached_assets_path, get_session, hf_raise_for_status

from ..version import __version__
from ..checkpoint import MAX_TENSORS, choose, safe_relative
from ..errors import AuditError, HubError, TargetNotFound
from ..findings import plural
from ..header import MAX_HEADER_BYTES, Header, parse_header, read_header_length
from .hubcache import LIBRARY as CACHE_LIBRARY
from .hubcache import HeaderCache

# The HTTP library behind huggingface_hub's session (httpx for 1.x, httpx2 for 2.x): its exception classes.
_http = sys.modules[type(get_session()).__module__.split(".")[0]]

T = TypeVar("T")

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 60.0  # a longer Retry-After is reported to the user instead of slept through
DEFAULT_FIRST_RANGE = 64 * 1024  # a single file with no index to size its first range from
ENTRY_BYTES = 84  # header bytes per tensor beyond its quoted name: {"dtype":..,"shape":[..],"data_offsets":[..]},
ENTRY_BYTES_BLIND = 160  # per tensor when only the count is known
HEADER_SLACK = 256  # __metadata__ and padding
MAX_ERROR_BODY = 1_000_000
LISTING = ".listing.json"  # the commit's file list, cached beside its headers (offline mode)
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


class _FileProblem(Exception):
    """One file could not be read (its listing and the server disagree): a finding, not an abort."""


# -- traffic accounting ---------------------------------------------------------------------------------


class Traffic:
    """Requests made and body bytes received by one source, counted by event hooks on the shared session."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests = 0
        self._responses: list[Any] = []

    def on_request(self) -> None:
        with self._lock:
            self.requests += 1

    def on_response(self, response: Any) -> None:
        with self._lock:
            self._responses.append(response)

    @property
    def bytes(self) -> int:
        with self._lock:
            return sum(getattr(r, "num_bytes_downloaded", 0) for r in self._responses)


_TRAFFIC: contextvars.ContextVar[Traffic | None] = contextvars.ContextVar("st_audit_traffic", default=None)
_HOOK_LOCK = threading.Lock()


def _request_hook(request: Any) -> None:
    traffic = _TRAFFIC.get()
    if traffic is not None:
        traffic.on_request()


def _response_hook(response: Any) -> None:
    traffic = _TRAFFIC.get()
    if traffic is not None:
        traffic.on_response(response)


def _session() -> Any:
    """huggingface_hub's shared client, with the counting hooks installed (it may have been recreated)."""
    session = get_session()
    hooks = session.event_hooks
    if _request_hook not in hooks.get("request", []):
        with _HOOK_LOCK:
            hooks = session.event_hooks
            if _request_hook not in hooks.get("request", []):
                session.event_hooks = {"request": [*hooks.get("request", []), _request_hook],
                                       "response": [*hooks.get("response", []), _response_hook]}
    return session


# -- the source -----------------------------------------------------------------------------------------


class HubSource:
    """A repo on the Hub (or any Hub-compatible endpoint); never downloads tensor data."""

    def __init__(self, repo_id: str, *, revision: str | None = None, token: str | bool | None = None,
                 use_cache: bool = True, progress: Callable[[str], None] | None = None,
                 endpoint: str | None = None, cache_dir: str | os.PathLike[str] | None = None,
                 workers: int = 64, timeout: float = 30.0, max_retries: int = 4, backoff: float = 0.5,
                 progress_interval: float = 1.0, prefetch: bool = True) -> None:
        self.target = repo_id
        self.repo_id = repo_id
        self.revision = revision or None
        self.token = token
        self.use_cache = use_cache
        self.progress = progress
        self.endpoint = (endpoint or constants.ENDPOINT).rstrip("/")
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None  # hf_hub_download cache
        self.workers = max(1, workers)
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.progress_interval = progress_interval
        self.prefetch = prefetch  # False: the listing only (verify --against), no small-file downloads
        self.commit: str | None = None
        self.lfs_sha256: dict[str, str] = {}
        self.git_sha1: dict[str, str] = {}  # git blob ids of the files that are not in LFS (verify compares them)
        self.traffic = Traffic()
        self.cache_hits = 0
        self._files: dict[str, int | None] | None = None
        self._api = HfApi(endpoint=self.endpoint, token=token, library_name="st-audit", library_version=__version__)
        self._small: dict[str, Future[bytes]] = {}
        self._prefetcher: ThreadPoolExecutor | None = None
        self._name_bytes: dict[str, int] = {}  # shard -> bytes of its quoted tensor names, from the index
        self._pool: ThreadPoolExecutor | None = None
        self._started: dict[str, Future[Header]] = {}
        self._auth = {**build_hf_headers(token=token, library_name="st-audit", library_version=__version__),
                      "Accept-Encoding": "identity"}
        self._summarized = False
        self._header_cache: HeaderCache | None = None

    # -- Source protocol ------------------------------------------------------------------------------

    def list_files(self) -> dict[str, int | None]:
        if self._files is None and constants.is_offline_mode() and self.revision and _COMMIT.match(self.revision):
            self._files = self._listing_load(self.revision)  # offline: a pinned commit audited before
            if self._files is not None:
                self.commit = self.revision
        if self._files is None:
            with self._counting():
                info = self._retrying(lambda: self._api.model_info(self.repo_id, revision=self.revision,
                                                                   files_metadata=True, timeout=self.timeout))
            self.commit = info.sha if isinstance(info.sha, str) and _COMMIT.match(info.sha) else None
            files: dict[str, int | None] = {}
            for sibling in info.siblings or []:
                lfs = sibling.lfs
                size = sibling.size if sibling.size is not None else (lfs.size if lfs is not None else None)
                files[sibling.rfilename] = size
                if lfs is not None and lfs.sha256:
                    self.lfs_sha256[sibling.rfilename] = lfs.sha256
                elif lfs is None and isinstance(sibling.blob_id, str):
                    self.git_sha1[sibling.rfilename] = sibling.blob_id
            self._files = files
            self._listing_store(files)
            try:
                index_name, singles, _ = choose(files)
            except AuditError:  # only variant files: collect() says so (or audits the --variant asked for)
                index_name, singles = None, []
            if self.prefetch and (index_name is not None or singles):  # a safetensors repo: fetch its small files in the background
                for name in (index_name, "config.json"):
                    if name is not None and name in files:
                        self._prefetch(name)
        return self._files

    def read_small(self, name: str) -> bytes:
        future = self._small.pop(name, None)
        data = future.result() if future is not None else self._download(name)
        if self._files is not None and name.endswith(".json") and ".index" in name:
            self._start_from_index(name, data)
        return data

    def read_headers(self, names: list[str], sizes: dict[str, int | None], tensor_counts: dict[str, int],
                     max_tensors: int = MAX_TENSORS) -> dict[str, Header]:
        if self._files is None:
            self.list_files()
        try:
            futures = {self._start(name, sizes.get(name), tensor_counts.get(name)): name for name in names}
            pending = sum(not f.done() for f in futures)
            started = last = time.monotonic()
            headers: dict[str, Header] = {}
            total = 0
            for done, future in enumerate(as_completed(futures), 1):
                headers[futures[future]] = header = future.result()
                total += len(header.tensors)
                if total > max_tensors:
                    break  # the rest are cancelled below and reported by collect()
                now = time.monotonic()
                if self.progress and pending > 1 and now - last >= self.progress_interval and done < len(futures):
                    self.progress(f"  {done}/{len(futures)} headers ({now - started:.1f} s)")
                    last = now
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = None
            self._started.clear()
        return {name: headers[name] for name in names if name in headers}

    def describe(self) -> dict[str, Any]:
        http = {"requests": self.traffic.requests, "bytes": self.traffic.bytes}
        if self.progress and not self._summarized:
            self._summarized = True
            cached = f", {plural(self.cache_hits, 'header')} from cache" if self.cache_hits else ""
            self.progress(f"hub: {self.repo_id}@{self.revision or 'default branch'} (commit "
                          f"{(self.commit or '?')[:12]}): {plural(http['requests'], 'request')}, "
                          f"{_human(http['bytes'])} received{cached}")
        return {"kind": "hub", "repo": self.repo_id, "revision": self.revision, "commit": self.commit,
                "http": http}

    # -- small files ----------------------------------------------------------------------------------

    def _prefetch(self, name: str) -> None:
        if self._prefetcher is None:
            self._prefetcher = ThreadPoolExecutor(max_workers=2, thread_name_prefix="st-audit-small")
        self._small[name] = self._prefetcher.submit(self._in_traffic, self._download, name)

    def _download(self, name: str) -> bytes:
        revision = self.commit or self.revision
        try:
            with self._counting():
                path = self._retrying(lambda: hf_hub_download(
                    self.repo_id, name, revision=revision, endpoint=self.endpoint, token=self.token,
                    cache_dir=self.cache_dir, etag_timeout=self.timeout,
                    library_name="st-audit", library_version=__version__))
        except _FileProblem as e:
            raise FileNotFoundError(str(e)) from None
        return Path(path).read_bytes()

    def _start_from_index(self, index_name: str, data: bytes) -> None:
        """Start fetching the shards an index names while the caller is still reading the index.

        Only for an index collect() will accept (a weight_map of strings), and only the shards it will
        audit (safe names present in the listing), so no request is wasted.
        """
        try:
            weight_map = json.loads(data).get("weight_map")
        except (ValueError, AttributeError):
            return
        if not isinstance(weight_map, dict):
            return
        per_shard: dict[Any, list[int]] = {}
        for tensor, shard in weight_map.items():
            entry = per_shard.get(shard)
            if entry is None:
                entry = per_shard[shard] = [0, 0]
            entry[0] += len(tensor)
            entry[1] += 1
        if not all(isinstance(shard, str) for shard in per_shard):
            return
        base = posixpath.dirname(index_name)
        files = self._files or {}
        for shard, (chars, count) in sorted(per_shard.items()):
            path = posixpath.join(base, shard) if base else shard
            # quoted names; non-ASCII names take more bytes than characters, which the slack absorbs
            self._name_bytes[path] = chars + 2 * count
            if safe_relative(shard) and path in files:
                self._start(path, files[path], count)

    def _start(self, name: str, size: int | None, count: int | None) -> Future[Header]:
        """The (possibly already running) fetch of one header; served from the cache when possible."""
        future = self._started.get(name)
        if future is None:
            cached = self._cache_load(name, size) if self.use_cache else None
            if cached is not None:
                self.cache_hits += 1
                future = Future()
                future.set_result(cached)
            else:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="st-audit-hub")
                future = self._pool.submit(self._in_traffic, self._fetch_header, name, size,
                                           self._first_range(name, size, count))
            self._started[name] = future
        return future

    # -- headers --------------------------------------------------------------------------------------

    def _first_range(self, name: str, size: int | None, count: int | None) -> int:
        """How many bytes the first request asks for: enough for the whole header in the usual case."""
        if name in self._name_bytes and count:
            want = 8 + HEADER_SLACK + self._name_bytes[name] + count * ENTRY_BYTES
        elif count:
            want = 8 + HEADER_SLACK + count * ENTRY_BYTES_BLIND
        else:
            want = DEFAULT_FIRST_RANGE
        want = min(want, 8 + MAX_HEADER_BYTES)
        return max(1, min(want, size)) if size else want

    def _fetch_header(self, name: str, size: int | None, want: int) -> Header:
        url = hf_hub_url(self.repo_id, name, revision=self.commit or self.revision or "main", endpoint=self.endpoint)

        def header_end(prefix: bytes, total: int | None) -> int | None:
            """When the server sends the whole file anyway: where the header ends, if that is plausible."""
            n, _ = read_header_length(name, prefix[:8], size if size is not None else total)
            return 8 + n if n is not None else None

        try:
            first, total = self._get_range(url, 0, want - 1, header_end)
            if size is None:
                size = total
            n, header = read_header_length(name, first, size)
            if n is None:
                self._cache_store(name, first)
                return header
            raw = first[8:8 + n]
            if len(raw) < n:
                more, _ = self._get_range(url, 8 + len(raw), 8 + n - 1, None)
                raw += more
        except _FileProblem as e:
            header = Header(name)
            header.fail("file-unreadable", f"could not read its header from the Hub: {e}")
            return header
        self._cache_store(name, first[:8] + raw)
        return parse_header(name, raw, size, header)

    def _get_range(self, url: str, start: int, end: int,
                   header_end: Callable[[bytes, int | None], int | None] | None) -> tuple[bytes, int | None]:
        """Bytes ``start..end`` (inclusive) of a file and the file's total size when the server says it.

        A 206 must carry exactly the requested range. A 200 (Range ignored) is the whole file: it is read
        only up to ``end`` (or, for the first request, up to the end of the header) and then closed.
        """
        headers = {**self._auth, "Range": f"bytes={start}-{end}"}
        attempt = 0
        while True:
            try:
                with _session().stream("GET", url, headers=headers, timeout=self.timeout) as r:
                    if r.status_code == 206:
                        return self._read_partial(r, start, end)
                    if r.status_code == 200:
                        return self._read_ignoring_range(r, start, end, header_end)
                    if r.status_code == 416:
                        raise _FileProblem(f"the server refused bytes {start}-{end} (416): the file is shorter "
                                           "than its listing says")
                    retry = self._retry_delay(r.status_code, r.headers, attempt)
                    if retry is None:
                        if int(r.headers.get("content-length") or 0) <= MAX_ERROR_BODY:
                            r.read()
                        self._raise_for(r)
            except _http.TransportError as e:
                retry = self._retry_delay(None, {}, attempt, e)
                if retry is None:
                    raise self._translate(e) from None
            attempt += 1
            time.sleep(retry)

    @staticmethod
    def _read_partial(r: Any, start: int, end: int) -> tuple[bytes, int | None]:
        m = re.match(r"^bytes (\d+)-(\d+)/(\d+|\*)$", (r.headers.get("content-range") or "").strip())
        if m is None or int(m[1]) != start or int(m[2]) > end or int(m[2]) < start:
            raise _FileProblem(f"the server answered bytes {start}-{end} with Content-Range "
                               f"{r.headers.get('content-range')!r}")
        expected = int(m[2]) - start + 1
        body = bytearray()
        for chunk in r.iter_raw():
            body += chunk
            if len(body) > expected:
                break
        if len(body) != expected:
            raise _FileProblem(f"asked for {expected:,} bytes at offset {start:,}, received {len(body):,}")
        return bytes(body), None if m[3] == "*" else int(m[3])

    @staticmethod
    def _read_ignoring_range(r: Any, start: int, end: int,
                             header_end: Callable[[bytes, int | None], int | None] | None) -> tuple[bytes, int | None]:
        total = int(r.headers["content-length"]) if (r.headers.get("content-length") or "").isdigit() else None
        stop = end + 1
        body = bytearray()
        checked = header_end is None
        for chunk in r.iter_raw():
            body += chunk
            if not checked and len(body) >= 8:
                checked = True
                stop = max(stop, header_end(bytes(body[:8]), total) or 0)
            if len(body) >= stop:
                break  # leaving the block closes the connection: the rest of the file is never read
        return bytes(body[start:stop]), total

    # -- header cache ---------------------------------------------------------------------------------

    def _cache(self) -> HeaderCache:
        """The checked cache folder of this commit (a cache that stores nothing when there is none)."""
        folder = None
        if self.use_cache and self.commit is not None:
            try:
                folder = cached_assets_path(CACHE_LIBRARY, namespace=f"headers--{self.repo_id}",
                                            subfolder=self.commit, assets_dir=constants.HF_ASSETS_CACHE)
            except (OSError, ValueError):
                folder = None
        if self._header_cache is None or self._header_cache.folder != folder:
            self._header_cache = HeaderCache(folder)
        return self._header_cache

    def _fingerprint(self, name: str) -> dict[str, Any]:
        """What the listing says about a file: a cache entry fetched for anything else is stale."""
        return {"size": (self._files or {}).get(name), "etag": self.lfs_sha256.get(name)}

    def _listing_store(self, files: dict[str, int | None]) -> None:
        """Keep the commit's file list beside its headers, so offline mode can audit that commit again."""
        self._cache().store(LISTING, json.dumps({"files": files, "lfs_sha256": self.lfs_sha256}).encode())

    def _listing_load(self, commit: str) -> dict[str, int | None] | None:
        self.commit = commit
        data = self._cache().load(LISTING)
        self.commit = None
        try:
            doc = json.loads(data) if data is not None else None
        except ValueError:
            return None
        if not isinstance(doc, dict) or not isinstance(doc.get("files"), dict):
            return None
        self.lfs_sha256 = dict(doc.get("lfs_sha256") or {})
        return {str(k): (v if isinstance(v, int) else None) for k, v in doc["files"].items()}

    def _cache_load(self, name: str, size: int | None) -> Header | None:
        data = self._cache().load(name, **self._fingerprint(name))
        if data is None:
            return None
        n, header = read_header_length(name, data, size)
        if n is None:
            return header
        if len(data) < 8 + n:
            return None  # cannot happen for an entry that passed its checksum, unless written by a bug
        return parse_header(name, data[8:8 + n], size, header)

    def _cache_store(self, name: str, data: bytes) -> None:
        self._cache().store(name, data, **self._fingerprint(name))

    # -- retries and errors ---------------------------------------------------------------------------

    @contextmanager
    def _counting(self) -> Iterator[None]:
        _session()
        token = _TRAFFIC.set(self.traffic)
        try:
            yield
        finally:
            _TRAFFIC.reset(token)

    def _in_traffic(self, fn: Callable[..., T], *args: Any) -> T:
        with self._counting():
            return fn(*args)

    def _retry_delay(self, status: int | None, headers: Any, attempt: int,
                     error: BaseException | None = None) -> float | None:
        """Seconds to wait before trying again, or None when this failure is final."""
        if error is not None:
            if isinstance(error, OfflineModeIsEnabled) or not isinstance(
                    error, (_http.TimeoutException, _http.NetworkError, _http.RemoteProtocolError)):
                return None
        elif status not in RETRY_STATUSES:
            return None
        if attempt >= self.max_retries:
            return None
        delay = self.backoff * 2 ** attempt
        after = (headers.get("retry-after") or "").strip() if headers else ""
        if after:
            try:
                seconds = float(after)
            except ValueError:
                seconds = None  # an HTTP date: keep the exponential backoff
            if seconds is not None:
                if seconds > MAX_RETRY_AFTER:
                    return None
                delay = max(0.0, seconds)
        return delay

    def _retrying(self, call: Callable[[], T]) -> T:
        """Run a huggingface_hub call, retrying transient failures; errors become AuditErrors."""
        attempt = 0
        while True:
            try:
                return call()
            except Exception as e:  # noqa: BLE001 - translated below, never shown raw
                cause = _root(e)
                status = cause.response.status_code if isinstance(cause, HfHubHTTPError) and cause.response is not None else None
                headers = cause.response.headers if status is not None else {}
                if isinstance(cause, (_http.ConnectError, OfflineModeIsEnabled)) or isinstance(e, (AuditError, _FileProblem)):
                    delay = None
                elif status is not None:
                    delay = self._retry_delay(status, headers, attempt)
                else:
                    delay = self._retry_delay(None, {}, attempt, cause)
                if delay is None:
                    if isinstance(e, (AuditError, _FileProblem)):
                        raise
                    raise self._translate(e) from None
            attempt += 1
            time.sleep(delay)

    def _raise_for(self, response: Any) -> None:
        try:
            hf_raise_for_status(response)
        except Exception as e:  # noqa: BLE001
            raise self._translate(e) from None
        raise HubError(f"the Hub answered HTTP {response.status_code} for {response.url}: try again later")

    def _translate(self, error: BaseException) -> Exception:
        """One actionable sentence for whatever huggingface_hub or the network raised."""
        repo, endpoint = self.repo_id, self.endpoint
        where = "" if endpoint == "https://huggingface.co" else f" on {endpoint}"
        chain = list(_chain(error))
        for e in chain:
            if isinstance(e, OfflineModeIsEnabled):
                pinned = self.revision is not None and _COMMIT.match(self.revision)
                how = ("this commit was not audited before (its headers are not cached)" if pinned else
                       f"pass the commit of an earlier audit ({repo}@COMMIT or --revision COMMIT) to audit it from "
                       "the header cache")
                return HubError(f"offline mode is on (HF_HUB_OFFLINE=1), so {repo} cannot be read from the Hub: "
                                f"{how}; or unset HF_HUB_OFFLINE, or audit a local copy of the checkpoint")
        for e in chain:
            if isinstance(e, GatedRepoError):
                status = e.response.status_code if e.response is not None else None
                url = f"{endpoint}/{repo}"
                if status == 403 or self.token not in (None, False):
                    return HubError(f"{repo} is a gated repo and your token has not been granted access: request "
                                    f"access at {url} with the same account, then retry")
                return HubError(f"{repo} is a gated repo: accept its terms at {url}, then set HF_TOKEN (or pass "
                                "--token, or run `hf auth login`) with a token of that account")
            if isinstance(e, RevisionNotFoundError):
                return TargetNotFound(f"revision {self.revision or self.commit!r} does not exist in {repo}{where}: "
                                      "pass an existing branch, tag or commit to --revision")
            if isinstance(e, DisabledRepoError):
                return HubError(f"{repo} has been disabled on the Hub and cannot be read")
            if isinstance(e, RepositoryNotFoundError):
                hint = ("your token cannot read it: check HF_TOKEN or --token" if self.token not in (None, False)
                        else "if it is private, set HF_TOKEN (or pass --token) to a token that can read it")
                return TargetNotFound(f"{repo} was not found{where}: check the repo id, or {hint}")
            if isinstance(e, RemoteEntryNotFoundError):
                return _FileProblem(f"the file is not in {repo} at {self.commit or self.revision or 'main'}")
            if isinstance(e, HFValidationError):
                return TargetNotFound(f"{repo} is not a valid Hub repo id: use the form org/name")
        for e in chain:
            if isinstance(e, HfHubHTTPError) and e.response is not None:
                status = e.response.status_code
                if status == 401:
                    return HubError(f"the Hub{where} rejected the token (HTTP 401): check HF_TOKEN or --token, or "
                                    "run `hf auth login` again")
                if status == 403:
                    return HubError(f"the Hub{where} refused access to {repo} (HTTP 403): check that your token "
                                    "has read permission for it")
                if status == 429:
                    after = (e.response.headers.get("retry-after") or "").strip()
                    return HubError(f"the Hub{where} is rate-limiting requests (HTTP 429"
                                    f"{f', retry after {after} s' if after else ''}): wait and retry, or log in "
                                    "(HF_TOKEN) for higher limits")
                return HubError(f"the Hub{where} kept failing with HTTP {status} after {self.max_retries} retries: "
                                "try again later")
        for e in chain:
            if isinstance(e, LocalEntryNotFoundError) or (
                    isinstance(e, (_http.TransportError, OSError)) and not isinstance(e, EntryNotFoundError)):
                reason = str(e).splitlines()[0][:160] if str(e) else type(e).__name__
                return HubError(f"cannot reach the Hub at {endpoint} ({reason}): check your network connection, "
                                "proxy settings and HF_ENDPOINT")
        return HubError(f"could not read {repo} from the Hub ({type(error).__name__}: {error}): rerun with --debug "
                        "for details")

def _chain(error: BaseException) -> Iterator[BaseException]:
    """The error, then its causes and contexts (huggingface_hub wraps network errors in cache errors)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _root(error: BaseException) -> BaseException:
    """The error that decides whether to retry: an HTTP status or a transport error, if one is in the chain."""
    for e in _chain(error):
        if isinstance(e, (HfHubHTTPError, _http.TransportError, OfflineModeIsEnabled)):
            return e
    return error


def _human(n: int) -> str:
    if n < 1000:
        return f"{n:,} B"
    if n < 1000**2:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1000**2:.1f} MB"


# -- one small JSON file (a PEFT adapter's base config.json) --------------------------------------------

def offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def fetch_json(repo_id: str, filename: str = "config.json", *, token: str | None = None,
               revision: str | None = None, timeout: float = 10.0) -> dict[str, Any]:
    """The parsed file; raises OSError/ValueError with a short reason when it cannot be had."""
    from huggingface_hub import try_to_load_from_cache
    cached = try_to_load_from_cache(repo_id, filename, revision=revision)
    if isinstance(cached, str):
        return _parse(open(cached, "rb").read(), filename)
    if offline():
        raise OSError("offline mode (HF_HUB_OFFLINE) and not in the local Hub cache")
    endpoint = os.environ.get("HF_ENDPOINT") or constants.ENDPOINT
    url = hf_hub_url(repo_id, filename, revision=revision, endpoint=endpoint)
    try:  # one GET, no retries: the audit goes on without the base config
        response = get_session().get(url, headers=build_hf_headers(token=token, library_name="st-audit"),
                                     follow_redirects=True, timeout=timeout)
    except Exception as e:  # httpx/requests transport errors differ between huggingface_hub versions
        raise OSError(f"the Hub could not be reached ({type(e).__name__})") from None
    if response.status_code != 200:
        raise OSError(f"the Hub answered HTTP {response.status_code} for {repo_id}/{filename}")
    return _parse(response.content, filename)


def _parse(raw: bytes, filename: str) -> dict[str, Any]:
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"{filename} is not valid JSON: {e}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{filename} is not a JSON object")
    return doc
