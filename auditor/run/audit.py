"""The library entry point: ``audit(target) -> Report``. The CLI is a thin shell over this.

Data flows one way: source -> headers -> inventory -> expected tensors -> reconciliation -> report.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..core.errors import TargetNotFound, UsageError
from ..core.findings import CODES, SEVERITY_RANK, finding
from ..inventory.build import Inventory, build_inventory, check_total_parameters
from ..inventory.groups import find_range_gaps, group_tensors
from ..inventory.patterns import split_holes
from ..read.checkpoint import Checkpoint, collect
from ..read.sources.protocol import Source
from ..read.targets import resolve as resolve_target
from ..reconcile.engine import Reconciliation, reconcile
from ..report.partial import one_shard
from ..report.rootcause import fold, lost_files
from ..report.single import FAIL_ON_CHOICES, Report
from .options import AuditOptions


def open_source(
    target: str,
    *,
    revision: str | None = None,
    token: str | None = None,
    use_cache: bool = True,
    progress: Callable[[str], None] | None = None,
    hub: bool = False,
    prefetch: bool = True,
) -> Source:
    """The source ``target`` names (``read.targets.resolve``: a local path, a Hugging Face cache snapshot, a Hub repo,
    an object-store URL); ``prefetch``: a Hub source fetches the index and config.json as soon as it has listed
    the repo."""
    return resolve_target(target, revision=revision, hub=hub).open(
        token=token, use_cache=use_cache, progress=progress, prefetch=prefetch
    )


def _collect(
    source: Source,
    progress: Callable[[str], None] | None,
    variant: str | None,
    use_config: bool,
    ambiguous: bool,
    then: tuple[str, ...] = (),
) -> Checkpoint:
    """``collect``, with "not on the Hub" for a plain ``org/name`` also saying it is not a local path."""
    try:
        return collect(source, progress, variant=variant, use_config=use_config, then=then)
    except TargetNotFound as e:
        if ambiguous:
            raise TargetNotFound(
                f"{source.target}: no such file or directory, and not readable as a Hub repo: {e}"
            ) from None
        raise


def check_options(fail_on: str, ignore: Iterable[str]) -> tuple[str, tuple[str, ...]]:
    """Validate --fail-on and --ignore (exit 2 on a typo rather than silently ignoring nothing)."""
    if fail_on not in FAIL_ON_CHOICES:
        raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON_CHOICES)}, not {fail_on!r}")
    codes = tuple(ignore)
    unknown = [c for c in codes if c not in CODES]
    if unknown:
        raise UsageError(f"unknown finding code(s) {', '.join(unknown)}; see `st-audit codes` (docs/codes.md)")
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


# a precision variant (model.fp16.safetensors beside a float32 config, diffusers' convention) is that dtype on purpose
VARIANT_DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32"}


def _variant_config(
    config: dict[str, Any] | None, variant: str | None, others: Iterable[str], precision_siblings: bool = False
) -> dict[str, Any] | None:
    """The config a variant's files are held to: a precision variant declares its own dtype; beside precision
    variants (``others``: the files not audited), the one config.json describes whichever was saved last, so its
    dtype binds neither."""
    if config is None:
        return config
    if variant in VARIANT_DTYPES:
        return {**config, "dtype": VARIANT_DTYPES[variant], "torch_dtype": VARIANT_DTYPES[variant]}
    if precision_siblings or any(f".{v}." in n and ".safetensors" in n for n in others for v in VARIANT_DTYPES):
        return {k: v for k, v in config.items() if k not in ("dtype", "torch_dtype")}
    return config


def audit(
    target: str | Path,
    options: AuditOptions | None = None,
    *,
    source: Source | None = None,
    reconciler: Callable[[Inventory, dict[str, Any] | None], Reconciliation] | None = None,
    then: tuple[str, ...] = (),
    precision_siblings: bool = False,
    **settings: Any,
) -> Report:
    """Audit a local checkpoint (directory or file) or a Hub repo from its headers alone, under ``options``
    (``AuditOptions``, read whole; the library may pass its fields as keywords instead: ``audit(path, hub=True)``).

    What is not an option but a fact of the part audited comes beside it: ``source``, an opened source instead of
    the target's; ``reconciler`` replaces the architecture reconciliation for checkpoints that are not a model of
    their own (a PEFT adapter, a LoRA file, a sentence-transformers Dense layer): see ``auditor.report.composite``;
    ``then``: the alternate variants audited next, quietly (the progress line names them); ``precision_siblings``:
    the folder also holds precision variants of these weights (a diffusers component audited part by part), so
    config.json's dtype does not bind them. Of the options, ``hub`` reads a bare id (``gpt2``) as a Hub repo;
    ``variant`` audits ``model.<variant>.safetensors`` (or its index); ``use_config=False`` checks the files'
    structure only, ignoring config.json. A source opened here or passed in whole says what reading it cost once
    the audit is over (``Source.finished``; a view of part of a target leaves that to the audit of the whole).
    """
    options = (options or AuditOptions()).with_(**settings)
    fail_on, codes = check_options(options.fail_on, options.ignore)
    variant, progress = options.variant, options.progress
    with _gc_paused():
        # a plain org/name that is not a local path: a Hub failure also says "no such file or directory"
        resolved = None
        if source is None:
            resolved = resolve_target(str(target), revision=options.revision, hub=options.hub)
            source = resolved.open(token=options.token, use_cache=options.use_cache, progress=progress)
        ambiguous = resolved is not None and resolved.guessed
        checkpoint = _collect(source, progress, variant, options.use_config, ambiguous, then)
        inventory = build_inventory(checkpoint)
        groups = split_holes(group_tensors(inventory.tensors.values()))
        if reconciler is not None:
            reconciliation = reconciler(inventory, checkpoint.config)
        else:
            reconciliation = reconcile(
                inventory,
                _variant_config(checkpoint.config, variant, checkpoint.ignored, precision_siblings),
                checkpoint.weight_map,
            )
        totals = reconciliation.counted(inventory.totals)  # packed weights as the parameters they encode
        # without a formula, holes in index grids (expert 17 missing in layer 40) are the only sign of a lost
        # tensor; with one, missing-tensor already names each, and a per-layer expert count is not a hole
        gaps = (
            find_range_gaps(groups)
            if reconciliation.expected_parameters is None and not reconciliation.selects_layers
            else []
        )
        findings = (
            inventory.findings
            + gaps
            + reconciliation.findings
            + check_total_parameters(
                checkpoint, totals.parameters, reconciliation.ledger["model"], reconciliation.expected_parameters
            )
        )
        # one root cause, one error: what only follows from an unread shard is folded into it
        lost = lost_files(checkpoint, inventory.findings, formula=reconciliation.expected_parameters is not None)
        lone_shard, lost = one_shard(source, checkpoint, lost)
        if lone_shard is not None:
            findings.append(lone_shard)
        if not options.use_config:
            findings = [f for f in findings if f.code != "config-missing"] + [
                finding(
                    "config-missing",
                    "config.json was not used (--no-config): the files' structure was checked, not the architecture",
                )
            ]
        findings = fold(findings, lost)
        findings.sort(key=lambda f: -SEVERITY_RANK[f.severity])
        report = Report(
            target=str(target),
            source=checkpoint.source,
            totals=totals,
            files=inventory.files,
            groups=groups,
            reconciliation=reconciliation,
            findings=findings,
            ignored_files=checkpoint.ignored,
            tensors=inventory.tensors,
            fail_on=fail_on,
            ignored_codes=codes,
            include_tensors=options.include_tensors,
            lost=lost,
            file_sha256=dict(source.lfs_sha256),
            config=checkpoint.config,
            variant=variant,
            extra=dict(reconciliation.extra),
        )
        source.finished()
        return report
