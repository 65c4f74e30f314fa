"""The library entry point: ``audit(target) -> Report``. The CLI is a thin shell over this.

Data flows one way: source -> headers -> inventory -> expected tensors -> reconciliation -> report.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from .checkpoint import Source, collect
from .errors import TargetNotFound, UsageError
from .findings import CODES, SEVERITY_RANK
from .groups import find_range_gaps, group_tensors
from .inventory import build_inventory, check_total_parameters
from .reconcile import reconcile
from .report import FAIL_ON_CHOICES, Report

REPO_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$")


def open_source(target: str, *, revision: str | None = None, token: str | None = None, use_cache: bool = True,
                progress: Callable[[str], None] | None = None) -> Source:
    """A local path when it exists, else a Hub repo id (``org/name``)."""
    if Path(target).exists():
        if revision is not None:
            raise UsageError("--revision applies to Hub repos only, but the target is a local path")
        from .sources.local import LocalSource
        return LocalSource(target)
    if REPO_ID.match(target) and "/" in target and not target.startswith((".", "/")):
        from .sources.hub import HubSource  # imports huggingface_hub: only for Hub targets
        return HubSource(target, revision=revision, token=token, use_cache=use_cache, progress=progress)
    if target.startswith((".", "/", "~")) or "\\" in target or target.endswith((".safetensors", ".json")):
        raise TargetNotFound(f"{target} does not exist: pass a checkpoint directory, a .safetensors file, "
                             "or a Hub repo id such as org/name")
    raise TargetNotFound(f"{target} is neither an existing path nor a Hub repo id (org/name)")


def check_options(fail_on: str, ignore: Iterable[str]) -> tuple[str, tuple[str, ...]]:
    """Validate --fail-on and --ignore (exit 2 on a typo rather than silently ignoring nothing)."""
    if fail_on not in FAIL_ON_CHOICES:
        raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON_CHOICES)}, not {fail_on!r}")
    codes = tuple(ignore)
    unknown = [c for c in codes if c not in CODES]
    if unknown:
        raise UsageError(f"unknown finding code(s) {', '.join(unknown)}; see the README's list of codes")
    return fail_on, codes


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while ~100k records are built.

    They hold no reference cycles (reference counting frees them), but their sheer number makes the collector
    rescan the young generations over and over: about 15% of a DeepSeek-V3 audit.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def audit(target: str | Path, *, revision: str | None = None, token: str | None = None, fail_on: str = "error",
          ignore: Iterable[str] = (), include_tensors: bool = False, use_cache: bool = True,
          progress: Callable[[str], None] | None = None, source: Source | None = None) -> Report:
    """Audit a local checkpoint (directory or file) or a Hub repo from its headers alone."""
    fail_on, codes = check_options(fail_on, ignore)
    with _gc_paused():
        source = source or open_source(str(target), revision=revision, token=token, use_cache=use_cache,
                                       progress=progress)
        checkpoint = collect(source, progress)
        inventory = build_inventory(checkpoint)
        groups = group_tensors(inventory.tensors.values())
        reconciliation = reconcile(inventory, checkpoint.config)
        totals = inventory.totals
        # packed weights count as the parameters they encode (MXFP4: two per U8; GPTQ/AWQ: 32/bits per I32)
        totals.parameters += reconciliation.packed_extra
        for dtype, extra in reconciliation.packed_extra_by_dtype.items():
            totals.by_dtype[dtype][1] += extra
        # without a formula, holes in index grids (expert 17 missing in layer 40) are the only sign of a lost
        # tensor; with one, missing-tensor already names each, and a per-layer expert count is not a hole
        gaps = find_range_gaps(groups) if reconciliation.expected_parameters is None else []
        findings = (inventory.findings + gaps + reconciliation.findings
                    + check_total_parameters(checkpoint, totals.parameters, reconciliation.ledger["model"],
                                             reconciliation.expected_parameters))
        findings.sort(key=lambda f: -SEVERITY_RANK[f.severity])
        return Report(target=str(target), source=checkpoint.source, totals=totals, files=inventory.files,
                      groups=groups, reconciliation=reconciliation, findings=findings,
                      ignored_files=checkpoint.ignored, tensors=inventory.tensors, fail_on=fail_on,
                      ignored_codes=codes, include_tensors=include_tensors,
                      file_sha256=dict(getattr(source, "lfs_sha256", None) or {}))
