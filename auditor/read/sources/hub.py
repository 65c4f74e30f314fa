"""A Hugging Face Hub repo as a checkpoint source, read without downloading any weights.

Everything goes through ``huggingface_hub`` (endpoint from ``HF_ENDPOINT``, token from ``HF_TOKEN`` /
``--token`` / the saved login, offline mode, its error classes); only the Hub source's modules import it:
this one (listing, small files, scheduling the header fetches), ``hubhttp`` (session, retries, Range reads),
``hubcache`` (the checked header cache) and ``huberrors`` (error -> one sentence).

1. The listing (``/api/models/{repo}[/revision/{rev}]?blobs=True``, read into huggingface_hub's ``ModelInfo``)
   resolves the revision to a commit, once, and gives every file's size and LFS sha256 or git blob id.
2. One GET each (pinned to that commit, kept in the checked cache) fetches the small files: the index and
   config.json, prefetched concurrently (``hf_hub_download`` offline).
3. Each shard's header is fetched with HTTP Range requests on huggingface_hub's own HTTP session,
   concurrently. The first range is sized from the index (the names of the tensors it maps to the shard),
   so almost every shard needs one request; a second request asks for exactly the missing bytes. For an
   index over 1 MB (the MoE giants), the fetches start from the listing instead, sized from the index's size
   until the index is parsed (a round trip and the parsing earlier; a short guess costs one more request). A
   header far longer than the first range is fetched in growing ranges and scanned as it arrives
   (``header.HeaderScan``), so a length field that claims more than the JSON holds costs what the JSON costs. A
   server that ignores Range and answers 200 with the whole file is read only as far as the header goes, then
   the connection is closed.
4. Every answer must be of the listing's commit (``X-Repo-Commit``) and file version (``X-Linked-Etag`` / ``ETag``
   against the listing's sha256 or blob id, and every range of a file against its first), else the audit stops
   (``MixedAnswers``, exit 3): one revision per audit, never a header stitched from two versions.
5. The bytes go to the same parser as local files (``read_header_length`` then ``parse_header``), with
   the listed file size, so truncation and trailing bytes are judged exactly as on disk.
6. What checks out (a whole header, JSON that parses, of the listed size and version) is cached under the
   huggingface_hub assets cache, keyed by (repo, commit, file), and checked again when read (``hubcache``).

Faults (``hubhttp``): every request passes the process-wide gate and has a deadline (``timeout``, 30 s, from send to
last byte) within the audit's (``audit_timeout``); 429 / 5xx / resets / timeouts / answers that are not the file
asked for (an HTML page with 200, a short body) are retried with bounded exponential backoff (honouring
``Retry-After``, which pauses every worker of the process); everything else becomes one actionable ``AuditError``
sentence (exit 3) naming the file and what the server did.
"""

from __future__ import annotations

import os
import posixpath
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any
from urllib.parse import quote

from huggingface_hub import constants, hf_hub_download, hf_hub_url
from huggingface_hub.errors import HFValidationError
from huggingface_hub.hf_api import ModelInfo
from huggingface_hub.utils import build_hf_headers, validate_repo_id

from ...core.errors import AuditError, HubError
from ...core.findings import plural
from ...core.jsonio import json_object, loads
from ...core.version import __version__
from ..checkpoint import choose, numbered_shards, promised_numbers, safe_relative
from ..header import MAX_HEADER_BYTES, Header, HeaderScan, parse_header, read_header_length
from ..hfcache import offline
from .hubcache import CachedHeaders, HeaderCache
from .huberrors import COMMIT, ErrorTranslation, FileChanged, FileProblem, RevisionMoved
from .hubhttp import RETRY_STATUSES, Http, RangeReader, Served, Traffic, Transient, get_once, not_a_page
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
# A header this much longer than its first range is fetched in growing ranges, scanned as they arrive (a length field
# may claim up to 100,000,000 bytes that are not there); a shorter rest is asked for exactly, in one request
GROW_FROM = 512 * 1024
GROWTH = 4  # each further range asks for this many times the header bytes read so far
AUDIT_TIMEOUT = 600.0  # seconds for every request, wait and retry of one source
_HEX = re.compile(r"^[0-9a-f]+$")


