"""Which files make up a checkpoint, and what they say: shared by the local and Hub sources.

A source only knows how to list files with their sizes, read a small file whole, and fetch headers.
``collect`` decides which files to audit (the way transformers would pick them), reads the index and
config, and returns a ``Checkpoint``: the raw material every later stage works from.
"""

from __future__ import annotations

import json
from collections import Counter
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .errors import NotASafetensorsCheckpoint
from .findings import Finding, finding, plural
from .header import Header

INDEX_NAMES = ("model.safetensors.index.json", "consolidated.safetensors.index.json",
               "diffusion_pytorch_model.safetensors.index.json")
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
SHARD_RE = re.compile(r"^(?P<prefix>.*?)-(?P<index>\d{5})-of-(?P<total>\d{5})\.safetensors$")
MAX_SMALL_FILE = 64 * 1024 * 1024  # index.json / config.json larger than this are refused, not read
# The largest real checkpoints hold ~150k tensors; past this many, headers stop being read (memory stays bounded
# even for a crafted repo of many 100 MB headers).
MAX_TENSORS = 2_000_000


class Source(Protocol):
    """Where a checkpoint's bytes come from (a local directory or a Hub repo)."""

    target: str

    def list_files(self) -> dict[str, int | None]:
        """Every file of the checkpoint (posix path relative to its root) with its size in bytes."""

    def read_small(self, name: str) -> bytes:
        """The whole content of a small file (index, config); raises OSError when it cannot be read."""

    def read_headers(self, names: list[str], sizes: dict[str, int | None], tensor_counts: dict[str, int],
                     max_tensors: int = MAX_TENSORS) -> dict[str, Header]:
        """Parsed headers of the given safetensors files (``tensor_counts``: hints from the index).

        Stops reading further files once ``max_tensors`` tensors have been parsed; those are left out.
        """

    def describe(self) -> dict[str, Any]:
        """The ``source`` object of the JSON report."""


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


def _load_json(source: Source, files: dict[str, int | None], name: str) -> tuple[Any, str | None]:
    size = files.get(name)
    if size is not None and size > MAX_SMALL_FILE:
        return None, f"{name} is {size:,} bytes, too large to be an index or config"
    try:
        raw = source.read_small(name)
    except OSError as e:
        return None, f"could not read {name}: {e}"
    try:
        return json.loads(raw.decode("utf-8")), None
    except (UnicodeDecodeError, ValueError) as e:
        return None, f"{name} is not valid JSON: {e}"


def choose(names: Iterable[str]) -> tuple[str | None, list[str], dict[str, str]]:
    """Pick the index (or the single files) to audit from a listing, as transformers would.

    Returns ``(index_name, single_files, ignored)``. With an index, its shards are decided later from
    the weight_map; without one, every top-level .safetensors file is audited together.
    """
    names = sorted(names)
    top = [n for n in names if "/" not in n]
    safetensors = [n for n in top if n.endswith(".safetensors")]
    indexes = [n for n in top if n.endswith(".safetensors.index.json") or re.match(r"^model\.safetensors\.index\.[^.]+\.json$", n)]
    ignored: dict[str, str] = {}
    for n in names:
        if "/" in n and n.endswith(".safetensors"):
            ignored[n] = "in a subfolder (audit that folder on its own)"
    if "model.safetensors" in safetensors:
        # transformers and huggingface_hub both try model.safetensors before any index
        for other in safetensors:
            if other != "model.safetensors":
                ignored[other] = "not loaded: model.safetensors takes precedence"
        for idx in indexes:
            ignored[idx] = "not loaded: model.safetensors takes precedence"
        return None, ["model.safetensors"], ignored
    preferred = [i for i in INDEX_NAMES if i in indexes] + [i for i in indexes if i not in INDEX_NAMES]
    if preferred:
        for idx in preferred[1:]:
            ignored[idx] = f"another index; {preferred[0]} was audited"
        return preferred[0], [], ignored
    return None, safetensors, ignored


