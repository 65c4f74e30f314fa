"""Generate docs/coverage.md: which model types transformers builds have an exact formula, verified how.

Reads the spec files, the dumped cases (fixtures/cases, docs/truth.md), the cases transformers could not
build (fixtures/cases/_unbuildable.json) and transformers' auto mappings (fixtures/transformers-mappings.json,
tools/dump_mappings.py), audits every case (header-only, in a temp dir) and writes the table. It also rewrites
the family list in docs/families.md and the table of finding codes in docs/codes.md. No torch needed:

    make coverage        # or: .venv/bin/python tools/coverage.py > docs/coverage.md
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository root, for tests.support

import auditor  # noqa: E402
from auditor.core.findings import codes_table  # noqa: E402
from auditor.specs import select  # noqa: E402
from tests.support import releases  # noqa: E402
from tests.support.truth import CASES, case_dirs, config, problems, write_case  # noqa: E402

# (title, mapping, rows judged by the mapped class's own cases only: a spec claiming another class of the type,
# BigBirdForCausalLM, says nothing about BigBirdForMaskedLM; and Qwen3_5ForCausalLM, built from a qwen3_5 config's
# text_config, is judged by its own cases, not by Qwen3_5ForConditionalGeneration's)
GROUPS = (("Causal language models", "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", True),
          ("Image-text-to-text models", "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES", True),
          ("Masked language models (text encoders)", "MODEL_FOR_MASKED_LM_MAPPING_NAMES", True),
          ("Sequence-to-sequence models", "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES", True),
          ("Speech sequence-to-sequence models", "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES", True),
          ("CTC speech models", "MODEL_FOR_CTC_MAPPING_NAMES", True),
          ("Image classification models", "MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES", True),
          # one row per class: what AutoModel / AutoModelFor* build from a composite config itself besides the
          # conditional-generation class (tools/dump_cases.py --group 5)
          ("Base models and task classes of composite configs", "COMPOSITE_CLASSES", True))


def verify() -> dict[str, dict[str, list]]:
    """model_type -> {"exact": [case...], "failing": [(case, problems)], "uncovered": [case...], "specs": {...}}."""
    out: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(case_dirs()):
            spec, _ = select(config(case))
            row = out[case.parent.name]
            if spec is None:
                row["uncovered"].append(case.name)
                continue
            row["specs"].append(spec.file)
            row["spec_of"].append((case.name, spec.file))
            report = auditor.audit(write_case(case, Path(tmp) / str(i)))
            bad = problems(report, case)
            (row["failing"] if bad else row["exact"]).append(case.name if not bad else (case.name, bad))
    return out


def verify_releases() -> list[str]:
    """One table row per real release in fixtures/releases (remote-code families, configs as old writers wrote
    them): rebuilt header-only at release shape from its index and audited; exact when the audit exits 0 with no
    error or warning and the formula's count (its MTP block beside it) is the release code's own."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for slug in releases.slugs():
            doc = releases.load(slug)
            report = auditor.audit(releases.build_release(doc, Path(tmp) / slug))
            rec = report.reconciliation
            counted = (rec.expected_parameters or 0) + (rec.mtp_parameters or 0)
            truth = doc.get("parameters", sum(_elements(s) for _, _, s, *_ in doc["tensors"]))
            bad = [f.code for f in report.findings if f.severity in ("error", "warning")]
            status = ("exact" if report.exit_code == 0 and not bad and counted == truth else
                      f"failing ({', '.join(bad) or f'{counted:,} counted, the code says {truth:,}'})")
            where = doc["provenance"]
            rows.append(f"| {doc['family']} | {(rec.spec or {}).get('file', '-')} | {doc['hub']} | "
                        f"[{where['repo']}](https://github.com/{where['repo']}) `{where['commit'][:12]}` | "
                        f"{len(doc['tensors']):,} | {doc['total_size']:,} | {truth:,} | {status} |")
    return rows