# -- the source -----------------------------------------------------------------------------------------


class HubSource(CachedHeaders, Http, ErrorTranslation, Source):
    """A repo on the Hub (or any Hub-compatible endpoint); never downloads tensor data."""

    def __init__(
        self,
        repo_id: str,
        *,
        revision: str | None = None,
        token: str | bool | None = None,
        use_cache: bool = True,
        progress: Callable[[str], None] | None = None,
        endpoint: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        workers: int = 64,
        timeout: float = 30.0,
        max_retries: int = 4,
        backoff: float = 0.5,
        progress_interval: float = 1.0,
        prefetch: bool = True,
        listed_start_bytes: int = LISTED_START_INDEX_BYTES,
        audit_timeout: float = AUDIT_TIMEOUT,
    ) -> None:
        self.target = repo_id
        self.repo_id = repo_id
        self.revision = revision or None
        self.token = token
        self.use_cache = use_cache
        self.progress = progress
        self.endpoint = (endpoint or constants.ENDPOINT).rstrip("/")
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None  # hf_hub_download cache
        self.workers = max(1, workers)
        self.timeout = timeout  # per request, from send to last byte
        self.audit_timeout = audit_timeout  # per audit, from the first request
        self.max_retries = max_retries
        self.backoff = backoff
        self.progress_interval = progress_interval
        self._unsaid = False  # headers were read since the traffic line was last said (``finished``)
        self.prefetch = prefetch  # False: the listing only (verify --against), no small-file downloads
        self.listed_start_bytes = listed_start_bytes  # an index at least this large: headers start from the listing
        self.commit: str | None = None
        self.lfs_sha256: dict[str, str] = {}
        self.git_sha1: dict[str, str] = {}  # git blob ids of the files that are not in LFS (verify compares them)
        self.traffic = Traffic()
        self.cache_hits = 0
        self._files: dict[str, int | None] | None = None
        self._began: float | None = None  # when the first request went out (the audit's deadline counts from it)
        self._files_read: set[str] = set()  # for messages: how far the audit got
        self._lock = threading.Lock()
        self._answered: str | None = None  # the commit the first answer named, when the listing gave none
        self._small: dict[str, Future[tuple[bytes, Any]]] = {}
        self._prefetcher: ThreadPoolExecutor | None = None
        self._name_bytes: dict[str, int] = {}  # shard -> bytes of its quoted tensor names, from the index
        self._counts: dict[str, int] = {}  # shard -> tensors the index maps to it
        self._listed_guess: dict[str, int] = {}  # shard -> header bytes guessed from the listing alone
        self._pool: ThreadPoolExecutor | None = None
        self._started: dict[str, Future[Header]] = {}
        self._api_headers = build_hf_headers(token=token, library_name="st-audit", library_version=__version__)
        self._auth = {**self._api_headers, "Accept-Encoding": "identity"}
        self._header_cache: HeaderCache | None = None

    # -- Source protocol ------------------------------------------------------------------------------

    def list_files(self) -> dict[str, int | None]:
        if self._files is None and constants.is_offline_mode() and self.revision and COMMIT.match(self.revision):
            self._files = self._listing_load(self.revision)  # offline: a pinned commit audited before
            if self._files is not None:
                self.commit = self.revision
        if self._files is None:
            with self._counting():
                info = self._model_info()
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
            if self.prefetch and (
                index_name is not None or singles
            ):  # a safetensors repo: fetch its small files in the background
                for name in (index_name, "config.json"):
                    if name is not None and name in files:
                        self._prefetch(name)
                if index_name is not None and (files.get(index_name) or 0) >= self.listed_start_bytes:
                    self._start_listed_shards(index_name, files)
        return self._files

    def read_small(self, name: str) -> bytes:
        future = self._small.pop(name, None)
        return (future.result() if future is not None else self._download(name))[0]

    def read_json(self, name: str) -> Any:
        future = self._small.pop(name, None)
        data, doc = future.result() if future is not None else self._download(name)
        if not name.endswith(".json"):
            doc = loads(data)
        if isinstance(doc, ValueError):
            raise doc
        if self._files is not None and name.endswith(".json") and ".index" in name:
            self._start_from_index(name, doc)  # the index is parsed once, for this and for the caller
        return doc

    def read_headers(
        self,
        names: list[str],
        sizes: dict[str, int | None],
        tensor_counts: dict[str, int],
        max_tensors: int = MAX_TENSORS,
    ) -> dict[str, Header]:
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
        self._unsaid = True
        return {name: headers[name] for name in names if name in headers}

    def finished(self) -> None:
        """The traffic line, once per audit of the repo (a pipeline's components are read through views of it)."""
        if self.progress and self._unsaid:
            cached = f", {plural(self.cache_hits, 'header')} from cache" if self.cache_hits else ""
            self.progress(
                f"hub: {self.repo_id}@{self.revision or 'default branch'} (commit "
                f"{(self.commit or '?')[:12]}): {plural(self.traffic.requests, 'request')}, "
                f"{_human(self.traffic.bytes)} received{cached}"
            )
        self._unsaid = False

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "hub",
            "repo": self.repo_id,
            "revision": self.revision,
            "commit": self.commit,
            "http": {"requests": self.traffic.requests, "bytes": self.traffic.bytes},
        }

    # -- the listing --------------------------------------------------------------------------------

    def _model_info(self) -> ModelInfo:
        """``HfApi.model_info(files_metadata=True)``, as one request of ours: through the gate, with the deadlines."""
        try:
            validate_repo_id(self.repo_id)
        except HFValidationError as e:
            raise self._translate(e) from None
        url = f"{self.endpoint}/api/models/{self.repo_id}"
        if self.revision is not None:
            url += f"/revision/{quote(self.revision, safe='')}"

        def once() -> ModelInfo:
            with self._request(url + "?blobs=True", self._api_headers) as (r, deadline):
                if r.status_code == 200:
                    not_a_page(r, deadline, self, "the listing")
                    try:
                        doc = loads(self._body(r, deadline))
                        return ModelInfo(**doc)
                    except (ValueError, TypeError, KeyError, AttributeError):
                        raise Transient("the listing was not the Hub's JSON") from None
                if r.status_code in RETRY_STATUSES:
                    raise Transient(
                        f"the server answered HTTP {r.status_code}", r.status_code, r.headers.get("retry-after")
                    )
                self._raise_for(r)
                raise AssertionError("unreachable")

        return self._attempts(None, once)

    def identity(self) -> dict[str, Any]:
        """A commit is immutable: the repo and its commit (resolved by the listing) say everything."""
        self.list_files()
        return {"repo": self.repo_id, "commit": self.commit}

    # -- small files ----------------------------------------------------------------------------------

    def _prefetch(self, name: str) -> None:
        if self._prefetcher is None:
            self._prefetcher = ThreadPoolExecutor(max_workers=2, thread_name_prefix="st-audit-small")
        self._small[name] = self._prefetcher.submit(self._in_traffic, self._download, name)

    def _download(self, name: str) -> tuple[bytes, Any]:
        """A small file (index, config) of the pinned commit, and for a JSON file its parse (or the ValueError).

        From the checked cache, else one GET (not hf_hub_download's HEAD + GET: a round trip saved on every audit)
        whose answer must be the listing's commit, version and size; kept in the cache only then, and only when it
        parses, so a second audit of the commit makes no request for it either. Offline, huggingface_hub's own cache.
        """
        parse = name.endswith(".json")
        fingerprint = self._fingerprint(name)
        if self.commit is not None and self.use_cache:
            cache = self._cache()
            cached = cache.load(name, **fingerprint)
            if cached is not None:
                doc = _parsed(cached) if parse else None
                if not isinstance(doc, ValueError):
                    self._read(name)
                    return cached, doc
                cache.discard(name)  # stored by an older st-audit, or a bug: fetched again
        if constants.is_offline_mode():
            data = self._hf_download(name)
            return data, _parsed(data) if parse else None
        url = hf_hub_url(self.repo_id, name, revision=self.commit or self.revision or "main", endpoint=self.endpoint)
        try:
            with self._counting():
                data = self._get(
                    url,
                    name,
                    lambda answer: self._check_served(name, answer, None, None),
                    (self._files or {}).get(name),
                )
        except FileProblem as e:
            raise FileNotFoundError(str(e)) from None
        doc = _parsed(data) if parse else None
        if not isinstance(doc, ValueError):
            self._cache().store(name, data, **fingerprint)
        self._read(name)
        return data, doc

    def _hf_download(self, name: str) -> bytes:
        """Offline: the file from huggingface_hub's cache, if it has it."""
        try:
            path = hf_hub_download(
                self.repo_id,
                name,
                revision=self.commit or self.revision,
                endpoint=self.endpoint,
                token=self.token,
                cache_dir=self.cache_dir,
                etag_timeout=self.timeout,
                library_name="st-audit",
                library_version=__version__,
            )
        except Exception as e:  # noqa: BLE001 - translated below, never shown raw
            error = self._translate(e)
            raise (FileNotFoundError(str(error)) if isinstance(error, FileProblem) else error) from None
        return Path(path).read_bytes()

    def _read(self, name: str) -> None:
        with self._lock:
            self._files_read.add(name)

    # -- who answered ---------------------------------------------------------------------------------

    def _check_served(self, name: str, answer: Served, first: Served | None, total: int | None) -> None:
        """Stop the audit (``MixedAnswers``, exit 3) when an answer is not of the commit and file version it reads:
        nothing of it is then parsed, reported or cached. Checked for every answer, before its bytes are used.

        The commit is the listing's (or, when the listing gave none, the first answer's); the version is the
        listing's LFS sha256 or git blob id, compared when the server names one of that kind, and every range of a
        file must be of the version its first range was; a Content-Range's total must be the listed size.
        """
        if answer.commit is not None:
            expected = self.commit
            if expected is None:
                with self._lock:
                    self._answered = expected = self._answered or answer.commit
            if answer.commit != expected:
                raise RevisionMoved(
                    f"{self.repo_id} changed while it was being audited: {name} was answered from commit "
                    f"{answer.commit}, not {expected} (the commit this audit reads); nothing of {answer.commit[:12]} "
                    f"is reported or cached: audit again, or pin one commit ({self.repo_id}@COMMIT)",
                    file=name,
                    expected=expected,
                    served=answer.commit,
                )
        if first is not None and first.etag and answer.etag and answer.etag != first.etag:
            raise FileChanged(
                f"{name} of {self.repo_id} changed while it was being read: its first range is version {first.etag}, "
                f"a later one {answer.etag}; nothing of it is reported or cached: audit again",
                file=name,
                expected=first.etag,
                served=answer.etag,
            )
        listed = self.lfs_sha256.get(name) or self.git_sha1.get(name)
        if (
            listed
            and answer.etag
            and len(listed) == len(answer.etag)
            and _HEX.match(answer.etag.lower())
            and answer.etag.lower() != listed.lower()
        ):
            raise FileChanged(
                f"the server answered {name} of {self.repo_id} with version {answer.etag}, but the listing of "
                f"commit {(self.commit or '?')[:12]} gives {listed}; nothing of it is reported or cached: audit again",
                file=name,
                expected=listed,
                served=answer.etag,
            )
        size = (self._files or {}).get(name)
        if total is not None and size is not None and total != size:
            raise FileChanged(
                f"the server's {name} of {self.repo_id} has {total:,} bytes, but the listing of commit "
                f"{(self.commit or '?')[:12]} says {size:,}; nothing of it is reported or cached: audit again",
                file=name,
                expected=str(size),
                served=str(total),
            )

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
        stem = index_name[: -len(".safetensors.index.json")]
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
        reader = RangeReader(
            self, url, name, size, lambda answer, first, total: self._check_served(name, answer, first, total)
        )
        try:
            first = reader.read(0, want)
            size = size if size is not None else reader.total
            n, header = read_header_length(name, first, size)
            if n is None:
                self._read(name)
                return header  # never cached: refetched, and judged again, by the next audit
            raw, whole = self._rest_of_header(reader, first, n)
        except FileProblem as e:
            header = Header(name)
            header.fail("file-unreadable", f"could not read its header from the Hub: {e}")
            return header
        finally:
            reader.close()
        header = parse_header(name, raw, size, header, remote=True)
        self._read(name)
        if whole:
            self._cache_store(name, first[:8] + raw, header)  # only a header that checks out is kept
        return header

    def _rest_of_header(self, reader: RangeReader, first: bytes, n: int) -> tuple[bytes, bool]:
        """The header's ``n`` JSON bytes, and whether all of them were read.

        A rest of up to ``GROW_FROM`` bytes is asked for in one exact request (the usual short guess). A longer one
        comes in ranges growing ``GROWTH``-fold, scanned as they arrive: at the first byte that proves the header
        invalid (non-padding after the JSON's end) the reading stops, with the bytes through that character, which
        the parser judges as it would all ``n``. Memory and traffic stay what the header present costs.
        """
        body = bytearray(first[8 : 8 + n])
        if len(body) < n and n - len(body) <= GROW_FROM:
            body += reader.read(8 + len(body), 8 + n)
        elif len(body) < n:
            scan = HeaderScan().feed(bytes(body))
            while scan.stop is None and len(body) < n:
                step = min(n - len(body), max(GROW_FROM, GROWTH * len(body)))
                chunk = reader.read(8 + len(body), 8 + len(body) + step)
                if not chunk:
                    break
                scan.feed(chunk)
                body += chunk
            if scan.stop is not None:
                return bytes(body[: scan.stop + 4]), False  # the offending character, whole (UTF-8: up to 4 bytes)
        return bytes(body), len(body) == n


