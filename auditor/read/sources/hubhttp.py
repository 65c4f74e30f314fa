"""The Hub source's HTTP: huggingface_hub's shared session with request/byte counting, bounded retries with
backoff (honouring ``Retry-After``), and Range reads that never download more than asked (a server that ignores
``Range`` is cut off after the bytes needed)."""

from __future__ import annotations

import contextvars
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled
from huggingface_hub.utils import get_session, hf_raise_for_status

from ...core.errors import AuditError, HubError
from .huberrors import FileProblem, _http, _root

T = TypeVar("T")

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 60.0  # a longer Retry-After is reported to the user instead of slept through
MAX_ERROR_BODY = 1_000_000


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
                client.event_hooks = {"request": [*hooks.get("request", []), _request_hook],
                                       "response": [*hooks.get("response", []), _response_hook]}
    return client


class Http:
    """Mixed into ``HubSource``: reads ``traffic``, ``timeout``, ``max_retries``, ``backoff``, ``_auth`` and
    ``_translate``."""

    traffic: Traffic
    timeout: float
    max_retries: int
    backoff: float
    _auth: dict[str, str]
    _translate: Callable[[BaseException], Exception]

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
                response = cause.response if isinstance(cause, HfHubHTTPError) else None
                status = response.status_code if response is not None else None
                headers = response.headers if response is not None else {}
                if isinstance(cause, (_http.ConnectError, OfflineModeIsEnabled)) or isinstance(e, (AuditError, FileProblem)):
                    delay = None
                elif status is not None:
                    delay = self._retry_delay(status, headers, attempt)
                else:
                    delay = self._retry_delay(None, {}, attempt, cause)
                if delay is None:
                    if isinstance(e, (AuditError, FileProblem)):
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
                with session().stream("GET", url, headers=headers, timeout=self.timeout) as r:
                    if r.status_code == 206:
                        return self._read_partial(r, start, end)
                    if r.status_code == 200:
                        return self._read_ignoring_range(r, start, end, header_end)
                    if r.status_code == 416:
                        raise FileProblem(f"the server refused bytes {start}-{end} (416): the file is shorter "
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
            time.sleep(retry)  # type: ignore[arg-type]  # None raised above

    @staticmethod
    def _read_partial(r: Any, start: int, end: int) -> tuple[bytes, int | None]:
        m = re.match(r"^bytes (\d+)-(\d+)/(\d+|\*)$", (r.headers.get("content-range") or "").strip())
        if m is None or int(m[1]) != start or int(m[2]) > end or int(m[2]) < start:
            raise FileProblem(f"the server answered bytes {start}-{end} with Content-Range "
                               f"{r.headers.get('content-range')!r}")
        expected = int(m[2]) - start + 1
        body = bytearray()
        for chunk in r.iter_raw():
            body += chunk
            if len(body) > expected:
                break
        if len(body) != expected:
            raise FileProblem(f"asked for {expected:,} bytes at offset {start:,}, received {len(body):,}")
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
            if not checked and header_end is not None and len(body) >= 8:
                checked = True
                stop = max(stop, header_end(bytes(body[:8]), total) or 0)
            if len(body) >= stop:
                break  # leaving the block closes the connection: the rest of the file is never read
        return bytes(body[start:stop]), total
