"""Which files make up a checkpoint, and what they say: shared by the local and Hub sources.

A source only knows how to list files with their sizes, read a small file whole, and fetch headers.
``collect`` decides which files to audit (the way transformers would pick them), reads the index and
config, and returns a ``Checkpoint``: the raw material every later stage works from.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..core.conventions import (
    INDEX_NAMES,
    LOADER_NAMES,
    MISTRAL_NATIVE,
    MISTRAL_PARAMS,
    MODELOPT_CONFIG,
    PIPELINE_INDEX,
    VARIANT_STEMS,
    main_file,
    main_index,
)
from ..core.errors import NotASafetensorsCheckpoint
from ..core.findings import Finding, finding, plural
from ..core.names import shown
from ..core.untrusted import printable
from .header import FILE, NAME, Header
from .sources.protocol import MAX_TENSORS, Source

# the names loaders look for (INDEX_NAMES, LOADER_NAMES, VARIANT_STEMS ...) are data: core/conventions.toml
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
# Weight files as save_pretrained names them, transformers' and diffusers' alike:
# <stem>[.<variant>][-<n>-of-<total>].safetensors and <stem>.safetensors.index[.<variant>].json
# (model.fp16-00001-of-00002.safetensors, diffusion_pytorch_model.safetensors.index.fp16.json)
WEIGHT_FILE = re.compile(r"^(?P<stem>[^.]+?)(?:\.(?P<variant>[A-Za-z0-9_]+))?(?:-\d{5,}-of-\d{5,})?\.safetensors$")
WEIGHT_INDEX = re.compile(r"^(?P<stem>[^.]+)\.safetensors\.index(?:\.(?P<variant>[A-Za-z0-9_]+))?\.json$")
# save_pretrained writes 5 digits (more past 99,999); DeepSeek-V3 names its 163 shards -00001-of-000163
SHARD_RE = re.compile(r"^(?P<prefix>.*?)-(?P<index>\d{5,})-of-(?P<total>\d{5,})\.safetensors$")
MAX_SMALL_FILE = 64 * 1024 * 1024  # index.json / config.json larger than this are refused, not read
# An index grows with its checkpoint (~90 bytes per tensor: 92 MB for 1,000,000 tensors in 2,000 shards), so its
# limit does too: this much more per .safetensors file listed beside it (a real index: ~50 kB per shard).
INDEX_BYTES_PER_SHARD = 1024 * 1024


@dataclass
class Checkpoint:
    """Everything read from a checkpoint: file list, headers, index, config, discovery findings."""

    target: str
    files: dict[str, int | None]
    audited: list[str]
    headers: dict[str, Header]
    index_name: str | None = None
    index: dict[str, Any] | None = None
    config: dict[str, Any] | None = None
    ignored: dict[str, str] = field(default_factory=dict)  # file -> why it was not audited
    findings: list[Finding] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def weight_map(self) -> dict[str, str] | None:
        wm = (self.index or {}).get("weight_map")
        return wm if isinstance(wm, dict) else None


def safe_relative(name: str) -> bool:
    """True for a bare relative path inside the checkpoint (no '..', no absolute or drive paths)."""
    if not name or name.startswith(("/", "\\")) or "\\" in name or re.match(r"^[A-Za-z]:", name):
        return False
    norm = posixpath.normpath(name)
    return not (norm == ".." or norm.startswith("../") or "/../" in f"/{name}/")


def small_file_limit(name: str, files: Iterable[str]) -> int:
    """The most bytes a config or index may have: an index's limit scales with the shards listed beside it."""
    if not name.endswith(".json") or ".index" not in name:
        return MAX_SMALL_FILE
    shards = sum(1 for n in files if "/" not in n and n.endswith(".safetensors"))
    return MAX_SMALL_FILE + INDEX_BYTES_PER_SHARD * shards


