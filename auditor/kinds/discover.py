"""What a target is, decided before it is audited: the "kind" discovery stage.

Most safetensors folders people publish are not one bare causal LM: a PEFT adapter (``adapter_config.json``),
a diffusers pipeline (``model_index.json`` naming component folders), a diffusers component (a config with
``_class_name``), a sentence-transformers model (``modules.json``), a timm model (``pretrained_cfg``), or a
folder of independent files (three alternative LoRAs, ``cnn.safetensors`` + ``mlp.safetensors``). Each is
audited as what it is: ``discover`` asks each registered kind (``kinds.base.TargetKind``, registered in
``run.dispatch.KINDS``) in turn to recognise the folder, and the first that does returns the kind and the parts to
audit, one section each (from the helpers here: ``pipeline``, ``adapter``, ``one_checkpoint`` ...); the ordinary
checkpoint discovery (``checkpoint.collect``) then runs on each part through a ``SourceView``.

Only file names and the small JSON manifests are read here (never a safetensors header).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Protocol

from ..core.conventions import (
    ADAPTER_CONFIG,
    ADAPTER_WEIGHTS,
    KIND_LABELS,
    PIPELINE_INDEX,
    ST_MODULES,
    main_file,
)
from ..core.errors import NotASafetensorsCheckpoint
from ..read.checkpoint import MAX_SMALL_FILE, choose, weight_file

# The kinds discovery names parts by. Each is one class registered in ``run.dispatch.KINDS`` (its discovery, its
# parts, how it is audited, its manifest findings); how a report's first line names it and the manifests that make
# it are data (core/conventions.toml).
MODEL = "transformers-model"
ADAPTER = "peft-adapter"
PIPELINE = "diffusers-pipeline"
COMPONENT = "diffusers-component"
SENTENCE_TRANSFORMERS = "sentence-transformers"
TIMM = "timm-model"
FILES = "safetensors-files"
FILE = "safetensors-file"
TARGETS = "targets"  # several targets in one run (``report.composite.several``): never discovered in a folder


@dataclass(frozen=True)
class Part:
    """One thing to audit as a checkpoint of its own: a folder, optionally restricted to some weight files."""

    name: str  # section title: "unet", "2_Dense", "cnn.safetensors"; "unet (fp16)" (an alternate)
    kind: str  # a KIND_LABELS key
    folder: str = ""  # folder inside the target ("" = its root)
    weights: tuple[str, ...] | None = None  # weight/index files of that folder to audit (None: as a loader picks)
    role: str | None = None  # e.g. "Dense" (sentence-transformers module), "UNet2DConditionModel"
    config: dict[str, Any] | None = None  # the part's manifest (Dense config, diffusers config), when read
    variant: str | None = None  # the weights' variant ("fp16", "non_ema"): audited as --variant would
    # the other variants of the same weights in this folder (``unet (fp16)`` beside ``unet``): each audited in
    # full, none counted (``_variant_parts``)
    alternates: tuple[Part, ...] = ()

    def each_variant(self) -> tuple[Part, ...]:
        """The part and its alternates, the counted one first."""
        return (replace(self, alternates=()), *self.alternates) if self.alternates else (self,)


@dataclass(frozen=True)
class Kind:
    """What the target is, the parts audited as sections, and facts for the report's first line."""

    kind: str
    parts: tuple[Part, ...]
    detail: str = ""  # "StableDiffusionPipeline: unet, vae, text_encoder (+ 2 without weights)"
    notes: tuple[str, ...] = ()  # things worth saying that are not findings
    manifest: dict[str, Any] = field(default_factory=dict)  # adapter_config / model_index / modules.json

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)

    @property
    def of_targets(self) -> bool:
        """Several unrelated targets audited in one run, rather than the parts of one model."""
        return self.kind == TARGETS

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "kind": self.kind,
            "label": self.label,
            "detail": self.detail or None,
            "sections": [p.name for p in self.parts],
        }
        if len(self.parts) == 1 and self.parts[0].variant is not None:
            doc["variant"] = self.parts[0].variant  # the weights audited are this variant's (model.fp16...)
        return doc


ReadJson = Callable[[str], Any]


