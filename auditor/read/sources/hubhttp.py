"""The Hub source's HTTP: every request through one process-wide gate, bounded by deadlines, retried while the
failure may pass, and read no further than needed.

* ``GATE``: per endpoint, at most ``limit`` requests in flight from the whole process (many ``HubSource`` s at once:
  the fleet) and none while a server's ``Retry-After`` holds: a 429 seen by one worker pauses every worker. The
  connections are huggingface_hub's shared session's, so the pool is shared too.
* Deadlines: one per request, from the moment it is sent to its last body byte (not per read: a server trickling a
  byte a second is cut off on time, by ``WATCHDOG`` shutting its socket), and one per audit (every request, wait
  and retry of one source).
* Retries, with exponential backoff or the server's ``Retry-After``: 429 and 5xx answers, resets, timeouts, and
  answers that are not what was asked (an HTML error page answered with 200, a body shorter than it says).
* ``Served``: the commit and the version of the file an answer claims, along its redirects, for the source to check
  against its listing.
* ``RangeReader``: one file's bytes by HTTP Range, in as many reads as the caller needs; a server that ignores
  ``Range`` is read as one stream, only as far as needed, then closed.
"""

from __future__ import annotations

import contextvars
import heapq
import itertools
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from huggingface_hub.errors import OfflineModeIsEnabled
from huggingface_hub.utils import get_session, hf_raise_for_status

from ...core.errors import AuditError, HubError
from ...core.findings import plural
from .huberrors import FileProblem, _http

T = TypeVar("T")

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 60.0  # a longer Retry-After is reported to the user instead of slept through
MAX_ERROR_BODY = 1_000_000
GATE_LIMIT = 64  # requests in flight per endpoint, from the whole process
MIN_WAIT = 0.001  # the shortest socket timeout handed out near a deadline (0 would make the socket non-blocking)
_CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+|\*)$")


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


def session() -> Any:
    """huggingface_hub's shared client, with the counting hooks installed (it may have been recreated)."""
    client = get_session()
    hooks = client.event_hooks
    if _request_hook not in hooks.get("request", []):
        with _HOOK_LOCK:
            hooks = client.event_hooks
            if _request_hook not in hooks.get("request", []):
                client.event_hooks = {
                    "request": [*hooks.get("request", []), _request_hook],
                    "response": [*hooks.get("response", []), _response_hook],
                }
    return client


# -- the process-wide gate ------------------------------------------------------------------------------


class TooLate(Exception):
    """The audit's deadline passed while a request waited at the gate."""


class Gate:
    """Admission of every Hub request of the process, per endpoint: at most ``limit`` in flight, none while a pause
    holds.

    One ``HubSource`` runs up to 64 workers; the fleet runs many sources in one process. A server that answers one
    of them 429 (or 503) with ``Retry-After`` is asking the client, not the worker, to wait: ``pause`` makes every
    request to that endpoint wait until then, and the limit keeps the sum of all workers a budget the shared
    connection pool can serve.
    """

    def __init__(self, limit: int = GATE_LIMIT) -> None:
        self.limit = limit
        self._cond = threading.Condition()
        self._resume: dict[str, float] = {}
        self._busy: dict[str, int] = {}

    def pause(self, endpoint: str, seconds: float) -> None:
        """No request to ``endpoint`` starts during the next ``seconds`` (a longer pause already set stays)."""
        with self._cond:
            until = time.monotonic() + seconds
            if until > self._resume.get(endpoint, 0.0):
                self._resume[endpoint] = until
            self._cond.notify_all()

    def paused_until(self, endpoint: str) -> float:
        """The ``time.monotonic()`` before which no request to ``endpoint`` starts (0.0: never paused)."""
        with self._cond:
            return self._resume.get(endpoint, 0.0)

    def in_flight(self, endpoint: str) -> int:
        with self._cond:
            return self._busy.get(endpoint, 0)

    @contextmanager
    def admit(self, endpoint: str, deadline: float) -> Iterator[None]:
        """Hold one of ``endpoint``'s slots for the block, once no pause holds; ``TooLate`` at ``deadline``."""
        with self._cond:
            while True:
                now = time.monotonic()
                paused = self._resume.get(endpoint, 0.0) - now
                if paused <= 0 and self._busy.get(endpoint, 0) < self.limit:
                    break
                if now >= deadline:
                    raise TooLate
                self._cond.wait(min(paused, deadline - now) if paused > 0 else deadline - now)
            self._busy[endpoint] = self._busy.get(endpoint, 0) + 1
        try:
            yield
        finally:
            with self._cond:
                self._busy[endpoint] -= 1
                self._cond.notify_all()


