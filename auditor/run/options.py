"""How to audit: one frozen value every entry point builds (the CLI, the library, the pre-commit hook, the Action,
verify, lock, diff) and the runner reads, so no entry point can audit with settings another does not know of."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class AuditOptions:
    """Everything that changes what an audit reads or how it judges; the policy's rules and the lock are the gate's
    (``run.multi``), which sets ``fail_on`` and ``ignore`` here from the policy in force."""

    fail_on: str = "error"  # lowest severity that fails
    ignore: tuple[str, ...] = ()  # finding codes that do not count
    variant: str | None = None  # audit model.<variant>.safetensors (each folder's, for a pipeline)
    use_config: bool = True  # False: the files' structure only (--no-config)
    include_tensors: bool = False  # the long view (--tensors)
    base: str | None = None  # a PEFT adapter's base model (--base)
    revision: str | None = None  # a Hub revision
    token: str | None = None  # a Hub token
    use_cache: bool = True  # the checked header cache (--no-cache: off)
    hub: bool = False  # a bare id is a Hub repo (--hub)
    progress: Callable[[str], None] | None = None  # where progress lines go (None: nowhere)
    jobs: int | None = None  # several targets: how many are audited at once (None: one at a time)

    def with_(self, **changes: Any) -> AuditOptions:
        """These options with ``changes`` (keyword names as the fields'; a ``None`` value is "not given", so
        optional keyword arguments of the library API pass straight through)."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise TypeError(f"unknown audit option(s): {', '.join(unknown)}")
        given: dict[str, Any] = {k: (tuple(v) if k == "ignore" else v) for k, v in changes.items() if v is not None}
        return replace(self, **given) if given else self