def collect(source: Source, progress: Callable[[str], None] | None = None) -> Checkpoint:
    """Read a checkpoint's index, config and headers from ``source`` and note discovery problems."""
    files = source.list_files()
    index_name, singles, ignored = choose(files)
    findings: list[Finding] = []
    index: dict[str, Any] | None = None
    tensor_counts: dict[str, int] = {}
    if index_name is not None:
        doc, error = _load_json(source, files, index_name)
        if error is None and not (isinstance(doc, dict) and isinstance(doc.get("weight_map"), dict)
                                  and all(isinstance(v, str) for v in doc["weight_map"].values())):
            error = f"{index_name} has no weight_map object mapping tensor names to file names"
        if error is not None:
            findings.append(finding("index-invalid", error, files=[index_name]))
            audited = sorted(n for n in files if "/" not in n and n.endswith(".safetensors"))
        else:
            index = doc
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
                "ask for a safetensors export, or scan them with picklescan/fickling before use")
        raise NotASafetensorsCheckpoint(f"{source.target} contains no .safetensors file or safetensors index")
    for n in sorted(files):
        if n.endswith(PICKLE_SUFFIXES) and "/" not in n:
            ignored.setdefault(n, "pickle weights, not audited (can run code when loaded; prefer the safetensors files)")
    if progress:
        progress(f"reading {plural(len(audited), 'header')} from {source.target}")
    headers = source.read_headers(audited, {n: files.get(n) for n in audited}, tensor_counts, MAX_TENSORS)
    for name in audited:
        if name not in headers:
            headers[name] = Header(name)
            headers[name].fail("tensor-limit", f"not read: the files before it already hold over {MAX_TENSORS:,} "
                               "tensors, more than any real checkpoint (a crafted repo?)")
    config = None
    if "config.json" in files:
        doc, error = _load_json(source, files, "config.json")
        if error is None and isinstance(doc, dict):
            config = doc
        else:
            findings.append(finding("config-mismatch", error or "config.json is not a JSON object",
                                    files=["config.json"]))
    if config is not None and "quantization_config" not in config and "hf_quant_config.json" in files:
        # NVIDIA ModelOpt writes its quantization settings to a side file; read as the config's own
        doc, _ = _load_json(source, files, "hf_quant_config.json")
        if isinstance(doc, dict) and isinstance(doc.get("quantization"), dict):
            config = {**config, "quantization_config": {"quant_method": "modelopt", **doc["quantization"]}}
    _check_shard_names(audited, findings)
    return Checkpoint(source.target, files, audited, headers, index_name, index, config, ignored, findings,
                      source.describe())


def _plan_shards(index_name: str, index: dict[str, Any], files: dict[str, int | None],
                 findings: list[Finding], ignored: dict[str, str]) -> list[str]:
    """The shards named by the weight_map that are safe and present; the rest become findings."""
    base = posixpath.dirname(index_name)
    by_shard: dict[str, list[str]] = {}
    for tensor, shard in index["weight_map"].items():
        by_shard.setdefault(shard, []).append(tensor)
    audited = []
    for shard, tensors in sorted(by_shard.items()):
        path = posixpath.join(base, shard) if base else shard
        if not safe_relative(shard):
            findings.append(finding("index-path-unsafe", f"{index_name} maps {plural(len(tensors), 'tensor')} to "
                                    f"{shard!r}, a path outside the checkpoint; it was not opened",
                                    tensors=tensors, files=[index_name]))
        elif path not in files:
            findings.append(finding("index-shard-missing", f"{index_name} maps {plural(len(tensors), 'tensor')} to "
                                    f"{shard}, which does not exist (interrupted download?)",
                                    tensors=tensors, files=[shard]))
        else:
            audited.append(path)
    referenced = set(audited)
    stray = sorted(n for n in files if n.endswith(".safetensors") and "/" not in n and n not in referenced)
    for n in stray:
        ignored[n] = f"not referenced by {index_name}"
    if stray:
        findings.append(finding("shard-unreferenced", f"{plural(len(stray), 'safetensors file')} in the checkpoint "
                                f"{'is' if len(stray) == 1 else 'are'} not referenced by {index_name}: "
                                f"{', '.join(stray[:5])}{' ...' if len(stray) > 5 else ''}", files=stray))
    if "metadata" not in index:
        findings.append(finding("index-metadata-missing", f"{index_name} has no \"metadata\" object "
                                "(transformers' get_checkpoint_shard_files reads it)", files=[index_name]))
    return audited


def _check_shard_names(audited: list[str], findings: list[Finding]) -> None:
    """``-00003-of-00005`` names promise a shard count; say when the files disagree."""
    groups: dict[tuple[str, int], set[int]] = {}
    for name in audited:
        m = SHARD_RE.match(posixpath.basename(name))
        if m:
            groups.setdefault((m["prefix"], int(m["total"])), set()).add(int(m["index"]))
    for (prefix, total), present in sorted(groups.items()):
        # 1..N as save_pretrained numbers them; some exporters (gpt-oss) number 0..N instead
        expected = set(range(0, total + 1)) if 0 in present else set(range(1, total + 1))
        missing = sorted(expected - present)
        if missing or present - expected:
            shown = ", ".join(f"{prefix}-{i:05d}-of-{total:05d}.safetensors" for i in missing[:5])
            findings.append(finding("shard-count-mismatch", f"shard names promise {len(expected)} '{prefix}' shards "
                                    f"but {len(present)} are audited" + (f"; missing {shown}" if missing else ""),
                                    files=[f"{prefix}-{i:05d}-of-{total:05d}.safetensors" for i in missing]))
