"""A Hugging Face Hub repo as a checkpoint source, read without downloading any weights.

Everything goes through ``huggingface_hub`` (endpoint from ``HF_ENDPOINT``, token from ``HF_TOKEN`` /
``--token`` / the saved login, offline mode, its error classes); only the Hub source's modules import it:
this one (listing, small files, scheduling the header fetches), ``hubhttp`` (session, retries, Range reads),
``hubcache`` (the checked header cache) and ``huberrors`` (error -> one sentence).

1. ``model_info(files_metadata=True)`` resolves the revision to a commit and lists every file with its
   size (and LFS sha256).
2. One GET each (pinned to that commit, kept in the checked cache) fetches the small files: the index and
   config.json, prefetched concurrently (``hf_hub_download`` offline).
3. Each shard's header is fetched with HTTP Range requests on huggingface_hub's own HTTP session,
   concurrently. The first range is sized from the index (the names of the tensors it maps to the shard),
   so almost every shard needs one request; a second request asks for exactly the missing bytes. For an
   index over 1 MB (the MoE giants), the fetches start from the listing instead, sized from the index's size
   until the index is parsed (a round trip and the parsing earlier; a short guess costs one more request). A
   server that ignores Range and answers 200 with the whole file is read only up to the end of the
   header, then the connection is closed.
4. The bytes go to the same parser as local files (``read_header_length`` then ``parse_header``), with
   the listed file size, so truncation and trailing bytes are judged exactly as on disk.
5. Headers are cached under the huggingface_hub assets cache, keyed by (repo, commit, file), each entry
   checksummed and tied to the listed size and sha256 (``hubcache``).

Faults: 429 / 5xx / connection resets / timeouts are retried with bounded exponential backoff (honouring
``Retry-After``); everything else becomes one actionable ``AuditError`` sentence (exit 3).
"""

from __future__ import annotations

import os
import posixpath
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from huggingface_hub import HfApi, constants, hf_hub_download, hf_hub_url
from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

from ...core.errors import AuditError
from ...core.findings import plural
from ...core.jsonio import json_object, loads
from ...core.version import __version__
from ..checkpoint import choose, numbered_shards, promised_numbers, safe_relative
from ..header import MAX_HEADER_BYTES, Header, parse_header, read_header_length
from .hubcache import CachedHeaders, HeaderCache
from .huberrors import COMMIT, ErrorTranslation, FileProblem
from .hubhttp import Http, Traffic, session
from .protocol import MAX_TENSORS, Source

DEFAULT_FIRST_RANGE = 64 * 1024  # a single file with no index to size its first range from
ENTRY_BYTES = 84  # header bytes per tensor beyond its quoted name: {"dtype":..,"shape":[..],"data_offsets":[..]},
ENTRY_BYTES_BLIND = 160  # per tensor when only the count is known
HEADER_SLACK = 256  # __metadata__ and padding
# Before the index is parsed: a shard's header holds one entry per tensor the index maps to it, and an entry
# ("name":{"dtype":"BF16","shape":[4096,4096],"data_offsets":[a,b]}) takes ~1.35x the bytes of its index line
# ("name": "model-00001-of-00163.safetensors",); a shorter guess costs one more request, a longer one bytes
LISTED_HEADER_RATIO = 1.4
# An index this large (~10k tensors and up: the MoE giants) takes longer to arrive and parse than a round trip, so
# the header fetches start from the listing; a smaller one is awaited and every first range sized exactly from it
LISTED_START_INDEX_BYTES = 1_000_000


# -- the source -----------------------------------------------------------------------------------------


