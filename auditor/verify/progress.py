"""Progress of the read on stderr: a bar redrawn in place on a terminal, a plain line every few seconds
otherwise (CI logs), nothing with ``--quiet``."""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import TextIO

from .engine import Progress


def _size(n: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n:.0f} B"


def _eta(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def line(progress: Progress, elapsed: float) -> str:
    """``1.20 GB / 2.00 GB (60%), 1.31 GB/s, ETA 0:01``."""
    done, total = progress.done, progress.total
    rate = done / elapsed if elapsed > 0 else 0.0
    pct = 100 * done / total if total else 100.0
    eta = _eta((total - done) / rate) if rate > 0 else "?"
    return f"{_size(done)} / {_size(total)} ({pct:.0f}%), {_size(rate)}/s, ETA {eta}"


class Display:
    """Context manager: shows ``progress`` until the block ends."""

    def __init__(
        self,
        progress: Progress,
        stream: TextIO | None = None,
        *,
        tty: bool | None = None,
        interval: float | None = None,
        label: str = "verify",
        started: float | None = None,
    ) -> None:
        self.progress = progress
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.interval = interval if interval is not None else (0.2 if self.tty else 5.0)
        self.label = label
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = started

    def __enter__(self) -> Display:
        if self._started is None:
            self._started = time.monotonic()
        self._thread = threading.Thread(target=self._loop, name="st-audit-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        elapsed = time.monotonic() - (self._started or 0.0)
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(
            f"{self.label}: read {_size(self.progress.done)} in {elapsed:.1f} s "
            f"({_size(self.progress.done / elapsed if elapsed > 0 else 0)}/s)\n"
        )
        self.stream.flush()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            elapsed = time.monotonic() - (self._started or 0.0)
            text = line(self.progress, elapsed)
            if self.tty:
                total = self.progress.total or 1
                filled = int(30 * min(1.0, self.progress.done / total))
                self.stream.write(f"\r\033[K{self.label} [{'#' * filled}{'.' * (30 - filled)}] {text}")
            else:
                self.stream.write(f"{self.label}: {text}\n")
            self.stream.flush()
