"""No formula for the whole, formulas for its parts: a remote-code class whose config nests known sub-configs.

A repo's own class (``trust_remote_code``) has no spec, but its config.json often nests sub-configs of types
st-audit knows: a Qwen2 ``text_config``, a SigLIP ``vision_config`` (VLMs released under their own class names
over known parts). Where the repo stores such a part, every tensor of it can be checked by that type's formula
while the rest of the checkpoint gets the structural check. The part's place in the checkpoint is not in the
config, so it is found from the stored names: the prefix under which the part's own names (as its default class
or its base model saves them) are stored. A part counts only where that is unambiguous (no false alarm): at
least ``MIN_SHARE`` of the tensors its formula requires are stored under one prefix, none claimed by another
part, and the config declares no quantization (packed names would not match).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..read.header import Tensor
from ..specs import Expectation, expand, relabel, select
from ..specs.expr import ExprError, NoSubSpec

MIN_SHARE = 0.95  # a part is its formula's only when nearly all of it is there: a few missing are findings
ANCHORS = 4  # expected names whose stored occurrences propose the part's prefix
REQUIRED = ("param", "state")


@dataclass(frozen=True)
class KnownPart:
    """A nested sub-config checked by its own formula: its expectation under the stored prefix."""

    key: str  # the config key (text_config)
    config: Mapping[str, Any]  # the sub-config the formula was evaluated on
    expectation: Expectation  # renamed under ``prefix``
    prefix: str

    @property
    def label(self) -> str:
        return (
            f"{self.key} ({self.expectation.spec.file}, {self.expectation.cls}) stored under "
            f"{self.prefix or 'no prefix'}"
        )


def known_parts(config: Mapping[str, Any], stored: Mapping[str, Tensor]) -> list[KnownPart]:
    """The nested sub-configs of known types whose tensors are stored under one prefix, in config order."""
    if config.get("quantization_config") is not None or not stored:
        return []
    parts: list[KnownPart] = []
    taken: set[str] = set()
    for key, sub in config.items():
        if not isinstance(sub, dict) or not isinstance(sub.get("model_type"), str):
            continue
        part = _place(key, sub, stored)
        if part is not None and taken.isdisjoint(part.expectation.tensors):
            parts.append(part)
            taken.update(part.expectation.tensors)
    return parts


def _place(key: str, sub: dict[str, Any], stored: Mapping[str, Tensor]) -> KnownPart | None:
    """The best placement of one sub-config: its default class or its base model (``Model``: a remote class
    holding a text model without the head), under the prefix that stores most of it."""
    spec, cfg = select(sub)
    if spec is None:
        return None
    best: tuple[tuple[int, int], KnownPart] | None = None
    for cls in dict.fromkeys((spec.default_class, *(c for c in ("Model",) if c in spec.classes))):
        try:
            expectation = _headless(expand(spec, cfg, cls))
        except (ExprError, NoSubSpec):
            continue
        required = [n for n, e in expectation.tensors.items() if e.kind in REQUIRED and not e.mtp]
        if not required:
            continue
        for prefix in _prefixes(required, stored):
            hit = sum(1 for n in required if prefix + n in stored)
            if hit < MIN_SHARE * len(required):
                continue
            score = (hit, -len(required))
            if best is None or score > best[0]:
                moved = relabel(expectation, {"": prefix}) if prefix else expectation
                best = (score, KnownPart(key, cfg, moved, prefix))
    return best[1] if best is not None else None


def _headless(expectation: Expectation) -> Expectation:
    """The part without its LM head: whether a composite ties its head, and where it keeps it, is the repo's
    class's own rule (LlavaConfig ties where the top-level flag or the text config's says so), not the part's.
    The head is left to the structural check, with the rest."""
    tensors = {n: e for n, e in expectation.tensors.items() if e.kind != "head" and e.component != "lm_head"}
    return replace(
        expectation,
        tensors=tensors,
        tied=False,
        tied_names={k: v for k, v in expectation.tied_names.items() if k in tensors},
    )


def _prefixes(required: list[str], stored: Mapping[str, Tensor]) -> set[str]:
    """Prefixes under which some of the part's names are stored: every stored name ending with an anchor name
    (at a dot boundary) proposes the rest as one."""
    step = max(1, len(required) // ANCHORS)
    anchors = required[::step][:ANCHORS]
    found: set[str] = set()
    for name in stored:
        for anchor in anchors:
            if name.endswith(anchor) and (len(name) == len(anchor) or name[-len(anchor) - 1] == "."):
                found.add(name[: len(name) - len(anchor)])
    return found
