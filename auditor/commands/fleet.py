"""``st-audit audit`` over a fleet: when it runs as one (``fleet_requested``), and the run itself (``audit_fleet``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import UsageError
from ..fleet.engines import default_jobs, engine
from ..fleet.inputs import HubListing, Shard, gather, hub_author, select
from ..fleet.run import Plan, run_fleet
from ..fleet.work import Job, quiet_options
from ..formats import report_format
from ..run.options import AuditOptions

if TYPE_CHECKING:
    from ..formats.base import ReportFormat


@dataclass(frozen=True)
class FleetRequest:
    """The fleet options of ``st-audit audit`` (each None / empty when not given)."""

    from_files: tuple[str, ...] = ()
    hub_authors: tuple[str, ...] = ()
    hub_filters: tuple[str, ...] = ()
    limit: int | None = None
    jobs: int | None = None
    resume: bool = False
    shard: str | None = None
    engine: str | None = None
    ray_address: str | None = None
    html_dir: Path | None = None

    def asked(self, targets: Sequence[str], fmt: str | None) -> bool:
        """Whether the command is a fleet run: a streamed format, or any option only a fleet has."""
        return (
            fmt == "jsonl"
            or bool(self.from_files or self.hub_authors)
            or self.resume
            or self.shard is not None
            or self.engine is not None
            or self.html_dir is not None
            or any(hub_author(t) is not None for t in targets)
        )


def audit_fleet(
    targets: Sequence[str],
    request: FleetRequest,
    fmt: str | None,
    *,
    options: AuditOptions,
    policy: Any,
    output: Path | None,
    recursive: bool,
    quiet: bool,
    stderr: Callable[[str], None],
) -> int:
    """Run the fleet; its exit code."""
    fmt = fmt or "jsonl"
    if fmt != "jsonl" and not report_format(fmt).streams:
        raise UsageError(
            f"-f {fmt} is one report for one run; a fleet run streams one line per target: use -f jsonl "
            f"-o FILE (then `st-audit report FILE -f {fmt if report_format(fmt).fleet_view else 'table'}`)"
            " or -f summary"
        )
    if request.resume and fmt != "jsonl":
        raise UsageError("--resume reads back the lines of -f jsonl: use -f jsonl -o FILE")
    if request.ray_address is not None and (request.engine or "local") != "ray":
        raise UsageError("--ray-address applies to --engine ray")
    if policy.lock:
        raise UsageError(f"a lock describes one checkpoint; --lock/lock = {policy.lock} cannot apply to a fleet")
    shard = Shard.parse(request.shard) if request.shard is not None else None
    listings = [HubListing(a, request.hub_filters, request.limit) for a in request.hub_authors]
    if (request.hub_filters or request.limit is not None) and not listings:
        raise UsageError("--hub-filter and --limit apply to --hub-author ORG listings")
    every = gather(targets, from_files=request.from_files, listings=listings, recursive=recursive, token=options.token)
    if not every:
        raise UsageError("no targets: give TARGET arguments, --from FILE or --hub-author ORG")
    mine = list(select(every, shard))
    if request.html_dir is not None:
        try:
            request.html_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"--html-dir {request.html_dir}: cannot be created ({e.strerror or e})") from None
    jobs = request.jobs or default_jobs(mine)
    job = Job(quiet_options(options), policy, fmt, str(request.html_dir) if request.html_dir is not None else None)
    settings = {"address": request.ray_address or os.environ.get("RAY_ADDRESS")} if request.engine == "ray" else {}
    runner = engine(request.engine or "local", **settings)
    plan = Plan(mine, job, jobs, output, resume=request.resume)
    live = not quiet and sys.stderr.isatty()

    def show(text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()

    if not quiet and shard is not None:
        stderr(f"shard {shard.index}/{shard.count}: {len(mine)} of {len(every)} targets")
    return run_fleet(plan, runner, progress=None if quiet else show, live=live)


def fleet_report(path: Path, form: ReportFormat, page: Path | None) -> tuple[str, int]:
    """``st-audit report``: the fleet view of a run's lines, and the run's exit code (from the targets' lines)."""
    from ..fleet.run import worst_exit
    from ..fleet.sink import lines
    from ..formats.fleet import fleet_of

    if not path.is_file():
        raise UsageError(f"{path}: no such file (the -o FILE of `st-audit audit -f jsonl`)")
    page_dir = str(page.parent) if page is not None else os.getcwd()
    fleet = fleet_of(list(lines(path)), source=str(path), page_dir=page_dir)
    if not fleet.rows:
        raise UsageError(f"{path} holds no target lines of `st-audit audit -f jsonl`")
    code = 0
    for row in fleet.rows:
        code = worst_exit(code, row.exit_code)
    import shutil

    # a terminal's width (or COLUMNS); a file or a pipe gets wide lines
    width = shutil.get_terminal_size((200, 24)).columns if sys.stdout.isatty() or "COLUMNS" in os.environ else 200
    return form.fleet(fleet, width), code