def _load_json(source: Source, files: dict[str, int | None], name: str) -> tuple[Any, str | None]:
    size = files.get(name)
    if size is not None and size > small_file_limit(name, files):
        return None, f"{name} is {size:,} bytes, too large to be an index or config"
    try:
        return source.read_json(name), None
    except OSError as e:
        return None, f"could not read {name}: {e.strerror or e}"
    except ValueError as e:  # UnicodeDecodeError is one
        return None, f"{name} is not valid JSON: {e}"


# Below this many index entries the second copy of the names (~20 MB at 100k) costs less than sharing it takes
# (~60 ms at 100k); above it, sharing keeps a million-tensor audit within its memory (~180 MB at 1M)
SHARE_NAMES_FROM = 200_000


def _shared_strings(weight_map: dict[str, str], headers: dict[str, Header]) -> dict[str, str]:
    """The weight_map rebuilt from strings held elsewhere: its names as the headers' own string objects (its shard
    names are the listing's already, ``_listed_shard_names``). The parsed index's ~1M name strings (~100 MB at 1M
    tensors) are then freed together, and since little made later lives among them, most of their memory goes
    back to the system. The usual index says exactly what the headers hold, and is then replaced by the same
    mapping built from the headers; otherwise it is rebuilt entry by entry. At C speed (no Python loop per tensor)."""
    stored: dict[str, str] = {}
    for header in headers.values():
        stored.update(zip(map(NAME, header.tensors), map(FILE, header.tensors)))
    if stored == weight_map:
        return stored
    names = dict(zip(stored, stored))
    return dict(zip(map(names.get, weight_map, weight_map), weight_map.values()))


def _listed_shard_names(weight_map: dict[str, str], files: dict[str, int | None]) -> None:
    """The weight_map's shard names as the listing's string objects, in place, before the headers are read: the
    index's ~1M copies are freed while the headers are read (~80 MB at 1M tensors), and the strings kept are not
    the index's (see ``_shared_strings``)."""
    listed = dict(zip(files, files))
    shards = {shard: listed.get(shard, shard) for shard in set(weight_map.values())}
    weight_map.update(zip(weight_map, map(shards.__getitem__, weight_map.values())))


def weight_file(name: str) -> tuple[str, str | None] | None:
    """``(stem, variant)`` of a file save_pretrained could have written under a loader's stem
    (``diffusion_pytorch_model.fp16-00001-of-00002.safetensors`` -> ("diffusion_pytorch_model", "fp16"),
    ``model.safetensors.index.json`` -> ("model", None)), or None for any other name."""
    m = WEIGHT_FILE.match(name) or WEIGHT_INDEX.match(name)
    return (m["stem"], m["variant"]) if m and m["stem"] in VARIANT_STEMS else None


def variant_of(name: str) -> str | None:
    """The transformers/diffusers variant a top-level weights file belongs to (``model.fp16.safetensors``,
    ``model.fp16-00001-of-00002.safetensors``, ``model.safetensors.index.fp16.json``), or None."""
    parsed = weight_file(name)
    return parsed[1] if parsed else None


def in_subfolder(name: str) -> bool:
    """A file below the checkpoint's folder: never one of its weights (``choose`` ignores it; a composite target audits
    each folder as its own section)."""
    return "/" in name


