"""An object-store prefix (or one object) as a checkpoint source, read through fsspec without reading any weights.

``s3://bucket/prefix`` (s3fs), ``gs://`` (gcsfs), ``az://`` / ``abfs://`` (adlfs) and any other fsspec URL are read
exactly as the Hub source reads a repo: one listing with sizes (and each object's ETag / version), small files
(index, config) whole, and each shard's header in at most two byte ranges: the first sized from the index
(``ranges.RangePlan``), the second exactly the bytes still missing. The bytes go to the same parser as local files
with the listed size, so validation, inventory, reconciliation and findings are a local folder's.

Credentials come the usual way for each store, read by its own library: the AWS chain (``AWS_ACCESS_KEY_ID`` ...,
``AWS_PROFILE``, ``~/.aws``, instance roles) for S3, with ``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL`` honoured
(MinIO, R2, a local stand-in); Google's application default credentials for GCS; ``AZURE_STORAGE_*`` variables or
Azure's default credential chain for Azure.

A file must not change while it is read: every object is read pinned to the ETag the listing gave (s3fs sends
``If-Match`` with it on each range; a store that cannot pin is asked for the object's identity again after a
header needed a second range), and a file whose identity changed is an error (exit 3), never a header stitched
from two versions. fsspec is imported only for object-store targets (start-up time: docs/performance.md).
"""

from __future__ import annotations

import errno
import os
import posixpath
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ...core.errors import AuditError, TargetNotFound, UsageError
from ...core.findings import plural
from ...core.jsonio import loads
from ..header import Header, parse_header, read_header_length
from ..walk import folders_in_listing
from .protocol import MAX_TENSORS, Source
from .ranges import RangePlan

# the pip extra that brings each store's fsspec implementation
EXTRAS = {
    "s3": "s3",
    "s3a": "s3",
    "gs": "gcs",
    "gcs": "gcs",
    "az": "azure",
    "abfs": "azure",
    "abfss": "azure",
    "adl": "azure",
}
# stores whose fsspec file pins every range read to the listed ETag (s3fs: If-Match), so a file replaced between
# two ranges fails the second read instead of returning the new version's bytes
PINNED = frozenset({"s3", "s3a"})
LISTED_SUFFIXES = (".safetensors", ".json")
# how each store's ``ls`` is told to bypass its cached listing of that path (and only that path: dropping a
# subfolder's cached listing with invalidate_cache drops its parents' too, which the open files rely on)
REFRESH_KEYWORD = {
    "s3": "refresh",
    "s3a": "refresh",
    "gs": "refresh",
    "gcs": "refresh",
    "az": "invalidate_cache",
    "abfs": "invalidate_cache",
    "abfss": "invalidate_cache",
}  # one folder down, as a local folder is listed


class ChangedWhileRead(AuditError):
    """An object changed (another ETag, version or size) between the listing and a read, or between two reads."""


def filesystem(url: str) -> tuple[Any, str, str]:
    """``(fs, path, protocol)`` for ``url``; a missing store library is one sentence naming the extra to install."""
    protocol = url.split("://", 1)[0].lower()
    extra = EXTRAS.get(protocol)
    hint = f": pip install 'st-audit[{extra}]'" if extra else ""
    try:
        import fsspec
        from fsspec.core import url_to_fs
    except ImportError:  # pragma: no cover - huggingface_hub depends on fsspec
        raise AuditError(f"{url}: reading object stores needs fsspec{hint or ': pip install fsspec'}") from None
    try:
        fsspec.get_filesystem_class(protocol)
    except ImportError:
        raise AuditError(f"{url}: reading {protocol}:// needs the {extra or protocol} extra{hint}") from None
    except ValueError:
        raise UsageError(
            f"{url}: {protocol}:// is not a storage fsspec knows; use s3://, gs://, az:// (or a "
            "local path, a Hub repo id)"
        ) from None
    try:
        fs, path = url_to_fs(url, **storage_options(protocol))
    except ImportError:
        raise AuditError(f"{url}: reading {protocol}:// needs the {extra or protocol} extra{hint}") from None
    except (ValueError, TypeError, OSError) as e:
        raise AuditError(f"{url}: cannot open the store: {_one_line(e)}") from None
    return fs, str(path).rstrip("/"), protocol


