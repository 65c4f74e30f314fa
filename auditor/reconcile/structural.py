"""The check for architectures no spec covers: structure and config sizes only, never a false error.

Without a formula the auditor still knows a lot: the layers of a transformer repeat, so a layer that lacks
tensors every layer of its kind has, or holds one whose shape differs from the same tensor in every other
layer, is worth a warning; a layer count or a size config.json names that no stored tensor has is worth an
error. Hybrid stacks (Mamba and attention layers, dense and MoE layers) repeat several kinds of layer: layers
are grouped by the set of tensors they hold, and only a layer whose set is a strict subset of a kind that
repeats is reported as missing something.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from ..core.findings import Finding, finding, plural
from ..core.names import shown
from ..inventory.build import Inventory, Tensor
from ..inventory.groups import ranges, split_name
from ..specs import common

MAX_NAMES = 4
# Without a formula a layer that differs from its siblings may be the architecture's own variation (ModernBERT's
# first layer has no attn_norm, Gemma 4 shares KV in late layers, BLIP-2 cross-attends every other layer): a
# warning needs strong evidence (a middle layer against a kind repeated this often), else it is a note.
MIN_EVIDENCE = 4
VARIANT = " (possibly the architecture's own variation: no formula to tell)"
CHECKED = (
    "checked: each file's header and the index; the layers under {prefix} against each other (tensors "
    "every layer of a kind holds, shapes shared across layers); the layer count and the config's "
    "hidden_size and vocab_size against the stored shapes. Not checked: tensor shapes against a formula, "
    "the expected parameter count"
)


def checked_note(inventory: Inventory) -> str:
    """What the structural check covers, for the unknown-architecture finding."""
    prefix = _layer_prefix(inventory.tensors)
    return CHECKED.format(prefix=prefix or "(no numbered layers stored)")


def _layer_prefix(stored: dict[str, Tensor]) -> str | None:
    by_prefix: Counter[str] = Counter()
    for name in stored:
        template, indices = split_name(name)
        if indices:
            by_prefix[template[: template.index("{}")]] += 1
    return by_prefix.most_common(1)[0][0] if by_prefix else None


def structure(
    inventory: Inventory,
    cfg: dict[str, Any],
    classify: Callable[[Tensor], str | None],
    buffer_suffixes: tuple[str, ...],
) -> tuple[dict[str, str], list[Finding]]:
    """Each stored tensor's ledger category and the structural findings.

    ``classify`` says which tensors are quantization bookkeeping (``"quantization"``) or None.
    """
    stored = inventory.tensors
    prefix = _layer_prefix(stored)
    layers: dict[int, dict[str, Tensor]] = defaultdict(dict)
    categories: dict[str, str] = {}
    for name, t in stored.items():
        category = classify(t)
        if category is None:
            category = "buffers" if name.endswith(buffer_suffixes) else "model"
        if category == "model" and prefix and name.startswith(prefix):
            head, _, rest = name[len(prefix) :].partition(".")
            if head.isdigit():
                layers[int(head)][rest] = t
        categories[name] = category
    findings = _layer_findings(layers, prefix or "", cfg) if layers else []
    findings += _size_findings(stored, cfg)
    return categories, findings


def _layer_findings(layers: dict[int, dict[str, Tensor]], prefix: str, cfg: dict[str, Any]) -> list[Finding]:
    out: list[Finding] = []
    kinds = Counter(frozenset(members) for members in layers.values())
    repeating = [kind for kind, n in kinds.items() if n >= 2]
    gaps: list[str] = []
    strong = True  # strong evidence: a middle layer differs from a kind that repeats at least 4 times
    edges = (min(layers), max(layers))
    for layer, members in sorted(layers.items()):
        own = frozenset(members)
        if kinds[own] >= 2:
            continue
        supersets = [kind for kind in repeating if own < kind]
        if supersets:
            closest = min(supersets, key=len)
            gaps += [f"{prefix}{layer}.{m}" for m in sorted(closest - own)]
            strong = (
                strong
                and kinds[closest] >= MIN_EVIDENCE
                and layer not in edges
                and len(closest - own) * 4 <= len(closest)
            )
    if gaps:
        out.append(
            finding(
                "missing-tensor",
                f"{plural(len(gaps), 'tensor')} that every other layer of the same kind "
                f"under {prefix} holds {'is' if len(gaps) == 1 else 'are'} missing: {shown(gaps)}"
                + ("" if strong else VARIANT),
                tensors=gaps,
                severity="warning" if strong else "info",
            )
        )
    odd = _shape_outliers(layers, prefix)
    if odd:  # per-layer widths are common (DeepSeek-V4 compress ratios, Gemma 4 head_dim): a note, never more
        out.append(
            finding(
                "shape-mismatch",
                f"{plural(len(odd), 'tensor')} shaped unlike the same tensor in every "
                "other layer: "
                + "; ".join(f"{name} is {list(a)}, the others {list(e)}" for name, a, e in odd[:MAX_NAMES])
                + VARIANT,
                tensors=[name for name, *_ in odd],
                severity="info",
            )
        )
    declared = cfg.get("num_hidden_layers")
    if (
        prefix in common().get("decoder_prefixes", ())
        and isinstance(declared, int)
        and not isinstance(declared, bool)
        and declared != len(layers)
    ):
        where = f"under {prefix} ({ranges(sorted(layers)).replace('..', '-')})"
        if declared > len(layers):
            out.append(
                finding(
                    "config-mismatch",
                    f"config.json declares {plural(declared, 'layer')} but "
                    f"{len(layers):,} {'is' if len(layers) == 1 else 'are'} stored {where}",
                    files=["config.json"],
                    expected=declared,
                    actual=len(layers),
                )
            )
        else:
            out.append(
                finding(
                    "config-mismatch",
                    f"config.json declares {plural(declared, 'layer')} but "
                    f"{len(layers):,} are stored {where}: extra (MTP?) layers, or a config that undercounts",
                    files=["config.json"],
                    severity="warning",
                    expected=declared,
                    actual=len(layers),
                )
            )
    return out


def _shape_outliers(layers: dict[int, dict[str, Tensor]], prefix: str) -> list[tuple[str, tuple, tuple]]:
    """A tensor whose shape differs from one shape every other layer agrees on (>= 3 layers, one odd one
    out); members whose shape varies more than that (per-layer widths, as in OpenELM) are left alone."""
    shapes: dict[str, dict[int, tuple[int, ...]]] = defaultdict(dict)
    for layer, members in layers.items():
        for member, t in members.items():
            shapes[member][layer] = t.shape
    out = []
    for member, by_layer in shapes.items():
        counts = Counter(by_layer.values())
        if len(counts) != 2 or len(by_layer) < 3:
            continue
        (common, n), (rare, m) = counts.most_common(2)
        if m == 1 and n >= 2:
            layer = next(layer for layer, shape in by_layer.items() if shape == rare)
            out.append((f"{prefix}{layer}.{member}", rare, common))
    return sorted(out)


def _size_findings(stored: dict[str, Tensor], cfg: dict[str, Any]) -> list[Finding]:
    """A size config.json names that no stored tensor has: only for a plain model (a composite config's
    top-level sizes describe one of its parts), and the vocabulary only where a token embedding is stored."""
    if any(isinstance(v, dict) and ("hidden_size" in v or "vocab_size" in v) for v in cfg.values()):
        return []
    dims = {d for t in stored.values() for d in t.shape}
    embedding = any(n.endswith(tuple(common().get("embedding_names", ()))) for n in stored)
    out = []
    for key in ("hidden_size", "vocab_size") if embedding else ("hidden_size",):
        value = cfg.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and stored and value not in dims:
            out.append(
                finding(
                    "config-mismatch",
                    f"config.json {key} is {value:,} but no stored tensor has a dimension of that size",
                    files=["config.json"],
                    expected={key: value},
                )
            )
    return out
