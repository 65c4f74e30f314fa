"""Reconciliation for parts that are not a model of their own: LoRA files, textual-inversion embeddings (their
names in ``data/files.toml``), sentence-transformers modules (Dense, LayerNorm, from ``data/modules.toml``) and the
width chain between sentence-transformers modules. Used by ``auditor.read.targets``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.conventions import ADAPTER_CONFIG
from ..core.findings import Finding, finding, plural
from ..core.tomlio import tomllib
from ..inventory.build import Inventory
from ..kinds.discover import Kind, Part
from ..read.sources.protocol import Source
from ..reconcile.engine import Reconciliation, reconcile
from ..specs.expr import ExprError, evaluate
from .lora import check_pairs, is_lora_state_dict, ranks, split
from .peftconfig import data as peft_data
from .singlefile import reconcile_single_file


@lru_cache(maxsize=1)
def files_data() -> dict[str, Any]:
    """``data/files.toml``: the names of LoRA files outside PEFT (kohya), textual-inversion embeddings and original
    single-file layouts."""
    with open(Path(__file__).parent / "data" / "files.toml", "rb") as f:
        return tomllib.load(f)


def kohya_names(tensors: dict[str, Any], file: str) -> list[Finding]:
    """kohya/sd-scripts files name a pair ``<module>.lora_down.weight`` / ``.lora_up.weight``: diffusers'
    converter splits the module off at the dot and looks the partner up by that name."""
    kohya = files_data()["kohya"]
    prefixes, bad_suffix = tuple(kohya["prefixes"]), re.compile(kohya["bad_suffix"])
    bad = sorted(n for n in tensors if n.startswith(prefixes) and bad_suffix.search(n))
    if not bad:
        return []
    return [
        finding(
            "lora-names-invalid",
            f"{plural(len(bad), 'tensor')} with kohya-style names end in "
            f"'_lora_down/_lora_up.weight' instead of '.lora_down/.lora_up.weight' (e.g. {bad[0]}): "
            "diffusers' and sd-scripts' loaders cannot pair them, so the file does not load",
            tensors=bad,
            files=[file],
        )
    ]


def unreadable(inventory: Inventory) -> bool:
    """No tensor could be read (LFS pointer, corrupt header): the file's own finding is the root cause."""
    return not inventory.tensors and any(not f.ok for f in inventory.files)


def ledger(rec: Reconciliation, inventory: Inventory, categories: dict[str, str]) -> None:
    for name, t in inventory.tensors.items():
        category = categories.get(name, "model")
        rec.categories[name] = category
        rec.ledger[category] += t.elements


def modules_data() -> dict[str, Any]:
    with open(Path(__file__).parent / "data" / "modules.toml", "rb") as f:
        return tomllib.load(f)


def file_reconciler(part: Part) -> Callable[[Inventory, dict[str, Any] | None], Reconciliation]:
    """The reconciliation of a file that is not a model of its own: a sentence-transformers module, a LoRA file, a
    textual-inversion embedding, a single-file diffusion checkpoint; else the ordinary one (a state dict)."""

    def reconciler(inventory: Inventory, config: dict[str, Any] | None) -> Reconciliation:
        tensors = inventory.tensors
        if unreadable(inventory):
            return Reconciliation(detail="unreadable: see the file's finding")
        module_spec = modules_data().get(part.role or "")
        if module_spec is not None and isinstance(part.config, dict):
            return _module_reconcile(inventory, part, module_spec)
        if tensors and is_lora_state_dict(tensors):
            rec = Reconciliation(selects_layers=True)
            modules, _ = split(tensors)
            prefix = peft_data()["prefix"]
            rec.findings += check_pairs(modules, file=part.name)
            if all(n.startswith(prefix) for n in tensors):
                rec.findings.append(
                    finding(
                        "adapter-config-missing",
                        f"{part.name} holds PEFT adapter tensors "
                        f"({prefix}...) but no {ADAPTER_CONFIG} is beside it: PEFT cannot "
                        "load it",
                        files=[part.name],
                    )
                )
                rec.detail = f"PEFT LoRA state dict without {ADAPTER_CONFIG}, ranks {ranks(modules)}"
            else:
                rec.findings += kohya_names(tensors, part.name)
                kohya = files_data()["kohya"]["style"]
                style = "kohya/sd-scripts names" if any(n.startswith(kohya) for n in tensors) else "diffusers names"
                alphas = sum(1 for m in modules.values() if "alpha" in m.tensors)
                rec.detail = f"diffusion LoRA ({style}): {plural(len(modules), 'module')}, ranks {ranks(modules)}" + (
                    f", {plural(alphas, 'alpha')}" if alphas else ""
                )
            rec.architecture = "LoRA weights"
            ledger(rec, inventory, {})
            return rec
        if _textual_inversion(part.name, tensors):
            rec = Reconciliation()
            rec.architecture = "textual-inversion embedding"
            shapes = ", ".join(f"{n} {list(t.shape)}" for n, t in list(tensors.items())[:3])
            rec.detail = f"textual-inversion embedding: {shapes}"
            ledger(rec, inventory, {})
            return rec
        if config is None:
            rec_single = reconcile_single_file(inventory)
            if rec_single is not None:
                return rec_single
            single_file = [
                layout["detail"]
                for layout in files_data()["original_layout"]
                if any(n.startswith(layout["prefix"]) for n in tensors)
            ]
            rec = reconcile(inventory, config)
            rec.detail = single_file[0] if single_file else "state dict with no config"
            return rec
        return reconcile(inventory, config)

    return reconciler