def storage_options(protocol: str) -> dict[str, Any]:
    """What st-audit adds to a store's own configuration: S3's endpoint from ``AWS_ENDPOINT_URL_S3`` /
    ``AWS_ENDPOINT_URL`` (botocore reads them too; passing it keeps older botocore releases in step)."""
    if protocol in ("s3", "s3a"):
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        if endpoint:
            return {"endpoint_url": endpoint}
    return {}


class Traffic:
    """Reads made and body bytes received by one source (listings count as reads, their bodies do not)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests = 0
        self.bytes = 0

    def add(self, requests: int, received: int = 0) -> None:
        with self._lock:
            self.requests += requests
            self.bytes += received


class ObjectStoreSource(Source):
    """The objects under a prefix (a folder), or one object and the folder around it; never reads tensor data."""

    def __init__(
        self,
        url: str,
        *,
        progress: Callable[[str], None] | None = None,
        workers: int = 16,
        fs: Any = None,
        path: str | None = None,
        protocol: str | None = None,
        traffic: Traffic | None = None,
    ) -> None:
        self.target = url
        self.url = url.rstrip("/")
        self._given = self.url
        if fs is None:
            fs, path, protocol = filesystem(url)
        self.fs, self.path, self.protocol = fs, str(path).rstrip("/"), protocol or "?"
        self.progress = progress
        self.workers = max(1, workers)
        self.traffic = traffic or Traffic()
        self.plan = RangePlan()
        self.single: str | None = None
        self._files: dict[str, int | None] | None = None
        self._objects: dict[str, dict[str, Any]] = {}  # name -> {"size", "etag", "version"} as listed
        self._folder: ObjectStoreSource | None = None
        self._reading: float | None = None  # seconds spent reading headers since the traffic line was said

    # -- Source protocol --------------------------------------------------------------------------------

    def list_files(self) -> dict[str, int | None]:
        if self._files is None:
            entries = self._ls(self.path)
            if len(entries) == 1 and entries[0].get("type") == "file" and _name(entries[0]) == self.path:
                # one object: the folder around it gives config.json (and, for folder(), its index and siblings)
                self.single = posixpath.basename(self.path)
                self.path = posixpath.dirname(self.path)
                self.url = self.url.rsplit("/", 1)[0]
                entries = self._ls(self.path)
                found = {posixpath.basename(_name(e)): e for e in entries if e.get("type") == "file"}
                self._files = {}
                for name in (self.single, "config.json"):
                    if name in found:
                        self._record(name, found[name])
                if self.single not in self._files:  # listed alone but not in its folder: trust the first answer
                    self._record(self.single, entries[0])
            else:
                self._files = {}
                self._scan(entries)
        return self._files

    def read_small(self, name: str) -> bytes:
        if self._files is None:
            self.list_files()
        try:
            with self._open(name) as f:
                data = f.read()
        except ChangedWhileRead:
            raise
        except OSError as e:
            if _expired(e):
                raise ChangedWhileRead(self._changed(name, "it was read")) from None
            raise OSError(_one_line(e)) from None  # a finding on that file (collect), as for a local file
        except Exception as e:  # noqa: BLE001 - the store library's own errors: one sentence, exit 3
            raise AuditError(f"cannot read {self._url(self.path)}/{name}: {_one_line(e)}") from None
        self.traffic.add(1, len(data))
        return bytes(data)

    def read_json(self, name: str) -> Any:
        doc = loads(self.read_small(name))
        if name.endswith(".json") and ".index" in name:
            self.plan.learn_index(name, doc)  # the index is parsed once, for the ranges and for the caller
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
        started = time.monotonic()
        headers: dict[str, Header] = {}
        total = 0
        with ThreadPoolExecutor(
            max_workers=min(self.workers, max(1, len(names))), thread_name_prefix="st-audit-store"
        ) as pool:
            futures = {
                name: pool.submit(self._fetch_header, name, sizes.get(name), tensor_counts.get(name)) for name in names
            }
            try:
                for name in names:
                    headers[name] = header = futures[name].result()
                    total += len(header.tensors)
                    if total > max_tensors:
                        break  # the rest are cancelled below and reported by collect()
            finally:
                for future in futures.values():
                    future.cancel()
        self._reading = (self._reading or 0.0) + time.monotonic() - started
        return headers

    def finished(self) -> None:
        """The traffic line, once per audit of the prefix (a pipeline's components are read through views of it)."""
        if self.progress and self._reading is not None:
            self.progress(
                f"{self.protocol}: {self.url} ({self._reading:.1f} s): "
                f"{plural(self.traffic.requests, 'read')}, {_human(self.traffic.bytes)} received"
            )
        self._reading = None

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "object-store",
            "url": self._given,
            "protocol": self.protocol,
            "objects": {name: dict(info) for name, info in sorted(self._objects.items())},
            "http": {"requests": self.traffic.requests, "bytes": self.traffic.bytes},
        }

    def folder(self) -> Source:
        if self._files is None:
            self.list_files()
        if self.single is None:
            return self
        if self._folder is None:
            self._folder = ObjectStoreSource(
                self.url,
                progress=self.progress,
                workers=self.workers,
                fs=self.fs,
                path=self.path,
                protocol=self.protocol,
                traffic=self.traffic,
            )
        return self._folder

    def identity(self) -> dict[str, Any]:
        """Each object's size and ETag (or version): a rewritten object is another checkpoint."""
        files = self.list_files()
        return {
            "url": self.url,
            "files": {
                name: [size, self._objects[name].get("version") or self._objects[name].get("etag")]
                for name, size in sorted(files.items())
            },
        }

    # -- listing --------------------------------------------------------------------------------------------

    def _ls(self, path: str) -> list[dict[str, Any]]:
        """One listing, fresh: fsspec keeps listings per process (another audit may have seen an older one), and
        the objects are then opened from the listing kept, without a request each for their size and ETag. A store
        that can refresh one listing is asked to; for any other, the cached listings of the path (and its parents)
        are dropped first."""
        try:
            if self.protocol in REFRESH_KEYWORD:
                entries = self.fs.ls(path, detail=True, **{REFRESH_KEYWORD[self.protocol]: True})
            else:
                self.fs.invalidate_cache(path)
                entries = self.fs.ls(path, detail=True)
        except FileNotFoundError:
            raise TargetNotFound(f"{self._url(path)}: no such object or prefix") from None
        except PermissionError as e:
            raise AuditError(
                f"{self._url(path)}: access denied ({_one_line(e)}): check the credentials for {self.protocol}://"
            ) from None
        except Exception as e:  # noqa: BLE001 - botocore, aiohttp, google and azure errors differ; one sentence
            raise AuditError(f"cannot list {self._url(path)}: {_one_line(e)}") from None
        finally:
            self.traffic.add(1)
        if not entries:
            raise TargetNotFound(f"{self._url(path)}: no such object or prefix")
        return [e for e in entries if isinstance(e, dict)]

    def _scan(self, entries: list[dict[str, Any]]) -> None:
        """Top-level objects, plus .safetensors/.json one folder down (reported as ignored subfolders), as a local
        folder is listed."""
        assert self._files is not None
        for entry in entries:
            name = posixpath.basename(_name(entry))
            if entry.get("type") == "directory":
                if name.startswith(".") or not name:
                    continue
                try:
                    subs = self._ls(_name(entry))
                except TargetNotFound:
                    continue
                for sub in subs:
                    sub_name = posixpath.basename(_name(sub))
                    if sub.get("type") == "file" and sub_name.endswith(LISTED_SUFFIXES):
                        self._record(f"{name}/{sub_name}", sub)
            elif entry.get("type") == "file" and name:
                self._record(name, entry)

    def _record(self, name: str, entry: dict[str, Any]) -> None:
        assert self._files is not None
        size = entry.get("size")
        self._files[name] = size if isinstance(size, int) else None
        etag = entry.get("ETag") or entry.get("etag") or entry.get("md5Hash")
        version = entry.get("VersionId") or entry.get("generation") or entry.get("version_id")
        self._objects[name] = {
            "size": self._files[name],
            "etag": str(etag).strip('"') if etag else None,
            "version": str(version) if version not in (None, "", "null") else None,
        }

    # -- reading --------------------------------------------------------------------------------------------

    def _open(self, name: str) -> Any:
        """The object, opened for exact reads (no read-ahead) and pinned to its listed identity where the store
        can pin (s3fs takes the ETag from the listing it keeps and sends it as If-Match)."""
        try:
            return self.fs.open(f"{self.path}/{name}", "rb", cache_type="none")
        except FileNotFoundError:
            if name not in (self._files or {}):
                raise
            raise ChangedWhileRead(
                f"{self._url(self.path)}/{name} was listed but is gone: the checkpoint is being "
                "changed; audit it again when it is complete"
            ) from None

    def _fetch_header(self, name: str, size: int | None, count: int | None) -> Header:
        want = self.plan.first_range(name, size, count)
        try:
            with self._open(name) as f:
                first = f.read(want)
                self.traffic.add(1, len(first))
                n, header = read_header_length(name, first, size)
                if n is None:
                    return header
                raw = first[8 : 8 + n]
                if len(raw) < n:
                    f.seek(8 + len(raw))
                    more = f.read(n - len(raw))  # exactly the bytes still missing: never past the header
                    self.traffic.add(1, len(more))
                    raw += more
                    if self.protocol not in PINNED or not self._objects.get(name, {}).get("etag"):
                        self._check_unchanged(name)
        except ChangedWhileRead:
            raise
        except (FileNotFoundError, PermissionError) as e:
            header = Header(name)
            header.fail("file-unreadable", f"could not read its header from {self.protocol}://: {_one_line(e)}")
            return header
        except OSError as e:
            if _expired(e):
                raise ChangedWhileRead(self._changed(name, "its header was read")) from None
            raise AuditError(f"cannot read {self._url(self.path)}/{name}: {_one_line(e)}") from None
        except Exception as e:  # noqa: BLE001 - the store library's own errors: one sentence, exit 3
            raise AuditError(f"cannot read {self._url(self.path)}/{name}: {_one_line(e)}") from None
        return parse_header(name, bytes(raw), size, header, remote=True)

    def _check_unchanged(self, name: str) -> None:
        """For a store that cannot pin reads: the object's identity after its second range is the listed one."""
        path = f"{self.path}/{name}"
        self.fs.invalidate_cache(path)
        info = self.fs.info(path)
        self.traffic.add(1)
        listed = self._objects.get(name, {})
        now = {
            "size": info.get("size"),
            "etag": str(info.get("ETag") or info.get("etag") or "").strip('"') or None,
            "version": info.get("VersionId") or info.get("generation") or info.get("version_id"),
        }
        for key in ("size", "etag", "version"):
            if listed.get(key) is not None and now[key] is not None and str(listed[key]) != str(now[key]):
                raise ChangedWhileRead(self._changed(name, "its header was read"))

    def _changed(self, name: str, when: str) -> str:
        etag = self._objects.get(name, {}).get("etag")
        return (
            f"{self._url(self.path)}/{name} changed while {when} (listed with ETag {etag or '?'}, another "
            "version answered): nothing read from two versions is audited; audit it again when the upload is "
            "complete"
        )

    def _url(self, path: str) -> str:
        return f"{self.protocol}://{path}"


