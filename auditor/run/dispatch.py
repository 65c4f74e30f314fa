"""Audit whatever a target is: discover its kind, audit each part as a checkpoint, combine the sections.

``audit_target`` is the entry point the CLI uses. A plain model folder still yields the single ``Report`` it
always did (with a ``kind`` block); a pipeline, a sentence-transformers model or a folder of independent files
yields a ``CompositeReport``. Adapters, LoRA files and sentence-transformers modules get their own
reconciliation (``reconciler=`` of ``audit()``); models and components the ordinary one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..core.conventions import ADAPTER_CONFIG, ADAPTER_WEIGHTS, PIPELINE_INDEX, ST_MODULES, WEIGHTLESS_CLASSES
from ..core.errors import AuditError, NotASafetensorsCheckpoint, TargetNotFound
from ..core.findings import SEVERITY_RANK, Finding, finding
from ..core.jsonio import json_object
from ..inventory.build import Inventory
from ..kinds.base import TargetKind
from ..kinds.discover import (
    ADAPTER,
    COMPONENT,
    FILE,
    FILES,
    MODEL,
    PIPELINE,
    SENTENCE_TRANSFORMERS,
    TARGETS,
    TIMM,
    Folder,
    Kind,
    Part,
    adapter,
    component,
    discover,
    for_variant,
    independent_files,
    one_checkpoint,
    pipeline,
    read_json_from,
    sentence_transformers,
    split_by_variant,
)
from ..read.checkpoint import in_subfolder
from ..read.sources.protocol import Source
from ..read.sources.view import Remembering, SourceView
from ..read.targets import resolve as resolve_target
from ..reconcile.engine import Reconciliation, reconcile
from ..report.composite import CompositeReport, Section
from ..report.single import Alternate, Report
from .audit import VARIANT_DTYPES, audit, check_options
from .options import AuditOptions

# verify's pass over a part's bytes, run around the part's audit: (the part's source, the variant it audits, its
# audit) -> its report
ContentHook = Callable[[Source, "str | None", Callable[[Source], Report]], Report]


def audit_target(
    target: str,
    options: AuditOptions | None = None,
    *,
    source: Source | None = None,
    content: ContentHook | None = None,
    **settings: Any,
) -> Report | CompositeReport:
    """Audit ``target`` as what it is (see ``auditor.kinds.discover``), under ``options`` (``AuditOptions``; the
    library may pass its fields as keywords instead: ``audit(path, fail_on="warning", base=...)``). ``source``: an
    opened source instead of the target's; ``content``: verify's pass over each part's bytes, around its audit."""
    options = (options or AuditOptions()).with_(**settings)
    fail_on, codes = check_options(options.fail_on, options.ignore)
    # a plain org/name that is not a local path and not on the Hub either: the error says both (any other Hub
    # failure is the Hub's own sentence: the target was read as a repo, and the Hub said what went wrong)
    resolved = None
    if source is None:
        resolved = resolve_target(str(target), revision=options.revision, hub=options.hub)
        source = resolved.open(token=options.token, use_cache=options.use_cache, progress=options.progress)
    ambiguous = resolved is not None and resolved.guessed
    whole = source  # the target's own source: says what reading it cost once every part is read (``finished``)
    try:
        source, kind = _discover(Remembering(source))
    except TargetNotFound as e:
        if ambiguous:
            raise TargetNotFound(f"{target}: no such file or directory, and not readable as a Hub repo: {e}") from None
        raise
    if options.variant is not None:
        kind = for_variant(kind, options.variant)
    # a folder split by variant: each part audits the variant it names (its default weights where --variant found
    # none in its folder); otherwise --variant goes to each part's own discovery
    each = replace(options, variant=None) if split_by_variant(kind) else options
    if not sectioned(kind):
        report = _audit_part(source, kind, kind.parts[0], each, content)
        alternates = tuple(
            replace(a, report=replace(a.report, target=f"{target} ({a.variant})")) for a in report.alternates
        )
        whole.finished()
        return replace(report, target=str(target), alternates=alternates, extra=_with_kind(report, kind))
    sections: list[Section] = []
    findings: list[Finding] = []
    for part in kind.parts:
        try:
            report = _audit_part(source, kind, part, each, content)
        except AuditError as e:
            findings.append(
                finding(
                    "component-missing", f"{part.name}: could not be audited: {e}", files=[part.folder or part.name]
                )
            )
            continue
        sections.append(
            Section(
                part,
                replace(
                    report,
                    ignored_files=_ignored_here(report, part, kind),
                    extra=_with_kind(report, Kind(part.kind, (part,), part.role or "")),
                ),
            )
        )
    findings += kind_of(kind.kind).manifest_findings(source, kind)
    if not kind.parts and not findings:  # a manifest (modules.json, model_index.json) and not one weight file
        raise NotASafetensorsCheckpoint(f"{target}: a {kind.label} whose parts hold no safetensors weights")
    whole.finished()
    return CompositeReport(str(target), kind, source.describe(), sections, findings, fail_on, codes)


