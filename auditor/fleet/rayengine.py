"""The Ray engine (``--engine ray``; ``pip install 'st-audit[ray]'``): the fleet's per-target job as Ray tasks on an
existing Ray cluster, outcomes streamed back as each task finishes.

st-audit schedules nothing itself here: Ray places the tasks; this module only keeps ``jobs`` of them in flight
(so memory stays flat however long the list) and hands each outcome to the sink as ``ray.wait`` returns it. The
cluster's nodes need st-audit installed (the image, or a ``runtime_env`` of the cluster's own). The driver's Hub
and object-store settings and credentials (``HF_TOKEN``, ``HF_ENDPOINT``, ``AWS_*`` ...) reach the tasks through
Ray's runtime environment, never the output; ``--token`` travels inside the job like every other option.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from ..core.errors import AuditError, UsageError
from .work import Job, Outcome, Task, audit_one

# environment variables a worker needs to read what the driver can read (only those set are passed)
FORWARDED = (
    "HF_TOKEN",
    "HF_ENDPOINT",
    "HF_HUB_OFFLINE",
    "HF_HUB_ETAG_TIMEOUT",
    "HF_HUB_DOWNLOAD_TIMEOUT",
    "HF_HUB_DISABLE_TELEMETRY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_DEFAULT_REGION",
    "AWS_REGION",
    "AWS_PROFILE",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_STORAGE_ACCOUNT_NAME",
    "AZURE_STORAGE_ACCOUNT_KEY",
    "AZURE_STORAGE_CONNECTION_STRING",
    "NO_PROXY",
    "no_proxy",
    "HTTPS_PROXY",
    "https_proxy",
)
# a task mostly waits on the network: several share one CPU of the cluster's accounting
CPUS_PER_TASK = 0.25


def _audit_remote(task: Task, job: Job) -> Outcome:
    return audit_one(task, job)


class RayEngine:
    """Ray tasks on the cluster at ``address`` (``--ray-address``, else ``RAY_ADDRESS``)."""

    def __init__(self, address: str | None = None) -> None:
        if not address:
            raise UsageError(
                "--engine ray needs a cluster: --ray-address HOST:PORT or RAY_ADDRESS (started with "
                "`ray start --head`; 'auto' finds one started on this machine)"
            )
        try:
            import ray
        except ImportError:
            raise UsageError("--engine ray needs Ray: pip install 'st-audit[ray]'") from None
        self._ray = ray
        self.address = address
        self._pending: dict[Any, Task] = {}

    def run(self, tasks: Iterable[Task], job: Job, jobs: int) -> Iterator[Outcome]:
        ray = self._ray
        env = {name: os.environ[name] for name in FORWARDED if name in os.environ}
        try:
            ray.init(
                address=self.address,
                runtime_env={"env_vars": env} if env else None,
                log_to_driver=False,
                logging_level="ERROR",
                configure_logging=False,
            )
        except Exception as e:  # noqa: BLE001 - a connection failure is one sentence, whatever Ray raised
            raise AuditError(
                f"cannot connect to the Ray cluster at {self.address}: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
            ) from None
        remote = ray.remote(num_cpus=CPUS_PER_TASK, max_retries=1)(_audit_remote)
        job_ref = ray.put(job)
        ahead = iter(tasks)
        pending = self._pending  # ref -> its task

        def submit() -> bool:
            task = next(ahead, None)
            if task is not None:
                if os.path.exists(task.target):  # a task runs in a worker's own directory, maybe on another node
                    task = replace(task, path=os.path.abspath(task.target))
                pending[remote.remote(task, job_ref)] = task
            return task is not None

        try:
            while len(pending) < jobs and submit():
                pass
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    task = pending.pop(ref)
                    yield self._outcome(ref, task)
                    submit()
        finally:
            self._pending = {}
            ray.shutdown()

    def _outcome(self, ref: Any, task: Task) -> Outcome:
        """The task's outcome; a task Ray could not run (its worker died twice, the node went away) is this
        target's internal error, and the fleet goes on."""
        try:
            return self._ray.get(ref)  # type: ignore[no-any-return]
        except Exception as e:  # noqa: BLE001 - Ray's task and worker errors
            from .engines import _error_line

            why = f"the Ray task auditing it failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            return Outcome(task.index, task.target, "error", 4, _error_line(task, why), root=why)

    def close(self) -> None:
        for ref in self._pending:
            try:
                self._ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001 - already finished or gone with the cluster
                pass
