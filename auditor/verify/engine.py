"""Read every byte once: the sha256 of each file and the value checks of each tensor, overlapped.

A file is cut into *units* of at most ``chunk`` bytes; a unit never splits an element (tensor pieces are cut
at tensor-relative multiples of the chunk size, which are multiples of 8). ``jobs`` worker threads take units
round-robin from up to ``jobs`` open files. A worker reads its unit into its own buffer (``preadv``, no
allocation), runs the value checks on it, then waits for its turn to feed the bytes to the file's sha256 —
hashing is sequential within a file, so the next worker's read and scan run while this one hashes, and
different files are hashed in parallel. hashlib and numpy release the GIL on large buffers, so the threads
really run at once. Memory is two chunk-sized buffers per worker, whatever the checkpoint's size.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..read.header import DTYPE_BITS, Tensor

# 1 MiB: the read copy, the hash and the scan of a unit then run from the core's L2 cache; 8 MiB units spill
# to L3/DRAM between them and cost ~25% more CPU for the same bytes (measured: docs/verify.md)
CHUNK = 1024 * 1024


@dataclass
class Scan:
    """Everything the pass learned about one tensor's values (segments merged in any order)."""

    tensor: Tensor
    covered: int = 0  # bytes scanned; == tensor.nbytes when the whole tensor was read
    zeros: int = 0
    nan: int = 0
    inf: int = 0
    first_nan: int | None = None
    first_inf: int | None = None
    # sum over pieces of hash(piece position, sampled bytes): order-free, one int per tensor whatever its size
    fingerprint: int = 0
    minimum: float | None = None
    maximum: float | None = None
    abs_sum: float = 0.0
    finite: int = 0

    @property
    def complete(self) -> bool:
        return self.covered == self.tensor.nbytes

    def merge(self, first: int, nbytes: int, p: Any) -> None:
        """Add one segment's ``values.Partial``."""
        self.covered += nbytes
        self.zeros += p.zeros
        self.nan += p.nan
        self.inf += p.inf
        digest = hashlib.blake2b(first.to_bytes(8, "little") + p.sample, digest_size=8).digest()
        self.fingerprint = (self.fingerprint + int.from_bytes(digest, "little")) & 0xFFFF_FFFF_FFFF_FFFF
        if p.first_nan is not None and (self.first_nan is None or p.first_nan < self.first_nan):
            self.first_nan = p.first_nan
        if p.first_inf is not None and (self.first_inf is None or p.first_inf < self.first_inf):
            self.first_inf = p.first_inf
        if p.minimum is not None:
            self.minimum = p.minimum if self.minimum is None else min(self.minimum, p.minimum)
        if p.maximum is not None:
            self.maximum = p.maximum if self.maximum is None else max(self.maximum, p.maximum)
        self.abs_sum += p.abs_sum
        self.finite += p.finite


@dataclass
class FileJob:
    """One file to read: where, which tensors (absolute data start), and what to hash it with."""

    name: str
    path: str
    size: int
    data_start: int = 0  # 8 + header length; tensors' offsets are relative to it
    tensors: list[Tensor] = field(default_factory=list)  # scanned tensors, in file order, complete ones only
    git_sha1: bool = False  # also compute the git blob id (the Hub's digest of non-LFS files)
    sha256: str | None = None
    git: str | None = None
    error: str | None = None
    # run-time state
    fd: int = -1
    units: list[Unit] = field(default_factory=list)
    handed: int = 0  # units given to workers
    next_hash: int = 0  # the unit whose turn it is to be hashed
    finished: int = 0
    cond: threading.Condition = field(default_factory=threading.Condition)
    hashers: list[Any] = field(default_factory=list)


class Unit(NamedTuple):
    job: FileJob
    seq: int  # position in the file's units: the order of hashing
    offset: int
    length: int
    pieces: list[tuple[Scan, int, int]]  # (scan, offset in the unit, bytes)