def _elements(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _unbuildable() -> dict[str, list[str]]:
    path = CASES / "_unbuildable.json"
    doc = json.loads(path.read_text()) if path.exists() else {}
    out: dict[str, list[str]] = defaultdict(list)
    for key, why in doc.items():
        out[key.split("/", 1)[0]].append(f"{key.split('/', 1)[1]}: {why.splitlines()[0][:140]}")
    return out


def _redirects() -> dict[str, str]:
    """``"model_type/Class" -> the model type whose folder holds its cases`` (tools/dump_cases.py writes it)."""
    path = CASES / "_redirects.json"
    doc = json.loads(path.read_text()) if path.exists() else {}
    return {key: target.split("/", 1)[0] for key, target in doc.items()}


def render(results: dict[str, dict[str, list]], release_rows: list[str] | None = None) -> str:
    mappings = json.loads((ROOT / "fixtures" / "transformers-mappings.json").read_text())
    unbuildable = _unbuildable()
    redirects = _redirects()
    lines = ["# Coverage: which architectures get an exact formula", "",
             f"Generated by `make coverage` (tools/coverage.py) from the spec files and the cases dumped from "
             f"transformers {mappings['transformers']} (docs/truth.md). **exact**: every dumped case (the class "
             "default config and perturbed ones) reconciles with no error or warning, nothing unexplained, and "
             "transformers' own parameter count; **structural**: no spec yet, the structural check runs (no "
             "false alarm on any dumped case); **not buildable**: transformers itself could not build the class "
             "(the reason is its own error).", ""]
    total: dict[str, int] = defaultdict(int)
    for title, key, by_class in GROUPS:
        rows = []
        pairs = [(mt, c) for mt, cs in mappings[key].items()
                 for c in (cs if key == "COMPOSITE_CLASSES" else [cs])]
        for model_type, cls in pairs:
            r = results.get(model_type, {})
            # a class built from another type's config (gpt-sw3 is GPT2Config, MusicgenForCausalLM takes the
            # musicgen_decoder config): its cases were dumped under that type (fixtures/cases/_redirects.json)
            via = redirects.get(f"{model_type}/{cls}") if not r and isinstance(cls, str) else None
            if via is not None:
                r = {k: [c for c in v if (c[0] if isinstance(c, tuple) else c).startswith(f"{cls}-")]
                     if k != "specs" else v for k, v in results.get(via, {}).items()}
            exact, failing, uncovered = r.get("exact", []), r.get("failing", []), r.get("uncovered", [])
            specs = ", ".join(sorted(set(r.get("specs", [])))) or "-"
            if by_class and isinstance(cls, str):
                mine = lambda name, cls=cls: name.startswith(f"{cls}-")  # noqa: E731
                exact = [c for c in exact if mine(c)]
                failing = [c for c in failing if mine(c[0])]
                uncovered = [c for c in uncovered if mine(c)]
                specs = ", ".join(sorted({f for c, f in r.get("spec_of", []) if mine(c)})) or "-"
            if exact and not failing:
                status = "exact"
            elif failing:
                status = f"failing ({len(failing)} of {len(failing) + len(exact)} cases)"
            elif uncovered:
                status = "structural"
            elif model_type in unbuildable and (key != "COMPOSITE_CLASSES" or any(
                    why.startswith(f"{cls}:") for why in unbuildable[model_type])):
                status = "not buildable: " + "; ".join(why for why in unbuildable[model_type]
                                                       if key != "COMPOSITE_CLASSES" or why.startswith(f"{cls}:"))
            else:
                status = "no cases dumped"
            total[status.split(" (")[0].split(":")[0]] += 1
            cases = len(exact) + len(failing) + len(uncovered)
            cases = f"{cases} (as {via})" if via is not None else cases
            rows.append(f"| {model_type} | {cls if isinstance(cls, str) else ', '.join(cls)} | {specs} | {cases} | "
                        f"{status} |")
        lines += [f"## {title} ({len(rows)} {'classes' if key == 'COMPOSITE_CLASSES' else 'model types'})", "", "| model_type | class | spec | cases | status |",
                  "|---|---|---|---|---|", *rows, ""]
    if release_rows:
        lines += [f"## Remote-code families and real releases ({len(release_rows)} releases)", "",
                  "Families whose code ships with the checkpoint (`trust_remote_code`), and releases whose config an "
                  "older writer wrote, checked against real releases: the release's config.json and index from a "
                  "public mirror of its Hub repo, each tensor's shape from the release's own modeling code "
                  "(fixtures/releases, tools/dump_remote.py), the bytes equal to the index's total_size, rebuilt "
                  "header-only at release shape and audited. **exact**: exit 0, no error or warning, and the "
                  "formula's count (with its MTP block) equal to the code's own `num_parameters()` (or, for a "
                  "fixture whose shapes were written by hand, the stored elements).", "",
                  "| model_type | spec | release | mirror read | tensors | total_size | parameters | status |",
                  "|---|---|---|---|---|---|---|---|", *release_rows, ""]
    summary = ", ".join(f"{n} {k}" for k, n in sorted(total.items(), key=lambda kv: -kv[1]))
    lines.insert(2, f"Summary over all tables (a model type in several counts in each): {summary}.\n")
    return "\n".join(lines)


START, END = "<!-- families: generated by make coverage -->", "<!-- end of families -->"


def family_list() -> str:
    """docs/families.md's family list, from the spec files: what each claims, grouped by kind."""
    from auditor.specs.load import load_all
    kinds = {"decoder": "Decoders", "encoder": "Text encoders", "seq2seq": "Encoder-decoder models",
             "vision": "Vision, speech and contrastive encoders", "multimodal": "Multimodal models",
             "tower": "Towers (used as modules)", "diffusers": "diffusers models (by config _class_name)"}
    by_kind: dict[str, list[str]] = defaultdict(list)
    for spec in load_all().values():
        family = spec.family
        claims = ", ".join([*spec.model_types, *spec.architectures, *spec.diffusers_classes])
        by_kind[family].append(f"`{spec.file}` ({claims})")
    lines = [START]
    for kind, title in kinds.items():
        if by_kind[kind]:
            lines.append(f"- {title} ({len(by_kind[kind])}): " + "; ".join(sorted(by_kind[kind])) + ".")
    lines.append(END)
    return "\n".join(lines)


CODES_START = "| code | severity | meaning |"


def update_docs(families: Path = ROOT / "docs" / "families.md", codes: Path = ROOT / "docs" / "codes.md") -> None:
    """The family list in docs/families.md (between START and END) and the table of finding codes in
    docs/codes.md (from auditor/core/codes.toml: the table under CODES_START, up to a blank line or the end)."""
    text = families.read_text()
    start, end = text.index(START), text.index(END) + len(END)
    families.write_text(text[:start] + family_list() + text[end:])
    text = codes.read_text()
    start = text.index(CODES_START)
    end = text.find("\n\n", start) + 1 or len(text)
    codes.write_text(text[:start] + codes_table() + text[end:])


if __name__ == "__main__":
    update_docs()
    sys.stdout.write(render(verify(), verify_releases()))