def choose(names: Iterable[str], variant: str | None = None) -> tuple[str | None, list[str], dict[str, str]]:
    """Pick the index (or the single files) to audit from a listing, as transformers would.

    Returns ``(index_name, single_files, ignored)``. With an index, its shards are decided later from
    the weight_map; without one, every top-level .safetensors file is audited together. Variant files
    (``model.fp16.safetensors``) are audited only with ``variant``, and then nothing else is.
    """
    names = sorted(names)
    ignored: dict[str, str] = {}
    variants = {n: variant_of(n) for n in names if "/" not in n}
    present = sorted({v for v in variants.values() if v})
    if variant is not None and variant not in present:
        raise NotASafetensorsCheckpoint(
            f"no files of variant {variant!r} ({main_file(variant)} or {main_index(variant)})"
            + (f"; variants present: {', '.join(present)}" if present else "; there are no variant files")
        )
    for n, v in variants.items():
        if (
            v != variant
            and (v is not None or variant is not None)
            and n.endswith((".safetensors", ".json"))
            and (v is not None or ".safetensors" in n)
        ):
            ignored[n] = f"variant {v!r} (audit it with --variant {v})" if v else f"not variant {variant!r}"
    top = [n for n in names if "/" not in n and n not in ignored]
    safetensors = [n for n in top if n.endswith(".safetensors")]
    indexes = [n for n in top if n.endswith(".safetensors.index.json") or WEIGHT_INDEX.match(n)]
    for n in names:
        if in_subfolder(n) and n.endswith(".safetensors"):
            ignored[n] = "in a subfolder (audit that folder on its own)"
    main = main_file(variant)
    if main in safetensors:
        # transformers and huggingface_hub both try model.safetensors before any index
        for other in safetensors:
            if other != main:
                ignored[other] = f"not loaded: {main} takes precedence"
        for idx in indexes:
            ignored[idx] = f"not loaded: {main} takes precedence"
        return None, [main], ignored
    preferred = [i for i in INDEX_NAMES if i in indexes] + [i for i in indexes if i not in INDEX_NAMES]
    if preferred:
        for idx in preferred[1:]:
            ignored[idx] = f"another index; {preferred[0]} was audited"
        return preferred[0], [], ignored
    if not safetensors and present and variant is None:
        raise NotASafetensorsCheckpoint(
            f"only variant weights are present ({', '.join(present)}): pass --variant {present[0]} to audit them"
        )
    return None, safetensors, ignored


# a parent folder is walked this far for the model folders below it (a home directory is not walked whole)
MAX_FOLDERS_WALKED = 5_000


def _folders_below(source: Source) -> str:
    """For a local folder that is no checkpoint itself: how many model folders are below it, and the --recursive that
    audits them (`st-audit audit runs/` meant as `--recursive`); "" when there are none or it is not a folder."""
    if source.root is None or source.single is not None or source.prefix:
        return ""
    from .walk import local_listdir, model_folders

    found = list(model_folders(source.target, local_listdir, MAX_FOLDERS_WALKED))
    if not found:
        return ""
    what = f"{plural(len(found), 'model folder')} {'is' if len(found) == 1 else 'are'} below it"
    return (
        f"; {what} ({printable(shown(found, 3))}): `st-audit audit --recursive {printable(source.target)}` audits "
        f"{'it' if len(found) == 1 else 'each'}"
    )


