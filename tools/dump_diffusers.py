"""Dump what diffusers' ``save_pretrained`` writes for the model classes people use, at many configs.

DEV-ONLY TOOL (like tools/dump_cases.py): run with $DEVENV/bin/python (diffusers 0.42, torch 2.13 CPU).
For every (class, case) in the case data the model is built on the ``meta`` device from the class default config
plus the case's overrides, and the real ``ModelMixin.save_pretrained`` runs with ``safetensors.torch.save_file``
replaced by a recorder: what it hands the writer (every shard) is the layout, ``config.json`` is the file
``save_config`` wrote (``_class_name``, ``_diffusers_version`` and every init argument). Small models are also
built for real on CPU and saved for real, and the headers must equal the recording (``notes``).

    $DEVENV/bin/python tools/dump_diffusers.py [--only UNet2DConditionModel,AutoencoderKL] [--list]

Writes ``fixtures/diffusers-cases/<Class>/<Class>-<case>/{config.json, layout.json.gz, truth.json}`` in the
format of fixtures/cases (docs/truth.md); ``parameters`` is diffusers' own ``model.num_parameters()``.

The case data is ``tools/data/diffusers_cases/*.toml`` (one file per group of classes; which file a class is in
does not matter). A top-level table per class holds its cases, in order::

    [[UNet2DConditionModel.cases]]
    name = "p4"                                       # the folder is <Class>-<name>
    variant = "perturbed: ..."                        # truth.json's variant
    base = "UNet2DConditionModel-small"               # optional: start from another case's full overrides,
    drop = ["sample_size"]                            #   without these keys,
    [UNet2DConditionModel.cases.config]               # then these __init__ arguments on top (none: the default)
    encoder_hid_dim = 10

The string ``"None"`` stands for Python ``None`` (TOML has no null), also inside arrays; arrays are passed as
lists. A class with the same ``__init__`` as another takes that class's cases instead of a list of its own:
``cases_from = "Class"``, with ``variant_suffix`` appended (after a space) to every variant but the default case's
and ``[<Class>.change.<case>]`` giving one copied case another ``name`` / ``variant``. ``--list`` prints the
expanded cases (class, case, variant, overrides) as JSON lines and builds nothing.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import json
import math
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "diffusers-cases"
DATA = Path(__file__).resolve().parent / "data" / "diffusers_cases"
VERIFY_LIMIT = 30_000_000  # elements: build for real and compare headers below this

Case = tuple[str, str, dict[str, Any]]  # (case name, variant, __init__ overrides)
CLASS_KEYS = {"cases", "cases_from", "variant_suffix", "change"}
CASE_KEYS = {"name", "variant", "base", "drop", "config"}


def load_cases(folder: Path = DATA) -> dict[str, list[Case]]:
    """Every class's cases, expanded (bases merged, copied case lists filled in), in file and document order."""
    tables = _read(folder)
    entries = {cls_name: _entries(cls_name, table.get("cases", [])) for cls_name, table in tables.items()}

    def overrides(ref: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
        cls_name, _, name = ref.partition("-")
        if ref in seen or name not in entries.get(cls_name, {}):
            raise SystemExit(f"base {ref!r}: no such case (<Class>-<case>), or a cycle through {seen}")
        entry = entries[cls_name][name]
        config: dict[str, Any] = {}
        if "base" in entry:
            config = {k: v for k, v in overrides(entry["base"], (*seen, ref)).items() if k not in entry.get("drop", [])}
        return {**config, **_python(entry.get("config", {}))}

    cases = {
        cls_name: [
            (e["name"], e["variant"], copy.deepcopy(overrides(f"{cls_name}-{e['name']}"))) for e in table["cases"]
        ]
        for cls_name, table in tables.items()
        if "cases" in table
    }
    for cls_name, table in tables.items():
        if "cases_from" in table:
            cases[cls_name] = _copied(cls_name, table, cases)
    return {cls_name: cases[cls_name] for cls_name in tables}


def _read(folder: Path) -> dict[str, dict[str, Any]]:
    tables: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.toml")):
        with path.open("rb") as f:
            for cls_name, table in tomllib.load(f).items():
                if cls_name in tables or set(table) - CLASS_KEYS or ("cases" in table) == ("cases_from" in table):
                    raise SystemExit(
                        f"{path.name}: {cls_name} is listed twice, or its table does not have either "
                        f"cases or cases_from (keys: {sorted(CLASS_KEYS)})"
                    )
                tables[cls_name] = table
    return tables


def _entries(cls_name: str, cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = {}
    for e in cases:
        if set(e) - CASE_KEYS or not {"name", "variant"} <= set(e) or ("drop" in e and "base" not in e):
            raise SystemExit(
                f"{cls_name} case {e.get('name')}: keys are {sorted(CASE_KEYS)}, name and variant "
                f"required, drop only with base"
            )
        if e["name"] in entries or "\n" in e["variant"]:
            raise SystemExit(
                f"{cls_name}-{e['name']}: a second case of that name, or a line break in its variant "
                f"(a wrapped line ends with a backslash)"
            )
        entries[e["name"]] = e
    return entries


def _python(value: Any) -> Any:
    """TOML value -> Python: the string "None" is None (TOML has no null)."""
    if value == "None":
        return None
    if isinstance(value, list):
        return [_python(v) for v in value]
    if isinstance(value, dict):
        return {k: _python(v) for k, v in value.items()}
    return value


def _copied(cls_name: str, table: dict[str, Any], cases: dict[str, list[Case]]) -> list[Case]:
    """The cases of the class named by cases_from, with variant_suffix and change applied."""
    source = cases.get(table["cases_from"])
    change, suffix = table.get("change", {}), table.get("variant_suffix")
    if source is None or set(change) - {name for name, _, _ in source}:
        raise SystemExit(
            f"{cls_name}: cases_from {table['cases_from']!r} is not a class with its own cases, or "
            f"change names a case it does not have"
        )
    copied = []
    for name, variant, config in source:
        variant = f"{variant} {suffix}" if suffix and name != "default" else variant
        new = change.get(name, {})
        copied.append((new.get("name", name), new.get("variant", variant), copy.deepcopy(config)))
    return copied


DTYPES = {
    "float32": "F32",
    "float16": "F16",
    "bfloat16": "BF16",
    "float64": "F64",
    "int64": "I64",
    "int32": "I32",
    "uint8": "U8",
    "bool": "BOOL",
    "int8": "I8",
}


def _st_dtype(dtype: Any) -> str:
    return DTYPES[str(dtype).replace("torch.", "")]


def record(model: Any, tmp: str) -> list[tuple[str, str, list[int]]]:
    """Run the real save_pretrained with the safetensors writer replaced by a recorder."""
    import safetensors.torch

    written: list[tuple[str, str, list[int]]] = []
    original = safetensors.torch.save_file

    def recorder(
        tensors: dict[str, Any], filename: str | os.PathLike[str], metadata: dict[str, str] | None = None
    ) -> None:
        written.extend((n, _st_dtype(t.dtype), list(t.shape)) for n, t in tensors.items())

    safetensors.torch.save_file = recorder
    try:
        model.save_pretrained(tmp, max_shard_size="1000GB")
    finally:
        safetensors.torch.save_file = original
    return written


def dump(cls_name: str, case: str, variant: str, overrides: dict[str, Any]) -> None:
    import diffusers
    import torch

    cls = getattr(diffusers, cls_name)
    dest = OUT / cls_name / f"{cls_name}-{case}"
    with torch.device("meta"):
        model = cls(**overrides)
    params = {n for n, _ in model.named_parameters()}
    with tempfile.TemporaryDirectory() as tmp:
        layout = record(model, tmp)
        config = json.loads(Path(tmp, "config.json").read_text())
    names = [n for n, _, _ in layout]
    buffers = [n for n in names if n not in params]
    parameters = model.num_parameters()
    elements = sum(math.prod(s) for _, _, s in layout)
    notes = []
    non_persistent = sorted(n for n, _ in model.named_buffers() if n not in set(names))
    if non_persistent:
        notes.append(
            f"non-persistent buffers (not saved): {', '.join(non_persistent[:8])}"
            + (" ..." if len(non_persistent) > 8 else "")
        )
    if elements <= VERIFY_LIMIT:
        notes.append(verify(cls, overrides, layout, config))
    else:
        notes.append("meta only (too large to build for real here)")
    assert elements - sum(math.prod(s) for n, _, s in layout if n in buffers) == parameters, (cls_name, case)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    (dest / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    (dest / "layout.json.gz").write_bytes(
        gzip.compress(
            json.dumps(
                {
                    "class": cls_name,
                    "produced_by": f"diffusers {diffusers.__version__}, torch {torch.__version__}",
                    "tensors": layout,
                }
            ).encode(),
            mtime=0,
        )
    )
    truth = {
        "class": cls_name,
        "parameters": parameters,
        "persistent_buffers": buffers,
        "tied_dropped": [],
        "variant": variant,
        "notes": "; ".join(notes),
    }
    (dest / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    print(f"{cls_name}-{case}: {len(layout)} tensors, {parameters:,} parameters", flush=True)


def verify(
    cls: Any, overrides: dict[str, Any], layout: list[tuple[str, str, list[int]]], config: dict[str, Any]
) -> str:
    """Build for real on CPU, save for real, and compare the headers and config.json with the recording."""
    import torch
    from safetensors import safe_open

    torch.manual_seed(0)
    model = cls(**overrides)
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        real_config = json.loads(Path(tmp, "config.json").read_text())
        real = []
        for f in sorted(Path(tmp).glob("*.safetensors")):
            with safe_open(str(f), "pt") as h:
                for n in h.keys():
                    s = h.get_slice(n)
                    real.append((n, s.get_dtype(), list(s.get_shape())))
    if sorted(real) != sorted(layout) or real_config != config:
        raise SystemExit(f"{cls.__name__}: the real save differs from the recording")
    return "Real CPU save_pretrained cross-check: verified"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated class names")
    parser.add_argument("--list", action="store_true", help="print the expanded cases as JSON lines, build nothing")
    args = parser.parse_args(argv)
    only = {c for c in args.only.split(",") if c}
    all_cases = load_cases()
    if only - set(all_cases):
        parser.error(f"no cases for {', '.join(sorted(only - set(all_cases)))} in {DATA}")
    for cls_name, cases in all_cases.items():
        if only and cls_name not in only:
            continue
        for case, variant, overrides in cases:
            if args.list:
                print(json.dumps({"class": cls_name, "case": case, "variant": variant, "overrides": overrides}))
                continue
            try:
                dump(cls_name, case, variant, overrides)
            except SystemExit:
                raise
            except Exception as e:  # noqa: BLE001 - report and go on: the list says what could not be built
                print(f"{cls_name}-{case}: cannot build: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