class Folder:
    """What discovery sees of a folder: its listing (relative posix paths; subfolders included) and its small JSON
    files, each read only when a kind asks (``config``)."""

    def __init__(self, files: dict[str, int | None], read_json: ReadJson) -> None:
        self.files = files
        self.read_json = read_json
        self.top = {n for n in files if "/" not in n}

    def json(self, name: str) -> Any:
        """The JSON file ``name``, or None when it cannot be read or parsed."""
        return _json_or_none(self.read_json, name)

    @cached_property
    def config(self) -> Any:
        """The folder's ``config.json`` (None: none, or unreadable)."""
        return self.json("config.json") if "config.json" in self.top else None

    @cached_property
    def config_kind(self) -> str | None:
        """The kind its ``config.json`` describes (``classify_config``); None without one."""
        return classify_config(self.config) if self.config is not None else None

    @cached_property
    def index(self) -> str | None:
        """The index a loader would use (None: single files, or only variant files: ``only_variants``)."""
        try:
            return choose(self.files)[0]
        except NotASafetensorsCheckpoint:
            return None

    @cached_property
    def only_variants(self) -> bool:
        """Only variant weights (``model.fp16.safetensors``): no default weights a loader picks without ``variant=``."""
        try:
            choose(self.files)
        except NotASafetensorsCheckpoint:
            return True
        return False

    @cached_property
    def one_model(self) -> bool:
        """Something binds its files into one model: a config, an index, ``model.safetensors``, or one file alone."""
        safetensors = [n for n in self.top if n.endswith(".safetensors")]
        return self.config is not None or self.index is not None or main_file() in self.top or len(safetensors) <= 1


class Recogniser(Protocol):
    """A kind's discovery (``kinds.base.TargetKind.recognise``)."""

    def recognise(self, folder: Folder) -> Kind | None: ...


def discover(files: dict[str, int | None], read_json: ReadJson, kinds: Iterable[Recogniser]) -> Kind:
    """The kind of the folder whose listing is ``files``: the first of ``kinds`` (the registry, in order) that
    recognises it."""
    folder = Folder(files, read_json)
    for candidate in kinds:
        kind = candidate.recognise(folder)
        if kind is not None:
            return kind
    raise NotASafetensorsCheckpoint("no kind of target recognises this folder")  # the last kinds take any folder


def split_by_variant(kind: Kind) -> bool:
    """Whether some part's weights were chosen by variant (``unet`` + ``unet (fp16)``, a folder of only
    ``model.fp16.safetensors``): each part then says which variant it audits."""
    return any(p.variant for part in kind.parts for p in part.each_variant())


def for_variant(kind: Kind, variant: str) -> Kind:
    """The parts ``--variant`` asks for: in each folder its files of that variant, with no alternates, or its
    default weights where it has none (as diffusers' ``from_pretrained(variant=)`` falls back); a folder never
    split by variant is kept as it is (its own discovery applies ``--variant``)."""
    present = sorted({p.variant for part in kind.parts for p in part.each_variant() if p.variant})
    if not present:
        return kind
    if variant not in present:
        raise NotASafetensorsCheckpoint(f"no files of variant {variant!r}; variants present: {', '.join(present)}")
    parts = []
    for part in kind.parts:
        chosen = [p for p in part.each_variant() if p.variant == variant] or [
            p for p in part.each_variant() if p.variant is None
        ]
        parts += [replace(chosen[0], name=part.name)] if chosen else []
    return replace(kind, parts=tuple(parts))


def _json_or_none(read_json: ReadJson, name: str) -> Any:
    try:
        return read_json(name)
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def classify_config(config: Any) -> str:
    """The kind a ``config.json`` describes (transformers, diffusers component, timm)."""
    if isinstance(config, dict):
        if "_class_name" in config and "model_type" not in config:
            return COMPONENT
        if (
            "model_type" not in config
            and ("pretrained_cfg" in config or "architecture" in config)
            and "num_classes" in config
        ):
            return TIMM
    return MODEL


def variants(folder_files: list[str]) -> dict[str | None, list[str]]:
    """Weight/index files of one folder grouped by variant (None: the default, else "fp16", "non_ema", ...)."""
    groups: dict[str | None, list[str]] = {}
    for name in sorted(folder_files):
        parsed = weight_file(name)
        if parsed is not None:
            groups.setdefault(parsed[1], []).append(name)
    return groups