def _textual_inversion(name: str, tensors: dict[str, Any]) -> bool:
    if not tensors or len(tensors) > 4:
        return False
    names = set(tensors)
    known = files_data()["textual_inversion"]
    token = any(n.startswith("<") and n.endswith(">") for n in names)
    return (any(word in name for word in known["file_words"]) or token or names <= set(known["tensor_names"])) and all(
        len(t.shape) in (1, 2) for t in tensors.values()
    )


def _module_reconcile(inventory: Inventory, part: Part, spec: dict[str, Any]) -> Reconciliation:
    """A sentence-transformers module (Dense, LayerNorm) against its own config.json, from data."""
    rec = Reconciliation()
    env = {**spec.get("defaults", {}), **(part.config or {})}
    expected: dict[str, tuple[int, ...]] = {}
    try:
        for t in spec["tensors"]:
            if "when" in t and not evaluate(t["when"], env):
                continue
            expected[t["name"]] = tuple(int(evaluate(d, env)) for d in t["shape"])
    except (ExprError, TypeError, ValueError) as e:
        rec.findings.append(
            finding(
                "config-mismatch",
                f"{part.folder}/config.json cannot be evaluated for {part.role}: {e}",
                files=[f"{part.folder}/config.json"],
            )
        )
    stored = inventory.tensors
    missing = [n for n in expected if n not in stored]
    wrong = [
        f"{n} {list(stored[n].shape)}, expected {list(s)}"
        for n, s in expected.items()
        if n in stored and tuple(stored[n].shape) != s
    ]
    extra = [n for n in stored if n not in expected]
    if missing:
        rec.findings.append(
            finding(
                "missing-tensor", f"{part.role} module {part.folder}: {', '.join(missing)} not stored", tensors=missing
            )
        )
    if wrong:
        rec.findings.append(
            finding(
                "shape-mismatch",
                f"{part.role} module {part.folder}: {'; '.join(wrong)} (from its config.json)",
                tensors=[w.split(" ")[0] for w in wrong],
            )
        )
    if extra:
        rec.findings.append(
            finding(
                "unexpected-tensor",
                f"{part.role} module {part.folder}: {', '.join(extra[:4])} is not part of the module",
                tensors=extra,
            )
        )
    rec.architecture = f"sentence-transformers {part.role}"
    rec.expected_parameters = sum(math.prod(s) for s in expected.values())
    rec.detail = f"sentence-transformers {part.role} " + ", ".join(
        f"{k}={v}" for k, v in env.items() if k in ("in_features", "out_features", "dimension")
    )
    ledger(rec, inventory, {n: "unexplained" for n in extra})
    return rec


def chain_findings(source: Source, kind: Kind) -> list[Finding]:
    """Transformer hidden size -> Pooling width (x modes) -> Dense in/out -> ...: each must fit the next."""
    files = source.list_files()
    pooling = modules_data()["Pooling"]
    width: int | None = None
    where = ""
    out: list[Finding] = []
    for m in kind.manifest.get("modules", []):
        role = str(m.get("type", "")).rsplit(".", 1)[-1]
        path = str(m.get("path") or "").strip("/")
        name = f"{path}/config.json" if path else "config.json"
        try:
            config = json.loads(source.read_small(name).decode("utf-8")) if name in files else {}
        except (OSError, ValueError, UnicodeDecodeError):
            config = {}
        config = config if isinstance(config, dict) else {}
        given: int | None = None
        if role == "Transformer":
            value = config.get("hidden_size", config.get("d_model"))
            width, where = (value, name) if isinstance(value, int) else (None, "")
            continue
        if role == "Pooling":
            given = next((config[k] for k in pooling["width_keys"] if isinstance(config.get(k), int)), None)
            modes = config.get("pooling_mode")
            count = (
                1
                if isinstance(modes, str)
                else len(modes)
                if isinstance(modes, list)
                else sum(1 for k in pooling["mode_flags"] if config.get(k) is True)
            ) or 1
            after = given * count if given is not None else None
        elif role == "Dense":
            given = config.get("in_features") if isinstance(config.get("in_features"), int) else None
            after = config.get("out_features") if isinstance(config.get("out_features"), int) else None
        else:
            continue
        if given is not None and width is not None and given != width:
            out.append(
                finding(
                    "config-mismatch",
                    f"{name} expects embeddings of width {given:,} but {where} "
                    f"passes {width:,}: the modules do not fit together",
                    files=[name, where],
                )
            )
        width, where = after, name
    return out
