"""A small fake Hugging Face Hub, so that tests never touch the network.

It speaks just enough of the Hub protocol for the real ``huggingface_hub``
client (``model_info``, ``hf_hub_download``, ``get_safetensors_metadata``,
``parse_safetensors_file_metadata``) and for st-audit's own HTTP code.  The
contract it follows is Part 3 of
``../shared/reference/format-and-hub-protocol.md`` (see §3.8).

Usage::

    with HubStub() as hub:
        hub.add_repo("org/tiny", {"config.json": b"{}", "model.safetensors": Path(...)})
        env = hub.hf_env(tmp_path)          # HF_ENDPOINT, HF_HOME, telemetry off, no HF_TOKEN
        api = HfApi(endpoint=hub.url, token=False)
        ...
        assert hub.request_count == 3

Endpoints (routes match the raw, still percent-encoded path; captured groups
are unquoted afterwards, so ``refs%2Fpr%2F1`` is the revision ``refs/pr/1``):

* ``GET /api/models/{repo}`` and ``GET /api/models/{repo}/revision/{rev}``:
  JSON ``{id, sha, private, gated, siblings: [{rfilename}], ...}``.  With
  ``?blobs=true`` (or ``True``) each sibling also has ``size`` and ``blobId``,
  and LFS files have ``lfs: {size, sha256, pointerSize}``.  Gated repos answer
  without a token, as on the real Hub (only file downloads are gated).
* ``HEAD`` / ``GET /{repo}/resolve/{rev}/{path}``: always ``X-Repo-Commit``,
  ``ETag`` (quoted git blob sha1), ``Accept-Ranges: bytes``; LFS files add
  ``X-Linked-Etag`` (quoted sha256) and ``X-Linked-Size``.  ``Range:
  bytes=a-b``, ``bytes=a-`` and ``bytes=-n`` give ``206`` with exactly those
  bytes and ``Content-Range: bytes a-b/total`` (clamped at EOF); an
  unsatisfiable range gives ``416`` with ``Content-Range: bytes */total``.
  Malformed or multi-part ranges are ignored (``200``, whole file), as RFC 9110
  allows.
* ``GET /api/models?author=ORG[&search=&filter=TAG&limit=N]``: the repos of an
  author (``list_models``), ``page_size`` per page with a ``Link`` header to the
  next page, as the Hub paginates; ``filter`` matches ``Repo.tags``.
* ``GET /api/models/{repo}/tree/{rev}[/{path}]`` (``?recursive=true``): the
  files as ``list_repo_tree`` reads them (``type``, ``path``, ``size``, ``oid``
  = git blob id, and ``lfs: {oid = sha256, size, pointerSize}``), one page;
  what ``HfApi.verify_repo_checksums`` / ``hf cache verify`` compare against.
* ``GET /api/agent-harnesses``: ``404`` (telemetry probe of huggingface_hub).

Errors carry a JSON body ``{"error": msg}`` plus ``X-Error-Code`` and
``X-Error-Message`` (needed on an ``http://`` endpoint, see §3.7):
unknown repo, or private repo without a valid token -> ``401 RepoNotFound``;
gated repo file without a token -> ``401 GatedRepo``, with a token not in
``valid_tokens`` -> ``403 GatedRepo``; unknown revision -> ``404
RevisionNotFound``; missing file -> ``404 EntryNotFound`` (with
``X-Repo-Commit``).  Any other path -> ``404`` without ``X-Error-Code``.

Hashes: ``blobId`` and ``ETag`` are git blob sha1s (faked, like the sha256,
for a non-LFS file over ``REAL_HASH_LIMIT``).  For LFS files the
``sha256`` is the real sha256 of the content when the file is at most
``real_hash_limit`` bytes (a knob, default ``REAL_HASH_LIMIT``), and otherwise a cheap deterministic *fake* (sha256
of ``"hubstub:{repo}:{path}:{size}"``) because hashing GBs of sparse holes is
slow; ``RepoFile.sha256`` overrides both.  The LFS blobId is the git sha1 of
the pointer file built from that sha256, as on the real Hub.  No client
checks these hashes against the content.

Files are served lazily: path-backed files are read with ``seek``/``read`` of
the requested range only, in chunks, so header-only sparse fixtures of many GB
cost nothing.

Every revision of a repo serves the same files; only the commit differs.

Misbehaviour (``HubStub.inject(Fault(...))``): what servers, proxies and CDNs do to a client at scale, one
request at a time -- an HTML error page answered with ``200``, a body cut short, a reset, a trickle, an answer from
another commit (the branch moved) or from another version of one file, a gzip body nobody asked for. With
``cdn`` on, LFS files are redirected to a CDN host (``localhost`` instead of ``127.0.0.1``: another origin, so the
client must drop the token) as the real Hub does.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote

__all__ = ["DEFAULT_TOKEN", "Fault", "HubStub", "Repo", "RepoFile", "RequestLog", "fake_commit"]

#: A token that ``HubStub.valid_tokens`` contains by default.
DEFAULT_TOKEN = "hf_hubstub_valid_token"
#: LFS files up to this size get a real sha256; bigger ones get a fake one.
REAL_HASH_LIMIT = 4 * 1024 * 1024
#: File name suffixes that are "LFS" files when ``RepoFile.lfs`` is None.
LFS_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".gguf", ".h5", ".msgpack", ".onnx", ".npz")
CHUNK = 256 * 1024
_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_REPO = r"(?P<repo>[^/]+(?:/[^/]+)?)"  # "org/name" or legacy "name"
_ROUTE_INFO = re.compile(rf"^/api/models/{_REPO}(?:/revision/(?P<rev>[^/]+))?$")
_ROUTE_LIST = re.compile(r"^/api/models/?$")
_ROUTE_TREE = re.compile(rf"^/api/models/{_REPO}/tree/(?P<rev>[^/]+)(?:/(?P<path>.+))?$")
_ROUTE_RESOLVE = re.compile(rf"^/{_REPO}/resolve/(?P<rev>[^/]+)/(?P<path>.+)$")
_ROUTE_CDN = re.compile(r"^/cdn/(?P<key>[0-9a-f]{64})/(?P<path>.+)$")
ERROR_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n"
    b"<body><h1>502 Bad Gateway</h1><p>The upstream server did not answer in time.</p></body></html>\n"
)
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


def _sha256_of(f: RepoFile) -> str:
    h = hashlib.sha256()
    for block in f.iter_bytes(0, f.size, 8 * 1024 * 1024):
        h.update(block)
    return h.hexdigest()


def fake_commit(seed: str) -> str:
    """A deterministic 40-hex commit id derived from ``seed`` (e.g. a repo id)."""
    return hashlib.sha1(f"hubstub:{seed}".encode()).hexdigest()


def _git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class RepoFile:
    """One file of a repo: in-memory ``data`` or a lazily read ``path`` on disk.

    ``lfs``: None means "LFS if the name ends with one of ``LFS_SUFFIXES``".
    ``truncate_to``: serve only the first N bytes, and report N everywhere
    (listing, HEAD, ``Content-Range`` total).  This is what a shard that was
    truncated on upload looks like; it avoids copying a fixture to shorten it.
    ``listed_size``: overrides only the ``size``/``lfs.size`` that
    ``model_info(files_metadata=True)`` lists, to simulate a listing that
    disagrees with the bytes actually served.
    ``sha256``: overrides the (real or fake) LFS sha256.
    """

    data: bytes | None = None
    path: Path | None = None
    lfs: bool | None = None
    truncate_to: int | None = None
    listed_size: int | None = None
    sha256: str | None = None

    def __post_init__(self) -> None:
        if (self.data is None) == (self.path is None):
            raise ValueError("RepoFile needs exactly one of data= or path=")
        if self.path is not None:
            self.path = Path(self.path)

    @property
    def size(self) -> int:
        """Number of bytes served (after ``truncate_to``)."""
        real = len(self.data) if self.data is not None else self.path.stat().st_size  # type: ignore[union-attr]
        return real if self.truncate_to is None else min(real, self.truncate_to)

    def is_lfs(self, name: str) -> bool:
        return self.lfs if self.lfs is not None else name.endswith(LFS_SUFFIXES)

    def iter_bytes(self, start: int, length: int, chunk: int = CHUNK) -> Iterator[bytes]:
        """Yield ``length`` bytes from ``start`` in chunks, reading only that range."""
        end = start + length
        if self.data is not None:
            view = memoryview(self.data)
            for pos in range(start, end, chunk):
                yield bytes(view[pos : min(pos + chunk, end)])
            return
        with open(self.path, "rb") as f:  # type: ignore[arg-type]
            f.seek(start)
            pos = start
            while pos < end:
                block = f.read(min(chunk, end - pos))
                if not block:
                    return
                pos += len(block)
                yield block

    def read_all(self) -> bytes:
        return b"".join(self.iter_bytes(0, self.size))


@dataclass
class Repo:
    """A model repo.  ``commit`` and ``revisions["main"]`` default to ``fake_commit(repo_id)``.

    ``revisions`` maps names (branches, tags, ``refs/pr/1``) to 40-hex commits;
    any of those commits is also accepted as a revision.  ``gated`` may be
    True (reported as ``"manual"``), ``"auto"`` or ``"manual"``.
    ``extra_info`` is merged into the ``model_info`` JSON (e.g.
    ``{"safetensors": {"parameters": {"BF16": 10}, "total": 10}}``).
    """

    files: dict[str, RepoFile] = field(default_factory=dict)
    commit: str = ""
    gated: bool | str = False
    private: bool = False
    revisions: dict[str, str] = field(default_factory=dict)
    extra_info: dict = field(default_factory=dict)
    tags: tuple[str, ...] = ()  # what the listing (GET /api/models?filter=) matches

    def finalize(self, repo_id: str) -> Repo:
        """Fill in the default commit and ``main`` revision; validate commits."""
        if not self.commit:
            self.commit = fake_commit(repo_id)
        self.revisions.setdefault("main", self.commit)
        for name, sha in self.revisions.items():
            if not _HEX40.match(sha):
                raise ValueError(f"revision {name!r} of {repo_id!r} must map to a 40-hex commit, got {sha!r}")
        return self

    def resolve_revision(self, rev: str) -> str | None:
        if rev in self.revisions:
            return self.revisions[rev]
        if _HEX40.match(rev) and (rev == self.commit or rev in self.revisions.values()):
            return rev
        return None


@dataclass
class RequestLog:
    """One request as the stub saw it.  ``bytes_sent`` counts body bytes only."""

    method: str
    path: str  # raw request target, query string included
    range: str | None
    headers: dict[str, str]  # lower-cased names
    status: int = 0  # 0: no answer (a reset)
    bytes_sent: int = 0
    at: float = field(default_factory=time.monotonic)  # when it arrived (time.monotonic)
    fault: str | None = None  # the Fault action that spoiled it

    @property
    def is_telemetry(self) -> bool:
        return self.path.split("?", 1)[0] == "/api/agent-harnesses"


FAULT_ACTIONS = ("html", "short", "cut", "reset", "trickle", "commit", "version", "gzip")


@dataclass
class Fault:
    """One way a server, proxy or CDN misbehaves, applied to matching requests (``HubStub.inject``).

    ``action``:

    * ``"html"``: ``200`` with an HTML error page (``text/html``, no ``X-Repo-Commit``) whatever was asked, as a
      proxy or CDN answers when its upstream fails;
    * ``"short"``: the usual answer with only ``keep`` body bytes and a ``Content-Length`` saying so (a
      ``Content-Range`` still claims the whole range): whole by its own length, but not what was asked;
    * ``"cut"``: the usual headers, then ``keep`` body bytes, then the connection is closed;
    * ``"reset"``: the connection is reset (RST) before any answer;
    * ``"trickle"``: the usual headers, then the body one byte every ``interval`` seconds;
    * ``"commit"``: the file as ``repo`` (another ``Repo``) has it, with its commit in ``X-Repo-Commit``: the
      branch moved;
    * ``"version"``: ``data`` (a ``RepoFile``; give it its own ``sha256``) in place of the file at the same commit:
      another version of the file, with its own ``ETag`` and ``X-Linked-Etag``;
    * ``"gzip"``: the body gzip-compressed with ``Content-Encoding: gzip`` although ``identity`` was asked.

    It applies to downloads of ``file`` (a path in the repo; None: every file) -- on the hop that sends the bytes (the
    CDN when ``HubStub.cdn`` is on; ``commit`` and ``version`` on the Hub's hop) -- or to the listing
    (``model_info``) when ``listing`` is set. ``skip`` matching requests go through first, then ``times`` are spoiled
    (None: until the fault is removed); ``served`` counts those.
    """

    action: str
    file: str | None = None
    listing: bool = False
    skip: int = 0
    times: int | None = 1
    keep: int = 0
    interval: float = 1.0
    repo: Repo | None = None
    data: RepoFile | None = None
    served: int = 0

    def __post_init__(self) -> None:
        if self.action not in FAULT_ACTIONS:
            raise ValueError(f"unknown fault action {self.action!r}: one of {', '.join(FAULT_ACTIONS)}")
        if self.action == "commit" and self.repo is None:
            raise ValueError("a 'commit' fault needs the repo it answers from (repo=Repo(...))")
        if self.action == "version" and self.data is None:
            raise ValueError("a 'version' fault needs the other version of the file (data=RepoFile(...))")


def _as_repo_file(value: RepoFile | bytes | str | os.PathLike) -> RepoFile:
    if isinstance(value, RepoFile):
        return value
    if isinstance(value, bytes):
        return RepoFile(data=value)
    if isinstance(value, str):
        return RepoFile(data=value.encode())
    return RepoFile(path=Path(value))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # get_safetensors_metadata opens up to 32 connections at once

    def __init__(self, hub: HubStub) -> None:
        self.hub = hub
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def close_connections(self) -> None:
        """Hang up on keep-alive clients so their handler threads end now."""
        with self.connections_lock:
            conns, self.connections = list(self.connections), set()
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request, client_address) -> None:  # noqa: ANN001
        # Clients that hang up early are normal here (ignore_range, timeouts).
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError, OSError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as real servers set it: without it Nagle + delayed ACK add ~40 ms to every response on
    # loopback, on top of the latency knob
    disable_nagle_algorithm = True
    server: _Server
    timeout = 30  # idle keep-alive connections go away eventually

    def setup(self) -> None:
        super().setup()
        # A small send buffer keeps bytes_sent close to what the client really
        # read when it hangs up early.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 128 * 1024)
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.connections.discard(self.connection)
        super().finish()

    def log_message(self, format: str, *args) -> None:  # noqa: A002, ANN002
        pass

    def do_GET(self) -> None:
        self.server.hub._handle(self, head=False)

    def do_HEAD(self) -> None:
        self.server.hub._handle(self, head=True)


class HubStub:
    """Fake Hub on ``http://127.0.0.1:<random port>``; a context manager.

    Knobs (plain attributes, settable at any time, read per request):

    * ``latency``: seconds slept before answering each request.
    * ``ignore_range``: answer ``200`` with the whole file even when ``Range``
      is sent.  The body is streamed in chunks, so a client that closes early
      stops the transfer; ``bytes_sent`` counts what was handed to the socket
      (at most a few hundred KiB more than the client read).
    * ``fail_first`` / ``fail_status`` / ``retry_after``: the next
      ``fail_first`` requests fail with ``fail_status`` (JSON error body, no
      ``X-Error-Code``), with a ``Retry-After`` header when ``retry_after`` is
      set.  ``fail_first`` counts down as failures are served.
    * ``valid_tokens``: tokens (``Authorization: Bearer X``) that may read
      private and gated repos.  Contains ``DEFAULT_TOKEN`` by default.
    * ``real_hash_limit``: LFS files up to this many bytes are listed with
      their real sha256 (computed once per file and cached by stat); bigger
      ones get a cheap fake.  Raise it when a test or benchmark verifies
      content against the listing.
    * ``faults``: ``Fault`` s applied to matching requests (``inject`` adds
      one, ``clear_faults`` removes them all).
    * ``cdn``: LFS files are answered with a ``302`` (``X-Repo-Commit``,
      ``X-Linked-Etag``, ``X-Linked-Size``, as the Hub) to
      ``http://localhost:PORT/cdn/...``, which serves the bytes with the
      sha256 as its ``ETag`` and no commit.

    Accounting (thread-safe): ``requests`` (a snapshot list of
    ``RequestLog``), ``request_count``, ``bytes_sent`` and ``peak_in_flight``.  Calls to
    ``/api/agent-harnesses`` are logged but excluded from ``request_count``,
    ``bytes_sent``, ``latency`` and ``fail_first``.  ``reset_log()`` clears it;
    ``wait_idle()`` waits until no response is being written.
    """

    def __init__(
        self,
        repos: Mapping[str, Repo] | None = None,
        *,
        latency: float = 0.0,
        ignore_range: bool = False,
        fail_first: int = 0,
        fail_status: int = 500,
        retry_after: str | None = None,
        valid_tokens: set[str] | None = None,
        real_hash_limit: int = REAL_HASH_LIMIT,
        page_size: int = 1000,
    ) -> None:
        self.repos: dict[str, Repo] = {}
        for repo_id, repo in (repos or {}).items():
            self.repos[repo_id] = repo.finalize(repo_id)
        self.latency = latency
        self.ignore_range = ignore_range
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.retry_after = retry_after
        self.valid_tokens: set[str] = {DEFAULT_TOKEN} if valid_tokens is None else set(valid_tokens)
        self.real_hash_limit = real_hash_limit
        self.page_size = page_size  # repos per page of GET /api/models
        self.faults: list[Fault] = []
        self.cdn = False
        self._cdn_files: dict[str, RepoFile] = {}
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._in_flight = 0
        self.peak_in_flight = 0  # the most requests answered at once since the last reset_log()
        self._log: list[RequestLog] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._hash_cache: dict[tuple, str] = {}

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> HubStub:
        if self._server is None:
            self._server = _Server(self)
            self._thread = threading.Thread(
                target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="hubstub", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server.close_connections()
            self._server = None
            self._thread = None

    def __enter__(self) -> HubStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (the server must be started)."""
        if self._server is None:
            raise RuntimeError("HubStub is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def hf_env(self, hf_home: str | os.PathLike, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """Environment for a subprocess using huggingface_hub against this stub.

        Copies ``base`` (default ``os.environ``), sets ``HF_ENDPOINT``,
        ``HF_HOME``, ``HF_HUB_DISABLE_TELEMETRY=1``, keeps 127.0.0.1 out of
        proxies, and removes ``HF_TOKEN``/``HUGGING_FACE_HUB_TOKEN``/``HF_HUB_OFFLINE``.
        """
        env = dict(os.environ if base is None else base)
        for key in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_HUB_OFFLINE", "HUGGINGFACE_CO_STAGING"):
            env.pop(key, None)
        no_proxy = ",".join(filter(None, [env.get("NO_PROXY", ""), "127.0.0.1,localhost"]))
        env.update(
            HF_ENDPOINT=self.url,
            HF_HOME=str(hf_home),
            HF_HUB_DISABLE_TELEMETRY="1",
            NO_PROXY=no_proxy,
            no_proxy=no_proxy,
        )
        return env

    def download(self, repo_id: str, env: Mapping[str, str], local_dir: str | os.PathLike | None = None) -> None:
        """The real huggingface_hub client (a subprocess under ``env``, from ``hf_env``) downloads ``repo_id``:
        into its cache, or ``local_dir`` as ``hf download --local-dir`` does."""
        where = f", local_dir={str(local_dir)!r}" if local_dir is not None else ""
        subprocess.run(
            [
                sys.executable,
                "-c",
                f"from huggingface_hub import snapshot_download; snapshot_download({repo_id!r}{where})",
            ],
            env=dict(env),
            check=True,
            capture_output=True,
            timeout=120,
        )

    # -- repos ---------------------------------------------------------------------

    def add_repo(
        self, repo_id: str, files: Mapping[str, RepoFile | bytes | str | os.PathLike] | None = None, **kw
    ) -> Repo:
        """Add (or replace) a repo.  File values: ``RepoFile``, ``bytes``, ``str``
        (text content, UTF-8) or a ``Path`` (served lazily).  ``kw`` go to ``Repo``."""
        repo = Repo(files={name: _as_repo_file(v) for name, v in (files or {}).items()}, **kw)
        self.repos[repo_id] = repo.finalize(repo_id)
        return repo

    def add_repo_from_dir(self, repo_id: str, directory: str | os.PathLike, **kw) -> Repo:
        """Add a repo serving every file under ``directory`` (relative posix names,
        ``.git`` skipped), read lazily from disk."""
        root = Path(directory)
        files = {
            p.relative_to(root).as_posix(): RepoFile(path=p)
            for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts
        }
        return self.add_repo(repo_id, files, **kw)

    # -- faults --------------------------------------------------------------------

    def inject(self, fault: Fault) -> Fault:
        """Add a fault (see ``Fault``); returned, so a test can read ``served`` or remove it."""
        if fault.repo is not None and not fault.repo.commit:
            fault.repo.finalize(f"fault-{id(fault):x}")
        with self._lock:
            self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        """Every fault is over: the stand-in is healthy again."""
        with self._lock:
            self.faults.clear()

    def _fault_for(self, name: str | None, actions: tuple[str, ...] = FAULT_ACTIONS) -> Fault | None:
        """The fault that spoils this request (and counts it), if any: ``name`` None is the listing."""
        with self._lock:
            for fault in self.faults:
                if fault.action not in actions or fault.listing != (name is None):
                    continue
                if name is not None and fault.file is not None and fault.file != name:
                    continue
                if fault.times is not None and fault.times <= 0:
                    continue
                if fault.skip > 0:
                    fault.skip -= 1
                    return None
                if fault.times is not None:
                    fault.times -= 1
                fault.served += 1
                return fault
        return None

    # -- accounting ----------------------------------------------------------------

    @property
    def requests(self) -> list[RequestLog]:
        with self._lock:
            return list(self._log)

    @property
    def request_count(self) -> int:
        with self._lock:
            return sum(not r.is_telemetry for r in self._log)

    @property
    def bytes_sent(self) -> int:
        with self._lock:
            return sum(r.bytes_sent for r in self._log if not r.is_telemetry)

    def reset_log(self) -> None:
        with self._lock:
            self._log.clear()
            self.peak_in_flight = self._in_flight

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until no request is being answered; True if that happened in time."""
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout)

    # -- hashes --------------------------------------------------------------------

    def _lfs_sha256(self, repo_id: str, name: str, f: RepoFile) -> str:
        if f.sha256:
            return f.sha256
        size = f.size
        if size > self.real_hash_limit:
            return hashlib.sha256(f"hubstub:{repo_id}:{name}:{size}".encode()).hexdigest()
        return self._cached("sha256", f, lambda: _sha256_of(f))

    def _blob_id(self, repo_id: str, name: str, f: RepoFile) -> tuple[str, int | None]:
        """(git blob sha1, LFS pointer size or None)."""
        if f.is_lfs(name):
            pointer = (
                "version https://git-lfs.github.com/spec/v1\n"
                f"oid sha256:{self._lfs_sha256(repo_id, name, f)}\nsize {f.size}\n"
            ).encode()
            return _git_blob_sha1(pointer), len(pointer)
        if f.size > REAL_HASH_LIMIT:  # a big file that is not LFS: fake it too
            return hashlib.sha1(f"hubstub:{repo_id}:{name}:{f.size}".encode()).hexdigest(), None
        return self._cached("blob", f, lambda: _git_blob_sha1(f.read_all())), None

    def _cached(self, kind: str, f: RepoFile, compute) -> str:  # noqa: ANN001
        """Hashes of in-memory data are computed each time (small); files are cached by stat."""
        if f.data is not None:
            return compute()
        st = f.path.stat()  # type: ignore[union-attr]
        key = (kind, str(f.path), st.st_size, st.st_mtime_ns, f.truncate_to)
        with self._lock:
            if key in self._hash_cache:
                return self._hash_cache[key]
        value = compute()
        with self._lock:
            self._hash_cache[key] = value
        return value

    # -- request handling ----------------------------------------------------------

    def _handle(self, h: _Handler, head: bool) -> None:
        entry = RequestLog(
            method=h.command,
            path=h.path,
            range=h.headers.get("Range"),
            headers={k.lower(): v for k, v in h.headers.items()},
        )
        with self._lock:
            self._log.append(entry)
            self._in_flight += 1
            if not entry.is_telemetry:
                self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        try:
            self._route(h, entry, head)
        except (ConnectionError, TimeoutError):
            h.close_connection = True
        except Exception as exc:  # a bug in the stub: say so loudly instead of hanging up
            traceback.print_exc(file=sys.stderr)
            if entry.status == 0:
                self._error(h, entry, head, 500, None, f"hubstub internal error: {exc!r}")
            h.close_connection = True
        finally:
            with self._idle:
                self._in_flight -= 1
                self._idle.notify_all()

    def _route(self, h: _Handler, entry: RequestLog, head: bool) -> None:
        raw_path, _, query = h.path.partition("?")
        if raw_path == "/api/agent-harnesses":
            return self._error(h, entry, head, 404, None, "hubstub: no agent harnesses")
        if self.latency:
            time.sleep(self.latency)
        with self._lock:
            fail = self.fail_first > 0
            if fail:
                self.fail_first -= 1
        if fail:
            extra = {"Retry-After": self.retry_after} if self.retry_after is not None else {}
            return self._error(h, entry, head, self.fail_status, None, "hubstub: injected failure", extra)

        if _ROUTE_LIST.match(raw_path):
            return self._list_models(h, entry, head, parse_qs(query))
        if m := _ROUTE_INFO.match(raw_path):
            repo_id, rev = unquote(m["repo"]), unquote(m["rev"]) if m["rev"] else "main"
            blobs = any(v.lower() == "true" for v in parse_qs(query).get("blobs", []))
            return self._model_info(h, entry, head, repo_id, rev, blobs)
        if m := _ROUTE_TREE.match(raw_path):
            rev, prefix = unquote(m["rev"]), unquote(m["path"]) if m["path"] else ""
            return self._tree(h, entry, head, unquote(m["repo"]), rev, prefix)
        if m := _ROUTE_RESOLVE.match(raw_path):
            return self._resolve(h, entry, head, unquote(m["repo"]), unquote(m["rev"]), unquote(m["path"]))
        if (m := _ROUTE_CDN.match(raw_path)) and m["key"] in self._cdn_files:
            f = self._cdn_files[m["key"]]
            name = unquote(m["path"])
            headers = {"Content-Type": "application/octet-stream", "ETag": f'"{m["key"]}"', "Accept-Ranges": "bytes"}
            return self._serve(h, entry, head, f, headers, self._fault_for(name, _BYTE_FAULTS))
        return self._error(h, entry, head, 404, None, f"hubstub: no route for {h.command} {raw_path}")

    def _token(self, h: _Handler) -> str | None:
        auth = h.headers.get("Authorization") or ""
        return auth[7:].strip() if auth.lower().startswith("bearer ") else None

    def _lookup(self, h: _Handler, entry: RequestLog, head: bool, repo_id: str) -> Repo | None:
        repo = self.repos.get(repo_id)
        if repo is None or (repo.private and self._token(h) not in self.valid_tokens):
            self._error(h, entry, head, 401, "RepoNotFound", "Repository not found")
            return None
        return repo

    def _model_info(self, h: _Handler, entry: RequestLog, head: bool, repo_id: str, rev: str, blobs: bool) -> None:
        repo = self._lookup(h, entry, head, repo_id)
        if repo is None:
            return
        sha = repo.resolve_revision(rev)
        if sha is None:
            return self._error(h, entry, head, 404, "RevisionNotFound", f"Invalid rev id: {rev}")
        siblings = []
        for name, f in sorted(repo.files.items()):
            sib: dict = {"rfilename": name}
            if blobs:
                size = f.size if f.listed_size is None else f.listed_size
                blob_id, pointer_size = self._blob_id(repo_id, name, f)
                sib.update(size=size, blobId=blob_id)
                if pointer_size is not None:
                    sib["lfs"] = {
                        "size": size,
                        "sha256": self._lfs_sha256(repo_id, name, f),
                        "pointerSize": pointer_size,
                    }
            siblings.append(sib)
        gated = "manual" if repo.gated is True else repo.gated
        info = {
            "_id": sha[:24],
            "id": repo_id,
            "modelId": repo_id,
            "sha": sha,
            "private": repo.private,
            "gated": gated,
            "disabled": False,
            "lastModified": "2024-01-01T00:00:00.000Z",
            "createdAt": "2024-01-01T00:00:00.000Z",
            "tags": [],
            "downloads": 0,
            "likes": 0,
            "siblings": siblings,
            **repo.extra_info,
        }
        body = json.dumps(info).encode()
        fault = self._fault_for(None, _BYTE_FAULTS)
        if fault is None:
            return self._send(h, entry, head, 200, {"Content-Type": "application/json"}, body)
        self._deliver(
            h, entry, head, 200, {"Content-Type": "application/json"}, RepoFile(data=body), 0, len(body), fault
        )

    def _list_models(self, h: _Handler, entry: RequestLog, head: bool, query: dict[str, list[str]]) -> None:
        """``GET /api/models?author=&search=&filter=&limit=``: public repos (private ones with a valid token), in
        the order they were added, ``page_size`` per page with a ``Link: <...>; rel="next"`` header, as the Hub
        paginates (``cursor`` is the offset here)."""
        author = query["author"][0] if query.get("author") else None
        search = (query.get("search") or [""])[0].lower()
        wanted = set(query.get("filter") or [])
        limit = int((query.get("limit") or ["0"])[0] or 0) or None
        offset = int((query.get("cursor") or ["0"])[0] or 0)
        allowed = self._token(h) in self.valid_tokens
        ids = [
            rid
            for rid, repo in self.repos.items()
            if (author is None or rid.split("/")[0] == author)
            and search in rid.lower()
            and wanted <= set(repo.tags)
            and (not repo.private or allowed)
        ]
        size = min(self.page_size, limit) if limit else self.page_size
        page = ids[offset : offset + size]
        body = json.dumps(
            [
                {
                    "id": rid,
                    "modelId": rid,
                    "private": self.repos[rid].private,
                    "sha": self.repos[rid].commit,
                    "tags": list(self.repos[rid].tags),
                }
                for rid in page
            ]
        ).encode()
        headers = {"Content-Type": "application/json"}
        if offset + size < len(ids) and not (limit and offset + size >= limit):
            params = [(k, v) for k, vs in query.items() if k != "cursor" for v in vs] + [("cursor", str(offset + size))]
            from urllib.parse import urlencode

            headers["Link"] = f'<{self.url}/api/models?{urlencode(params)}>; rel="next"'
        self._send(h, entry, head, 200, headers, body)

    def _tree(self, h: _Handler, entry: RequestLog, head: bool, repo_id: str, rev: str, prefix: str) -> None:
        repo = self._lookup(h, entry, head, repo_id)
        if repo is None:
            return
        if repo.resolve_revision(rev) is None:
            return self._error(h, entry, head, 404, "RevisionNotFound", f"Invalid rev id: {rev}")
        items = []
        for name, f in sorted(repo.files.items()):
            if prefix and not name.startswith(prefix.rstrip("/") + "/"):
                continue
            blob_id, pointer_size = self._blob_id(repo_id, name, f)
            item: dict = {"type": "file", "oid": blob_id, "size": f.size, "path": name}
            if pointer_size is not None:
                item["lfs"] = {"oid": self._lfs_sha256(repo_id, name, f), "size": f.size, "pointerSize": pointer_size}
            items.append(item)
        self._send(h, entry, head, 200, {"Content-Type": "application/json"}, json.dumps(items).encode())

    def _resolve(self, h: _Handler, entry: RequestLog, head: bool, repo_id: str, rev: str, name: str) -> None:
        repo = self._lookup(h, entry, head, repo_id)
        if repo is None:
            return
        if repo.gated and self._token(h) not in self.valid_tokens:
            status = 401 if self._token(h) is None else 403
            msg = f"Access to model {repo_id} is restricted. You must have access to it and be authenticated."
            return self._error(h, entry, head, status, "GatedRepo", msg)
        sha = repo.resolve_revision(rev)
        if sha is None:
            return self._error(h, entry, head, 404, "RevisionNotFound", f"Invalid rev id: {rev}")
        identity = self._fault_for(name, ("commit", "version"))
        if identity is not None and identity.action == "commit":
            repo, sha = identity.repo, identity.repo.commit  # type: ignore[union-attr]  # checked by Fault
        f = repo.files.get(name)  # type: ignore[union-attr]
        if f is None:
            return self._error(
                h, entry, head, 404, "EntryNotFound", f'{name} does not exist on "{rev}"', {"X-Repo-Commit": sha}
            )
        if identity is not None and identity.action == "version":
            f = identity.data
            assert f is not None  # a version fault has its data (checked by Fault)
        if identity is not None:
            entry.fault = identity.action

        blob_id, pointer_size = self._blob_id(repo_id, name, f)
        headers = {
            "Content-Type": "application/octet-stream",
            "X-Repo-Commit": sha,
            "ETag": f'"{blob_id}"',
            "Accept-Ranges": "bytes",
        }
        if pointer_size is not None:
            sha256 = self._lfs_sha256(repo_id, name, f)
            headers["X-Linked-Etag"] = f'"{sha256}"'
            headers["X-Linked-Size"] = str(f.size)
            if self.cdn:  # the bytes come from another host, as the Hub's LFS files do
                with self._lock:
                    self._cdn_files[sha256] = f
                host = self.url.replace("127.0.0.1", "localhost")
                location = f"{host}/cdn/{sha256}/{quote(name)}"
                return self._send(h, entry, head, 302, {**headers, "Location": location}, b"")
        return self._serve(h, entry, head, f, headers, self._fault_for(name, _BYTE_FAULTS))

    def _serve(
        self, h: _Handler, entry: RequestLog, head: bool, f: RepoFile, headers: dict[str, str], fault: Fault | None
    ) -> None:
        """The file's bytes, as ``Range`` asks (unless ``ignore_range``), through ``fault`` if there is one."""
        total = f.size
        start, length, status = 0, total, 200
        rng = entry.range
        if rng is not None and not self.ignore_range:
            parsed = _parse_range(rng, total)
            if parsed == "unsatisfiable":
                extra = {k: v for k, v in headers.items() if k == "X-Repo-Commit"}
                extra["Content-Range"] = f"bytes */{total}"
                return self._error(h, entry, head, 416, None, "Requested Range Not Satisfiable", extra)
            if parsed is not None:
                assert isinstance(parsed, tuple)  # "unsatisfiable" returned above
                start, end = parsed
                length, status = end - start + 1, 206
                headers = {**headers, "Content-Range": f"bytes {start}-{end}/{total}"}
        self._deliver(h, entry, head, status, headers, f, start, length, fault)

    def _deliver(
        self,
        h: _Handler,
        entry: RequestLog,
        head: bool,
        status: int,
        headers: dict[str, str],
        f: RepoFile,
        start: int,
        length: int,
        fault: Fault | None,
    ) -> None:
        """Send ``length`` bytes of ``f`` from ``start`` with ``status`` and ``headers``, spoiled by ``fault``."""
        action = fault.action if fault is not None else None
        if action is not None:
            entry.fault = action
        if action == "html":
            return self._send(h, entry, head, 200, {"Content-Type": "text/html; charset=utf-8"}, ERROR_PAGE)
        if action == "reset":
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            h.connection.close()  # linger 0: an RST, no answer
            h.close_connection = True
            return None
        if action == "gzip":
            body = gzip.compress(b"".join(f.iter_bytes(start, length)))
            return self._send(h, entry, head, status, {**headers, "Content-Encoding": "gzip"}, body)
        keep = min(fault.keep, length) if fault is not None and action in ("short", "cut") else length
        sent = keep if action == "short" else length
        self._send_headers(h, entry, status, {**headers, "Content-Length": str(sent)})
        if head:
            return None
        if action == "trickle":
            return self._trickle(h, entry, f.iter_bytes(start, length, 1), fault.interval)  # type: ignore[union-attr]
        self._stream(h, entry, f.iter_bytes(start, keep))
        if action == "cut":
            h.close_connection = True
            try:
                h.connection.shutdown(socket.SHUT_RDWR)  # the promised rest never comes
            except OSError:
                pass
        return None

    def _trickle(self, h: _Handler, entry: RequestLog, chunks: Iterator[bytes], interval: float) -> None:
        for chunk in chunks:
            time.sleep(interval)
            if self._server is None:
                break
            with self._lock:
                entry.bytes_sent += len(chunk)
            try:
                h.wfile.write(chunk)
                h.wfile.flush()
            except OSError:
                break
        h.close_connection = True

    # -- low-level writers ---------------------------------------------------------

    def _error(
        self,
        h: _Handler,
        entry: RequestLog,
        head: bool,
        status: int,
        code: str | None,
        msg: str,
        extra: Mapping[str, str] | None = None,
    ) -> None:
        headers = {"Content-Type": "application/json", "X-Request-Id": f"hubstub-{id(entry):x}"}
        if code is not None:
            headers.update({"X-Error-Code": code, "X-Error-Message": msg})
        headers.update(extra or {})
        self._send(h, entry, head, status, headers, json.dumps({"error": msg}).encode())

    def _send(self, h: _Handler, entry: RequestLog, head: bool, status: int, headers: dict, body: bytes) -> None:
        headers = {**headers, "Content-Length": str(len(body))}
        self._send_headers(h, entry, status, headers)
        if not head:
            self._stream(h, entry, iter([body]))

    def _send_headers(self, h: _Handler, entry: RequestLog, status: int, headers: Mapping[str, str]) -> None:
        entry.status = status
        h.send_response(status)
        for key, value in headers.items():
            h.send_header(key, value)
        h.end_headers()

    def _stream(self, h: _Handler, entry: RequestLog, chunks: Iterator[bytes]) -> None:
        for chunk in chunks:
            # Counted before writing, so a client that has read everything never
            # sees a stale count; undone if the write fails.
            with self._lock:
                entry.bytes_sent += len(chunk)
            try:
                h.wfile.write(chunk)
            except OSError:
                with self._lock:
                    entry.bytes_sent -= len(chunk)
                h.close_connection = True
                return


_BYTE_FAULTS = ("html", "short", "cut", "reset", "trickle", "gzip")


def _parse_range(value: str, total: int) -> tuple[int, int] | str | None:
    """``(start, end)`` inclusive, ``"unsatisfiable"``, or None to ignore the header."""
    m = _RANGE.match(value.strip())
    if m is None or m[1] == m[2] == "":
        return None  # malformed or multi-range: ignored
    if m[1] == "":  # suffix: last n bytes
        n = int(m[2])
        if n == 0 or total == 0:
            return "unsatisfiable"
        return max(0, total - n), total - 1
    start = int(m[1])
    if m[2] != "" and int(m[2]) < start:
        return None  # invalid range-spec: ignored per RFC 9110
    end = total - 1 if m[2] == "" else int(m[2])
    if start >= total:
        return "unsatisfiable"
    return start, min(end, total - 1)
