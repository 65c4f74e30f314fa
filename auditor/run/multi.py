"""Several targets per command, and ``--recursive``: every model folder under a directory, one verdict each.

The policy (and lock) apply to each checkpoint: to a single report directly, to each section of a pipeline or
sentence-transformers model. One target prints as it always did; several print as sections of one report
whose exit code fails when any of them fails.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..core.errors import AuditError, TargetNotFound, UsageError
from ..read.targets import resolve, under
from ..report.composite import CompositeReport, several
from ..report.single import Report
from .options import AuditOptions


def expand_targets(targets: list[str], recursive: bool) -> list[str]:
    """The targets, with each directory (or object-store prefix) replaced by the model folders under it when
    ``recursive``."""
    if not targets:
        # said as the other commands' missing argument is (typer's words), with what a fleet run takes instead
        raise UsageError(
            "Missing argument 'TARGET...': give a checkpoint folder or file, a Hub repo or a URL (a fleet: "
            "--from FILE, --hub-author ORG)"
        )
    if not recursive:
        return list(targets)
    out: list[str] = []
    for t in targets:
        store = resolve(t).kind == "object-store" if "://" in t and not Path(t).exists() else False
        if not store and not Path(t).is_dir():
            if Path(t).exists():
                out.append(t)
                continue
            raise UsageError(f"--recursive needs directories or object-store prefixes; {t} is not one")
        found = sorted(under(t))
        if not found:
            raise TargetNotFound(f"no safetensors file, index or model manifest under {t}")
        out += found
    return list(dict.fromkeys(out))


def gated_audit_target(
    targets: list[str],
    policy: Any,
    *,
    lock: str | None = None,
    env: Mapping[str, str] | None = None,
    options: AuditOptions | None = None,
    source: Any = None,
    prepare: Callable[[str], tuple[Any, Any]] | None = None,
    **settings: Any,
) -> Report | CompositeReport:
    """``audit_target`` for each target under the policy: its rules (and the lock's drift) added to every
    checkpoint's report, a composite target's section by section. The one gate behind ``audit``, ``verify``, the
    pre-commit hook, the GitHub Action and the library. ``source``: where the one target is read (``lock``);
    ``prepare``: each target's own source and content hook (``verify`` reads each target's bytes)."""
    from ..gate import lock as lockmod
    from ..gate.policy import settings as policy_settings
    from .dispatch import audit_target

    fail_on, ignore = policy_settings(policy, env=env)
    options = (options or AuditOptions()).with_(**settings).with_(fail_on=fail_on, ignore=ignore)
    lock_path = lock or policy.lock
    if lock_path and len(targets) > 1:
        raise UsageError(
            f"a lock describes one checkpoint; --lock/lock = {lock_path} cannot apply to {len(targets)} targets"
        )
    lock_doc = lockmod.read(lock_path) if lock_path else None  # fails fast (exit 2), before any audit

    def one(t: str) -> tuple[str, Report | CompositeReport | None, str | None]:
        try:
            src, hook = prepare(t) if prepare is not None else (source, None)
            return (
                t,
                gate(
                    audit_target(t, options, source=src, content=hook),
                    policy,
                    lock_doc,
                    str(lock_path) if lock_path else None,
                ),
                None,
            )
        except UsageError:
            raise
        except AuditError as e:  # one target that cannot be audited does not throw the others away
            if len(targets) == 1:
                raise
            return t, None, str(e)

    workers = min(options.jobs or 1, len(targets))
    if workers > 1:  # several targets at once (a Hub audit mostly waits on round trips); reported in the given order
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="st-audit-target") as pool:
            results = list(pool.map(one, targets))
    else:
        results = [one(t) for t in targets]
    audited = [(t, report) for t, report, _ in results if report is not None]
    could_not = [(t, why) for t, _, why in results if why is not None]
    if len(targets) == 1:
        return audited[0][1]
    if not audited:
        raise AuditError("; ".join(f"{t}: {why}" for t, why in could_not))
    return several([t for t, _ in audited], [r for _, r in audited], fail_on, ignore, could_not)


def gated_audit(
    target: str, policy: Any, *, lock: str | None = None, env: Mapping[str, str] | None = None, **audit_kw: Any
) -> Report | CompositeReport:
    """One target audited as ``st-audit audit`` audits it (its kind discovered: adapter, pipeline, ...), under a
    policy: fail_on/ignore from it, then its rules and the lock's drift as findings. ``lock`` (the --lock flag)
    wins over the policy's ``lock`` key; the lock file is read before auditing (a bad one: exit 2 at once)."""
    return gated_audit_target([target], policy, lock=lock, env=env, **audit_kw)


def gate(
    report: Report | CompositeReport, policy: Any, lock_doc: Any = None, lock_name: str | None = None
) -> Report | CompositeReport:
    """``report`` under the policy and the lock: each checkpoint (each section of a composite target) gets the
    policy's findings and its drift from its own part of the lock; the whole gets what the lock holds that the
    target lacks, and the policy in force."""
    from ..gate.drift import section_locks
    from ..gate.policy import apply

    locks, own = (
        section_locks(lock_doc, report.section_names(), lock_name=lock_name or "the lock")
        if lock_doc is not None
        else ({}, [])
    )
    gated = report.each_checkpoint(
        lambda checkpoint, name: apply(checkpoint, policy, lock_doc=locks.get(name), lock_name=lock_name)
    )
    return gated.with_whole(own, policy.describe())
