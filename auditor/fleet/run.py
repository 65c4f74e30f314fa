"""A fleet run: the targets (``inputs``), less those a previous run already reported (``--resume``), audited by an
engine, each outcome written as it arrives (``sink``), a progress line on a terminal, then one summary line whose
verdict is the exit code's.

The exit code keeps the rule of several targets on one command line (docs/usage.md): 3 when any target could not be
audited, else 1 when any failed, else 0; 4 when st-audit itself failed on any (a bug). Targets skipped because an
earlier run reported the same version of them count with the exit code that run recorded, so a resumed run ends
with the code an uninterrupted one would have had.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from .engines import Engine
from .sink import Reported, Sink, previous
from .work import Job, Outcome, Task

SUMMARY_SCHEMA = 1


@dataclass
class Tally:
    """Counts of the run, for the progress line and the summary."""

    total: int
    started: float = field(default_factory=time.monotonic)
    verdicts: Counter[str] = field(default_factory=Counter)
    worst: int = 0
    resumed: int = 0

    def add(self, verdict: str, exit_code: int) -> None:
        self.verdicts[verdict] += 1
        self.worst = worst_exit(self.worst, exit_code)

    @property
    def done(self) -> int:
        return sum(self.verdicts.values())

    def progress(self) -> str:
        """``[ 42/100] 30 pass, 10 fail, 2 error · 8.1/s · ETA 7 s``."""
        elapsed = max(1e-6, time.monotonic() - self.started)
        fresh = self.done - self.resumed
        rate = fresh / elapsed
        left = self.total - self.done
        eta = f" · ETA {_duration(left / rate)}" if rate > 0 and left else ""
        width = len(str(self.total))
        counts = ", ".join(f"{self.verdicts[v]} {v}" for v in ("pass", "fail", "error") if self.verdicts[v])
        resumed = f", {self.resumed} already reported" if self.resumed else ""
        return f"[{self.done:>{width}}/{self.total}] {counts or 'starting'}{resumed} · {rate:.1f}/s{eta}"


def worst_exit(a: int, b: int) -> int:
    """The exit code of two outcomes together: a bug (4) over could-not-audit (3) over fail (1) over pass (0)."""
    rank = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4}
    return a if rank.get(a, 4) >= rank.get(b, 4) else b


def verdict_of(exit_code: int) -> str:
    return {0: "pass", 1: "fail"}.get(exit_code, "error")


@dataclass(frozen=True)
class Plan:
    """What the command line asked of a fleet run."""

    targets: list[str]
    job: Job
    jobs: int
    output: Path | None
    resume: bool = False


def run_fleet(plan: Plan, engine: Engine, *, progress: Callable[[str], None] | None = None, live: bool = False) -> int:
    """Audit ``plan.targets`` with ``engine``; the exit code. ``progress``: where the progress line and the summary go
    (stderr); ``live``: that is a terminal (the progress line is redrawn in place)."""
    if plan.resume and plan.output is None:
        raise UsageError("--resume needs -o FILE: the lines of the earlier run to continue")
    known: dict[str, Reported] = previous(plan.output) if plan.resume and plan.output is not None else {}
    tasks = [Task(i, t, known[t].fingerprint if t in known else None) for i, t in enumerate(plan.targets)]
    tally = Tally(len(tasks))
    sink = Sink(plan.output, append=plan.resume)
    shown = 0.0
    try:
        for outcome in engine.run(tasks, plan.job, plan.jobs):
            _record(outcome, known, tally, sink)
            now = time.monotonic()
            if progress is not None and live and (now - shown >= 0.1 or tally.done == tally.total):
                progress("\r\033[K" + tally.progress())
                shown = now
    except KeyboardInterrupt:
        engine.close()
        sink.close()
        if progress is not None and live:
            progress("\n")
        raise
    sink.close()
    if progress is not None and live:
        progress("\r\033[K")
    summary = _summary(tally)
    if plan.job.stream == "jsonl":
        _write_summary(plan, summary)
    if progress is not None:
        progress(summary_line(summary) + "\n")
    return tally.worst


def _record(outcome: Outcome, known: dict[str, Reported], tally: Tally, sink: Sink) -> None:
    if outcome.verdict == "skipped":
        earlier = known[outcome.target]
        tally.resumed += 1
        tally.add(earlier.verdict if earlier.verdict in ("pass", "fail") else "error", earlier.exit_code)
        return
    if outcome.line is not None:
        sink.write(outcome.line)
    tally.add(outcome.verdict if outcome.verdict in ("pass", "fail") else "error", outcome.exit_code)


def _summary(tally: Tally) -> dict[str, Any]:
    return {
        "targets": tally.total,
        "audited": tally.done - tally.resumed,
        "already_reported": tally.resumed,
        "pass": tally.verdicts["pass"],
        "fail": tally.verdicts["fail"],
        "error": tally.verdicts["error"],
        "verdict": verdict_of(tally.worst),
        "exit_code": tally.worst,
        "seconds": round(time.monotonic() - tally.started, 3),
    }


def _write_summary(plan: Plan, summary: dict[str, Any]) -> None:
    line = json.dumps({"schema_version": SUMMARY_SCHEMA, "summary": summary}, separators=(",", ":")) + "\n"
    if plan.output is None:
        sys.stdout.write(line)
        sys.stdout.flush()
    else:
        with open(plan.output, "a", encoding="utf-8") as f:
            f.write(line)


def summary_line(summary: dict[str, Any]) -> str:
    """``FAIL: 100 targets: 90 pass, 8 fail, 2 could not be audited (exit 3) in 4.2 s`` — the same verdict as the
    exit code."""
    parts = [f"{summary['pass']} pass", f"{summary['fail']} fail"]
    if summary["error"]:
        parts.append(f"{summary['error']} could not be audited")
    resumed = f" ({summary['already_reported']} already reported)" if summary["already_reported"] else ""
    word = {0: "PASS", 1: "FAIL"}.get(summary["exit_code"], "ERROR")
    return (
        f"{word}: {summary['targets']} targets{resumed}: {', '.join(parts)} (exit {summary['exit_code']}) in "
        f"{_duration(summary['seconds'])}"
    )


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