def collect(
    source: Source,
    progress: Callable[[str], None] | None = None,
    *,
    variant: str | None = None,
    use_config: bool = True,
    then: tuple[str, ...] = (),
) -> Checkpoint:
    """Read a checkpoint's index, config and headers from ``source`` and note discovery problems. ``then``: the
    variants whose headers are read next, silently (a component's fp16 weights): the one progress line says so."""
    files = source.list_files()
    index_name, singles, ignored = choose(files, variant)
    findings: list[Finding] = []
    index: dict[str, Any] | None = None
    tensor_counts: dict[str, int] = {}
    if index_name is not None:
        doc, error = _load_json(source, files, index_name)
        if error is None and not (
            isinstance(doc, dict)
            and isinstance(doc.get("weight_map"), dict)
            and set(map(type, doc["weight_map"].values())) <= {str}
        ):
            error = f"{index_name} has no weight_map object mapping tensor names to file names"
        if error is not None:
            findings.append(finding("index-invalid", error, files=[index_name]))
            audited = sorted(n for n in files if "/" not in n and n.endswith(".safetensors"))
        else:
            index = doc
            if len(doc["weight_map"]) >= SHARE_NAMES_FROM:
                _listed_shard_names(doc["weight_map"], files)
            audited = _plan_shards(index_name, doc, files, findings, ignored)
            tensor_counts = Counter(doc["weight_map"].values())  # sizes each shard's first Hub range
    else:
        audited = singles
    if not audited and index is None:
        pickles = sorted(n for n in files if n.endswith(PICKLE_SUFFIXES))
        if pickles:
            raise NotASafetensorsCheckpoint(
                f"{source.target} has no safetensors weights, only {', '.join(pickles[:4])}"
                f"{' ...' if len(pickles) > 4 else ''}: pickle files can run code when loaded; "
                "ask for a safetensors export, or scan them with picklescan/fickling before use"
            )
        raise NotASafetensorsCheckpoint(
            f"{source.target} contains no .safetensors file or safetensors index" + _folders_below(source)
        )
    for n in sorted(files):
        if n.endswith(PICKLE_SUFFIXES) and "/" not in n:
            ignored.setdefault(
                n, "pickle weights, not audited (can run code when loaded; prefer the safetensors files)"
            )
    if progress:
        after = f" (then {'variant' if len(then) == 1 else 'variants'} {', '.join(then)})" if then else ""
        progress(f"reading {plural(len(audited), 'header')} from {printable(source.target)}{printable(after)}")
    budget = MAX_TENSORS + (len(index["weight_map"]) if index is not None else 0)
    headers = source.read_headers(audited, {n: files.get(n) for n in audited}, tensor_counts, budget)
    for name in audited:
        if name not in headers:
            headers[name] = Header(name)
            headers[name].fail(
                "tensor-limit",
                f"not read: the files before it already hold over {budget:,} "
                f"tensors, {MAX_TENSORS:,} more than the index names (a crafted repo?)",
            )
    if index is not None and len(index["weight_map"]) >= SHARE_NAMES_FROM:
        index["weight_map"] = _shared_strings(index["weight_map"], headers)
    config = None
    if "config.json" in files and use_config:
        doc, error = _load_json(source, files, "config.json")
        if error is None and isinstance(doc, dict):
            config = doc
        else:
            findings.append(
                finding(
                    "config-invalid",
                    f"{error or 'config.json is not a JSON object'}: the "
                    "architecture could not be checked; fix or re-download config.json",
                    files=["config.json"],
                )
            )
    if config is not None and "quantization_config" not in config and MODELOPT_CONFIG in files:
        # NVIDIA ModelOpt writes its quantization settings to a side file; read as the config's own
        doc, _ = _load_json(source, files, MODELOPT_CONFIG)
        if isinstance(doc, dict) and isinstance(doc.get("quantization"), dict):
            config = {**config, "quantization_config": {"quant_method": "modelopt", **doc["quantization"]}}
    _check_shard_names(audited, findings)
    if (
        index is None
        and index_name is None
        and len(audited) > 1
        and PIPELINE_INDEX not in files
        and not any(posixpath.basename(n) in LOADER_NAMES or SHARD_RE.match(posixpath.basename(n)) for n in audited)
    ):
        findings.append(
            finding(
                "loose-files",
                f"no loader would use these {plural(len(audited), 'file')} as one "
                f"checkpoint ({', '.join(audited[:4])}{' ...' if len(audited) > 4 else ''}): none "
                f"has a name loaders look for ({LOADER_NAMES[0]}, an index, "
                f"{', '.join(LOADER_NAMES[1:3])}) and no index ties them together; they were "
                "audited as one set: audit each file on its own if they are separate",
                files=audited,
            )
        )
    return Checkpoint(
        source.target, files, audited, headers, index_name, index, config, ignored, findings, source.describe()
    )


