"""Dump what transformers saves for real config.json files of popular text encoders (DEV-ONLY TOOL).

torch / transformers are not runtime or test dependencies: run by hand in the dev virtualenv and commit the
output. For each real config in ``fixtures/configs/encoders/`` (provenance in its SOURCES.md) and the class a
real checkpoint of it stores, the class is built from that config with transformers' own config class, saved
through the real ``save_pretrained`` with the safetensors writer recording (tools/dump_cases.py does the
building, recording and the real CPU cross-check), and written as a case folder
``fixtures/cases/<model_type>/<Class>-real-<slug>/`` (docs/truth.md). tests/test_specs_cases.py then checks those
cases like every other one.

    $DEVENV/bin/python tools/dump_real_configs.py
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "fixtures" / "configs" / "encoders"

# config file -> the class a real checkpoint of it stores (sentence-transformers saves the base model whatever
# architectures says)
TARGETS = {
    "sentence-transformers__all-MiniLM-L6-v2.json": "BertModel",
    "sentence-transformers__all-mpnet-base-v2.json": "MPNetModel",
    "BAAI__bge-base-en-v1.5.json": "BertModel",
    "BAAI__bge-reranker-base.json": "XLMRobertaForSequenceClassification",
    "satishsingh-singh90__deberta-v3-base-qa.json": "DebertaV2ForQuestionAnswering",
}
# keys save_pretrained writes itself (or that only record where the file came from)
DROP = ("architectures", "_name_or_path", "transformers_version", "torch_dtype", "dtype")


def _dump_cases():
    spec = importlib.util.spec_from_file_location("dump_cases", ROOT / "tools" / "dump_cases.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["dump_cases"] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    dc = _dump_cases()
    from transformers import AutoConfig

    for file, cls_name in TARGETS.items():
        real = json.loads((CONFIGS / file).read_text())
        model_type = real["model_type"]
        cfg = AutoConfig.for_model(model_type, **{k: v for k, v in real.items() if k not in DROP + ("model_type",)})
        model = dc.build(cls_name, cfg, "meta")
        lay = dc.capture(model)
        del model
        slug = re.sub(r"[^a-z0-9]+", "-", file[: -len(".json")].split("__", 1)[1].lower()).strip("-")
        notes = [
            f"The real config.json of {file[:-5].replace('__', '/')} (fixtures/configs/encoders/{file}, "
            f"provenance in SOURCES.md) built as {cls_name}."
        ]
        if dc.n_elements(lay["tensors"]) <= dc.VERIFY_MAX:
            ok, msg = dc.verify_real(cls_name, cfg, lay)
            notes.append(f"Real CPU save_pretrained cross-check: {msg}." if ok else f"Cross-check: {msg}.")
        else:
            notes.append("Not cross-checked by a real save (too large); meta capture only.")
        name = f"{cls_name}-real-{slug}"
        shutil.rmtree(dc.CASES / model_type / name, ignore_errors=True)
        dc.write_case(
            model_type,
            name,
            cls_name,
            lay,
            f"perturbed: the real config of {file[:-5].replace('__', '/')}",
            " ".join(notes),
        )
        print(f"{model_type}/{name}: {len(lay['tensors'])} tensors, {lay['parameters']:,} parameters", flush=True)


if __name__ == "__main__":
    main()