def one_checkpoint(folder: Folder, kind: str) -> Kind:
    """One model (config, index or ``model.safetensors``) or one file: the default weights as a loader picks them,
    ``model.fp16.safetensors`` beside them an alternate; a folder of variants only audits each variant."""
    config = folder.config
    detail = _config_detail(config) if isinstance(config, dict) else ""
    if folder.only_variants:  # only variant files (model.fp16.safetensors): each variant is audited
        groups = variants(list(folder.top))
        return Kind(kind, _variant_parts(groups, kind, "", "."), detail, _only_variants_note(groups))
    others: dict[str | None, list[str]] = {v: names for v, names in variants(list(folder.top)).items() if v is not None}
    alternates = _variant_parts(others, kind, "", ".", alone=False)
    return Kind(kind, (Part(".", kind, alternates=alternates),), detail)


def independent_files(folder: Folder) -> Kind:
    """Several .safetensors files, nothing that binds them into one model: each stands alone."""
    parts = tuple(Part(n, FILE, "", (n,)) for n in sorted(n for n in folder.top if n.endswith(".safetensors")))
    return Kind(
        FILES,
        parts,
        f"{len(parts)} files, no index, no {main_file()}, no manifest",
        (f"audited file by file: nothing (index, {main_file()}, manifest) makes them one model",),
    )


def _config_detail(config: dict[str, Any]) -> str:
    if "_class_name" in config:
        return str(config["_class_name"])
    archs = config.get("architectures")
    arch = archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else None
    model_type = config.get("model_type") if isinstance(config.get("model_type"), str) else None
    if model_type is None and isinstance(config.get("architecture"), str):
        return config["architecture"]
    return " / ".join(x for x in (model_type, arch) if x)


def component(folder: Folder) -> Kind:
    """A diffusers component on its own (a config with ``_class_name``): its weights, by variant."""
    config = folder.config
    groups = variants(list(folder.top))
    role = str(config.get("_class_name"))
    parts = _variant_parts(groups, COMPONENT, "", ".", role, config) or (
        Part(".", COMPONENT, role=role, config=config),
    )
    return Kind(COMPONENT, parts, role, _only_variants_note(groups))


def _variant_parts(
    groups: dict[str | None, list[str]],
    kind: str,
    folder: str,
    name: str,
    role: str | None = None,
    config: dict[str, Any] | None = None,
    *,
    alone: bool = True,
) -> tuple[Part, ...]:
    """A folder's weights as one part (none without weights): the counted variant named as the folder (``unet``),
    the others its alternates (``unet (fp16)``). The default weights count, as a loader without ``variant=``
    loads them; a folder of variants only counts the first by name (its note says which). ``alone=False``: the
    alternates alone, one part per variant (beside weights a loader picks by its own rules)."""
    ordered = [
        Part(name if v is None else f"{name} ({v})", kind, folder, tuple(names), role, config, v)
        for v, names in sorted(groups.items(), key=lambda kv: (kv[0] is not None, kv[0] or ""))
    ]
    if not alone:
        return tuple(ordered)
    if not ordered:
        return ()
    return (replace(ordered[0], name=name, alternates=tuple(ordered[1:])),)


def _only_variants_note(groups: dict[str | None, list[str]]) -> tuple[str, ...]:
    """A folder without default weights (only ``model.fp16.safetensors`` or a sharded fp16 set): loaders need
    ``variant=``, so the report says which variant was audited."""
    if not groups or None in groups:
        return ()
    shown = ", ".join(sorted(v for v in groups if v))
    return (
        f"only variant weights are present ({shown}): audited as --variant would; loading needs "
        f"variant={sorted(v for v in groups if v)[0]!r}",
    )


def adapter(folder: Folder) -> Kind:
    """A PEFT adapter: its weights (another .safetensors file beside them is a section of its own)."""
    files, top = folder.files, folder.top
    weights = tuple(n for n in sorted(top) if n.endswith(".safetensors"))
    main = ADAPTER_WEIGHTS if ADAPTER_WEIGHTS in top else None
    if main is None and weights:
        main = weights[0] if len(weights) == 1 else (main_file() if main_file() in top else None)
    parts = [Part(".", ADAPTER, "", (main,) if main else ())]
    for other in weights:
        if other != main:  # e.g. a diffusers-format copy beside the PEFT file: its own section
            parts.append(Part(other, FILE, "", (other,)))
    notes = tuple(
        f"{d}/ holds another adapter (audit it on its own or use --recursive)"
        for d in sorted({n.split("/")[0] for n in files if n.endswith(f"/{ADAPTER_CONFIG}")})
    )
    return Kind(ADAPTER, tuple(parts), notes=notes)


