"""Dump a remote-code release's tensors by running its own modeling code on the meta device.

DEV-ONLY TOOL (needs torch and the transformers version the repo's code was written for, in a dev venv; neither is a
runtime or test dependency, and the fetched code is never committed). A ``trust_remote_code`` family (ChatGLM,
Qwen-1, InternLM2 ...) has no class in transformers; its release ships ``modeling_*.py``. Given a local snapshot of a
public mirror of the release (config.json, the index, the repo's *.py), this builds the model class config.json's
``auto_map`` names from that code inside ``torch.device("meta")`` in the config's dtype, takes its state_dict (tied
copies dropped as save_pretrained drops them) and checks it against the real index: the same tensor names, and the
bytes of the shapes the code makes equal to the index's ``metadata.total_size`` to the byte. Only then it writes the
derived facts to ``fixtures/releases/<slug>.json.gz`` (the format of tools/derive_release.py: config, tensors in
index order with their shard and shape, dtype, total_size, provenance), plus ``parameters``: the code's own
``num_parameters()``, the count st-audit's formula must give.

    git -C MIRROR show COMMIT:config.json > SNAP/config.json   # likewise the index and every *.py the code imports
    $DEVENV/bin/python tools/dump_remote.py SLUG --src SNAP --family chatglm --repo OWNER/NAME --commit SHA \\
        --hub THUDM/chatglm3-6b --index pytorch_model.bin.index.json
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import math
import re
import tempfile
from pathlib import Path

import torch
import transformers
from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

ROOT = Path(__file__).resolve().parents[1]
DTYPES = {torch.float16: "F16", torch.bfloat16: "BF16", torch.float32: "F32"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("slug")
    ap.add_argument("--src", required=True, type=Path, help="the snapshot: config.json, the index, the repo's *.py")
    ap.add_argument("--family", required=True, help="the model_type (the spec the fixture tests)")
    ap.add_argument("--repo", required=True, help="the public mirror the files were read from (owner/name)")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--hub", required=True, help="the Hub release the mirror copies")
    ap.add_argument("--index", default="model.safetensors.index.json")
    ap.add_argument(
        "--auto",
        default="AutoModelForCausalLM",
        help="the auto_map entry to build, or 'class': transformers' own class architectures[0] names",
    )
    ap.add_argument(
        "--resave",
        action="store_true",
        help="the fixture's config is what this transformers' save_pretrained writes from the mirror's "
        "(Qwen2-VL as transformers 4.45 wrote it: vision_config with model_type qwen2_vl)",
    )
    ap.add_argument("--note", default="", help="anything a reader of the fixture must know")
    ap.add_argument(
        "--module",
        type=Path,
        help="the code's file, when config.json has no auto_map (Open-Assistant's "
        "reward_model.py registers its classes on import)",
    )
    ap.add_argument("--model-class", help="with --module: the class to build (its config_class reads config.json)")
    ap.add_argument(
        "--stored-dtype",
        nargs="*",
        default=[],
        metavar="REGEX=DTYPE",
        help="tensors the release stores in another dtype than the code makes them (MiniMax-M1's routers "
        "in F32: the index's total_size exceeds the code's bytes by exactly theirs); say why in --note",
    )
    ap.add_argument(
        "--extra",
        nargs="*",
        default=[],
        metavar="REGEX=BUFFER:DTYPE",
        help="index names this version of the code no longer saves (openPangu's per-layer rotary "
        "inv_freq), each shaped as the code's own buffer BUFFER (a non-persistent one it still "
        "makes), stored as DTYPE; say why in --note",
    )
    ap.add_argument("--paths", nargs="+", help="the files' paths in the mirror, where not config.json and --index")
    args = ap.parse_args()
    raw = json.loads((args.src / "config.json").read_text())
    # no index: what the writer saves, in one file (a family whose releases no public mirror holds)
    index = json.loads((args.src / args.index).read_text()) if args.index != "none" else None
    cls = None
    if args.module is not None:
        spec = importlib.util.spec_from_file_location(args.module.stem, args.module)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cls = getattr(module, args.model_class)
        config = cls.config_class.from_dict(raw)
    else:
        config = AutoConfig.from_pretrained(args.src, trust_remote_code=True)
    if args.resave:
        with tempfile.TemporaryDirectory() as tmp:
            config.save_pretrained(tmp)
            raw = json.loads((Path(tmp) / "config.json").read_text())
    dtype = getattr(torch, str(raw.get("torch_dtype") or "bfloat16"))
    with torch.device("meta"):
        if cls is not None:
            model = cls._from_config(config, torch_dtype=dtype)
        elif args.auto == "class":
            model = getattr(transformers, raw["architectures"][0])._from_config(config, torch_dtype=dtype)
        else:
            auto = {"AutoModelForCausalLM": AutoModelForCausalLM, "AutoModel": AutoModel}[args.auto]
            model = auto.from_config(config, trust_remote_code=True, torch_dtype=dtype)
    state = model.state_dict()
    tied = set(getattr(model, "_tied_weights_keys", None) or ())
    if index is None:
        index = {
            "weight_map": {n: "model.safetensors" for n in state if n not in tied},
            "metadata": {
                "total_size": sum(math.prod(t.shape) * t.element_size() for n, t in state.items() if n not in tied)
            },
        }
    names = list(index["weight_map"])
    extra = [n for n in state if n not in index["weight_map"]]
    if any(n not in tied for n in extra):
        raise SystemExit(f"the code makes tensors the index does not name: {extra[:5]}")
    buffers = dict(model.named_buffers())
    for pattern, target in (e.split("=", 1) for e in args.extra):
        buffer, code = target.split(":")
        for n in names:
            if n not in state and re.fullmatch(pattern, n):
                state[n] = buffers[buffer].to(
                    getattr(torch, {"F32": "float32", "BF16": "bfloat16", "F16": "float16"}[code])
                )
    missing = [n for n in names if n not in state]
    if missing:
        raise SystemExit(f"the index names tensors the code does not make: {missing[:5]}")
    overrides = [(re.compile(k), v) for k, v in (o.split("=", 1) for o in args.stored_dtype)]
    sizes = {"F16": 2, "BF16": 2, "F32": 4}
    tensors = []
    total = 0
    for name in names:
        t = state[name]
        shape = list(t.shape)
        code = next((v for p, v in overrides if p.fullmatch(name)), DTYPES[t.dtype])
        total += math.prod(shape) * sizes[code]
        tensors.append([name, index["weight_map"][name], shape] + ([code] if code != DTYPES[dtype] else []))
    if total != index["metadata"]["total_size"]:
        raise SystemExit(f"the code's shapes hold {total:,} bytes, the index says {index['metadata']['total_size']:,}")
    doc = {
        "family": args.family,
        "hub": args.hub,
        "provenance": {
            "repo": args.repo,
            "commit": args.commit,
            "paths": args.paths or ["config.json", args.index],
            "config_written_by": f"transformers {transformers.__version__} save_pretrained"
            if args.resave
            else "the release"
            if args.module is None
            else "the code's config class, save_pretrained",
            "modeling": sorted(p.name for p in args.src.glob("*.py")) or [str(args.model_class)],
            "built_with": f"transformers {transformers.__version__}, torch {torch.__version__}, "
            f"{args.auto if cls is None else args.module.name} -> {type(model).__name__} "
            "on the meta device",
        },
        "dtype": DTYPES[dtype],
        "total_size": total,
        "parameters": model.num_parameters(),
        "config": raw,
        "tensors": tensors,
    }
    if args.note:
        doc["note"] = args.note
    out = ROOT / "fixtures" / "releases" / f"{args.slug}.json.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(gzip.compress(json.dumps(doc, separators=(",", ":")).encode(), mtime=0))
    print(
        f"{out.relative_to(ROOT)}: {len(names)} tensors, {total:,} bytes = total_size, "
        f"{doc['parameters']:,} parameters ({type(model).__name__})"
    )


if __name__ == "__main__":
    main()