GATE = Gate()


# -- deadlines ------------------------------------------------------------------------------------------


class Budget(dict):  # type: ignore[type-arg]
    """httpx's ``timeout`` extension counting down to one deadline: httpcore asks it for the pool, connect, write and
    read timeouts as each phase of the request starts, and gets the time left."""

    def __init__(self, deadline: float) -> None:
        super().__init__(connect=None, read=None, write=None, pool=None)
        self.deadline = deadline

    def get(self, key: Any, default: Any = None) -> float:  # type: ignore[override]
        return max(MIN_WAIT, self.deadline - time.monotonic())

    def __getitem__(self, key: Any) -> float:
        return self.get(key)


class Watchdog:
    """Shuts the socket of an answer still being read at its deadline: a server trickling its body keeps every read
    short, so no read timeout would ever fire. One thread for the whole process, started on first use."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[list[Any]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def watch(self, deadline: float, sock: socket.socket | None) -> list[Any] | None:
        if sock is None:
            return None
        entry = [deadline, next(self._order), sock]
        with self._cond:
            heapq.heappush(self._heap, entry)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="st-audit-deadlines", daemon=True)
                self._thread.start()
            self._cond.notify()
        return entry

    def forget(self, entry: list[Any] | None) -> None:
        if entry is not None:
            with self._cond:
                entry[2] = None

    def _run(self) -> None:
        with self._cond:
            while True:
                while self._heap and self._heap[0][2] is None:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                left = self._heap[0][0] - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                sock = heapq.heappop(self._heap)[2]
                try:  # the plain socket's shutdown, also under TLS: the reader sees the end of the stream
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)
                except (OSError, TypeError):
                    pass


WATCHDOG = Watchdog()


def _socket_of(response: Any) -> socket.socket | None:
    stream = response.extensions.get("network_stream")
    try:
        sock = stream.get_extra_info("socket") if stream is not None else None
    except Exception:  # noqa: BLE001 - a transport without sockets: the per-read timeouts still hold
        return None
    return sock if isinstance(sock, socket.socket) else None


# -- who answered -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Served:
    """What an answer claims to be, along its redirects: the commit (``X-Repo-Commit``) and the file's version (the
    Hub's ``X-Linked-Etag``, the LFS sha256, else ``ETag``); None where the server did not say."""

    commit: str | None = None
    etag: str | None = None


def served(response: Any) -> Served:
    commit = linked = None
    for r in (*response.history, response):
        commit = commit or r.headers.get("x-repo-commit")
        linked = linked or r.headers.get("x-linked-etag")
    return Served(_tag(commit), _tag(linked or response.headers.get("etag")))


def _tag(value: str | None) -> str | None:
    """An ETag or commit without quotes and weakness mark, as huggingface_hub compares them."""
    if not value:
        return None
    value = value.strip()
    return (value[2:] if value.startswith("W/") else value).strip('"') or None


# -- attempts -------------------------------------------------------------------------------------------


