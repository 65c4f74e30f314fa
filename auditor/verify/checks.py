"""Findings from the values pass: NaN, Inf, all-zero weights, tied copies that differ, duplicated tensors.

Candidates for "same bytes" are grouped by a fingerprint sampled during the pass (a few bytes of every piece);
equality is then confirmed (or refuted) byte by byte, so a fingerprint collision can never produce a finding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.findings import Finding, finding, plural
from ..core.names import shown
from ..read.header import Tensor
from .engine import Scan, same_bytes
from .values import NO_ZERO, elementwise

# ledger categories whose tensors may legitimately be constant (scales, masks, rotary tables)
NOT_WEIGHTS = frozenset({"buffers", "quantization"})


def _index(flat: int, shape: tuple[int, ...]) -> list[int]:
    return [int(i) for i in np.unravel_index(flat, shape)] if shape else []


def is_weight(t: Tensor, category: str) -> bool:
    """A weight matrix or embedding: at least 2-D, not a bias, not bookkeeping. Norm scales and biases are 1-D
    or named bias, and are legitimately constant (ones, zeros) at initialisation."""
    return len(t.shape) >= 2 and not t.name.endswith("bias") and category not in NOT_WEIGHTS


def value_findings(scans: dict[str, Scan], categories: dict[str, str]) -> list[Finding]:
    """tensor-nan, tensor-inf (one per tensor, with counts and the first index) and tensor-all-zero."""
    out: list[Finding] = []
    zero: list[str] = []
    for name, s in scans.items():
        t = s.tensor
        if s.nan:
            at = _index(s.first_nan or 0, t.shape)
            out.append(
                finding(
                    "tensor-nan",
                    f"{t.file}: {name} holds {plural(s.nan, 'NaN')} of {t.elements:,} values, the first at index {at}",
                    tensors=[name],
                    files=[t.file],
                )
            )
        if s.inf:
            at = _index(s.first_inf or 0, t.shape)
            out.append(
                finding(
                    "tensor-inf",
                    f"{t.file}: {name} holds {plural(s.inf, 'infinite value')} of "
                    f"{t.elements:,}, the first at index {at}",
                    tensors=[name],
                    files=[t.file],
                )
            )
        if s.complete and t.nbytes and t.dtype not in NO_ZERO and is_weight(t, categories.get(name, "")):
            if s.zeros == (t.elements if elementwise(t.dtype) else t.nbytes):
                zero.append(name)
    if zero:
        files = sorted({scans[n].tensor.file for n in zero})
        out.append(
            finding(
                "tensor-all-zero",
                f"{plural(len(zero), 'weight tensor')} entirely zero (never trained, or overwritten): {shown(zero)}",
                tensors=zero,
                files=files,
            )
        )
    return out


def copy_findings(
    scans: dict[str, Scan],
    pairs: list[tuple[str, str, str]],
    categories: dict[str, str],
    locate: Callable[[Tensor], tuple[str, int]],
) -> list[Finding]:
    """tied-copy-differs for each (copy, original) pair, tensor-duplicate for other identical weights."""
    out: list[Finding] = []
    paired: set[frozenset[str]] = set()
    for copy, original, why in pairs:
        a, b = scans.get(copy), scans.get(original)
        if a is None or b is None or not (a.complete and b.complete):
            continue
        ta, tb = a.tensor, b.tensor
        paired.add(frozenset((copy, original)))
        if ta.dtype != tb.dtype or ta.shape != tb.shape:
            continue  # a different dtype or shape is not a byte copy: shape-mismatch/dtype findings say so
        if _identical(a, b, locate):
            continue
        out.append(
            finding(
                "tied-copy-differs",
                f"{copy} ({ta.file}) should be a copy of {original} ({tb.file}) "
                f"because {why}, but its bytes differ: loaders that tie them use {original} and "
                "silently drop what was trained into the copy",
                tensors=[copy, original],
                files=sorted({ta.file, tb.file}),
            )
        )
    out += _duplicates(scans, categories, paired, locate)
    return out


def _identical(a: Scan, b: Scan, locate: Callable[[Tensor], tuple[str, int]]) -> bool:
    if (a.fingerprint, a.zeros, a.nan, a.inf) != (b.fingerprint, b.zeros, b.nan, b.inf):
        return False
    return same_bytes(locate(a.tensor), locate(b.tensor), a.tensor.nbytes)


def _duplicates(
    scans: dict[str, Scan],
    categories: dict[str, str],
    paired: set[frozenset[str]],
    locate: Callable[[Tensor], tuple[str, int]],
) -> list[Finding]:
    groups: dict[tuple[Any, ...], list[Scan]] = {}
    for name, s in scans.items():
        t = s.tensor
        if not (s.complete and t.nbytes and is_weight(t, categories.get(name, ""))):
            continue
        if s.zeros == (t.elements if elementwise(t.dtype) else t.nbytes):
            continue  # all zero: tensor-all-zero already says so
        groups.setdefault((t.dtype, t.shape, s.fingerprint, s.zeros, s.nan, s.inf), []).append(s)
    out: list[Finding] = []
    for candidates in groups.values():
        if len(candidates) < 2:
            continue
        sets: list[list[Scan]] = []
        for s in candidates:
            for group in sets:
                if frozenset((group[0].tensor.name, s.tensor.name)) not in paired and same_bytes(
                    locate(group[0].tensor), locate(s.tensor), s.tensor.nbytes
                ):
                    group.append(s)
                    break
            else:
                sets.append([s])
        for group in sets:
            if len(group) > 1:
                names = [s.tensor.name for s in group]
                files = sorted({s.tensor.file for s in group})
                out.append(
                    finding(
                        "tensor-duplicate",
                        f"{plural(len(names), 'distinct weight tensor')} hold "
                        f"identical bytes ({group[0].tensor.nbytes:,} each): {shown(names)} — a layer "
                        "copied over another?",
                        tensors=names,
                        files=files,
                    )
                )
    return out


def copy_pairs(config: dict[str, Any] | None, stored: dict[str, Tensor]) -> list[tuple[str, str, str]]:
    """(copy, original, why) pairs whose bytes must be equal, from the architecture spec.

    A stored LM head that config.json ties to the embeddings, and an MTP layer's own embedding (or other
    top-level tensor) stored again inside ``<layers prefix><N>.``. The only use of the spec engine in this
    package, wrapped here so it can follow the engine's changes.
    """
    if config is None:
        return []
    try:
        from ..specs import expand, select

        spec, cfg = select(config)
        if spec is None:
            return []
        from ..specs.layouts import best_layout

        expectation = best_layout(expand(spec, cfg), stored)
    except Exception:  # noqa: BLE001 - a config the engine cannot evaluate is already a finding of the audit
        return []
    pairs: list[tuple[str, str, str]] = []
    for head, original in expectation.tied_names.items():
        e = expectation.tensors.get(head)
        if e is not None and e.tied and head in stored and original in stored:
            pairs.append(
                (
                    head,
                    original,
                    "the model shares one parameter under both names"
                    if e.kind == "shared"
                    else "config.json ties them (tie_word_embeddings)",
                )
            )
    for name, e in expectation.tensors.items():
        if not e.mtp or name not in stored or e.layer is None:
            continue
        for prefix in (s.prefix for s in expectation.stacks if s.name == e.stack or not s.label):
            head = f"{prefix}{e.layer}."
            if name.startswith(head):
                root = prefix.rstrip(".").rpartition(".")[0]
                original = (root + "." if root else "") + name[len(head) :]
                if original in stored and original != name and stored[original].shape == stored[name].shape:
                    pairs.append((name, original, "the MTP layer shares it with the main model"))
    return pairs