def plan(job: FileJob, scans: dict[str, Scan], chunk: int) -> list[Unit]:
    """Cut a file into units of at most ``chunk`` bytes (rounded down to a multiple of 8).

    A tensor larger than the room left in the current unit starts a new unit, so it is cut at tensor-relative
    multiples of the chunk size: never inside an element (element sizes divide 8), and the same way wherever
    the tensor sits in the file.
    """
    segments: list[tuple[int, int, Scan | None]] = []  # (absolute start, end, tensor scan or None)
    pos = 0
    for t in job.tensors:
        start, end = job.data_start + t.start, job.data_start + t.end
        if start < pos or end > job.size:
            continue  # overlapping or past the end: already a finding of the header check
        if start > pos:
            segments.append((pos, start, None))
        segments.append((start, end, scans[t.name]))
        pos = end
    if pos < job.size:
        segments.append((pos, job.size, None))
    chunk = max(8, chunk - chunk % 8)
    units: list[Unit] = []
    unit_start, unit_len, pieces = 0, 0, []  # type: ignore[var-annotated]
    for start, end, scan in segments:
        if scan is not None and unit_len and unit_len + (end - start) > chunk:
            # a tensor that does not fit starts a unit of its own: its pieces then begin at tensor-relative
            # multiples of the chunk size, so identical tensors are cut (and sampled) identically
            units.append(Unit(job, len(units), unit_start, unit_len, pieces))
            unit_start, unit_len, pieces = start, 0, []
        s = start
        while s < end:
            take = min(end - s, chunk - unit_len)
            if scan is not None:
                pieces.append((scan, unit_len, take))
            s += take
            unit_len += take
            if unit_len == chunk:
                units.append(Unit(job, len(units), unit_start, unit_len, pieces))
                unit_start, unit_len, pieces = s, 0, []
    if unit_len:
        units.append(Unit(job, len(units), unit_start, unit_len, pieces))
    return units


