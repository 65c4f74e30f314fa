"""A read-only S3-compatible server on 127.0.0.1 over a local folder, for checkpoints too large for moto.

moto (tests/support/s3.py, what the tests use) keeps every object's bytes and reads a whole object for each ranged
GET: an 8B model's 16 GB of shards cannot be served that way. This stand-in serves a folder of header-only sparse
files (tests/support/build.py) as one bucket, speaking the part of the S3 protocol a reader uses, as S3 answers it:
ListObjectsV2 (prefix, delimiter, continuation), HeadObject, GetObject with ``Range`` and ``If-Match`` (412 on
another ETag), ETags, ``NoSuchKey``. Every request and the body bytes of every response are counted here, at the
server. ``tests/test_support_s3files.py`` checks that st-audit's reads of it are exactly its reads of moto.

    with S3Files(folder, bucket="models", latency=0.02) as s3:
        env = s3.env()                      # AWS_ENDPOINT_URL + dummy credentials
        ... s3://models/<path under folder> ...
        s3.requests                         # (method, path, query, range, if_match, status, body_bytes) each
"""

from __future__ import annotations

import hashlib
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit
from xml.sax.saxutils import escape

from tests.support.s3 import S3Request, endpoint_env

PAGE = 1000  # S3's page size for ListObjectsV2


class S3Files:
    """``folder`` served as bucket ``bucket``; ``latency`` seconds added to every request."""

    def __init__(self, folder: Path, *, bucket: str = "models", latency: float = 0.0) -> None:
        self.folder, self.bucket, self.latency = Path(folder), bucket, latency
        self._log: list[S3Request] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self.url = ""

    def __enter__(self) -> S3Files:
        stub = self

        class Handler(_Handler):
            owner = stub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        return endpoint_env(self.url, base)

    @property
    def requests(self) -> list[S3Request]:
        with self._lock:
            return list(self._log)

    def reset_log(self) -> None:
        with self._lock:
            self._log.clear()

    def _record(self, request: S3Request) -> None:
        with self._lock:
            self._log.append(request)


def etag(path: Path) -> str:
    """A stable ETag per content version (size and modification time: a rewritten file gets another one)."""
    st = path.stat()
    return '"' + hashlib.md5(f"{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest() + '"'


class _Handler(BaseHTTPRequestHandler):
    owner: S3Files
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve(head=True)

    def do_GET(self) -> None:  # noqa: N802
        self._serve(head=False)

    def _serve(self, head: bool) -> None:
        owner = self.owner
        if owner.latency:
            time.sleep(owner.latency)
        url = urlsplit(self.path)
        parts = unquote(url.path).lstrip("/").split("/", 1)
        bucket, key = parts[0], (parts[1] if len(parts) > 1 else "")
        query = parse_qs(url.query, keep_blank_values=True)
        if bucket != owner.bucket:
            return self._error(404, "NoSuchBucket", head, url)
        if not key:
            if "location" in query:
                return self._send(
                    200,
                    b'<?xml version="1.0" encoding="UTF-8"?><LocationConstraint '
                    b'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"/>',
                    {},
                    head,
                    url,
                )
            return self._list(query, head, url)
        path = owner.folder / key
        if not path.is_file() or ".." in key.split("/"):
            return self._error(404, "NoSuchKey", head, url)
        tag = etag(path)
        match = self.headers.get("If-Match")
        if match is not None and match.strip() not in (tag, tag.strip('"')):
            return self._error(412, "PreconditionFailed", head, url)
        size = path.stat().st_size
        headers = {
            "ETag": tag,
            "Last-Modified": formatdate(path.stat().st_mtime, usegmt=True),
            "Accept-Ranges": "bytes",
            "Content-Type": "binary/octet-stream",
        }
        wanted = self.headers.get("Range")
        start, end, status = 0, size - 1, 200
        if wanted and wanted.startswith("bytes=") and "," not in wanted:
            first, _, last = wanted[len("bytes=") :].partition("-")
            if first:
                start, end = int(first), min(int(last), size - 1) if last else size - 1
            else:
                start, end = max(0, size - int(last)), size - 1
            if start >= size:
                return self._error(416, "InvalidRange", head, url)
            status = 206
            headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        if head:
            return self._send(200, b"", {**headers, "Content-Length": str(size)}, head, url, length=size)
        with open(path, "rb") as f:
            f.seek(start)
            body = f.read(end - start + 1)
        self._send(status, body, headers, head, url)

    def _list(self, query: dict[str, list[str]], head: bool, url: Any) -> None:
        owner = self.owner
        prefix = query.get("prefix", [""])[0]
        delimiter = query.get("delimiter", [""])[0]
        after = query.get("continuation-token", query.get("start-after", [""]))[0]
        limit = min(int(query.get("max-keys", [str(PAGE)])[0] or PAGE), PAGE)
        encode = (lambda text: quote(text, safe="/")) if query.get("encoding-type") == ["url"] else (lambda t: t)
        keys = sorted(p.relative_to(owner.folder).as_posix() for p in owner.folder.rglob("*") if p.is_file())
        contents: list[str] = []
        prefixes: list[str] = []
        entries: list[tuple[str, str]] = []  # (key or common prefix, kind), in key order
        for k in keys:
            if not k.startswith(prefix):
                continue
            rest = k[len(prefix) :]
            if delimiter and delimiter in rest:
                common = prefix + rest.split(delimiter, 1)[0] + delimiter
                if not entries or entries[-1] != (common, "prefix"):
                    entries.append((common, "prefix"))
            else:
                entries.append((k, "key"))
        entries = [e for e in entries if e[0] > after]
        page, more = entries[:limit], len(entries) > limit
        for name, kind in page:
            if kind == "prefix":
                prefixes.append(f"<CommonPrefixes><Prefix>{escape(encode(name))}</Prefix></CommonPrefixes>")
            else:
                p = owner.folder / name
                st = p.stat()
                modified = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(st.st_mtime))
                contents.append(
                    f"<Contents><Key>{escape(encode(name))}</Key><LastModified>{modified}</LastModified>"
                    f"<ETag>{escape(etag(p))}</ETag><Size>{st.st_size}</Size>"
                    "<StorageClass>STANDARD</StorageClass></Contents>"
                )
        token = f"<NextContinuationToken>{escape(page[-1][0])}</NextContinuationToken>" if more else ""
        body = (
            '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult '
            'xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
            f"<Name>{owner.bucket}</Name><Prefix>{escape(encode(prefix))}</Prefix><KeyCount>{len(page)}</KeyCount>"
            f"<MaxKeys>{limit}</MaxKeys><Delimiter>{escape(encode(delimiter))}</Delimiter>"
            f"<IsTruncated>{'true' if more else 'false'}</IsTruncated>{token}"
            + "".join(contents)
            + "".join(prefixes)
            + "</ListBucketResult>"
        )
        self._send(200, body.encode(), {"Content-Type": "application/xml"}, head, url)

    def _error(self, status: int, code: str, head: bool, url: Any) -> None:
        body = (
            f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code><Message>{code}</Message>'
            f"<Resource>{escape(quote(url.path))}</Resource></Error>"
        ).encode()
        self._send(status, b"" if head else body, {"Content-Type": "application/xml"}, head, url)

    def _send(
        self, status: int, body: bytes, headers: dict[str, str], head: bool, url: Any, length: int | None = None
    ) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        if not head:
            self.wfile.write(body)
        self.owner._record(
            S3Request(
                self.command,
                unquote(url.path),
                url.query,
                self.headers.get("Range"),
                self.headers.get("If-Match"),
                status,
                0 if head else len(body),
            )
        )