def _discover(source: Source) -> tuple[Source, Kind]:
    """The kind of the target; a single local file is judged with its folder's manifests."""
    files = source.list_files()  # a remote source knows whether its URL names one file once it has listed
    single = source.single
    if single is not None:
        folder = source.folder()
        beside = folder.list_files()
        for candidate in KINDS.values():
            kind = candidate.recognise_file(single, beside)
            if kind is not None:
                return (Remembering(folder) if candidate.file_with_folder else source), kind
        raise NotASafetensorsCheckpoint(f"{single}: no kind of target recognises this file")  # FILE takes any
    return source, discover(files, read_json_from(source.read_small, files), KINDS.values())


def _with_kind(report: Report, kind: Kind) -> dict[str, Any]:
    """The report's ``extra`` with its ``kind`` block: what the part is, with the reconciliation's one-line detail
    (an adapter's rank and targets, a component's class)."""
    doc = kind.to_dict()
    if report.reconciliation.detail:
        doc["detail"] = report.reconciliation.detail
    doc["notes"] = list(kind.notes)
    return {**report.extra, "kind": doc}


def _audit_part(
    source: Source, kind: Kind, part: Part, options: AuditOptions, content: ContentHook | None = None
) -> Report:
    """One part: its counted weights' report, with each alternate variant (``unet (fp16)``) audited in full beside
    it; how an alternate differs from the counted weights is a finding on the alternate."""
    from ..report.variants import with_differences

    each = part.each_variant()
    # one progress line for the part: the counted weights' names the alternates read next, which read quietly
    then = tuple(str(other.variant) for other in each[1:])
    counted = _audit_variant(source, part, each, options, content, then=then)
    if len(each) == 1:
        return counted
    quiet = replace(options, progress=None)
    alternates: list[Alternate] = []
    problems: list[Finding] = []
    for other in each[1:]:
        try:
            report = _audit_variant(source, other, each, quiet, content)
        except AuditError as e:  # an alternate that cannot be audited at all fails the checkpoint it goes with
            problems.append(
                finding(
                    "component-missing", f"{other.name}: could not be audited: {e}", files=list(other.weights or ())
                )
            )
            continue
        report = replace(report, extra=_with_kind(report, Kind(other.kind, (other,), other.role or "")))
        alternates.append(Alternate(str(other.variant), with_differences(report, counted)))
    audited = {w for other in each[1:] for w in other.weights or ()}
    findings = sorted(counted.findings + problems, key=lambda f: -SEVERITY_RANK[f.severity])
    return replace(
        counted,
        alternates=tuple(alternates),
        findings=findings,
        ignored_files={n: why for n, why in counted.ignored_files.items() if n not in audited},
    )


def _audit_variant(
    source: Source,
    part: Part,
    each: tuple[Part, ...],
    options: AuditOptions,
    content: ContentHook | None = None,
    then: tuple[str, ...] = (),
) -> Report:
    """One variant of a part's weights (or the part, when it has none) through its kind's audit."""
    view = SourceView(source, part.folder, part.weights) if (part.folder or part.weights is not None) else source
    if part.variant is not None:
        options = replace(options, variant=part.variant)
    # one config.json for the main and the fp16 weights
    siblings = part.variant not in VARIANT_DTYPES and any(p.variant in VARIANT_DTYPES for p in each if p is not part)
    where = PartAt(then=then, precision_siblings=siblings)

    def audit_part(src: Source) -> Report:
        return kind_of(part.kind).audit(src, part, options, where)

    return content(view, options.variant, audit_part) if content is not None else audit_part(view)


@dataclass(frozen=True)
class PartAt:
    """What a part's audit needs beside the options, as facts of where the part is rather than settings: the
    alternate variants audited after it (named by its progress line), and whether precision variants of its weights
    sit beside it (``audit``'s ``precision_siblings``)."""

    then: tuple[str, ...] = ()
    precision_siblings: bool = False


