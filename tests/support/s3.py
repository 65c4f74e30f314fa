"""An S3-compatible server on 127.0.0.1 for the object-store tests: moto's server mode, as s3fs's own test suite runs
it (``ThreadedMotoServer``), read by st-audit through the real s3fs client; nothing is patched in s3fs or moto.

    with S3Stub() as s3:
        s3.put_folder("models", "llama/", folder)       # every file of a folder under a prefix
        env = s3.env()                                    # AWS_ENDPOINT_URL + dummy credentials, for a subprocess
        run_cli("audit", "s3://models/llama", env=env)
        s3.requests                                       # (method, path, query, range, status, body bytes) each

The server's WSGI application is wrapped once it is up, so every request and the body bytes of every response are
counted at the server (what the client really asked for and received), not by the code under test.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

REGION = "us-east-1"


@dataclass(frozen=True)
class S3Request:
    method: str
    path: str  # /bucket/key, unquoted
    query: str
    range: str | None
    if_match: str | None
    status: int
    body_bytes: int


def endpoint_env(url: str, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a user would set for an S3-compatible endpoint at ``url``: endpoint and (dummy) keys, no
    profile, the loopback never proxied; ``base`` (default: this process's) without its own AWS_ settings."""
    env = {k: v for k, v in (base if base is not None else os.environ).items() if not k.startswith("AWS_")}
    no_proxy = ",".join(filter(None, [env.get("NO_PROXY", ""), "127.0.0.1,localhost"]))
    env.update(
        AWS_ENDPOINT_URL=url,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION=REGION,
        AWS_EC2_METADATA_DISABLED="true",
        NO_PROXY=no_proxy,
        no_proxy=no_proxy,
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
    )
    return env


class _Counting:
    """WSGI middleware: one ``S3Request`` per request, with the response body's length as sent.

    A request is logged once its body has been written, which can be after the client has read it all: the
    server thread may lag behind the test's thread. ``in_flight`` counts the requests begun and not yet logged, so
    that the log is read only once it is complete (``S3Stub.requests`` waits for it)."""

    def __init__(self, app: Any, log: list[S3Request], lock: threading.Condition) -> None:
        self.app, self.log, self.lock = app, log, lock
        self.in_flight = 0

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterator[bytes]:
        with self.lock:
            self.in_flight += 1
        status: list[int] = []

        def start(code: str, headers: Any, *args: Any) -> Any:
            status.append(int(code.split()[0]))
            return start_response(code, headers, *args)

        sent = 0
        body: Any = None
        try:
            body = self.app(environ, start)
            for chunk in body:
                sent += len(chunk)
                yield chunk
        finally:
            try:
                close = getattr(body, "close", None)
                if close is not None:
                    close()
            finally:
                with self.lock:
                    self.log.append(
                        S3Request(
                            environ["REQUEST_METHOD"],
                            unquote(environ.get("PATH_INFO", "")),
                            environ.get("QUERY_STRING", ""),
                            environ.get("HTTP_RANGE"),
                            environ.get("HTTP_IF_MATCH"),
                            status[0] if status else 0,
                            sent,
                        )
                    )
                    self.in_flight -= 1
                    self.lock.notify_all()


class S3Stub:
    """moto's S3 on an ephemeral loopback port, with request accounting and helpers to fill buckets."""

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self._log: list[S3Request] = []
        self._lock = threading.Condition()
        self._counting: _Counting | None = None
        self.url = ""

    def __enter__(self) -> S3Stub:
        import logging

        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one log line per request otherwise
        self._server.start()
        host, port = self._server.get_host_and_port()
        self.url = f"http://{host}:{port}"
        inner = self._server._server  # werkzeug's server: it calls .app for every request
        assert inner is not None
        self._counting = inner.app = _Counting(inner.app, self._log, self._lock)
        import urllib.request

        # moto keeps its state per process: start every stand-in empty
        urllib.request.urlopen(urllib.request.Request(f"{self.url}/moto-api/reset", method="POST"), timeout=10)
        self.reset_log()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.stop()

    # -- the client side ---------------------------------------------------------------------

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The environment a user would set for this endpoint (``endpoint_env``)."""
        return endpoint_env(self.url, base)

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.url,
            region_name=REGION,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def bucket(self, name: str, *, versioned: bool = False) -> None:
        client = self.client()
        client.create_bucket(Bucket=name)
        if versioned:
            client.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})

    def put(self, bucket: str, key: str, data: bytes) -> None:
        self.client().put_object(Bucket=bucket, Key=key, Body=data)

    def put_folder(self, bucket: str, prefix: str, folder: Path) -> list[str]:
        """Upload every file under ``folder`` (relative posix names after ``prefix``); returns the keys."""
        client = self.client()
        keys = []
        for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
            key = prefix + path.relative_to(folder).as_posix()
            client.put_object(Bucket=bucket, Key=key, Body=path.read_bytes())
            keys.append(key)
        return keys

    # -- accounting --------------------------------------------------------------------------

    @property
    def requests(self) -> list[S3Request]:
        """Every read since the last ``reset_log`` (GET and HEAD: the writes of a test's own setup are left out),
        once the server has logged every request it has begun (at most 10 s)."""
        with self._lock:
            if self._counting is not None:
                self._lock.wait_for(lambda: self._counting is None or self._counting.in_flight == 0, timeout=10)
            return [r for r in self._log if r.method in ("GET", "HEAD") and not r.path.startswith("/moto-api")]

    def reset_log(self) -> None:
        with self._lock:
            self._log.clear()
