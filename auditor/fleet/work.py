"""The job every engine runs for one target: open its source, say what version of it this is (its fingerprint),
skip it when a previous run already reported that version (``--resume``), else audit it exactly as
``st-audit audit TARGET`` does and return its line.

It runs in a worker (a thread, a process of the local engine, a Ray task), so everything it needs is in one
frozen, picklable ``Job``; it never raises: a target that cannot be audited is a line with ``"verdict": "error"``
and the exit code the single audit would have had (3; 4 for a bug in st-audit), and its neighbours go on.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..core.errors import AuditError, about
from ..core.untrusted import printable
from ..core.version import __version__
from ..run.options import AuditOptions


@dataclass(frozen=True)
class Job:
    """What every worker needs, the same for every target: how to audit (options, the policy in force), what to
    write (``stream``: jsonl or summary lines; ``html_dir``: each target's HTML report there too)."""

    options: AuditOptions
    policy: Any
    stream: str = "jsonl"
    html_dir: str | None = None


@dataclass(frozen=True)
class Task:
    """One target of the run: its position in the list, and the fingerprint a previous run recorded for it."""

    index: int
    target: str
    known: str | None = None
    path: str | None = None  # where to read a local target when the worker's working directory is not the driver's


@dataclass(frozen=True)
class Outcome:
    """What a worker hands back for one target: ``line`` is what the sink writes (None when skipped)."""

    index: int
    target: str
    verdict: str  # pass | fail | error | skipped
    exit_code: int
    line: str | None = None
    fingerprint: str | None = None
    root: str | None = None  # the root finding's code of a failing target, or the error, for the progress view
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def audit_one(task: Task, job: Job) -> Outcome:
    """``task``'s target audited under ``job``, as one line; never raises."""
    started = time.monotonic()
    fingerprint: str | None = None
    try:
        from ..run.audit import open_source

        options = job.options
        # a target a previous run reported: its listing says whether it changed, before any other request
        source = open_source(
            task.path or task.target,
            revision=options.revision,
            token=options.token,
            use_cache=options.use_cache,
            hub=options.hub,
            prefetch=task.known is None,
        )
        fingerprint = fingerprint_of(source)
        if task.known is not None and fingerprint is not None and fingerprint == task.known:
            return Outcome(
                task.index, task.target, "skipped", 0, fingerprint=fingerprint, seconds=time.monotonic() - started
            )
        from ..run.multi import gated_audit_target

        report = gated_audit_target([task.target], job.policy, options=options, source=source)
        return _reported(task, job, report, fingerprint, time.monotonic() - started)
    except AuditError as e:
        return _failed(task, job, e.exit_code, str(e), fingerprint, time.monotonic() - started)
    except Exception as e:  # noqa: BLE001 - a bug in st-audit: this target's line says so, the fleet goes on
        where = traceback.extract_tb(e.__traceback__)[-1]
        why = (
            f"internal error (a bug in st-audit {__version__}): {type(e).__name__}: {e} "
            f"[{Path(where.filename).name}:{where.lineno}]"
        )
        return _failed(task, job, 4, why, fingerprint, time.monotonic() - started)


def fingerprint_of(source: Any) -> str | None:
    """What identifies this version of the target (``Source.identity``): ``commit:<sha>`` for a Hub repo (a commit is
    immutable), else ``files:<digest>`` of the files' names, sizes and modification times (a local folder) or ETags
    (an object store)."""
    identity = source.identity()
    commit = identity.get("commit")
    if isinstance(commit, str) and commit:
        return f"commit:{commit}"
    blob = json.dumps(identity, sort_keys=True, default=str)
    return f"files:{hashlib.sha256(blob.encode()).hexdigest()[:32]}"


def _reported(task: Task, job: Job, report: Any, fingerprint: str | None, seconds: float) -> Outcome:
    doc = report.to_dict()
    fleet: dict[str, Any] = {"target": task.target, "fingerprint": fingerprint, "seconds": round(seconds, 3)}
    if job.html_dir is not None:
        fleet["html"] = _write_html(job.html_dir, task, report)
    root = _root_finding(doc)
    return Outcome(
        task.index,
        task.target,
        doc["verdict"],
        report.exit_code,
        _render(job, report, {**doc, "fleet": fleet}),
        fingerprint,
        root,
        seconds,
    )


def _failed(task: Task, job: Job, code: int, why: str, fingerprint: str | None, seconds: float) -> Outcome:
    doc = {
        "schema_version": 1,
        "target": task.target,
        "verdict": "error",
        "exit_code": code,
        "error": why,
        "fleet": {"target": task.target, "fingerprint": fingerprint, "seconds": round(seconds, 3)},
    }
    said = about(task.target, why)
    # a summary line is printed: the target (a list's text) and why (it may name the checkpoint's files) shown safely
    line = _line(doc) if job.stream == "jsonl" else printable(f"ERROR: {said}") + "\n"
    return Outcome(task.index, task.target, "error", code, line, fingerprint, why, seconds)


def _render(job: Job, report: Any, doc: dict[str, Any]) -> str:
    if job.stream == "jsonl":
        return _line(doc)
    from ..formats import formatter

    text = formatter(job.stream)(report)
    return text if text.endswith("\n") else text + "\n"


def _line(doc: dict[str, Any]) -> str:
    """One JSON document on one line (control characters in names are escaped by the encoder, never raw)."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"


def _root_finding(doc: dict[str, Any]) -> str | None:
    """The code of the first active finding at the worst severity that is not a consequence of another."""
    order = {"error": 0, "warning": 1, "info": 2}
    findings = [f for f in doc.get("findings") or [] if not f.get("caused_by")]
    if doc.get("verdict") != "fail" or not findings:
        return None
    worst = min(findings, key=lambda f: order.get(str(f.get("severity")), 3))
    return str(worst.get("code"))


def _write_html(folder: str, task: Task, report: Any) -> str:
    """The target's own HTML report in ``folder``; its path (``folder/name``, as the folder was given) for the fleet
    page, which links to it relative to where the page is written."""
    from ..formats import formatter

    name = html_name(task.target)
    path = Path(folder) / name
    tmp = path.with_name(f".{name}.tmp-{os.getpid()}")
    tmp.write_text(formatter("html")(report), encoding="utf-8")
    os.replace(tmp, path)
    return str(path)


def html_name(target: str) -> str:
    """A file name for ``target``'s page: readable, and distinct for distinct targets."""
    readable = "".join(c if c.isalnum() or c in "-_." else "_" for c in target.strip("/"))[-80:].strip("._") or "target"
    return f"{readable}-{hashlib.sha256(target.encode()).hexdigest()[:8]}.html"


def quiet_options(options: AuditOptions) -> AuditOptions:
    """Options a worker can carry: no progress callback (workers are quiet; the driver shows the fleet's progress)."""
    return replace(options, progress=None)
