"""The audit report: everything the formatters print, and the JSON contract (schema_version 1)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from ..core.findings import SEVERITY_RANK, Finding
from ..inventory.build import FileSummary, Tensor, Totals
from ..inventory.groups import Group
from ..inventory.patterns import patterns
from ..reconcile.engine import Reconciliation
from .rootcause import Lost

SCHEMA_VERSION = 1
FAIL_ON_CHOICES = ("error", "warning", "info", "never")


J = TypeVar("J", bound="Judged")


class Judged:
    """The verdict of anything with findings, ``--ignore``d codes and a ``--fail-on`` threshold: one report, or
    a report of sections (which adds its sections' findings through ``failing`` and ``severity_counts``)."""

    findings: list[Finding]
    ignored_codes: tuple[str, ...]
    fail_on: str

    @property
    def active_findings(self) -> list[Finding]:
        """Findings that count: those whose code was not ``--ignore``d."""
        return [f for f in self.findings if f.code not in self.ignored_codes]

    @property
    def failing(self) -> list[Finding]:
        if self.fail_on == "never":
            return []
        threshold = SEVERITY_RANK[self.fail_on]
        return [f for f in self.active_findings if SEVERITY_RANK[f.severity] >= threshold]

    @property
    def verdict(self) -> str:
        return "fail" if self.failing else "pass"

    @property
    def exit_code(self) -> int:
        return 1 if self.failing else 0

    def severity_counts(self) -> dict[str, int]:
        counts = {"error": 0, "warning": 0, "info": 0}
        for f in self.active_findings:
            counts[f.severity] += 1
        return counts

    def total_counts(self) -> dict[str, Any]:
        """What is stored, summed over sections where there are any: tensors, parameters, bytes, by_dtype."""
        raise NotImplementedError

    def section_names(self) -> list[str]:
        """The names the checkpoints in it go by in a lock ("" for one checkpoint)."""
        raise NotImplementedError

    def each_checkpoint(self: J, change: Callable[[Report, str], Report]) -> J:
        """This report with ``change`` applied to every checkpoint in it, each with its section's name ("" for
        one checkpoint): how the gate walks both shapes alike."""
        raise NotImplementedError

    def with_whole(self: J, findings: list[Finding], policy: dict[str, Any] | None) -> J:
        """With findings about the whole target and the policy in force (said once, by the whole)."""
        raise NotImplementedError


@dataclass
class Report(Judged):
    """Result of one audit. Formatters are pure functions of it."""

    target: str
    source: dict[str, Any]
    totals: Totals
    files: list[FileSummary]
    groups: list[Group]
    reconciliation: Reconciliation
    findings: list[Finding]
    ignored_files: dict[str, str]
    tensors: dict[str, Tensor]
    fail_on: str = "error"
    ignored_codes: tuple[str, ...] = ()
    include_tensors: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    lost: Lost = field(default_factory=Lost)  # files that could not be read (rootcause.fold uses it again)
    # content, when known: file -> sha256 (the Hub listing's LFS digests, or computed by `verify`)
    file_sha256: dict[str, str] = field(default_factory=dict)
    config: dict[str, Any] | None = None  # config.json as read (a lock keeps its settings, a diff shows them)
    tensor_extra: dict[str, dict[str, Any]] = field(default_factory=dict)  # tensor -> more keys (verify's stats)
    # the checks beyond the headers that ran on this checkpoint (``needs`` in core/codes.toml): "content" (verify
    # read the tensor data), "digests" (against expected ones), "listing" (the Hub's file list), "lock", "policy"
    # (rules beyond fail_on/ignore), "variants" (an alternate compared with the counted weights: report.variants); a
    # check that did not run is never reported as passed (JUnit)
    checks: frozenset[str] = frozenset()
    variant: str | None = None  # the variant whose files these are (``model.fp16.safetensors``); None: the default
    # the other variants of the same weights beside these (``unet/...fp16.safetensors`` beside the default file):
    # each audited in full and judged with this report, none counted in its totals
    alternates: tuple[Alternate, ...] = ()

    @property
    def failing(self) -> list[Finding]:
        """The findings that fail this checkpoint, its alternates' included: a broken fp16 variant fails it."""
        own = Judged.failing.fget(self)  # type: ignore[attr-defined]
        return own + [f for a in self.alternates for f in a.report.failing] if self.fail_on != "never" else own

    @property
    def counted_verdict(self) -> str:
        """The verdict of the counted weights alone (``verdict`` also judges the alternates)."""
        return "fail" if Judged.failing.fget(self) else "pass"  # type: ignore[attr-defined]

    def severity_counts(self) -> dict[str, int]:
        counts = super().severity_counts()
        for a in self.alternates:
            for k, v in a.report.severity_counts().items():
                counts[k] += v
        return counts

    def total_counts(self) -> dict[str, Any]:
        return self.totals.to_dict()

    def section_names(self) -> list[str]:
        return [""]

    def each_checkpoint(self, change: Callable[[Report, str], Report]) -> Report:
        return change(self, "")

    def with_whole(self, findings: list[Finding], policy: dict[str, Any] | None) -> Report:
        extra = {**self.extra, "policy": policy} if policy is not None else self.extra
        return replace(self, findings=self.findings + findings, extra=extra) if findings or policy is not None else self

    @property
    def could_not(self) -> list[tuple[str, str]]:
        """Targets that could not be audited at all: none, for one checkpoint (see ``CompositeReport``)."""
        return []

    def to_dict(self) -> dict[str, Any]:
        rec = self.reconciliation
        # names the groups split already: looked up when findings list thousands (not re-split per name)
        named = [f.tensors for f in self.active_findings if len(f.tensors) > 1]
        known = self.groups if sum(map(len, named)) > _MANY_NAMES else None
        doc: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "target": self.target,
            "source": self.source,
            "model_type": rec.model_type,
            "architecture": rec.architecture,
            "totals": self.totals.to_dict(),
            "expected": {
                "parameters": rec.expected_parameters,
                "activated_parameters": rec.activated_parameters,
                "formula": rec.formula,
                "formula_by_component": rec.formula_by_component,
                "spec": rec.spec,
                "mtp_parameters": rec.mtp_parameters,
            },
            "ledger": dict(rec.ledger),
            "components": [c.to_dict() for c in rec.components],
            "groups": [g.to_dict(math.prod(g.shape), self.tensors[g.names[0]].nbytes) for g in self.groups],
            "files": [f.to_dict() for f in self.files],
            "ignored_files": dict(sorted(self.ignored_files.items())),
            "findings": [_finding_dict(f, self.include_tensors, known) for f in self.active_findings],
            "ignored_codes": sorted(self.ignored_codes),
            "fail_on": self.fail_on,
            "verdict": self.verdict,
            **judged_keys(self),
        }
        if self.include_tensors:
            doc["tensors"] = [
                {
                    "name": t.name,
                    "dtype": t.dtype,
                    "shape": list(t.shape),
                    "elements": t.elements,
                    "bytes": t.nbytes,
                    "file": t.file,
                    "offsets": [t.start, t.end],
                    "category": rec.categories.get(t.name, "unexplained"),
                    **self.tensor_extra.get(t.name, {}),
                }
                for t in self.tensors.values()
            ]
        doc.update(self.extra)
        if self.variant is not None or self.alternates:
            alternates: list[dict[str, Any]] = []
            for a in self.alternates:  # an alternate's own report is of its variant, which the entry names
                inner = a.report.to_dict()
                inner.pop("variants", None)
                alternates.append({"variant": a.variant, "verdict": a.report.verdict, "report": inner})
            doc["variants"] = {
                "counted": self.variant,
                "audited": [self.variant, *(a.variant for a in self.alternates)],
                "alternates": alternates,
            }
            # every finding of the checkpoint, as CI reads one report: the counted weights' own first, then each
            # alternate's, named by ``variant`` (its own report lists it too)
            doc["findings"] += [{**f, "variant": a["variant"]} for a in alternates for f in a["report"]["findings"]]
        return doc


@dataclass(frozen=True)
class Alternate:
    """Another variant of a checkpoint's weights (``diffusion_pytorch_model.fp16.safetensors`` beside the default
    file, ``unet (fp16)``): audited in full, judged with the checkpoint, never counted in its totals."""

    variant: str
    report: Report


def judged_keys(report: Judged) -> dict[str, Any]:
    """The keys CI reads the same way from every report, one checkpoint or sections: the exit code, the counts by
    severity (over every section) and the tool that judged."""
    from ..core.version import __version__

    return {
        "exit_code": report.exit_code,
        "counts": report.severity_counts(),
        "tool": {"name": "st-audit", "version": __version__},
    }


_MANY_NAMES = 5_000


def _finding_dict(f: Finding, all_tensors: bool, known: list[Group] | None = None) -> dict[str, Any]:
    """A finding's JSON: its names (at most 20 unless --tensors), their count, and exact patterns covering
    all of them, so the grouped view is complete even when the list is cut."""
    doc = f.to_dict(all_tensors)
    if len(f.tensors) > 1:
        doc["patterns"] = patterns(f.tensors, known)
    return doc