def pipeline(root: Folder) -> Kind:
    """A diffusers pipeline: each component folder of ``model_index.json`` with weights is a part."""
    files, read_json = root.files, root.read_json
    index = _json_or_none(read_json, PIPELINE_INDEX)
    index = index if isinstance(index, dict) else {}
    named = {k: v for k, v in index.items() if not k.startswith("_") and isinstance(v, list) and len(v) == 2}
    folders = sorted({n.split("/")[0] for n in files if "/" in n})
    parts: list[Part] = []
    without: list[str] = []
    for folder in sorted(set(named) | set(folders)):
        in_folder = [n.split("/", 1)[1] for n in files if n.startswith(folder + "/") and n.count("/") == 1]
        groups = variants(in_folder)
        library, cls = (named[folder] + [None, None])[:2] if folder in named else (None, None)
        if not groups:
            if folder in named and library is not None:
                without.append(folder)
            continue
        config_name = f"{folder}/config.json"
        config = _json_or_none(read_json, config_name) if config_name in files else None
        kind = classify_config(config) if config is not None else MODEL
        role = (
            cls
            if isinstance(cls, str)
            else (str(config.get("_class_name")) if isinstance(config, dict) and "_class_name" in config else None)
        )
        parts += _variant_parts(groups, kind, folder, folder, role, config if isinstance(config, dict) else None)
    for name in sorted(n for n in files if "/" not in n and n.endswith(".safetensors")):
        parts.append(Part(name, FILE, "", (name,), "single-file checkpoint beside the pipeline"))
    components = sorted({p.folder for p in parts if p.folder})
    detail = f"{index.get('_class_name', 'pipeline')}: {', '.join(components) or 'no component with weights'}"
    if without:
        detail += f" (+ {', '.join(without)} without weights)"
    notes = tuple(f"{f}/ is not named in {PIPELINE_INDEX}" for f in components if f not in named)
    return Kind(PIPELINE, tuple(parts), detail, notes, index)


def sentence_transformers(folder: Folder) -> Kind | None:
    """A sentence-transformers model: each module of ``modules.json`` with weights is a part (None: the manifest is
    not a list of modules, and the folder is something else)."""
    files, read_json = folder.files, folder.read_json
    modules = _json_or_none(read_json, ST_MODULES)
    if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
        return None
    parts: list[Part] = []
    names: list[str] = []
    for m in modules:
        path = str(m.get("path") or "").strip("/")
        role = str(m.get("type", "?")).rsplit(".", 1)[-1]
        names.append(role)
        prefix = f"{path}/" if path else ""
        here = {n[len(prefix) :] for n in files if n.startswith(prefix) and "/" not in n[len(prefix) :]}
        weights = sorted(n for n in here if n.endswith(".safetensors") or ".safetensors.index" in n)
        if not weights:
            continue
        config_name = f"{prefix}config.json"
        config = _json_or_none(read_json, config_name) if config_name in files else None
        if role == "Transformer" or (isinstance(config, dict) and "model_type" in config):
            index, singles, _ = choose(here)
            chosen = tuple([index] if index else singles)
            parts.append(Part(path or ".", MODEL, path, chosen, role, config if isinstance(config, dict) else None))
        else:
            parts.append(Part(path, FILE, path, tuple(weights), role, config if isinstance(config, dict) else None))
    return Kind(SENTENCE_TRANSFORMERS, tuple(parts), " -> ".join(names), manifest={"modules": modules})


def read_json_from(read_small: Callable[[str], bytes], sizes: dict[str, int | None]) -> ReadJson:
    """A ``read_json`` for ``discover`` that refuses oversized manifests."""

    def read(name: str) -> Any:
        size = sizes.get(name)
        if size is not None and size > MAX_SMALL_FILE:
            raise ValueError(f"{name} is too large to be a manifest")
        return json.loads(read_small(name).decode("utf-8"))

    return read