class Transient(Exception):
    """An attempt that failed in a way that may pass: a status worth retrying, a broken or late transfer, or an answer
    that is not what was asked. ``what`` says what the server did, for the final message."""

    def __init__(self, what: str, status: int | None = None, retry_after: str | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.status = status
        self.retry_after = retry_after


class Http:
    """Mixed into ``HubSource``: reads ``endpoint``, ``repo_id``, ``traffic``, ``timeout``, ``audit_timeout``,
    ``max_retries``, ``backoff``, ``_auth``, ``_translate`` and ``_files_read``."""

    endpoint: str
    repo_id: str
    traffic: Traffic
    timeout: float
    audit_timeout: float
    max_retries: int
    backoff: float
    _auth: dict[str, str]
    _translate: Callable[[BaseException], Exception]
    _began: float | None
    _files_read: set[str]

    @contextmanager
    def _counting(self) -> Iterator[None]:
        session()
        token = _TRAFFIC.set(self.traffic)
        try:
            yield
        finally:
            _TRAFFIC.reset(token)

    def _in_traffic(self, fn: Callable[..., T], *args: Any) -> T:
        with self._counting():
            return fn(*args)

    def _audit_deadline(self) -> float:
        if self._began is None:
            self._began = time.monotonic()
        return self._began + self.audit_timeout

    @contextmanager
    def _request(self, url: str, headers: dict[str, str]) -> Iterator[tuple[Any, float]]:
        """One GET through the gate, its headers received: ``(response, deadline)``. Every phase of it is bounded by
        the request's deadline (``timeout`` from now, or the audit's if sooner), its body by the watchdog."""
        with GATE.admit(self.endpoint, self._audit_deadline()):
            deadline = min(time.monotonic() + self.timeout, self._audit_deadline())
            try:
                with session().stream("GET", url, headers=headers, extensions={"timeout": Budget(deadline)}) as r:
                    guard = WATCHDOG.watch(deadline, _socket_of(r))
                    try:
                        yield r, deadline
                    finally:
                        WATCHDOG.forget(guard)
            except _http.TransportError as e:
                if time.monotonic() >= deadline - MIN_WAIT:
                    raise self._late(deadline) from e
                raise

    def _late(self, deadline: float) -> Transient:
        if self._began is not None and deadline >= self._audit_deadline():
            return Transient(f"no whole answer before the audit's {self.audit_timeout:g} s ran out")
        return Transient(f"no whole answer within {self.timeout:g} s (the per-request timeout)")

    def _body(self, r: Any, deadline: float, limit: int | None = None) -> bytes:
        """The body (decoded when the server compressed it), up to ``limit`` bytes; a late one is a ``Transient``."""
        body = bytearray()
        encoded = (r.headers.get("content-encoding") or "identity").strip().lower() != "identity"
        try:
            for chunk in r.iter_bytes() if encoded else r.iter_raw():
                body += chunk
                if limit is not None and len(body) >= limit:
                    break
                if time.monotonic() > deadline:
                    raise self._late(deadline)
        except _http.TransportError as e:
            if time.monotonic() >= deadline - MIN_WAIT:
                raise self._late(deadline) from e
            raise
        return bytes(body[:limit] if limit is not None else body)

    def _attempts(self, file: str | None, once: Callable[[], T]) -> T:
        """``once()`` until it succeeds, retrying what may pass; ``file`` (None: the listing) names what was being read
        in the final error. Every wait goes through the gate, and none past the audit's deadline."""
        attempt = 0
        while True:
            try:
                return once()
            except Transient as t:
                problem = t
            except (AuditError, FileProblem):
                raise
            except TooLate:
                raise self._give_up(file, None, attempt, late=True) from None
            except OfflineModeIsEnabled as e:
                raise self._translate(e) from None
            except _http.TransportError as e:
                if file is None and isinstance(e, _http.ConnectError):
                    raise self._translate(e) from None  # nothing answered yet: the Hub cannot be reached
                problem = Transient(_broken(e))
            delay = self._retry_delay(problem, attempt)
            if delay is None:
                raise self._give_up(file, problem, attempt) from None
            if problem.status == 429 or problem.retry_after:
                GATE.pause(self.endpoint, delay)  # the server asked the client to wait: every worker waits
            if time.monotonic() + delay >= self._audit_deadline():
                raise self._give_up(file, problem, attempt, late=True) from None
            time.sleep(delay)
            attempt += 1

    def _retry_delay(self, problem: Transient, attempt: int) -> float | None:
        """Seconds to wait before trying again, or None when this failure is final."""
        if attempt >= self.max_retries:
            return None
        delay = self.backoff * 2**attempt
        if problem.retry_after:
            try:
                seconds = float(problem.retry_after)
            except ValueError:
                seconds = None  # an HTTP date: keep the exponential backoff
            if seconds is not None:
                if seconds > MAX_RETRY_AFTER:
                    return None
                delay = max(0.0, seconds)
        return delay

    def _give_up(self, file: str | None, problem: Transient | None, attempt: int, late: bool = False) -> HubError:
        """The one sentence for a read that failed for good: which file, what the server did, how often."""
        where = "" if self.endpoint == "https://huggingface.co" else f" at {self.endpoint}"
        tries = f"{plural(attempt + 1, 'attempt')}"
        after = (problem.retry_after or "").strip() if problem is not None else ""
        if problem is not None and problem.status == 429:
            what = f"the Hub{where} is rate-limiting requests (HTTP 429{f', retry after {after} s' if after else ''})"
            read = f" while reading {file}" if file is not None else ""
            return HubError(f"{what}{read}: wait and retry, or log in (HF_TOKEN) for higher limits")
        if late:
            did = f" ({problem.what}, {tries})" if problem is not None else ""
            reading = f"reading {file}" if file is not None else "listing the repo"
            return HubError(
                f"the audit of {self.repo_id} ran out of time (its {self.audit_timeout:g} s) while "
                f"{reading}{did}; {self._progress()}: try again later"
            )
        assert problem is not None
        if file is None:
            if problem.status is not None:
                return HubError(
                    f"the Hub{where} kept failing with HTTP {problem.status} after "
                    f"{plural(attempt, 'retry', 'retries')}: try again later"
                )
            return HubError(f"the Hub{where} did not list {self.repo_id}: {problem.what} ({tries}): try again later")
        return HubError(
            f"could not read {file} from {self.repo_id}{where}: {problem.what} ({tries}); "
            f"{self._progress()}: try again later"
        )

    def _progress(self) -> str:
        n = len(self._files_read)
        return f"{plural(n, 'other file')} of it had been read" if n else "no file of it had been read yet"

    def _raise_for(self, response: Any) -> None:
        """A final, non-retryable answer: the Hub's own error (gated, not found ...) as one sentence."""
        if int(response.headers.get("content-length") or 0) <= MAX_ERROR_BODY:
            response.read()
        try:
            hf_raise_for_status(response)
        except Exception as e:  # noqa: BLE001 - translated, never shown raw
            raise self._translate(e) from None
        raise HubError(f"the Hub answered HTTP {response.status_code} for {response.url}: try again later")

    def _get(self, url: str, file: str, check: Callable[[Served], None], size: int | None) -> bytes:
        """One small file, whole: a 200 whose identity ``check`` accepts, of the listed ``size`` when known."""

        def once() -> bytes:
            with self._request(url, self._auth) as (r, deadline):
                check(served(r))
                status = r.status_code
                if status == 200:
                    not_a_page(r, deadline, self)
                    data = self._body(r, deadline, None if size is None else size + 1)
                    if size is not None and len(data) != size:
                        raise Transient(f"the server sent {plural(len(data), 'byte')} where the listing says {size:,}")
                    return data
                if status in RETRY_STATUSES:
                    raise Transient(f"the server answered HTTP {status}", status, r.headers.get("retry-after"))
                self._raise_for(r)
                raise AssertionError("unreachable")

        return self._attempts(file, once)


def not_a_page(r: Any, deadline: float, http: Http, asked: str = "the file") -> None:
    """An HTML page answered with 200 is a proxy's or CDN's error page, not what was ``asked``: worth another
    attempt."""
    if "text/html" in (r.headers.get("content-type") or "").lower():
        page = http._body(r, deadline, MAX_ERROR_BODY)
        raise Transient(
            f"the server answered HTTP {r.status_code} with a {len(page):,}-byte HTML page instead of {asked}"
        )


def get_once(
    url: str, headers: dict[str, str], endpoint: str, timeout: float, limit: int = 64 * MAX_ERROR_BODY
) -> tuple[int, bytes]:
    """One GET without retries (a lookup the audit can do without), through the gate and bounded by one deadline,
    ``timeout`` from now to its last byte: ``(status, body)``; ``OSError`` with a short reason when there is none."""
    deadline = time.monotonic() + timeout
    try:
        with (
            GATE.admit(endpoint, deadline),
            session().stream("GET", url, headers=headers, extensions={"timeout": Budget(deadline)}) as r,
        ):
            guard = WATCHDOG.watch(deadline, _socket_of(r))
            try:
                body = bytearray()
                for chunk in r.iter_bytes():
                    body += chunk
                    if len(body) > limit:
                        raise OSError(f"the answer is over {limit:,} bytes")
                    if time.monotonic() > deadline:
                        raise TooLate
            finally:
                WATCHDOG.forget(guard)
            return r.status_code, bytes(body)
    except TooLate:
        raise OSError(f"no whole answer within {timeout:g} s") from None
    except OfflineModeIsEnabled:
        raise OSError("offline mode (HF_HUB_OFFLINE)") from None
    except _http.TransportError as e:
        if time.monotonic() >= deadline - MIN_WAIT:
            raise OSError(f"no whole answer within {timeout:g} s") from None
        raise OSError(f"the Hub could not be reached ({type(e).__name__})") from None


def _broken(error: BaseException) -> str:
    """What a transport error means, in words."""
    if isinstance(error, _http.TimeoutException):
        return "the server stopped answering"
    if isinstance(error, _http.RemoteProtocolError):
        return "the server closed the connection before the answer was complete"
    if isinstance(error, _http.ConnectError):
        return "the connection could not be made"
    return "the connection was reset"


# -- Range reads ------------------------------------------------------------------------------------------


class RangeReader:
    """One file's bytes by HTTP Range, in as many reads as the caller needs, every answer checked.

    ``check(served, first, total)`` judges who answered (the listing's commit and version; ``first``: the first
    answer's, which every later range must equal) and raises to stop. A 206 must carry exactly the range asked
    (clamped at the end of the file); a 200 is the whole file (the server ignored ``Range``): it is kept open and read
    as one stream, as far as the reads go, then closed. An HTML page, a body shorter than announced or a whole file of
    another size than listed is retried.
    """

    def __init__(
        self,
        http: Http,
        url: str,
        file: str,
        size: int | None,
        check: Callable[[Served, Served | None, int | None], None],
    ) -> None:
        self.http = http
        self.url = url
        self.file = file
        self.size = size  # the listing's
        self.total = size  # the file's size: the listing's, else the server's
        self.check = check
        self.first: Served | None = None
        self._stream: tuple[ExitStack, Iterator[bytes], float] | None = None  # a Range-ignoring answer, open
        self._at = 0  # the open stream's position in the file
        self._spare = b""  # bytes read from it beyond the last read

    def read(self, start: int, end: int) -> bytes:
        """Bytes ``start`` to ``end - 1`` of the file (fewer only where the file ends)."""
        if end <= start:
            return b""
        return self.http._attempts(self.file, lambda: self._read_once(start, end))

    def close(self) -> None:
        if self._stream is not None:
            stack, self._stream, self._spare = self._stream[0], None, b""
            stack.close()

    def _judge(self, answer: Served, total: int | None) -> None:
        self.check(answer, self.first, total)
        if self.first is None:
            self.first = answer

    def _read_once(self, start: int, end: int) -> bytes:
        if self._stream is not None:
            if self._at == start:
                return self._pull(end - start)
            self.close()
        stack = ExitStack()
        try:
            headers = {**self.http._auth, "Range": f"bytes={start}-{end - 1}"}
            r, deadline = stack.enter_context(self.http._request(self.url, headers))
            answer = served(r)
            status = r.status_code
            if status == 206:
                not_a_page(r, deadline, self.http)
                return self._partial(r, deadline, answer, start, end)
            if status == 200:
                not_a_page(r, deadline, self.http)
                self._whole(r, answer)
                self._stream, self._at, self._spare = (stack, _chunks(self.http, r, deadline), deadline), 0, b""
                stack = ExitStack()  # the open answer now belongs to the reader
                if start:
                    self._pull(start)
                return self._pull(end - start)
            if status == 416:
                raise FileProblem(
                    f"the server refused bytes {start}-{end - 1} (416): the file is shorter than its listing says"
                )
            if status in RETRY_STATUSES:
                raise Transient(f"the server answered HTTP {status}", status, r.headers.get("retry-after"))
            self.http._raise_for(r)
            raise AssertionError("unreachable")
        finally:
            stack.close()

    def _partial(self, r: Any, deadline: float, answer: Served, start: int, end: int) -> bytes:
        m = _CONTENT_RANGE.match((r.headers.get("content-range") or "").strip())
        if m is None or int(m[1]) != start or not start <= int(m[2]) <= end - 1:
            raise FileProblem(
                f"the server answered bytes {start}-{end - 1} with Content-Range {r.headers.get('content-range')!r}"
            )
        total = None if m[3] == "*" else int(m[3])
        self._judge(answer, total)
        if self.size is None and total is not None:
            self.total = total
        expected = int(m[2]) - start + 1
        if expected < end - start and (self.total is None or int(m[2]) + 1 < self.total):
            raise Transient(f"the server sent bytes {start:,}-{m[2]} where {start:,}-{end - 1:,} were asked")
        body = self.http._body(r, deadline, expected + 1)
        if len(body) != expected:
            raise Transient(
                f"the answer held {plural(len(body), 'byte')} where its Content-Range announced {expected:,}"
            )
        return body

    def _whole(self, r: Any, answer: Served) -> None:
        """A 200 to a Range request: the whole file, which must be the listed one."""
        length = r.headers.get("content-length") or ""
        encoded = (r.headers.get("content-encoding") or "identity").strip().lower() != "identity"
        total = int(length) if length.isdigit() and not encoded else None
        self._judge(answer, None)  # its length is checked here: a wrong one is an error page or a cut, retried
        if self.size is not None and total is not None and total != self.size:
            raise Transient(
                f"the server answered HTTP 200 with {plural(total, 'byte')} where the listing says the "
                f"file has {self.size:,}"
            )
        if self.size is None:
            self.total = total

    def _pull(self, n: int) -> bytes:
        """The next ``n`` bytes of the open stream (fewer at its end)."""
        assert self._stream is not None
        _, chunks, _ = self._stream
        got = bytearray(self._spare)
        try:
            while len(got) < n:
                chunk = next(chunks, None)
                if chunk is None:
                    break
                got += chunk
        except BaseException:
            self.close()
            raise
        self._spare = bytes(got[n:])
        data = bytes(got[:n])
        self._at += len(data)
        if len(data) < n and (self.total is None or self._at < self.total):
            self.close()
            raise Transient(f"the answer ended after {plural(self._at, 'byte')} of the file")
        return data


def _chunks(http: Http, r: Any, deadline: float) -> Iterator[bytes]:
    """An open answer's body, chunk by chunk (decoded when compressed); late is a ``Transient``."""
    encoded = (r.headers.get("content-encoding") or "identity").strip().lower() != "identity"
    try:
        for chunk in r.iter_bytes() if encoded else r.iter_raw():
            yield chunk
            if time.monotonic() > deadline:
                raise http._late(deadline)
    except _http.TransportError as e:
        if time.monotonic() >= deadline - MIN_WAIT:
            raise http._late(deadline) from e
        raise
