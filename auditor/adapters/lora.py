"""Low-rank adapter tensors recognised by name, and their structural checks (no base model needed).

The naming conventions (data: ``data/lora.toml``) are those the writers use: PEFT (``X.lora_A.weight`` / ``X.lora_B.weight``,
``X.lora_embedding_A/B``, DoRA ``X.lora_magnitude_vector``), diffusers (``X.lora.down.weight``,
attention processors' ``X.to_k_lora.down.weight``), kohya / sd-scripts (``lora_unet_X.lora_down.weight`` with
an ``X.alpha`` scalar), LyCORIS/PEFT LoHa (``hada_w1_a`` ...) and LoKr (``lokr_w1`` ...). A pair is a down
(A) matrix ``[r, in, ...]`` and an up (B) matrix ``[out, r, ...]``; both must be there and agree on ``r``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core.conventions import ADAPTER_CONFIG
from ..core.findings import Finding, finding, plural
from ..core.names import shown
from ..core.tomlio import tomllib
from ..inventory.build import Tensor

ROLES = ("down", "up", "emb_down", "emb_up", "magnitude", "alpha", "factor")


def _load_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """``data/lora.toml``: name pattern -> role, in the order they are tried (the writers' conventions)."""
    with open(Path(__file__).parent / "data" / "lora.toml", "rb") as f:
        doc = tomllib.load(f)
    patterns = tuple((re.compile(p["match"]), p["role"]) for p in doc["pattern"])
    unknown = sorted({role for _, role in patterns} - set(ROLES))
    if unknown:
        raise ValueError(f"adapters/data/lora.toml: unknown role(s) {unknown}")
    return patterns


_PATTERNS = _load_patterns()


@dataclass
class LoraModule:
    """The adapter tensors attached to one module of the base model."""

    module: str
    tensors: dict[str, Tensor] = field(default_factory=dict)  # role -> tensor (factor tensors: by name)

    @property
    def rank(self) -> int | None:
        for role, dim in (("down", 0), ("up", 1), ("emb_down", 0), ("emb_up", 1)):
            t = self.tensors.get(role)
            if t is not None and len(t.shape) > dim:
                return t.shape[dim]
        return None


def split(tensors: dict[str, Tensor]) -> tuple[dict[str, LoraModule], list[str]]:
    """Adapter tensors by module, and the names that are not adapter tensors at all."""
    modules: dict[str, LoraModule] = {}
    other: list[str] = []
    for name, t in tensors.items():
        for pattern, role in _PATTERNS:
            m = pattern.match(name)
            if m:
                mod = modules.setdefault(m["m"], LoraModule(m["m"]))
                mod.tensors[name if role == "factor" else role] = t
                break
        else:
            other.append(name)
    # an ".alpha" alone is not a LoRA module (e.g. a model parameter called alpha)
    for key in [k for k, mod in modules.items() if set(mod.tensors) == {"alpha"}]:
        other.append(f"{key}.alpha")
        del modules[key]
    return modules, other


def is_lora_state_dict(tensors: dict[str, Tensor]) -> bool:
    """Mostly adapter tensors (at least one down/up pair): a LoRA file rather than a model."""
    modules, other = split(tensors)
    pairs = sum(
        1 for m in modules.values() if {"down", "up"} <= set(m.tensors) or {"emb_down", "emb_up"} <= set(m.tensors)
    )
    return pairs > 0 and pairs * 2 >= len(other)


def check_pairs(
    modules: dict[str, LoraModule], *, expected_rank: dict[str, int] | None = None, file: str | None = None
) -> list[Finding]:
    """Every down has its up and they agree on the rank; DoRA magnitudes fit; alpha scalars are scalars.

    ``expected_rank``: module -> the rank the adapter's config promises (r or its rank_pattern entry).
    """
    findings: list[Finding] = []
    files = [file] if file else []
    lonely: list[str] = []
    disagree: list[str] = []
    wrong_rank: dict[tuple[int, int], list[str]] = {}
    bad_alpha: list[str] = []
    for mod in modules.values():
        t = mod.tensors
        for a, b in (("down", "up"), ("emb_down", "emb_up")):
            if (a in t) != (b in t):
                lonely.append(t[a].name if a in t else t[b].name)
            elif a in t:
                down, up = t[a], t[b]
                if len(down.shape) < 2 or len(up.shape) < 2 or down.shape[0] != up.shape[1]:
                    disagree.append(f"{down.name} {list(down.shape)} / {up.name} {list(up.shape)}")
        rank = mod.rank
        want = (expected_rank or {}).get(mod.module)
        if want is not None and rank is not None and rank != want:
            wrong_rank.setdefault((want, rank), []).append(mod.module)
        mag = t.get("magnitude")
        if mag is not None and "up" in t and mag.shape[-1:] != t["up"].shape[:1] and mag.elements != t["up"].shape[0]:
            disagree.append(f"{mag.name} {list(mag.shape)} / {t['up'].name} {list(t['up'].shape)}")
        alpha = t.get("alpha")
        if alpha is not None and alpha.elements != 1:
            bad_alpha.append(f"{alpha.name} {list(alpha.shape)}")
    if lonely:
        findings.append(
            finding(
                "lora-pair-incomplete",
                f"{plural(len(lonely), 'LoRA matrix')} without its partner "
                f"(down/A without up/B or the reverse): {shown(lonely, 3)}; the update cannot be "
                "applied",
                tensors=lonely,
                files=files,
            )
        )
    if disagree:
        findings.append(
            finding(
                "shape-mismatch",
                f"{plural(len(disagree), 'LoRA pair')} whose ranks disagree: {shown(disagree, 3)}",
                files=files,
            )
        )
    for (want, got), mods in sorted(wrong_rank.items()):
        findings.append(
            finding(
                "adapter-rank-mismatch",
                f"{plural(len(mods), 'module')} stored with rank {got} but "
                f"{ADAPTER_CONFIG} says {want} (r or rank_pattern): {shown(mods, 3)}; PEFT builds "
                f"rank-{want} layers and fails to load these",
                tensors=mods,
                files=files,
            )
        )
    if bad_alpha:
        findings.append(
            finding(
                "shape-mismatch",
                f"{plural(len(bad_alpha), 'alpha')} that {'is' if len(bad_alpha) == 1 else 'are'} "
                f"not a scalar: {shown(bad_alpha, 3)}",
                files=files,
            )
        )
    return findings


def ranks(modules: dict[str, LoraModule]) -> list[int]:
    return sorted({r for m in modules.values() if (r := m.rank) is not None})
