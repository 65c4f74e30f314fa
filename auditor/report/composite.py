"""A report made of sections: a diffusers pipeline, a sentence-transformers model, a folder of independent files.

Each section is an ordinary single-checkpoint ``Report`` (its own files, findings and verdict); the composite
adds the findings about the whole (a component the manifest names but that has no weights) and one verdict:
fail when any section or its own findings fail. JSON: ``kind`` + ``sections`` (each a full report) + totals.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.findings import Finding
from ..kinds.discover import MODEL, TARGETS, Kind, Part
from .single import SCHEMA_VERSION, Judged, Report, judged_keys


@dataclass
class Section:
    """One part of the target, audited as a checkpoint of its own."""

    part: Part
    report: Report | CompositeReport

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.part.name,
            "kind": self.part.kind,
            "folder": self.part.folder or None,
            "role": self.part.role,
            "verdict": self.report.verdict,
            "report": self.report.to_dict(),
        }


@dataclass
class CompositeReport(Judged):
    """Several sections and one verdict. Formatters are pure functions of it, as of ``Report``."""

    target: str
    kind: Kind
    source: dict[str, Any]
    sections: list[Section]
    findings: list[Finding] = field(default_factory=list)
    fail_on: str = "error"
    ignored_codes: tuple[str, ...] = ()
    # targets of a multi-target command that could not be audited at all (target, why): the others are still
    # reported, and the command exits 3
    could_not: list[tuple[str, str]] = field(default_factory=list)
    policy: dict[str, Any] | None = None  # the policy in force (gate.policy.Policy.describe), said once

    @property
    def verdict(self) -> str:
        """``error`` when a target of several could not be audited (exit 3): the run is not a pass, whatever the
        others say."""
        return "error" if self.could_not else super().verdict

    @property
    def exit_code(self) -> int:
        return 3 if self.could_not else super().exit_code

    @property
    def failing(self) -> list[Finding]:
        own = super().failing
        return own + [f for s in self.sections for f in s.report.failing] if self.fail_on != "never" else own

    def section_names(self) -> list[str]:
        return [s.part.name for s in self.sections]

    def each_checkpoint(self, change: Callable[[Report, str], Report]) -> CompositeReport:
        def named(section: Section) -> Section:  # a checkpoint goes by its section's name, however deep
            return replace(section, report=section.report.each_checkpoint(lambda r, _: change(r, section.part.name)))

        return replace(self, sections=[named(s) for s in self.sections])

    def with_whole(self, findings: list[Finding], policy: dict[str, Any] | None) -> CompositeReport:
        return replace(self, findings=self.findings + findings, policy=policy)

    def severity_counts(self) -> dict[str, int]:
        counts = super().severity_counts()
        for s in self.sections:
            for k, v in s.report.severity_counts().items():
                counts[k] += v
        return counts

    @staticmethod
    def _aggregated(own: list[dict[str, Any]], sections: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Every active finding of the target, as CI reads one report: the whole's own first (no ``section``), then
        each section's as that section's JSON gives it, named by ``section`` (``unet``; ``a/unet`` for a pipeline
        among several targets: a section's own list is already aggregated)."""
        out = list(own)
        for s in sections:
            out += [
                {**f, "section": f"{s['name']}/{f['section']}" if "section" in f else s["name"]}
                for f in s["report"]["findings"]
            ]
        return out

    def total_counts(self) -> dict[str, Any]:
        """Sums over the sections, in the shape of a single report's totals (by_dtype included)."""
        out: dict[str, Any] = {"tensors": 0, "parameters": 0, "bytes": 0, "by_dtype": {}}
        for section in self.sections:
            inner = section.report.total_counts()
            for key in ("tensors", "parameters", "bytes"):
                out[key] += inner[key]
            for dtype, row in inner["by_dtype"].items():
                mine = out["by_dtype"].setdefault(dtype, {"tensors": 0, "parameters": 0, "bytes": 0})
                for key in mine:
                    mine[key] += row[key]
        out["by_dtype"] = dict(sorted(out["by_dtype"].items()))
        return out

    def to_dict(self) -> dict[str, Any]:
        sections = [s.to_dict() for s in self.sections]
        return {
            "schema_version": SCHEMA_VERSION,
            "target": self.target,
            "kind": self.kind.to_dict(),
            "source": self.source,
            "totals": self.total_counts(),
            "sections": sections,
            "findings": self._aggregated([f.to_dict() for f in self.active_findings], sections),
            "notes": list(self.kind.notes),
            "ignored_codes": sorted(self.ignored_codes),
            "fail_on": self.fail_on,
            "verdict": self.verdict,
            **judged_keys(self),
            **({"errors": [{"target": t, "error": why} for t, why in self.could_not]} if self.could_not else {}),
            **({"policy": self.policy} if self.policy else {}),
        }


# what an audit returns: one checkpoint's report, or a report of sections
AnyReport = Report | CompositeReport


def stamp_source(report: AnyReport, origin: dict[str, Any]) -> AnyReport:
    """``report`` with ``origin`` (repo, commit) added to its source, and to every section's."""
    if isinstance(report, Report):
        return replace(report, source={**report.source, **origin})
    return replace(
        report,
        source={**report.source, **origin},
        sections=[replace(s, report=stamp_source(s.report, origin)) for s in report.sections],
    )


def kind_line(kind: dict[str, Any] | None) -> str:
    """``PEFT adapter: LORA r=8 on gpt2`` — the words after the target on a report's first line."""
    if not kind:
        return ""
    detail = kind.get("detail")
    return f"{kind['label']}: {detail}" if detail else str(kind["label"])


def several(
    targets: list[str],
    reports: list[Report | CompositeReport],
    fail_on: str,
    ignored_codes: tuple[str, ...],
    could_not: list[tuple[str, str]] | None = None,
) -> CompositeReport:
    """Several targets on one command line (or found by --recursive): one section each, one exit code.
    ``targets`` name the audited ``reports``; ``could_not``: the others, (target, why), each named by the run too.
    The run is named by all its targets (or their count), never by one of them alone."""
    could_not = list(could_not or [])
    parts = tuple(
        Part(t, r.kind.kind if isinstance(r, CompositeReport) else (r.extra.get("kind") or {}).get("kind", MODEL))
        for t, r in zip(targets, reports)
    )
    every = targets + [t for t, _ in could_not]
    detail = f"{len(every)} targets" + (f", {len(could_not)} of them could not be audited" if could_not else "")
    kind = Kind(TARGETS, parts, detail)
    return CompositeReport(
        ", ".join(every) if len(every) <= 3 else f"{len(every)} targets",
        kind,
        {"kind": "local"},
        [Section(p, r) for p, r in zip(parts, reports)],  # type: ignore[arg-type]
        [],
        fail_on,
        ignored_codes,
        could_not,
    )
