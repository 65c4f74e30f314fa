"""How an alternate variant of a checkpoint differs from the weights that are counted.

A folder holding ``diffusion_pytorch_model.safetensors`` and ``diffusion_pytorch_model.fp16.safetensors`` holds one
model twice: ``from_pretrained()`` loads the first, ``from_pretrained(variant="fp16")`` the second. Both are
audited in full, the counted weights (the default ones) are the model, and the alternate must hold the same
tensors in the same shapes; only dtypes may differ (that is what a precision variant is). Each difference the
alternate's own audit has not already named (a formula's ``missing-tensor`` names the tensor already) is a
``variant-differs`` finding on the alternate, naming its files: the counted weights are never judged by it.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.findings import SEVERITY_RANK, Finding, finding, plural
from ..core.names import shown
from ..inventory.patterns import patterns
from .single import Report

MAX_NAMES = 4


def with_differences(alternate: Report, counted: Report) -> Report:
    """``alternate`` with its differences from ``counted`` as findings, and ``variants`` among the checks that ran
    on it (JUnit passes ``variant-differs`` only where the comparison was made); when a file of either side could
    not be read nothing is compared, and the alternate is returned as it is."""
    if alternate.lost or counted.lost:
        return alternate
    found = differences(alternate, counted)
    return replace(
        alternate,
        checks=alternate.checks | {"variants"},
        findings=sorted(alternate.findings + found, key=lambda f: -SEVERITY_RANK[f.severity]),
    )


def differences(alternate: Report, counted: Report) -> list[Finding]:
    """Tensors of the counted weights the alternate lacks (error), stores in another shape (error) or holds beside
    them (warning). Names a finding of either side already gives, or that a file of either side could not be read
    for (its root finding says so), are left out: one cause, one finding."""
    if alternate.lost or counted.lost:
        return []
    named = {t for report in (alternate, counted) for f in report.findings if f.severity != "info" for t in f.tensors}
    ours, theirs = alternate.tensors, counted.tensors
    lacking = [n for n in theirs if n not in ours and n not in named]
    extra = [n for n in ours if n not in theirs and n not in named]
    reshaped = [n for n in theirs if n in ours and n not in named and ours[n].shape != theirs[n].shape]
    variant = alternate.variant or "default"
    against = "the default weights" if counted.variant is None else f"variant {counted.variant}"
    files = [f.name for f in alternate.files]
    out: list[Finding] = []
    if lacking:
        out.append(
            finding(
                "variant-differs",
                f"variant {variant} lacks {plural(len(lacking), 'tensor')} of "
                f"{against}: {shown(patterns(lacking), MAX_NAMES, sep='; ')}",
                tensors=lacking,
                files=files,
            )
        )
    if reshaped:
        rows = [f"{n} {list(ours[n].shape)} (not {list(theirs[n].shape)})" for n in reshaped]
        out.append(
            finding(
                "variant-differs",
                f"variant {variant} stores {plural(len(reshaped), 'tensor')} in "
                f"another shape than {against}: {shown(rows, MAX_NAMES, sep='; ')}",
                tensors=reshaped,
                files=files,
            )
        )
    if extra:
        out.append(
            finding(
                "variant-differs",
                f"variant {variant} holds {plural(len(extra), 'tensor')} {against} "
                f"do not: {shown(patterns(extra), MAX_NAMES, sep='; ')}",
                tensors=extra,
                files=files,
                severity="warning",
            )
        )
    return out