class HubSource(CachedHeaders, Http, ErrorTranslation, Source):
    """A repo on the Hub (or any Hub-compatible endpoint); never downloads tensor data."""

    def __init__(self, repo_id: str, *, revision: str | None = None, token: str | bool | None = None,
                 use_cache: bool = True, progress: Callable[[str], None] | None = None,
                 endpoint: str | None = None, cache_dir: str | os.PathLike[str] | None = None,
                 workers: int = 64, timeout: float = 30.0, max_retries: int = 4, backoff: float = 0.5,
                 progress_interval: float = 1.0, prefetch: bool = True,
                 listed_start_bytes: int = LISTED_START_INDEX_BYTES) -> None:
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
        self.listed_start_bytes = listed_start_bytes  # an index at least this large: headers start from the listing
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
        self._counts: dict[str, int] = {}  # shard -> tensors the index maps to it
        self._listed_guess: dict[str, int] = {}  # shard -> header bytes guessed from the listing alone
        self._pool: ThreadPoolExecutor | None = None
        self._started: dict[str, Future[Header]] = {}
        self._auth = {**build_hf_headers(token=token, library_name="st-audit", library_version=__version__),
                      "Accept-Encoding": "identity"}
        self._header_cache: HeaderCache | None = None

    # -- Source protocol ------------------------------------------------------------------------------

    def list_files(self) -> dict[str, int | None]:
        if self._files is None and constants.is_offline_mode() and self.revision and COMMIT.match(self.revision):
            self._files = self._listing_load(self.revision)  # offline: a pinned commit audited before
            if self._files is not None:
                self.commit = self.revision
        if self._files is None:
            with self._counting():
                info = self._retrying(lambda: self._api.model_info(self.repo_id, revision=self.revision,
                                                                   files_metadata=True, timeout=self.timeout))
            self.commit = info.sha if isinstance(info.sha, str) and COMMIT.match(info.sha) else None
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
                if index_name is not None and (files.get(index_name) or 0) >= self.listed_start_bytes:
                    self._start_listed_shards(index_name, files)
        return self._files

    def read_small(self, name: str) -> bytes:
        future = self._small.pop(name, None)
        return future.result() if future is not None else self._download(name)

    def read_json(self, name: str) -> Any:
        doc = loads(self.read_small(name))
        if self._files is not None and name.endswith(".json") and ".index" in name:
            self._start_from_index(name, doc)  # the index is parsed once, for this and for the caller
        return doc

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
        if self.progress:
            cached = f", {plural(self.cache_hits, 'header')} from cache" if self.cache_hits else ""
            self.progress(f"hub: {self.repo_id}@{self.revision or 'default branch'} (commit "
                          f"{(self.commit or '?')[:12]}): {plural(self.traffic.requests, 'request')}, "
                          f"{_human(self.traffic.bytes)} received{cached}")
        return {name: headers[name] for name in names if name in headers}

    def describe(self) -> dict[str, Any]:
        return {"kind": "hub", "repo": self.repo_id, "revision": self.revision, "commit": self.commit,
                "http": {"requests": self.traffic.requests, "bytes": self.traffic.bytes}}

    def identity(self) -> dict[str, Any]:
        """A commit is immutable: the repo and its commit (resolved by the listing) say everything."""
        self.list_files()
        return {"repo": self.repo_id, "commit": self.commit}

    # -- small files ----------------------------------------------------------------------------------

    def _prefetch(self, name: str) -> None:
        if self._prefetcher is None:
            self._prefetcher = ThreadPoolExecutor(max_workers=2, thread_name_prefix="st-audit-small")
        self._small[name] = self._prefetcher.submit(self._in_traffic, self._download, name)

    def _download(self, name: str) -> bytes:
        """A small file (index, config) of the pinned commit: from the header cache, else one GET.

        One request, not hf_hub_download's HEAD + GET (a round trip saved on every audit); kept in the same
        checked cache as the headers, so a second audit of the commit makes no request for it either. Offline,
        or without a resolved commit, huggingface_hub's own download (and its cache) is used.
        """
        fingerprint = self._fingerprint(name)
        if self.commit is not None and self.use_cache:
            cached = self._cache().load(name, **fingerprint)
            if cached is not None:
                return cached
        if self.commit is None or constants.is_offline_mode():
            return self._hf_download(name)
        url = hf_hub_url(self.repo_id, name, revision=self.commit, endpoint=self.endpoint)

        def get() -> bytes:
            response = session().get(url, headers=self._auth, timeout=self.timeout, follow_redirects=True)
            hf_raise_for_status(response)
            return response.content

        try:
            with self._counting():
                data = self._retrying(get)
        except FileProblem as e:
            raise FileNotFoundError(str(e)) from None
        self._cache().store(name, data, **fingerprint)
        return data

    def _hf_download(self, name: str) -> bytes:
        revision = self.commit or self.revision
        try:
            with self._counting():
                path = self._retrying(lambda: hf_hub_download(
                    self.repo_id, name, revision=revision, endpoint=self.endpoint, token=self.token,
                    cache_dir=self.cache_dir, etag_timeout=self.timeout,
                    library_name="st-audit", library_version=__version__))
        except FileProblem as e:
            raise FileNotFoundError(str(e)) from None
        return Path(path).read_bytes()

    def _start_from_index(self, index_name: str, doc: Any) -> None:
        """Start fetching the shards an index names while the caller is still reading the index.

        Only for an index collect() will accept (a weight_map of strings), and only the shards it will
        audit (safe names present in the listing), so no request is wasted.
        """
        weight_map = doc.get("weight_map") if isinstance(doc, dict) else None
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

    def _start_listed_shards(self, index_name: str, files: dict[str, int | None]) -> None:
        """Start the header fetches of a sharded repo from the listing: a round trip and the index's parsing earlier.

        Only for the set transformers' naming promises (``model-00001-of-00163.safetensors`` ... beside
        ``model.safetensors.index.json``, every number present), which the index almost always maps; a shard it
        does not map costs one wasted request. Until the index is parsed, first ranges are guessed from the
        index's listed size; a request that waits for a worker past that point is sized from the index itself.
        """
        if not index_name.endswith(".safetensors.index.json") or "/" in index_name:
            return
        stem = index_name[:-len(".safetensors.index.json")]
        top_level = (n for n in files if "/" not in n)
        sets = [(total, numbered) for (prefix, total), numbered in numbered_shards(top_level).items() if prefix == stem]
        index_size = files.get(index_name)
        if not index_size or len(sets) != 1:
            return
        total, numbered = sets[0]
        if set(numbered) != promised_numbers(int(total), numbered):
            return
        parts = numbered.values()
        guess = int(index_size * LISTED_HEADER_RATIO / len(parts))
        for name in sorted(parts):
            self._listed_guess[name] = guess
            self._start(name, files[name], None)

    def _start(self, name: str, size: int | None, count: int | None) -> Future[Header]:
        """The (possibly already running) fetch of one header; served from the cache when possible."""
        if count:
            self._counts[name] = count  # a fetch still waiting for a worker sizes its first range with it
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
                future = self._pool.submit(self._in_traffic, self._fetch_header, name, size)
            self._started[name] = future
        return future

    # -- headers --------------------------------------------------------------------------------------

    def _first_range(self, name: str, size: int | None) -> int:
        """How many bytes the first request asks for: enough for the whole header in the usual case."""
        count = self._counts.get(name)
        if name in self._name_bytes and count:
            want = 8 + HEADER_SLACK + self._name_bytes[name] + count * ENTRY_BYTES
        elif count:
            want = 8 + HEADER_SLACK + count * ENTRY_BYTES_BLIND
        elif name in self._listed_guess:
            want = 8 + HEADER_SLACK + self._listed_guess[name]
        else:
            want = DEFAULT_FIRST_RANGE
        want = min(want, 8 + MAX_HEADER_BYTES)
        return max(1, min(want, size)) if size else want

    def _fetch_header(self, name: str, size: int | None) -> Header:
        want = self._first_range(name, size)  # sized when a worker takes it up: the index may have arrived
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
        except FileProblem as e:
            header = Header(name)
            header.fail("file-unreadable", f"could not read its header from the Hub: {e}")
            return header
        self._cache_store(name, first[:8] + raw)
        return parse_header(name, raw, size, header)

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
        return json_object(Path(cached).read_bytes(), filename)
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
    return json_object(response.content, filename)
