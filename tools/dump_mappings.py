"""Dump transformers' auto-class mappings (model_type -> class) that the coverage table is measured against.

DEV-ONLY TOOL (needs transformers; not a runtime or test dependency). Writes
``fixtures/transformers-mappings.json``; ``tools/coverage.py`` reads it to list every model type transformers
builds as a causal LM or an image-text-to-text model, and the encoder / seq2seq / speech / vision ones; and
``COMPOSITE_CLASSES``: the other classes an Auto class builds from a composite config (base models, task heads).

    /path/to/devenv/bin/python tools/dump_mappings.py
"""

from __future__ import annotations

import json
from pathlib import Path

import transformers
from transformers.models.auto import modeling_auto as auto

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "transformers-mappings.json"
MAPPINGS = (
    "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES",
    "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES",
    "MODEL_MAPPING_NAMES",
    "MODEL_FOR_MASKED_LM_MAPPING_NAMES",
    "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
    "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
    "MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES",
    "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES",
    "MODEL_FOR_CTC_MAPPING_NAMES",
    "MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES",
)


def main() -> None:
    doc = {"transformers": transformers.__version__}
    for name in MAPPINGS:
        mapping = getattr(auto, name)
        doc[name] = {k: (v if isinstance(v, str) else list(v)) for k, v in sorted(mapping.items())}
    # the classes an Auto class builds from a composite config itself, beside its conditional-generation class
    # (LlavaModel, Qwen3_5ForSequenceClassification ...): tools/dump_cases.py --group 5
    import sys

    sys.path.insert(0, str(OUT.parents[1] / "tools"))
    from dump_cases import composite_classes

    composite: dict[str, list[str]] = {}
    for model_type, cls in composite_classes():
        composite.setdefault(model_type, []).append(cls)
    doc["COMPOSITE_CLASSES"] = composite
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{OUT}: " + ", ".join(f"{k} {len(v)}" for k, v in doc.items() if isinstance(v, dict)))


if __name__ == "__main__":
    main()
