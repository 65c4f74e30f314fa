"""Where a fleet run's lines go: stdout or a file, one whole line per target written as soon as it is done.

A line is written with one ``write`` and flushed at once, so an interrupted run (Ctrl-C, a killed job) leaves every
finished line intact; at worst the last line is cut short by a crash, and the next ``--resume`` run drops that
fragment and audits its target again. ``previous`` reads such a file back: per target, the last complete line.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..core.errors import UsageError


@dataclass(frozen=True)
class Reported:
    """What a previous run recorded for one target."""

    target: str
    fingerprint: str | None
    verdict: str
    exit_code: int


class Sink:
    """Lines to ``path`` (appended to, for ``--resume``; else replaced) or to stdout."""

    def __init__(self, path: Path | None, *, append: bool = False) -> None:
        self.path = path
        self.written = 0
        self._stream: IO[str]
        if path is None:
            self._stream = sys.stdout
            self._owned = False
            return
        try:
            if append and path.exists():
                _drop_partial_line(path)
            self._stream = open(path, "a" if append else "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        except OSError as e:
            raise UsageError(f"--output {path}: cannot be written ({e.strerror or e})") from None
        self._owned = True

    def write(self, line: str) -> None:
        self._stream.write(line)
        self._stream.flush()
        self.written += 1

    def close(self) -> None:
        if self._owned:
            try:
                self._stream.flush()
                os.fsync(self._stream.fileno())
            except OSError:
                pass
            self._stream.close()


def _drop_partial_line(path: Path) -> None:
    """Cut a last line that a crash left without its newline: it is not a report, and its target is redone."""
    with open(path, "rb+") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        step = 64 * 1024
        end = size
        while end > 0:
            start = max(0, end - step)
            f.seek(start)
            block = f.read(end - start)
            cut = block.rfind(b"\n")
            if cut >= 0:
                f.truncate(start + cut + 1)
                return
            end = start
        f.truncate(0)


def lines(path: Path) -> Iterator[dict[str, Any]]:
    """The complete JSON lines of a fleet file (a fragment or a line that is not JSON is skipped)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for raw in f:
                if not raw.endswith("\n"):
                    return  # cut short by a crash
                try:
                    doc = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(doc, dict):
                    yield doc
    except FileNotFoundError:
        return
    except OSError as e:
        raise UsageError(f"{path}: cannot be read ({e.strerror or e})") from None


def previous(path: Path) -> dict[str, Reported]:
    """Per target, what the last complete line about it in ``path`` says (summary lines aside)."""
    out: dict[str, Reported] = {}
    for doc in lines(path):
        fleet = doc.get("fleet")
        if not isinstance(fleet, dict) or not isinstance(fleet.get("target"), str):
            continue
        code = doc.get("exit_code")
        out[fleet["target"]] = Reported(
            fleet["target"], fleet.get("fingerprint"), str(doc.get("verdict")), code if isinstance(code, int) else 4
        )
    return out