def _expired(error: BaseException) -> bool:
    """The store refused a read pinned to the listed ETag (HTTP 412): s3fs raises its ``FileExpired`` (an OSError
    with errno EBUSY), other libraries a precondition error."""
    return (
        type(error).__name__ == "FileExpired"
        or getattr(error, "errno", None) == errno.EBUSY
        or "PreconditionFailed" in str(error)
        or "(412)" in str(error)
    )


def _name(entry: dict[str, Any]) -> str:
    return str(entry.get("name", "")).rstrip("/")


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text[:200]


def _human(n: int) -> str:
    if n < 1000:
        return f"{n:,} B"
    if n < 1000**2:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1000**2:.1f} MB"


# -- every model folder under a prefix ------------------------------------------------------------------------


def targets_under(url: str) -> Iterator[str]:
    """Every model folder under an object-store prefix, as URLs (``--recursive``, a fleet's "every model folder
    under this prefix"): one flat paginated listing of the prefix (S3: one request per 1,000 objects), walked as
    a local tree is (``walk.folders_in_listing``: a pipeline owns its subfolders, hidden folders skipped)."""
    fs, path, protocol = filesystem(url)
    try:
        fs.invalidate_cache(path)
        keys = fs.find(path, detail=False)
    except FileNotFoundError:
        raise TargetNotFound(f"{url}: no such prefix") from None
    except Exception as e:  # noqa: BLE001 - the store library's own errors: one sentence
        raise AuditError(f"cannot list {url}: {_one_line(e)}") from None
    base = url.rstrip("/")
    relative = (k[len(path) + 1 :] for k in keys if str(k).startswith(path + "/"))
    return folders_in_listing(base, relative)