def _audit_model(src: Source, part: Part, options: AuditOptions, where: PartAt) -> Report:
    """A transformers (or timm) model: the ordinary reconciliation, the spec chosen by its config."""
    return audit(part.name, options, source=src, then=where.then, precision_siblings=where.precision_siblings)


def _audit_file(src: Source, part: Part, options: AuditOptions, where: PartAt) -> Report:
    """A file that is not a model of its own: a LoRA file, an embedding, a module, a single-file checkpoint."""
    from ..adapters.modules import file_reconciler  # adapter code is imported only for adapter parts

    return audit(
        part.name,
        options,
        source=src,
        reconciler=file_reconciler(part),
        then=where.then,
        precision_siblings=where.precision_siblings,
    )


def _audit_component(src: Source, part: Part, options: AuditOptions, where: PartAt) -> Report:
    """A diffusers component: the ordinary reconciliation, the spec chosen by its ``_class_name``."""
    return audit(
        part.name,
        options,
        source=src,
        reconciler=_component_reconciler,
        then=where.then,
        precision_siblings=where.precision_siblings,
    )


# -- PEFT adapters --------------------------------------------------------------------------------------------


def _audit_adapter(view: Source, part: Part, options: AuditOptions, where: PartAt) -> Report:
    from ..adapters.base import resolve_base
    from ..adapters.lora import check_pairs, ranks, split  # imported only for adapter parts (start-up)
    from ..adapters.modules import ledger, unreadable
    from ..adapters.peft import check_adapter

    files = view.list_files()
    config: dict[str, Any] | None = None
    problems: list[Finding] = []
    if ADAPTER_CONFIG in files:
        try:
            config = json_object(view.read_small(ADAPTER_CONFIG), ADAPTER_CONFIG)
        except (OSError, ValueError) as e:
            problems.append(
                finding(
                    "adapter-config-missing",
                    f"{ADAPTER_CONFIG} cannot be read ({e}): PEFT cannot load this adapter",
                    files=[ADAPTER_CONFIG],
                )
            )
    weights = (part.weights or ("",))[0]
    if not weights:
        raise AuditError(f"{view.target}: {ADAPTER_CONFIG} but no {ADAPTER_WEIGHTS} (nothing to audit)")
    if config is None and not problems:
        problems.append(
            finding(
                "adapter-config-missing",
                f"{weights} holds PEFT adapter tensors but there is no "
                f"{ADAPTER_CONFIG} beside it: PeftModel.from_pretrained cannot load it (save it "
                "with save_pretrained, or write the LoraConfig used for training)",
                files=[weights],
            )
        )
    if config is not None and weights != ADAPTER_WEIGHTS:
        problems.append(
            finding(
                "adapter-weights-name",
                f"the adapter weights are in {weights}, but "
                f"PeftModel.from_pretrained looks for {ADAPTER_WEIGHTS}: rename the file",
                files=[weights],
            )
        )

    def reconciler(inventory: Inventory, beside: dict[str, Any] | None) -> Reconciliation:
        rec = Reconciliation(selects_layers=True)
        rec.findings += problems
        if unreadable(inventory):
            rec.detail = "adapter weights unreadable: see the file's finding"
            return rec
        if config is None:
            modules, other = split(inventory.tensors)
            rec.findings += check_pairs(modules, file=weights)
            rec.architecture = f"PEFT adapter without {ADAPTER_CONFIG}"
            rec.detail = f"LoRA state dict, ranks {ranks(modules) or '?'}; no {ADAPTER_CONFIG}"
            ledger(rec, inventory, {})
            return rec
        based = resolve_base(config, beside, base=options.base, token=options.token)
        check = check_adapter(config, inventory.tensors, based, weights)
        rec.findings += check.findings
        if based.note:
            rec.findings.append(finding("adapter-base-unknown", based.note))
        summary = check.summary
        rec.expected_parameters = None
        rec.architecture = f"PEFT {summary['peft_type']} adapter"
        rec.model_type = (
            based.config.get("model_type") if based.config and isinstance(based.config.get("model_type"), str) else None
        )
        rec.extra["adapter"] = summary
        rec.detail = _adapter_detail(summary)
        ledger(rec, inventory, check.categories)
        return rec

    return audit(
        part.name,
        options,
        source=view,
        reconciler=reconciler,
        then=where.then,
        precision_siblings=where.precision_siblings,
    )


