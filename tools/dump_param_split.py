"""Record, for every dumped case folder, how the built model splits into parameters and buffers.

DEV-ONLY TOOL (like tools/dump_cases.py and tools/dump_diffusers.py): run with the dev virtualenv
(``$DEVENV/bin/python tools/dump_param_split.py``). For each case folder under ``fixtures/cases/`` and
``fixtures/diffusers-cases/`` it rebuilds the class from the folder's own ``config.json`` on the ``meta`` device
with the dump tools' build and record functions, runs the real ``save_pretrained`` with the writer recording
(so the saved names are the library's), and adds to that case's ``truth.json``::

    "split": {"num_parameters": N,                    # model.num_parameters() of the rebuilt model
              "parameters": [tensors, elements],      # named_parameters() (a tied parameter once)
              "persistent_buffers": [tensors, elements],      # named_buffers() in the state_dict
              "non_persistent_buffers": {template: count},    # named_buffers() not in the state_dict (N = index)
              "frozen_parameters": [[name, shape]],   # requires_grad False (Marian's sinusoidal tables)
              "parameters_not_saved": [[name, shape]],        # counted by num_parameters(), never written
              "buffers_not_saved": [[name, shape]],   # persistent buffers save_pretrained leaves out
              "by": "transformers 5.23.0, torch 2.13.0"}

and rewrites ``persistent_buffers`` (the SAVED names whose tensor is a buffer) from the rebuild. Empty lists are
left out. The rebuild must reproduce the folder's layout (every name, dtype and shape) and its ``parameters``;
a case that does not, or cannot be built, is reported and its truth.json left untouched.

    $DEVENV/bin/python tools/dump_param_split.py                      # every case folder (2 processes)
    $DEVENV/bin/python tools/dump_param_split.py --missing            # only folders with no "split" yet
    $DEVENV/bin/python tools/dump_param_split.py --only marian,deepseek_v4,MotionAdapter
    $DEVENV/bin/python tools/dump_param_split.py --only 'MarianMTModel-*' --check   # compare, write nothing

``--only``: comma-separated model types, diffusers classes or case-folder names (shell globs allowed). The timm
towers (Gemma-3n, FastVLM, PerceptionLM) need timm and the torchvision shim on PYTHONPATH, and DiNAT its backend
stub, exactly as for tools/dump_cases.py (docs/truth.md).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import re
import sys
import tempfile
import time
import traceback
from collections import Counter
from multiprocessing import Pool
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "fixtures" / "cases"
DIFFUSERS_CASES = REPO / "fixtures" / "diffusers-cases"
sys.path.insert(0, str(REPO / "tools"))
os.environ["HF_HUB_OFFLINE"] = "1"  # config.json is read from the folder, never fetched

# model types whose classes build only with a backend stub (tools/dump_cases.py --stub-backend), as dumped
STUBS = {"dinat": "natten"}


def case_folders() -> list[Path]:
    return sorted(p.parent for p in list(CASES.glob("*/*/truth.json")) + list(DIFFUSERS_CASES.glob("*/*/truth.json")))


def selected(case: Path, only: list[str]) -> bool:
    keys = (case.parent.name, case.name)
    return not only or any(fnmatch.fnmatchcase(k, pat) for k in keys for pat in only)


def _template(name: str) -> str:
    return re.sub(r"(?<=\.)\d+(?=\.|$)", "N", name)


def _shape(t: Any) -> list[int]:
    return [int(d) for d in t.shape]


def _elements(tensors: Any) -> int:
    return sum(math.prod(_shape(t)) for t in tensors)


def _layout(case: Path) -> list[list[Any]]:
    import gzip

    return [
        [n, d, list(s)] for n, d, s in json.loads(gzip.decompress((case / "layout.json.gz").read_bytes()))["tensors"]
    ]


def split_transformers(case: Path) -> tuple[dict[str, Any], list[str], list[list[Any]], int]:
    """Rebuild a transformers case from its config.json; return the split, the saved buffer names, the saved
    layout and num_parameters()."""
    import dump_cases
    from transformers import AutoConfig

    config = json.loads((case / "config.json").read_text())
    cls_name = json.loads((case / "truth.json").read_text())["class"]
    model_type = config["model_type"]
    if model_type in STUBS and model_type not in _stubbed:
        dump_cases.stub_backend(model_type, STUBS[model_type])
        _stubbed.add(model_type)
    cfg = AutoConfig.from_pretrained(str(case))  # config.json read as from_pretrained reads it
    model = dump_cases.build(cls_name, cfg, "meta")
    lay = dump_cases.capture(model)
    # lay["sources"]: the in-memory names whose tensor was written (under its own or a renamed name)
    split = _split(model, model.state_dict(), set(lay["sources"]), set(lay["tied_dropped"]), lay["converted"])
    return split, lay["buffers"], lay["tensors"], model.num_parameters()


_stubbed: set[str] = set()


def _split(model: Any, sd: dict[str, Any], written: set[str], tied: set[str], converted: list[str]) -> dict[str, Any]:
    params = dict(model.named_parameters())  # tied parameters once
    all_params = dict(model.named_parameters(remove_duplicate=False))
    buffers = dict(model.named_buffers(remove_duplicate=False))
    persistent = {n: b for n, b in buffers.items() if n in sd}
    non_persistent = Counter(_template(n) for n in buffers if n not in sd)
    frozen = [[n, _shape(p)] for n, p in params.items() if not p.requires_grad]
    # a state_dict entry save_pretrained did not write: not tied to a kept tensor, not renamed, not converted
    # (a conversion revert writes new names: its sources are judged by element count below)
    unwritten = [n for n in sd if n not in written and n not in tied]
    if converted:
        unwritten = []
    split: dict[str, Any] = {
        "num_parameters": int(model.num_parameters()),
        "parameters": [len(params), _elements(params.values())],
        "persistent_buffers": [len(persistent), _elements(persistent.values())],
    }
    if non_persistent:
        split["non_persistent_buffers"] = dict(sorted(non_persistent.items()))
    if frozen:
        split["frozen_parameters"] = frozen
    not_saved_p = [[n, _shape(all_params[n])] for n in unwritten if n in all_params]
    not_saved_b = [[n, _shape(buffers[n])] for n in unwritten if n in buffers and n not in all_params]
    if not_saved_p:
        split["parameters_not_saved"] = not_saved_p
    if not_saved_b:
        split["buffers_not_saved"] = not_saved_b
    return split


def split_diffusers(case: Path) -> tuple[dict[str, Any], list[str], list[list[Any]], int]:
    import diffusers
    import dump_diffusers
    import torch

    config = json.loads((case / "config.json").read_text())
    cls = getattr(diffusers, config["_class_name"])
    # the class itself, as tools/dump_diffusers.py builds it (from_config would remap a legacy class name such
    # as Transformer2DModel to the class its loader picks)
    init, _, _ = cls.extract_init_dict(config)
    with torch.device("meta"):
        model = cls(**init)
    with tempfile.TemporaryDirectory() as tmp:
        layout: list[list[Any]] = [[n, d, s] for n, d, s in dump_diffusers.record(model, tmp)]
    sd = model.state_dict()
    names: set[str] = {n for n, _, _ in layout}
    params = dict(model.named_parameters(remove_duplicate=False))
    buffers = [n for n, _, _ in layout if n not in params]
    split = _split(model, sd, names, set(), [])
    return split, buffers, layout, model.num_parameters()


def one(case_str: str, check: bool) -> tuple[str, str, str]:
    """(case, status, message): status ok | changed | mismatch | error."""
    case = Path(case_str)
    try:
        import torch
        import transformers

        t0 = time.time()
        diffusers_case = DIFFUSERS_CASES in case.parents
        split, saved_buffers, layout, num_parameters = (split_diffusers if diffusers_case else split_transformers)(case)
        if diffusers_case:
            import diffusers

            split["by"] = f"diffusers {diffusers.__version__}, torch {torch.__version__.split('+')[0]}"
        else:
            split["by"] = f"transformers {transformers.__version__}, torch {torch.__version__.split('+')[0]}"
        text = (case / "truth.json").read_text()
        truth = json.loads(text)
        stored = _layout(case)
        problems = []
        if sorted(map(tuple, map(_hashable, stored))) != sorted(map(tuple, map(_hashable, layout))):
            a = {n for n, _, _ in stored}
            b = {n for n, _, _ in layout}
            problems.append(
                f"layout differs from the rebuild (only in the folder: {sorted(a - b)[:3]}, only rebuilt: "
                f"{sorted(b - a)[:3]}, {len(stored)} vs {len(layout)} tensors)"
            )
        if num_parameters != truth["parameters"]:
            problems.append(f"num_parameters {num_parameters:,} != truth {truth['parameters']:,}")
        elements = {n: math.prod(s) for n, _, s in layout}
        saved_params = sum(elements.values()) - sum(elements[n] for n in saved_buffers)
        not_saved = sum(math.prod(s) for _, s in split.get("parameters_not_saved", []))
        if saved_params + not_saved != num_parameters:
            problems.append(
                f"saved parameters {saved_params:,} + not saved {not_saved:,} != num_parameters {num_parameters:,}"
            )
        if problems:
            return case_str, "mismatch", "; ".join(problems)
        new = dict(truth)
        new["persistent_buffers"] = saved_buffers
        new["split"] = split
        changed = new != truth
        if changed and not check:
            indent = 2 if text.startswith('{\n  "') else 1
            (case / "truth.json").write_text(json.dumps(new, indent=indent) + "\n")
        msg = f"{time.time() - t0:.1f}s"
        if truth.get("persistent_buffers") != saved_buffers:
            msg += f"; persistent_buffers changed ({len(truth.get('persistent_buffers', []))} -> {len(saved_buffers)})"
        return case_str, "changed" if changed else "ok", msg
    except Exception as e:  # noqa: BLE001 - reported, the truth.json is left as it is
        lines = [ln for ln in str(e).splitlines() if ln.strip()]
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return case_str, "error", f"{type(e).__name__}: {lines[0][:300] if lines else ''} ({tb.filename}:{tb.lineno})"


def _hashable(row: list[Any]) -> tuple[Any, ...]:
    return (row[0], row[1], tuple(row[2]))


def _init() -> None:
    import warnings

    warnings.filterwarnings("ignore")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        import transformers

        transformers.logging.set_verbosity_error()
    except Exception:  # noqa: BLE001
        pass
    try:
        import diffusers

        diffusers.utils.logging.set_verbosity_error()
    except Exception:  # noqa: BLE001
        pass


def _work(args: tuple[str, bool]) -> tuple[str, str, str]:
    return one(*args)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--only", default="", help="comma-separated model types, diffusers classes or case folder names (globs)"
    )
    ap.add_argument("--missing", action="store_true", help="only case folders whose truth.json has no split yet")
    ap.add_argument("--check", action="store_true", help="compare only; write nothing")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = ap.parse_args()
    only = [p for p in args.only.split(",") if p]
    cases = [c for c in case_folders() if selected(c, only)]
    if args.missing:
        cases = [c for c in cases if "split" not in json.loads((c / "truth.json").read_text())]
    # large folders first, so the two processes finish together
    cases.sort(key=lambda c: -(c / "layout.json.gz").stat().st_size)
    counts: Counter[str] = Counter()
    t0 = time.time()
    work = [(str(c), args.check) for c in cases]
    results = []
    if args.jobs > 1 and len(work) > 1:
        with Pool(args.jobs, initializer=_init, maxtasksperchild=200) as pool:
            for r in pool.imap_unordered(_work, work):
                results.append(r)
                _report(r, counts, len(results), len(work))
    else:
        _init()
        for w in work:
            r = _work(w)
            results.append(r)
            _report(r, counts, len(results), len(work))
    print(
        f"{len(work)} cases in {time.time() - t0:.0f}s: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())),
        flush=True,
    )
    return 1 if counts["mismatch"] or counts["error"] else 0


def _report(r: tuple[str, str, str], counts: Counter[str], done: int, total: int) -> None:
    case, status, msg = r
    counts[status] += 1
    rel = os.path.relpath(case, REPO / "fixtures")
    if status in ("mismatch", "error") or "persistent_buffers changed" in msg:
        print(f"{status.upper():8s} {rel}: {msg}", flush=True)
    if done % 250 == 0:
        print(f"... {done}/{total}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
