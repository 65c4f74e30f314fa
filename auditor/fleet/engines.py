"""Engines run the per-target job (``work.audit_one``) for many targets and hand the outcomes back as they finish.

An engine is one class with ``run(tasks, job, jobs) -> outcomes`` (in completion order) and ``close()``,
registered by name in ``ENGINES``; the command line picks one with ``--engine``. Two exist:

- ``local`` (the default; nothing to start): ``jobs`` targets in flight on this machine. One process per core, each
  with a share of the threads: a Hub audit mostly waits on the network (threads), but each target also costs tens
  of milliseconds of parsing and reconciling, and threads alone would leave every core but one idle. One target
  or ``--jobs 1`` runs in this process.
- ``ray`` (``pip install 'st-audit[ray]'``): the same job as Ray tasks on an existing Ray cluster
  (``rayengine.py``).

Memory stays flat with the number of targets: tasks are handed out at most ``2 x jobs`` ahead of the results, and
every outcome is written and dropped by the caller as it arrives.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from importlib import import_module
from typing import Any, Protocol

from ..core.errors import UsageError
from .work import Job, Outcome, Task, audit_one


class Engine(Protocol):
    """Runs the fleet's tasks; see the module docstring."""

    def run(self, tasks: Iterable[Task], job: Job, jobs: int) -> Iterator[Outcome]:
        """Each task's outcome, as soon as it is done (in any order); at most ``jobs`` targets in flight."""

    def close(self) -> None:
        """Stop at once (Ctrl-C): outcomes not yet handed back are dropped."""


# engine name -> "module:Class" (imported only when chosen: Ray is a heavy import)
ENGINES: dict[str, str] = {"local": "auditor.fleet.engines:LocalEngine", "ray": "auditor.fleet.rayengine:RayEngine"}


def engine(name: str, **settings: Any) -> Engine:
    """The engine registered as ``name``, built with its own ``settings`` (e.g. ``address`` for Ray)."""
    if name not in ENGINES:
        raise UsageError(f"--engine {name!r}: one of {', '.join(ENGINES)}")
    module, _, cls = ENGINES[name].partition(":")
    return getattr(import_module(module), cls)(**settings)  # type: ignore[no-any-return]


def default_jobs(targets: list[str]) -> int:
    """Targets in flight when ``--jobs`` is not given: 16 when any is remote (each mostly waits on round trips),
    else one per core (a local audit is disk and CPU)."""
    cores = os.cpu_count() or 1
    remote = any(_remote(t) for t in targets)
    return max(16, 2 * cores) if remote else cores


def _remote(target: str) -> bool:
    return "://" in target or ("/" in target and not os.path.exists(target)) or "@" in target


