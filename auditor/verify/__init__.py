"""``st-audit verify``: everything ``audit`` does, plus reading every byte once.

    target (dir / file / HF cache snapshot / cached repo id)      -> read.targets.resolve (+ in_cache)
    audit() from the headers, under the policy                    -> the usual Report
    one pass over every file: sha256 + tensor values, overlapped  -> engine.run (progress on stderr)
    digests vs the cache's blob names or the Hub listing          -> digests.digest_findings, listing_findings
    NaN / Inf / all-zero / tied copies / duplicates               -> checks
    lock drift, now with content                                  -> drift.drift

Design note: docs/verify.md.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..core.errors import UsageError
from ..core.findings import SEVERITY_RANK, Finding, codes_where
from ..read.header import Tensor
from ..read.hfcache import Expected
from ..read.sources.protocol import MAX_TENSORS, Source
from ..read.targets import Target
from ..report.composite import AnyReport
from ..report.single import Report
from ..run.options import AuditOptions
from . import digests, engine

# header problems after which a file's tensor table cannot be trusted for reading values (core/codes.toml)
UNTRUSTED = codes_where("untrusted")


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def verify(
    target: str | list[str],
    options: AuditOptions | None = None,
    *,
    policy: Any = None,
    against: str | None = None,
    jobs: int | None = None,
    lock: str | None = None,
    show_progress: bool = False,
    progress_stream: Any = None,
    chunk: int = engine.CHUNK,
    **settings: Any,
) -> AnyReport:
    """Audit each target from its headers as ``st-audit audit`` does (its kind discovered: each part of a pipeline
    or an adapter audited as what it is), then read every byte of each part once (hashes and tensor values).
    Several targets make one report of sections, as ``audit`` does; ``--against`` and ``--lock`` describe one.

    ``options``: how to audit, passed through whole (``variant``, ``base``, ``include_tensors``, ``progress`` ...; its
    ``revision`` names a cached revision); ``settings``: changes to it by field name, as the library's
    ``audit(target, **settings)`` takes them. Each part's pass starts as soon as its headers are parsed and runs
    while its audit (reconciliation with the specs) goes on in this thread: on a free core, the audit costs no wall
    time.
    """
    from ..gate import lock as lockmod
    from ..gate.policy import Policy
    from ..run.multi import gated_audit_target

    targets = [target] if isinstance(target, str) else list(target)
    if against and len(targets) > 1:
        raise UsageError(f"--against names one repo; it cannot apply to {len(targets)} targets")
    policy = policy if policy is not None else Policy()
    lock_path = lock or policy.lock
    if lock_path:
        lockmod.read(lock_path)  # fails fast (exit 2) before reading GBs
    hub_files: set[str] | None = None
    against_info: dict[str, Any] | None = None
    listed: dict[str, Expected] = {}
    options = (options or AuditOptions()).with_(**settings)
    if against:
        listed, hub_files, against_info = digests.hub_listing(against, token=options.token, progress=options.progress)
    reading = Reading(jobs or default_jobs(), chunk, show_progress, progress_stream, against_info)
    sources: dict[str, Source] = {}

    def prepare(one: str) -> tuple[Source, ContentPass]:
        target = local_target(one, options.revision)
        sources[one] = target.open()
        return sources[one], ContentPass({**target.digests, **listed}, reading, options)

    report = gated_audit_target(targets, policy, lock=lock, options=options, prepare=prepare)
    source = sources.get(targets[0])
    if hub_files is not None and source is not None and source.single is None:  # the Hub's listing vs the files
        on_hub = digests.listing_findings(set(source.list_files()), hub_files, against)
        if on_hub:
            report = _with_findings(report, on_hub)
    return report


def local_target(text: str, revision: str | None = None) -> Target:
    """What ``verify TEXT`` reads: a local path or cache snapshot as the resolver names it; a repo id from the
    Hugging Face cache (verify reads every byte and never downloads weights)."""
    from ..core.errors import TargetNotFound
    from ..read.hfcache import hub_cache_dir
    from ..read.targets import HubTarget, in_cache, resolve

    target = resolve(text, revision=revision)
    if isinstance(target, HubTarget):
        cached = in_cache(target)
        if cached is None:
            raise TargetNotFound(
                f"{text} is not in the local Hugging Face cache ({hub_cache_dir()}): verify reads "
                f"every byte and never downloads weights; run `hf download {target.repo}` first, or "
                "pass a checkpoint directory"
            )
        return cached
    if target.kind not in ("local", "hf-cache"):
        raise UsageError(
            f"{text}: verify reads every byte of local files; download the checkpoint first (or audit "
            "it where it is: `st-audit audit` reads only the headers)"
        )
    return target


def _with_findings(report: AnyReport, found: list[Finding]) -> AnyReport:
    findings = sorted(report.findings + found, key=lambda f: -SEVERITY_RANK[f.severity])
    return replace(report, findings=findings)


@dataclass(frozen=True)
class Reading:
    """How verify reads the bytes (what the audit does not need to know): threads, chunk size, the progress
    display, and what the Hub said of the repo the digests are compared with (``--against``)."""

    threads: int
    chunk: int
    show_progress: bool = False
    progress_stream: Any = None
    against_info: dict[str, Any] | None = None


class ContentPass:
    """verify's pass over one part's files, around that part's audit (``dispatch``'s ``content`` hook): plan the
    files from the part's headers, start reading, audit while the bytes stream, then add what the bytes say.
    A file two parts list (a folder's config.json beside its default and fp16 weights) is read by the first."""

    def __init__(self, expected: dict[str, Expected], reading: Reading, options: AuditOptions) -> None:
        self.expected, self.reading = expected, reading
        self.include_tensors, self.progress = options.include_tensors, options.progress  # as the audit is told
        self.hashed: set[str] = set()

    def __call__(self, view: Any, variant: str | None, audit_part: Callable[[Any], Report]) -> Report:
        from ..read.checkpoint import collect

        prefix = view.prefix  # a part in a folder of the target (a pipeline's unet/)
        root = view.root
        expected = {n[len(prefix) :]: e for n, e in self.expected.items() if n.startswith(prefix)}
        checkpoint = collect(view, variant=variant)
        # a file two parts list (a folder's config.json beside its default and fp16 weights) is read once
        files = [j for j in plan_files(view, checkpoint, expected, root) if prefix + j.name not in self.hashed]
        self.hashed.update(prefix + j.name for j in files)
        counter = engine.Progress(sum(j.size for j in files))
        started = time.monotonic()
        runner = engine.Runner(
            files, jobs=self.reading.threads, chunk=self.reading.chunk, stats=self.include_tensors, progress=counter
        ).start()
        try:
            report = audit_part(_Parsed(view, checkpoint.headers))
            if self.progress:
                self.progress(
                    f"verify: reading {len(files)} files, {counter.total:,} bytes, {self.reading.threads} threads"
                )
            if self.reading.show_progress:
                from .progress import Display

                with Display(counter, self.reading.progress_stream, started=started):
                    scans = runner.join()
            else:
                scans = runner.join()
        except BaseException:
            runner.stop()
            raise
        return self._judged(report, checkpoint, files, scans, expected, root, time.monotonic() - started)

    def _judged(
        self,
        report: Report,
        checkpoint: Any,
        files: list[engine.FileJob],
        scans: dict[str, Any],
        expected: dict[str, Expected],
        root: Any,
        seconds: float,
    ) -> Report:
        """The part's report with what the bytes said: digests, values, copies, the verify block."""
        from . import checks

        by_name = {j.name: j for j in files}

        def locate(t: Tensor) -> tuple[str, int]:
            return str(root / t.file), by_name[t.file].data_start + t.start

        stored = {name: s.tensor for name, s in scans.items()}
        categories = report.reconciliation.categories
        found: list[Finding] = digests.digest_findings(files, expected)
        found += checks.value_findings(scans, categories)
        found += checks.copy_findings(scans, checks.copy_pairs(checkpoint.config, stored), categories, locate)
        ran = {
            "content": True,
            "digests": any(j.name in expected for j in files),
            "listing": self.reading.against_info is not None,
        }  # what JUnit may call passed (codes.toml needs)
        if self.progress:
            self.progress(digest_summary(files, expected))
        block = {
            "jobs": self.reading.threads,
            "bytes": sum(j.size for j in files),
            "seconds": round(seconds, 3),
            "against": self.reading.against_info,
            "files": [
                {
                    "name": j.name,
                    "size": j.size,
                    "sha256": j.sha256,
                    "expected": (
                        {
                            "algorithm": expected[j.name].algorithm,
                            "digest": expected[j.name].digest,
                            "origin": expected[j.name].origin,
                        }
                        if j.name in expected
                        else None
                    ),
                    "status": digests.file_status(j, expected.get(j.name)),
                }
                for j in files
            ],
        }
        return replace(
            report,
            file_sha256={j.name: j.sha256 for j in files if j.sha256},
            checks=report.checks | {check for check, done in ran.items() if done},
            findings=sorted(report.findings + found, key=lambda f: -SEVERITY_RANK[f.severity]),
            extra={**report.extra, "verify": block},
            tensor_extra={name: {"stats": _stats(s)} for name, s in scans.items()}
            if self.include_tensors
            else report.tensor_extra,
        )


class _Parsed(Source):
    """The local source, with the headers the pass was planned from: the audit does not parse them twice."""

    def __init__(self, source: Source, headers: dict[str, Any]) -> None:
        self._source = source
        self._headers = headers
        self.target = source.target
        self.single, self.root, self.prefix = source.single, source.root, source.prefix
        self.lfs_sha256 = source.lfs_sha256

    def folder(self) -> Source:
        return self._source.folder()

    def identity(self) -> dict[str, Any]:
        return self._source.identity()

    def list_files(self) -> dict[str, int | None]:
        return self._source.list_files()  # type: ignore[no-any-return]

    def read_small(self, name: str) -> bytes:
        return self._source.read_small(name)  # type: ignore[no-any-return]

    def read_json(self, name: str) -> Any:
        return self._source.read_json(name)

    def read_headers(
        self,
        names: list[str],
        sizes: dict[str, int | None],
        tensor_counts: dict[str, int],
        max_tensors: int = MAX_TENSORS,
    ) -> dict[str, Any]:
        missing = [n for n in names if n not in self._headers]
        out = self._source.read_headers(missing, sizes, tensor_counts, max_tensors) if missing else {}
        return {n: self._headers[n] if n in self._headers else out[n] for n in names if n in self._headers or n in out}

    def describe(self) -> dict[str, Any]:
        return self._source.describe()  # type: ignore[no-any-return]


def digest_summary(files: list[engine.FileJob], expected: dict[str, Expected]) -> str:
    """One stderr line: how many files matched the Hub's digests, or why none were compared."""
    status = [digests.file_status(j, expected.get(j.name)) for j in files]
    counts = {s: status.count(s) for s in ("match", "mismatch", "unchecked", "unreadable") if s in status}
    text = ", ".join(f"{n} {s}" for s, n in counts.items())
    hint = (
        ""
        if len(counts) != 1 or "unchecked" not in counts
        else " (no expected digests: pass --against ORG/NAME, or verify a Hugging Face cache snapshot)"
    )
    return f"verify: {len(files)} files hashed: {text}{hint}"


def plan_files(source: Any, checkpoint: Any, expected: dict[str, Expected], root: Any = None) -> list[engine.FileJob]:
    """One FileJob per listed file (every byte is hashed); tensors only from the audited files' trustworthy
    headers, first occurrence of a name only (as the inventory counts them)."""
    seen: set[str] = set()
    tensors: dict[str, tuple[int, list[Tensor]]] = {}
    for name in checkpoint.audited:
        header = checkpoint.headers.get(name)
        if header is None or header.header_length is None or any(f.code in UNTRUSTED for f in header.findings):
            continue
        own = [t for t in header.tensors if t.name not in seen]
        seen.update(t.name for t in own)
        tensors[name] = (8 + header.header_length, sorted(own, key=lambda t: t.start))
    jobs = []
    root = source.root if root is None else root
    for name, size in sorted(source.list_files().items()):
        job = engine.FileJob(
            name, str(root / name), size or 0, git_sha1=name in expected and expected[name].algorithm == "git-sha1"
        )
        if name in tensors:
            job.data_start, job.tensors = tensors[name]
        jobs.append(job)
    return jobs


def _stats(s: engine.Scan) -> dict[str, Any]:
    t = s.tensor
    elementwise = engine.DTYPE_BITS.get(t.dtype, 0) >= 8 and t.dtype != "C64"
    return {
        "complete": s.complete,
        "nan": s.nan,
        "inf": s.inf,
        "zero_fraction": (s.zeros / t.elements if elementwise else None) if t.elements else None,
        "min": s.minimum,
        "max": s.maximum,
        "mean_abs": s.abs_sum / s.finite if s.finite else None,
    }


__all__ = ["verify", "default_jobs", "plan_files"]