def _plan_shards(
    index_name: str,
    index: dict[str, Any],
    files: dict[str, int | None],
    findings: list[Finding],
    ignored: dict[str, str],
) -> list[str]:
    """The shards named by the weight_map that are safe and present; the rest become findings."""
    base = posixpath.dirname(index_name)
    weight_map = index["weight_map"]
    shards = sorted(set(weight_map.values()))
    paths = {shard: posixpath.join(base, shard) if base else shard for shard in shards}
    bad = {shard for shard, path in paths.items() if not safe_relative(shard) or path not in files}
    by_shard: dict[str, list[str]] = {}  # the tensors of shards that will not be read, for the findings
    if bad:
        for tensor, shard in weight_map.items():
            if shard in bad:
                by_shard.setdefault(shard, []).append(tensor)
    audited = []
    for shard, path in paths.items():
        tensors = by_shard.get(shard, [])
        if not safe_relative(shard):
            findings.append(
                finding(
                    "index-path-unsafe",
                    f"{index_name} maps {plural(len(tensors), 'tensor')} to "
                    f"{shard!r}, a path outside the checkpoint; it was not opened",
                    tensors=tensors,
                    files=[index_name],
                )
            )
        elif path not in files:
            findings.append(
                finding(
                    "index-shard-missing",
                    f"{index_name} maps {plural(len(tensors), 'tensor')} to "
                    f"{shard}, which does not exist (interrupted download?)",
                    tensors=tensors,
                    files=[shard],
                )
            )
        else:
            audited.append(path)
    referenced = set(audited)
    stray = sorted(
        n for n in files if n.endswith(".safetensors") and "/" not in n and n not in referenced and n not in ignored
    )
    if MISTRAL_PARAMS in files:  # Mistral ships its native format beside the HF shards: a normal layout
        native = [n for n in stray if MISTRAL_NATIVE.match(n)]
        for n in native:
            ignored[n] = (
                f"Mistral's native format (with {MISTRAL_PARAMS}, for mistral-inference and vLLM); "
                "transformers loads the indexed shards"
            )
        stray = [n for n in stray if n not in native]
    for n in stray:
        ignored[n] = f"not referenced by {index_name}"
    if stray:
        findings.append(
            finding(
                "shard-unreferenced",
                f"{plural(len(stray), 'safetensors file')} in the checkpoint "
                f"{'is' if len(stray) == 1 else 'are'} not referenced by {index_name}: "
                f"{', '.join(stray[:5])}{' ...' if len(stray) > 5 else ''}",
                files=stray,
            )
        )
    if "metadata" not in index:
        findings.append(
            finding(
                "index-metadata-missing",
                f'{index_name} has no "metadata" object (transformers\' get_checkpoint_shard_files reads it)',
                files=[index_name],
            )
        )
    return audited


def numbered_shards(names: Iterable[str]) -> dict[tuple[str, str], dict[int, str]]:
    """``<prefix>-00003-of-00005.safetensors`` files (by base name), per (prefix, promised total as written):
    number -> name."""
    sets: dict[tuple[str, str], dict[int, str]] = {}
    for name in names:
        m = SHARD_RE.match(posixpath.basename(name))
        if m:
            sets.setdefault((m["prefix"], m["total"]), {})[int(m["index"])] = name
    return sets


def promised_numbers(total: int, present: Iterable[int]) -> set[int]:
    """The numbers a set of ``-of-<total>`` names promises: 1..N as save_pretrained numbers them; some exporters
    number from 0: 0..N (gpt-oss) or 0..N-1 (MiniMax-M1's 413 shards, model-00000-of-00413 to -00412-of-00413),
    told apart by whether N itself is there."""
    present = set(present)
    if 0 not in present:
        return set(range(1, total + 1))
    return set(range(0, total + 1)) if total in present else set(range(0, total))


def _check_shard_names(audited: list[str], findings: list[Finding]) -> None:
    """``-00003-of-00005`` names promise a shard count; say when the files disagree."""
    for (prefix, total_text), numbered in sorted(numbered_shards(audited).items()):
        present = set(numbered)
        expected = promised_numbers(int(total_text), present)
        missing = sorted(expected - present)
        if missing or present - expected:
            match = SHARD_RE.match(posixpath.basename(next(iter(numbered.values()))))
            width = len(match["index"]) if match else 5
            names = [f"{prefix}-{i:0{width}d}-of-{total_text}.safetensors" for i in missing]
            shown = ", ".join(names[:5])
            findings.append(
                finding(
                    "shard-count-mismatch",
                    f"shard names promise {len(expected)} '{prefix}' shards "
                    f"but {len(present)} are audited" + (f"; missing {shown}" if missing else ""),
                    files=names,
                    expected=len(expected),
                    actual=len(present),
                )
            )