class LocalEngine:
    """Threads in this process for small runs, else one process per core with a share of the threads each."""

    def __init__(self, processes: int | None = None) -> None:
        self.processes = processes
        self._stop = threading.Event()
        self._workers: list[Any] = []
        self._pool: ThreadPoolExecutor | None = None

    def run(self, tasks: Iterable[Task], job: Job, jobs: int) -> Iterator[Outcome]:
        items = tasks if isinstance(tasks, list) else list(tasks)
        processes = min(self.processes or os.cpu_count() or 1, jobs, len(items))
        if processes <= 1:
            yield from self._in_threads(items, job, jobs)
        else:
            yield from self._in_processes(items, job, jobs, processes)

    def close(self) -> None:
        self._stop.set()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        for process in self._workers:
            if process.is_alive():
                process.terminate()
        for process in self._workers:
            process.join(timeout=5)

    # -- one process -------------------------------------------------------------------------------------------

    def _in_threads(self, items: list[Task], job: Job, jobs: int) -> Iterator[Outcome]:
        self._pool = pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="st-audit-fleet")
        pending: set[Future[Outcome]] = set()
        ahead = iter(items)
        try:
            for task in ahead:
                pending.add(pool.submit(audit_one, task, job))
                if len(pending) >= jobs:
                    break
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
                    following = next(ahead, None)
                    if following is not None:
                        pending.add(pool.submit(audit_one, following, job))
        finally:
            pool.shutdown(wait=not self._stop.is_set(), cancel_futures=True)

    # -- one process per core ----------------------------------------------------------------------------------

    def _in_processes(self, items: list[Task], job: Job, jobs: int, processes: int) -> Iterator[Outcome]:
        """Workers take tasks from one bounded queue and put outcomes on another. A worker process that dies (out
        of memory, killed) costs only the targets it had in flight, each reported as an internal error, and is
        replaced."""
        ctx = multiprocessing.get_context("spawn")  # no fork of a process with threads; the same on every OS
        threads = math.ceil(jobs / processes)
        todo: Any = ctx.Queue(maxsize=2 * jobs)
        done: Any = ctx.Queue()

        def start() -> None:
            process = ctx.Process(
                target=_serve, args=(todo, done, job, threads), daemon=True, name="st-audit-fleet-worker"
            )
            process.start()
            self._workers.append(process)

        for _ in range(processes):
            start()
        feeder = threading.Thread(target=_feed, args=(items, todo, processes * threads, self._stop), daemon=True)
        feeder.start()
        in_flight: dict[int, dict[int, Task]] = {}  # pid -> index -> task
        remaining = len(items)
        try:
            while remaining:
                try:
                    message = done.get(timeout=0.5)
                except queue.Empty:
                    for outcome in self._reap(in_flight, todo, threads, start):
                        remaining -= 1
                        yield outcome
                    continue
                kind, pid, payload = message
                if kind == "begin":
                    index, target, known = payload
                    in_flight.setdefault(pid, {})[index] = Task(index, target, known)
                else:
                    in_flight.get(pid, {}).pop(payload.index, None)
                    remaining -= 1
                    yield payload
        finally:
            self._stop.set()
            for process in self._workers:
                if process.is_alive():
                    process.terminate()
            for process in self._workers:
                process.join(timeout=5)
            self._workers.clear()

    def _reap(self, in_flight: dict[int, dict[int, Task]], todo: Any, threads: int, start: Any) -> Iterator[Outcome]:
        """Outcomes for the targets of worker processes that died, and a replacement for each."""
        for process in list(self._workers):
            if process.is_alive() or process.exitcode == 0:
                continue
            self._workers.remove(process)
            lost = in_flight.pop(process.pid, {})
            for task in lost.values():
                why = (
                    f"the worker process auditing it died (exit code {process.exitcode}): out of memory or "
                    "killed; audit it alone to see more"
                )
                yield Outcome(task.index, task.target, "error", 4, _error_line(task, why), root=why)
            if not self._stop.is_set():
                for _ in range(threads):
                    todo.put(None)  # the replacement's threads stop on these once the tasks are gone
                start()


def _error_line(task: Task, why: str) -> str:
    import json

    doc = {
        "schema_version": 1,
        "target": task.target,
        "verdict": "error",
        "exit_code": 4,
        "error": why,
        "fleet": {"target": task.target, "fingerprint": None, "seconds": 0.0},
    }
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"


def _feed(items: list[Task], todo: Any, stoppers: int, stop: threading.Event) -> None:
    """Hand the tasks out (blocking while the queue is full: memory stays bounded), then one stop per thread."""
    for task in items:
        while not stop.is_set():
            try:
                todo.put(task, timeout=0.5)
                break
            except queue.Full:
                continue
        if stop.is_set():
            return
    for _ in range(stoppers):
        try:
            todo.put(None, timeout=5)
        except queue.Full:
            return


def _serve(todo: Any, done: Any, job: Job, threads: int) -> None:
    """A worker process: ``threads`` threads take tasks until they meet a stop (None)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle: it stops the workers
    pid = os.getpid()

    def loop() -> None:
        while True:
            task = todo.get()
            if task is None:
                return
            done.put(("begin", pid, (task.index, task.target, task.known)))
            done.put(("done", pid, audit_one(task, job)))

    workers = [threading.Thread(target=loop, name=f"st-audit-fleet-{i}") for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