class Progress:
    """Bytes hashed so far; read by the progress display from another thread."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self._lock = threading.Lock()

    def add(self, n: int) -> None:
        with self._lock:
            self.done += n


class Runner:
    """The pass, running in ``jobs`` threads from ``start()`` until ``join()`` returns the scans.

    numpy is imported by the first worker that needs it, after its first unit is hashed: hashing starts while
    the interpreter is still importing, and while the caller audits the headers.
    """

    def __init__(
        self,
        jobs_list: Iterable[FileJob],
        *,
        jobs: int,
        chunk: int = CHUNK,
        stats: bool = False,
        progress: Progress | None = None,
    ) -> None:
        self.files = list(jobs_list)
        self.jobs = max(1, jobs)
        self.chunk = max(8, chunk - chunk % 8)
        self.stats = stats
        self.progress = progress
        self.scans = {t.name: Scan(t) for job in self.files for t in job.tensors}
        self._pending = deque(self.files)
        self._active: list[FileJob] = []
        self._turn = 0
        self._stopped = False
        self._sched_lock = threading.Lock()
        self._merge_lock = threading.Lock()
        self._bugs: list[BaseException] = []  # an exception in a worker is a bug: re-raised by join(), never a hang
        self._threads = [
            threading.Thread(target=self._worker, name=f"st-audit-verify-{i}", daemon=True) for i in range(self.jobs)
        ]

    def start(self) -> Runner:
        for th in self._threads:
            th.start()
        return self

    def stop(self) -> None:
        """Hand out no more units (the caller failed); join() then returns quickly."""
        self._stopped = True

    def join(self) -> dict[str, Scan]:
        for th in self._threads:
            th.join()
        for job in self.files:
            if job.fd >= 0:  # an error (or stop) ended it early
                _finish(job)
        if self._bugs:
            raise self._bugs[0]
        return self.scans

    def _activate(self) -> None:
        while self._pending and len(self._active) < self.jobs:
            job = self._pending.popleft()
            job.hashers = [hashlib.sha256()] + ([hashlib.sha1(b"blob %d\0" % job.size)] if job.git_sha1 else [])
            try:
                job.fd = os.open(job.path, os.O_RDONLY)
            except OSError as e:
                job.error = f"could not open: {e.strerror or e}"
                continue
            job.units = plan(job, self.scans, self.chunk)
            if not job.units:
                _finish(job)
                continue
            self._active.append(job)

    def _next_unit(self) -> Unit | None:
        with self._sched_lock:
            while not self._stopped:
                self._activate()
                if not self._active:
                    return None
                job = self._active[self._turn % len(self._active)]
                self._turn += 1
                if job.handed >= len(job.units) or job.error is not None:
                    self._active.remove(job)
                    continue
                job.handed += 1
                return job.units[job.handed - 1]
            return None

    def _worker(self) -> None:
        buf = bytearray(self.chunk)
        view = memoryview(buf)
        raw: Any = None
        scratch: Any = None
        while (unit := self._next_unit()) is not None:
            job = unit.job
            data = view[: unit.length]
            if job.error is None:
                try:
                    n = _pread(job.fd, data, unit.offset)
                    if n != unit.length:
                        raise OSError(
                            f"the file changed while it was read ({n:,} of {unit.length:,} bytes at "
                            f"offset {unit.offset:,})"
                        )
                except OSError as e:
                    job.error = f"could not read: {e.strerror or e}" if e.strerror else f"could not read: {e}"
            with job.cond:  # units are hashed in order; the next worker reads and scans meanwhile
                while job.next_hash != unit.seq and job.error is None:
                    job.cond.wait()
                if job.error is None:
                    for h in job.hashers:
                        h.update(data)
                job.next_hash = max(job.next_hash, unit.seq + 1)
                job.finished += 1
                job.cond.notify_all()
                last = job.finished == len(job.units)
            if job.error is None and unit.pieces:
                try:
                    if raw is None:
                        import numpy as np

                        raw = np.frombuffer(buf, np.uint8)
                        scratch = np.empty(self.chunk, np.uint8)
                    self._scan(unit, raw, scratch)
                except Exception as e:  # noqa: BLE001 - a bug: stop this file, report after the join
                    self._bugs.append(e)
                    job.error = f"internal error while checking values: {type(e).__name__}: {e}"
            if self.progress is not None:
                self.progress.add(unit.length)
            if last:
                _finish(job)

    def _scan(self, unit: Unit, raw: Any, scratch: Any) -> None:
        from . import values

        job = unit.job
        partials = []
        for scan, at, nbytes in unit.pieces:
            t = scan.tensor
            first = (unit.offset + at - job.data_start - t.start) // itemsize(t.dtype)
            partials.append(
                (scan, first, nbytes, values.scan(raw[at : at + nbytes], t.dtype, first, scratch, self.stats))
            )
        with self._merge_lock:
            for scan, first, nbytes, p in partials:
                scan.merge(first, nbytes, p)


def run(
    jobs_list: Iterable[FileJob],
    *,
    jobs: int,
    chunk: int = CHUNK,
    stats: bool = False,
    progress: Progress | None = None,
) -> dict[str, Scan]:
    """Hash every file and scan every listed tensor; returns the scans by tensor name.

    Results land on the FileJobs (``sha256``, ``git``, ``error``); I/O errors never raise.
    """
    return Runner(jobs_list, jobs=jobs, chunk=chunk, stats=stats, progress=progress).start().join()


def itemsize(dtype: str) -> int:
    """Bytes per element (1 for the sub-byte dtypes, which are checked as raw bytes); no numpy needed."""
    return max(1, DTYPE_BITS.get(dtype, 8) // 8)


def _finish(job: FileJob) -> None:
    job.units = []  # a 5 GB shard is 5,000 units: let them go once the file is done
    if job.fd >= 0:
        os.close(job.fd)
        job.fd = -1
    if job.error is None and job.hashers:
        job.sha256 = job.hashers[0].hexdigest()
        if job.git_sha1:
            job.git = job.hashers[1].hexdigest()
    job.hashers = []


def _pread(fd: int, into: memoryview, offset: int) -> int:
    """Fill ``into`` from ``offset``; short only at end of file."""
    got = 0
    while got < len(into):
        if hasattr(os, "preadv"):
            n = os.preadv(fd, [into[got:]], offset + got)
        else:  # pragma: no cover - platforms without preadv
            chunk = os.pread(fd, len(into) - got, offset + got)
            n = len(chunk)
            into[got : got + n] = chunk
        if n == 0:
            break
        got += n
    return got


def same_bytes(a: tuple[str, int], b: tuple[str, int], nbytes: int, chunk: int = CHUNK) -> bool:
    """Whether ``nbytes`` at ``(path, offset)`` a and b are identical (read in bounded chunks)."""
    with open(a[0], "rb") as fa, open(b[0], "rb") as fb:
        done = 0
        while done < nbytes:
            n = min(chunk, nbytes - done)
            fa.seek(a[1] + done)
            fb.seek(b[1] + done)
            if fa.read(n) != fb.read(n):
                return False
            done += n
    return True
