"""Every ground-truth case folder under fixtures/cases is well-formed and self-consistent.

The folders are written by the dev-only tools/dump_cases.py from transformers' own modeling code (see
docs/truth.md). These checks do not trust the dumper: a hand edit, a truncated file or a dumper bug that
breaks the invariants below fails here. No torch / transformers import.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from functools import lru_cache
from pathlib import Path

import pytest

from tests.support.truth import split_consistency

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "fixtures" / "cases"
CONFIG_CLASSES = ROOT / "fixtures" / "config-classes"
ST_DTYPES = {
    "BOOL",
    "U8",
    "I8",
    "U16",
    "I16",
    "F16",
    "BF16",
    "U32",
    "I32",
    "F32",
    "U64",
    "I64",
    "F64",
    "F8_E4M3",
    "F8_E5M2",
    "F8_E8M0",
    "F4",
    "F6_E2M3",
    "F6_E3M2",
}
VARIANT = re.compile(r"^(default|default except .+|perturbed: .+)$")


def model_types() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if p.is_dir())


@lru_cache(maxsize=None)
def load_case(folder: Path) -> tuple[dict, dict, dict]:
    config = json.loads((folder / "config.json").read_text())
    layout = json.loads(gzip.decompress((folder / "layout.json.gz").read_bytes()))
    truth = json.loads((folder / "truth.json").read_text())
    return config, layout, truth


def test_there_are_cases() -> None:
    folders = list(CASES.glob("*/*/truth.json"))
    assert len(folders) >= 300, f"only {len(folders)} case folders under {CASES}"


@pytest.mark.cases
@pytest.mark.parametrize("model_type", model_types())
def test_case_folders_are_well_formed(model_type: str) -> None:
    folders = sorted(p for p in (CASES / model_type).iterdir() if p.is_dir())
    assert folders, f"{model_type}: empty folder"
    classes: dict[str, list[str]] = {}
    for folder in folders:
        assert sorted(p.name for p in folder.iterdir()) == ["config.json", "layout.json.gz", "truth.json"], folder
        config, layout, truth = load_case(folder)
        where = f"{model_type}/{folder.name}"
        # one class, named consistently in the folder name, the config, the layout and the truth
        cls = truth["class"]
        assert folder.name.startswith(cls + "-"), where
        assert layout["class"] == cls and config["architectures"] == [cls], where
        assert config["model_type"] == model_type, where
        assert layout["produced_by"].startswith("transformers "), where
        assert VARIANT.match(truth["variant"]), (where, truth["variant"])
        classes.setdefault(cls, []).append(truth["variant"])
        # tensors: unique names, safetensors dtypes, non-negative integer shapes
        names = [t[0] for t in layout["tensors"]]
        assert len(names) == len(set(names)), f"{where}: duplicate tensor names"
        assert names, f"{where}: no tensors"
        for name, dtype, shape in layout["tensors"]:
            assert isinstance(name, str) and name and not name.startswith("."), (where, name)
            assert dtype in ST_DTYPES, (where, name, dtype)
            assert isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape), (where, name)
        # transformers' own num_parameters() (unique, tied counted once) = saved elements - saved buffers
        elements = {name: math.prod(shape) for name, _, shape in layout["tensors"]}
        assert set(truth["persistent_buffers"]) <= set(elements), where
        buffers = sum(elements[b] for b in truth["persistent_buffers"])
        assert isinstance(truth["parameters"], int) and truth["parameters"] > 0, where
        not_saved = sum(math.prod(shape) for _, shape in truth.get("parameters_not_saved", []))
        assert sum(elements.values()) - buffers + not_saved == truth["parameters"], where
        # the rebuilt model's parameters and buffers (tools/dump_param_split.py) add up to the same
        assert split_consistency(truth, elements) == [], where
        # a tied name transformers dropped is not stored
        assert not set(truth["tied_dropped"]) & set(elements), where
        assert isinstance(truth["notes"], str), where
    unbuildable = json.loads((CASES / "_unbuildable.json").read_text())
    for cls, variants in classes.items():
        if not any(v.startswith("default") for v in variants):
            # only when transformers itself cannot build the class default, and that is on record
            assert f"{model_type}/{cls} (class default config)" in unbuildable, f"{model_type}/{cls}: no default case"
        assert sum(v.startswith("perturbed") for v in variants) >= 2, f"{model_type}/{cls}: < 2 perturbed cases"


@pytest.mark.cases
@pytest.mark.parametrize("model_type", model_types())
def test_config_class_facts_present(model_type: str) -> None:
    doc = json.loads((CONFIG_CLASSES / f"{model_type}.json").read_text())
    assert doc["class"].endswith("Config") and doc["model_type"] == model_type
    assert isinstance(doc["defaults"], dict) and doc["defaults"].get("model_type") == model_type
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in doc["attribute_map"].items())
    for sub, facts in doc["sub_configs"].items():
        assert set(facts) == {"declared", "default_instance"}, (model_type, sub)
        if facts["default_instance"] is not None:
            assert isinstance(doc["defaults"].get(sub), dict), (model_type, sub)


def test_default_cases_agree_with_dumped_class_defaults() -> None:
    """A default case's config.json holds no size key that contradicts the dumped class defaults."""
    checked = 0
    for truth_path in CASES.glob("*/*/truth.json"):
        config, _, truth = load_case(truth_path.parent)
        if truth["variant"] != "default":
            continue
        defaults = json.loads((CONFIG_CLASSES / f"{truth_path.parent.parent.name}.json").read_text())["defaults"]
        for key in ("hidden_size", "num_hidden_layers", "vocab_size", "intermediate_size"):
            if key in config and key in defaults:
                assert config[key] == defaults[key], (truth_path.parent, key)
                checked += 1
    assert checked > 0, "no default case carries a size key"


def test_unbuildable_list_is_well_formed() -> None:
    path = CASES / "_unbuildable.json"
    data = json.loads(path.read_text())
    for key, reason in data.items():
        mt, _, cls = key.partition("/")
        assert mt and cls and isinstance(reason, str) and reason.strip(), key
        if not cls.endswith("(class default config)"):
            assert not list((CASES / mt).glob(f"{cls}-*")), f"{key} is listed unbuildable but has case folders"