def _adapter_detail(s: dict[str, Any]) -> str:
    from ..adapters.peftconfig import data as peft_data

    targets = s["target_modules"]
    what = f"{s['peft_type']}"
    if s.get("r") is not None and s["peft_type"] not in peft_data()["prompt"]:
        what += f" r={s['r']}"
    if s.get("use_dora"):
        what += " DoRA"
    if isinstance(targets, list):
        what += f" on {', '.join(targets[:6])}{' ...' if len(targets) > 6 else ''}"
    elif isinstance(targets, str):
        what += f" on /{targets}/"
    if s.get("base_model"):
        what += f" of {s['base_model']}"
    elif s.get("base_class"):
        what += f" of {s['base_class']}"
    what += f"; {s['adapter_parameters']:,} parameters"
    if s.get("share_of_base") is not None:
        what += f" = {100 * s['share_of_base']:.3f}% of the base model's {s['base_parameters']:,}"
    return what


# -- diffusers components and pipelines -----------------------------------------------------------------------


def _component_reconciler(inventory: Inventory, config: dict[str, Any] | None) -> Reconciliation:
    """The ordinary reconciliation (the spec is chosen by the config's ``_class_name``); the architecture is the
    class, and the unknown-architecture note names it (not "model_type None")."""
    rec = reconcile(inventory, config)
    cls = (config or {}).get("_class_name")
    return replace(rec, architecture=str(cls), detail=str(cls)) if cls else replace(rec, detail=None)


def _pipeline_findings(source: Source, kind: Kind) -> list[Finding]:
    """model_index.json names a component with weights, but its folder holds none."""
    audited = {p.folder for p in kind.parts}
    files = source.list_files()
    out = []
    for name, value in kind.manifest.items():
        if name.startswith("_") or not isinstance(value, list) or len(value) != 2 or value[0] is None:
            continue
        cls = str(value[1])
        if name in audited or cls.endswith(WEIGHTLESS_CLASSES):
            continue
        pickles = [f for f in files if f.startswith(f"{name}/") and f.endswith((".bin", ".ckpt", ".pt"))]
        why = f"only pickle weights ({', '.join(pickles[:2])})" if pickles else "no safetensors weights"
        out.append(
            finding(
                "component-missing",
                f"{PIPELINE_INDEX} names {name} ({cls}) but {name}/ has {why}: the "
                "pipeline cannot be loaded from safetensors",
                files=[f"{name}/"],
            )
        )
    return out


def _ignored_here(report: Report, part: Part, kind: Kind) -> dict[str, str]:
    """The part's ignored files without those another section audits, nor those in a subfolder of its own (each
    folder of a composite target is its own section)."""
    others = {
        f"{p.folder}/{w}" if p.folder else w
        for q in kind.parts
        if q is not part
        for p in q.each_variant()
        for w in (p.weights or ())
    }
    prefix = f"{part.folder}/" if part.folder else ""
    return {n: why for n, why in report.ignored_files.items() if f"{prefix}{n}" not in others and not in_subfolder(n)}


# -- the kinds of target: one class each, registered in KINDS ------------------------------------------------------


class TransformersModel(TargetKind):
    """A transformers model: a config.json with ``model_type`` (or none, with an index binding shards into one
    model); the ordinary reconciliation, the spec chosen by its config."""

    name = MODEL

    def recognise(self, folder: Folder) -> Kind | None:
        if folder.config_kind == MODEL or (
            folder.config is None and (folder.only_variants or folder.index is not None)
        ):
            return one_checkpoint(folder, MODEL)
        return None

    def recognise_file(self, single: str, beside: dict[str, int | None]) -> Kind | None:
        return Kind(MODEL, (Part(".", MODEL),)) if beside.get("config.json") is not None else None

    def audit(self, source: Source, part: Part, options: AuditOptions, where: PartAt) -> Report:
        return _audit_model(source, part, options, where)


class TimmModel(TransformersModel):
    """A timm model (``pretrained_cfg``, ``num_classes``): audited as a model."""

    name = TIMM

    def recognise(self, folder: Folder) -> Kind | None:
        return one_checkpoint(folder, TIMM) if folder.config_kind == TIMM else None

    def recognise_file(self, single: str, beside: dict[str, int | None]) -> Kind | None:
        return None


class DiffusersComponent(TargetKind):
    """A diffusers component (a config with ``_class_name``): the spec chosen by its class."""

    name = COMPONENT

    def recognise(self, folder: Folder) -> Kind | None:
        return component(folder) if folder.config_kind == COMPONENT else None

    def audit(self, source: Source, part: Part, options: AuditOptions, where: PartAt) -> Report:
        return _audit_component(source, part, options, where)