def _parsed(data: bytes) -> Any:
    """``data`` as JSON, or the ValueError that says why not (read_json raises it)."""
    try:
        return loads(data)
    except ValueError as e:
        return e


def _human(n: int) -> str:
    if n < 1000:
        return f"{n:,} B"
    if n < 1000**2:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1000**2:.1f} MB"


# -- one small JSON file (a PEFT adapter's base config.json) --------------------------------------------


def fetch_json(
    repo_id: str,
    filename: str = "config.json",
    *,
    token: str | None = None,
    revision: str | None = None,
    timeout: float = 10.0,
) -> dict[str, Any]:
    """The parsed file; raises OSError/ValueError with a short reason when it cannot be had."""
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(repo_id, filename, revision=revision)
    if isinstance(cached, str):
        return json_object(Path(cached).read_bytes(), filename)
    if offline():
        raise OSError("offline mode (HF_HUB_OFFLINE) and not in the local Hub cache")
    endpoint = os.environ.get("HF_ENDPOINT") or constants.ENDPOINT
    url = hf_hub_url(repo_id, filename, revision=revision, endpoint=endpoint)
    # one GET, no retries (the audit goes on without the base config), through the gate, within one deadline
    status, body = get_once(url, build_hf_headers(token=token, library_name="st-audit"), endpoint.rstrip("/"), timeout)
    if status != 200:
        raise OSError(f"the Hub answered HTTP {status} for {repo_id}/{filename}")
    return json_object(body, filename)


def author_models(
    author: str, filters: tuple[str, ...] = (), limit: int | None = None, *, token: str | None = None
) -> list[str]:
    """The model repo ids of an organisation or user on the Hub (``HF_ENDPOINT``), with the Hub's own filters (tags)
    and limit, in the Hub's order: a fleet's ``hf://ORG`` and ``--hub-author`` (any client or transport error is one
    sentence)."""
    from huggingface_hub import HfApi

    api = HfApi(token=token, library_name="st-audit", library_version=__version__)
    try:
        return [m.id for m in api.list_models(author=author, filter=list(filters) or None, limit=limit)]
    except Exception as e:  # noqa: BLE001 - any client or transport error is one sentence
        raise HubError(f"could not list the models of {author} on the Hub: {_listing_reason(e)}") from None


def _listing_reason(error: BaseException) -> str:
    status = getattr(getattr(error, "response", None), "status_code", None)
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"HTTP {status}: {text}" if status else text
