"""Which on-disk names a checkpoint uses for the model its config describes.

One architecture is stored under several name layouts in the wild: the layout its class writes, the
alternatives a spec declares (``[layouts.NAME]``: Gemma-3 as released, ``language_model.model.*``, vs as
transformers 5 names it, ``model.language_model.*``), the base model saved alone (``h.0...`` without
``transformer.`` and without a head: the real gpt2 file, embedding models), and the language model of a
multimodal config saved alone. The layout that explains the most stored names is audited; ties keep the
one the config names.
"""

from __future__ import annotations

from collections.abc import Container, Iterator

from .expand import expand, relabel
from .model import Expectation


def variants(expectation: Expectation) -> Iterator[Expectation]:
    """The layouts this expectation may be stored under, the class's own first."""
    yield expectation
    spec = expectation.spec
    for name, renames in spec.layouts.items():
        yield relabel(expectation, renames, layout=name)
    prefix = spec.base_prefix
    if prefix and spec.classes[expectation.cls].prefix is None:
        yield relabel(expectation, {prefix: ""}, drop_heads=True, layout="base model alone")
    # classes of the family checkpoints are often stored as, whatever architectures names: sentence-transformers
    # saves MPNetModel (with its pooler) under all-mpnet-base-v2's MPNetForMaskedLM config; bert-base-uncased's
    # file is the BertForPreTraining checkpoint (pooler, NSP head) under BertForMaskedLM
    for cls in spec.stored_as:
        if cls != expectation.cls:
            yield relabel(expand(spec, expectation.env, cls), {}, layout=f"stored as its {cls} class")
    for module, sub in expectation.modules:
        if any(m.name == module and m.component is None for m in spec.modules):
            for alone in variants(sub):
                yield relabel(
                    alone, {}, layout=f"{module} alone" + ("" if alone.layout == "default" else f", {alone.layout}")
                )


def _hits(expectation: Expectation, stored: Container[str]) -> int:
    return sum(map(stored.__contains__, expectation.tensors))


def best_layout(expectation: Expectation, stored: Container[str]) -> Expectation:
    """The variant explaining the most stored tensor names (the class's own layout when all are found)."""
    best, best_hits = expectation, _hits(expectation, stored)
    if best_hits == len(expectation.tensors):
        return best
    for candidate in variants(expectation):
        hits = _hits(candidate, stored)
        if hits > best_hits:
            best, best_hits = candidate, hits
    return best