class PeftAdapter(TargetKind):
    """A PEFT adapter (``adapter_config.json``, ``adapter_model.safetensors``): checked against its config and base."""

    name = ADAPTER
    file_with_folder = True

    def recognise(self, folder: Folder) -> Kind | None:
        return adapter(folder) if ADAPTER_CONFIG in folder.top or ADAPTER_WEIGHTS in folder.top else None

    def recognise_file(self, single: str, beside: dict[str, int | None]) -> Kind | None:
        if single == ADAPTER_WEIGHTS or beside.get(ADAPTER_CONFIG) is not None:
            return Kind(ADAPTER, (Part(".", ADAPTER, "", (single,)),))
        return None

    def audit(self, source: Source, part: Part, options: AuditOptions, where: PartAt) -> Report:
        return _audit_adapter(source, part, options, where)


class DiffusersPipeline(TargetKind):
    """A diffusers pipeline (``model_index.json``): its components are its sections."""

    name = PIPELINE
    sections = True

    def recognise(self, folder: Folder) -> Kind | None:
        return pipeline(folder) if PIPELINE_INDEX in folder.top else None

    def manifest_findings(self, source: Source, kind: Kind) -> list[Finding]:
        return _pipeline_findings(source, kind)


class SentenceTransformers(TargetKind):
    """A sentence-transformers model (``modules.json``): its modules with weights are its sections."""

    name = SENTENCE_TRANSFORMERS
    sections = True

    def recognise(self, folder: Folder) -> Kind | None:
        return sentence_transformers(folder) if ST_MODULES in folder.top else None

    def manifest_findings(self, source: Source, kind: Kind) -> list[Finding]:
        """The modules disagree on the embedding width they pass along."""
        from ..adapters.modules import chain_findings

        return chain_findings(source, kind)


class SafetensorsFile(TargetKind):
    """A file that is not a model of its own: a state dict without config, a LoRA file, an embedding, a module, a
    single-file checkpoint."""

    name = FILE

    def recognise(self, folder: Folder) -> Kind | None:
        if folder.config is None and not folder.only_variants and folder.index is None and folder.one_model:
            return one_checkpoint(folder, FILE)
        return None

    def recognise_file(self, single: str, beside: dict[str, int | None]) -> Kind:
        return Kind(FILE, (Part(single, FILE),))

    def audit(self, source: Source, part: Part, options: AuditOptions, where: PartAt) -> Report:
        return _audit_file(source, part, options, where)


class SafetensorsFiles(TargetKind):
    """Several .safetensors files that nothing binds into one model: each a section of its own."""

    name = FILES
    sections = True

    def recognise(self, folder: Folder) -> Kind | None:
        return independent_files(folder) if not folder.only_variants and not folder.one_model else None


class Targets(TargetKind):
    """Several unrelated targets in one run (``report.composite.several``): never recognised in a folder."""

    name = TARGETS
    sections = True


# kind name -> its class. Discovery asks them in this order: manifests first, then what a config says, then files.
KINDS: dict[str, TargetKind] = {
    k.name: k
    for k in (
        DiffusersPipeline(),
        SentenceTransformers(),
        PeftAdapter(),
        DiffusersComponent(),
        TimmModel(),
        TransformersModel(),
        SafetensorsFile(),
        SafetensorsFiles(),
        Targets(),
    )
}


def register_kind(kind: TargetKind, *, before: str | None = None) -> None:
    """Register ``kind`` (replacing one of the same name): asked by discovery before the kind named ``before``
    (a kind with a manifest of its own goes before the ones that take any folder: ``before="diffusers-component"``),
    else last."""
    entries = [(name, k) for name, k in KINDS.items() if name != kind.name]
    at = next((i for i, (name, _) in enumerate(entries) if name == before), len(entries))
    entries.insert(at, (kind.name, kind))
    KINDS.clear()
    KINDS.update(entries)


def kind_of(name: str) -> TargetKind:
    """The class of the kind named ``name``."""
    return KINDS[name]


def sectioned(kind: Kind) -> bool:
    """Whether ``kind`` is reported as sections (pipeline, sentence-transformers model, independent files, several
    targets, or any kind with several parts) rather than as one checkpoint."""
    return kind_of(kind.kind).sections or len(kind.parts) > 1
