"""Kinds other than a plain model folder, from folders the real libraries wrote (fixtures/kinds, dumped by
tools/dump_kinds.py): a diffusers pipeline with fp16 variants, a component alone, a sentence-transformers
model, a diffusers LoRA file; plus several targets per command and --recursive through the CLI.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import jsonschema

from auditor.kinds.discover import classify_config
from auditor.report.composite import CompositeReport
from auditor.run.dispatch import audit_target
from tests.support import build
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "auditor" / "schema" / "report.schema.json").read_text())


rebuild = build.build_folder_dump


def codes(doc: dict[str, Any]) -> list[str]:
    """Every section's findings are in the top-level list too (each naming its section)."""
    return [f["code"] for f in doc["findings"] if f["severity"] != "info"]


def test_pipeline_is_audited_component_by_component(tmp_path: Path) -> None:
    pipe = rebuild("tiny-sd-pipeline", tmp_path / "sd")
    report = audit_target(str(pipe))
    assert isinstance(report, CompositeReport)
    doc = report.to_dict()
    jsonschema.validate(doc, SCHEMA)
    assert doc["kind"]["kind"] == "diffusers-pipeline" and doc["verdict"] == "pass" and codes(doc) == []
    # one section per component; its fp16 weights are an alternate of it, audited and not counted
    assert [(s["name"], s["role"]) for s in doc["sections"]] == [
        ("text_encoder", "CLIPTextModel"),
        ("unet", "UNet2DConditionModel"),
        ("vae", "AutoencoderKL"),
    ]
    by_name = {s["name"]: s["report"] for s in doc["sections"]}
    for name, rep in by_name.items():
        assert rep["variants"]["counted"] is None and rep["variants"]["audited"] == [None, "fp16"], name
        [fp16] = rep["variants"]["alternates"]
        assert (
            fp16["variant"] == "fp16"
            and fp16["verdict"] == "pass"
            and set(fp16["report"]["totals"]["by_dtype"]) == {"F16"}
        )
        assert fp16["report"]["totals"]["parameters"] == rep["totals"]["parameters"] > 0
        assert set(rep["totals"]["by_dtype"]) == {"F32"}
    assert by_name["unet"]["architecture"] == "UNet2DConditionModel"
    # each component (and its fp16 variant) is reconciled with its diffusers class's formula, exactly
    for name, spec in (("unet", "diffusers_unet_2d_condition.toml"), ("vae", "diffusers_autoencoder_kl.toml")):
        for rep in (by_name[name], by_name[name]["variants"]["alternates"][0]["report"]):
            assert rep["expected"]["spec"]["file"] == spec and rep["ledger"]["unexplained"] == 0, name
            assert rep["expected"]["parameters"] == rep["totals"]["parameters"] == rep["ledger"]["model"], name
    # the pipeline counts each component once: what the default files diffusers wrote hold, element by element
    files = build.load_folder_dump("tiny-sd-pipeline")["files"]
    written = sum(
        math.prod(shape)
        for rel, f in files.items()
        if rel.endswith("/model.safetensors") or rel.endswith("/diffusion_pytorch_model.safetensors")
        for _, _, shape in f["tensors"]
    )
    assert doc["totals"]["parameters"] == sum(r["totals"]["parameters"] for r in by_name.values()) == written


def test_a_broken_component_fails_the_pipeline_and_only_its_section(tmp_path: Path) -> None:
    pipe = rebuild("tiny-sd-pipeline", tmp_path / "sd")
    victim = pipe / "vae" / "diffusion_pytorch_model.fp16.safetensors"
    with open(victim, "r+b") as f:
        f.truncate(victim.stat().st_size - 10)
    shutil.rmtree(pipe / "text_encoder")
    doc = audit_target(str(pipe)).to_dict()
    assert doc["verdict"] == "fail"
    verdicts = {s["name"]: s["verdict"] for s in doc["sections"]}
    assert verdicts == {"unet": "pass", "vae": "fail"}  # the vae's fp16 weights fail it
    vae = next(s["report"] for s in doc["sections"] if s["name"] == "vae")
    assert [(a["variant"], a["verdict"]) for a in vae["variants"]["alternates"]] == [("fp16", "fail")]
    assert [f["code"] for f in doc["findings"] if "section" not in f] == ["component-missing"]  # the whole's own
    assert [(f["code"], f["section"], f["variant"], f["files"]) for f in doc["findings"] if "section" in f] == [
        ("file-truncated", "vae", "fp16", ["diffusion_pytorch_model.fp16.safetensors"])
    ]
    assert "text_encoder (CLIPTextModel)" in doc["findings"][0]["message"]


def test_a_component_folder_alone(tmp_path: Path) -> None:
    pipe = rebuild("tiny-sd-pipeline", tmp_path / "sd")
    doc = audit_target(str(pipe / "unet")).to_dict()
    jsonschema.validate(doc, SCHEMA)
    assert doc["kind"]["kind"] == "diffusers-component" and doc["kind"]["detail"] == "UNet2DConditionModel"
    # one checkpoint, counted once, its fp16 weights an alternate of it (not "2 sections" of twice its size)
    assert "sections" not in doc and doc["verdict"] == "pass" and doc["variants"]["audited"] == [None, "fp16"]
    files = build.load_folder_dump("tiny-sd-pipeline")["files"]
    written = sum(math.prod(shape) for _, _, shape in files["unet/diffusion_pytorch_model.safetensors"]["tensors"])
    assert doc["totals"]["parameters"] == doc["expected"]["parameters"] == written
    assert doc["variants"]["alternates"][0]["report"]["totals"]["parameters"] == written
    assert "tensor-duplicated" not in codes(doc)


def test_sentence_transformers_modules(tmp_path: Path) -> None:
    model = rebuild("tiny-sentence-transformers", tmp_path / "st")
    doc = audit_target(str(model)).to_dict()
    jsonschema.validate(doc, SCHEMA)
    assert doc["kind"]["detail"] == "Transformer -> Pooling -> Dense -> Normalize"
    assert [(s["name"], s["role"]) for s in doc["sections"]] == [(".", "Transformer"), ("2_Dense", "Dense")]
    assert doc["verdict"] == "pass" and codes(doc) == []
    dense = doc["sections"][1]["report"]
    assert dense["expected"]["parameters"] == 16 * 8 + 8 == dense["totals"]["parameters"]
    assert dense["kind"]["detail"] == "sentence-transformers Dense in_features=16, out_features=8"
    # the transformer section does not list the Dense file as "ignored": it is audited as its own section
    assert doc["sections"][0]["report"]["ignored_files"] == {}


def test_sentence_transformers_dense_against_its_config(tmp_path: Path) -> None:
    model = rebuild("tiny-sentence-transformers", tmp_path / "st")
    config = json.loads((model / "2_Dense" / "config.json").read_text())
    (model / "2_Dense" / "config.json").write_text(json.dumps(dict(config, out_features=10)))
    doc = audit_target(str(model)).to_dict()
    dense = doc["sections"][1]["report"]
    assert [f["code"] for f in dense["findings"]] == ["shape-mismatch"] and doc["verdict"] == "fail"
    assert "linear.weight [8, 16], expected [10, 16]" in dense["findings"][0]["message"]


def test_sentence_transformers_widths_must_chain(tmp_path: Path) -> None:
    model = rebuild("tiny-sentence-transformers", tmp_path / "st")
    pooling = json.loads((model / "1_Pooling" / "config.json").read_text())
    (model / "1_Pooling" / "config.json").write_text(json.dumps(dict(pooling, pooling_mode=["mean", "max"])))
    doc = audit_target(str(model)).to_dict()
    assert [f["code"] for f in doc["findings"]] == ["config-mismatch"]
    assert (
        "2_Dense/config.json expects embeddings of width 16 but 1_Pooling/config.json passes 32"
        in doc["findings"][0]["message"]
    )


def test_diffusers_lora_file(tmp_path: Path) -> None:
    folder = rebuild("tiny-diffusers-lora", tmp_path / "lora")
    doc = audit_target(str(folder)).to_dict()
    assert doc["kind"]["kind"] == "safetensors-file" and doc["verdict"] == "pass" and codes(doc) == []
    assert doc["kind"]["detail"].startswith("diffusion LoRA (diffusers names)") and "ranks [4]" in doc["kind"]["detail"]
    # two alternative LoRAs side by side are two files, not two shards of one model
    shutil.copy(folder / "pytorch_lora_weights.safetensors", folder / "other_lora.safetensors")
    doc = audit_target(str(folder)).to_dict()
    assert doc["kind"]["kind"] == "safetensors-files" and len(doc["sections"]) == 2 and codes(doc) == []
    # a lost up matrix
    tensors = build.load_folder_dump("tiny-diffusers-lora")["files"]
    kept = [tuple(t) for t in tensors["pytorch_lora_weights.safetensors"]["tensors"]]
    victim = next(t for t in kept if ".lora_B." in t[0])
    build.write_file(folder / "other_lora.safetensors", [t for t in kept if t != victim])
    doc = audit_target(str(folder)).to_dict()
    assert codes(doc) == ["lora-pair-incomplete"] and doc["verdict"] == "fail"


def test_timm_and_diffusers_configs_are_recognised() -> None:
    timm = {
        "architecture": "resnet50",
        "num_classes": 1000,
        "num_features": 2048,
        "pretrained_cfg": {"tag": "a1_in1k", "input_size": [3, 224, 224]},
    }
    assert classify_config(timm) == "timm-model"
    assert classify_config({"_class_name": "AutoencoderKL", "latent_channels": 4}) == "diffusers-component"
    assert classify_config({"model_type": "llama"}) == "transformers-model"


def test_several_targets_and_recursive_through_the_cli(tmp_path: Path) -> None:
    pipe = rebuild("tiny-sd-pipeline", tmp_path / "all" / "sd")
    lora = rebuild("tiny-diffusers-lora", tmp_path / "all" / "nested" / "lora")
    proc = run_cli("audit", str(pipe), str(lora), "-f", "json", "-q")
    doc = json.loads(proc.stdout)
    jsonschema.validate(doc, SCHEMA)
    assert proc.returncode == 0 and doc["kind"]["kind"] == "targets"
    assert [s["verdict"] for s in doc["sections"]] == ["pass", "pass"]
    (lora / "pytorch_lora_weights.safetensors").write_bytes(b"version https://git-lfs.github.com/spec/v1\n")
    proc = run_cli("audit", "--recursive", str(tmp_path / "all"))
    assert proc.returncode == 1
    assert "PASS: " in proc.stdout and "FAIL: " in proc.stdout and "several targets: 2 targets" in proc.stdout
    # the pipeline's component folders are its sections, not targets of their own: the healthy pipeline is one line
    # (its components in its kind's words), the failing LoRA file in full
    assert "=== section unet" not in proc.stdout and "1 section with no readable weights" in proc.stdout
    assert f"  PASS: {pipe} (diffusers pipeline: StableDiffusionPipeline: text_encoder, unet, vae" in proc.stdout
    proc = run_cli("audit", "--recursive", str(tmp_path / "all"), "-v")  # -v: every section in full
    assert proc.stdout.count("=== section unet (diffusers-component, UNet2DConditionModel) ===") == 1


def test_sectioned_reports_in_every_format(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    from auditor.formats import FORMATS, formatter
    from auditor.formats.common import summary_line

    pipe = rebuild("tiny-sd-pipeline", tmp_path / "sd")
    victim = pipe / "vae" / "diffusion_pytorch_model.fp16.safetensors"
    victim.write_bytes(b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 12\n")
    report = audit_target(str(pipe))
    outputs = {name: formatter(name)(report) for name in FORMATS}
    assert json.loads(outputs["json"])["verdict"] == "fail"
    suites = ET.fromstring(outputs["junit"].split("\n", 1)[1]).findall("testsuite")
    assert len(suites) == 6 and sum(int(s.get("failures", "0")) for s in suites) == 1
    assert [s.get("name", "").split(" :: ", 1)[1] for s in suites if s.get("failures") != "0"] == [
        "vae (diffusers-component, AutoencoderKL) :: variant fp16"
    ]
    from auditor.core.untrusted import markdown

    for name in ("table", "markdown"):
        text = outputs[name]
        shown = markdown if name == "markdown" else str  # Markdown escapes its punctuation ("text\\_encoder")
        assert text.splitlines()[0].endswith(
            shown(
                ": diffusers pipeline: StableDiffusionPipeline: text_encoder, unet, vae (+ scheduler without weights)"
            )
        )
        assert text.rstrip().splitlines()[-1] == shown(summary_line(report))
        assert "3 sections (+ 3 variants audited, not counted)" in summary_line(report)
    # Markdown (a step summary) shows every section; a terminal only the failing one, the healthy ones in one line
    text = outputs["markdown"]
    assert text.count("section ") == 3 and text.count("variant fp16 (") == 3
    assert "not counted): FAIL" in text and text.count("not counted): PASS") == 2
    text = outputs["table"]
    assert text.count("=== section ") == 1 and "=== section vae (diffusers-component, AutoencoderKL) ===" in text
    assert text.count("variant fp16 (") == 1 and "not counted): FAIL" in text
    assert (
        "  FAIL: vae (diffusers-component, AutoencoderKL): 124 tensors, 43,711 parameters (43.71K), expected "
        "43,711; variant fp16: fail (audited, not counted); 1 error" in text
    )
    assert "  PASS: unet (diffusers-component, UNet2DConditionModel): 208 tensors" in text
    from auditor.formats.common import root_note

    assert outputs["summary"] == summary_line(report) + root_note(report) + "\n"
    assert "; root finding: not-safetensors: vae (fp16): " in outputs["summary"]


def test_a_lock_applies_to_one_target_only(tmp_path: Path) -> None:
    lora = rebuild("tiny-diffusers-lora", tmp_path / "lora")
    lock = tmp_path / "lock.json"
    assert run_cli("lock", str(lora), "-o", str(lock), "-q").returncode == 0
    proc = run_cli("audit", str(lora), str(lora), "--lock", str(lock), "--no-policy")
    assert proc.returncode == 2 and "cannot apply to 2 targets" in proc.stderr


def test_single_file_stable_diffusion_checkpoint_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "sd"
    folder.mkdir()
    build.write_file(
        folder / "v1-5-pruned-emaonly.safetensors",
        [
            ("model.diffusion_model.input_blocks.0.0.weight", "F16", (320, 4, 3, 3)),
            ("first_stage_model.decoder.conv_in.weight", "F16", (512, 4, 3, 3)),
        ],
    )
    doc = audit_target(str(folder / "v1-5-pruned-emaonly.safetensors")).to_dict()
    assert doc["kind"]["detail"].startswith("single-file Stable Diffusion checkpoint") and doc["verdict"] == "pass"


def test_sentence_transformers_transformer_in_its_own_folder(tmp_path: Path) -> None:
    model = rebuild("tiny-sentence-transformers", tmp_path / "st")
    (model / "0_Transformer").mkdir()
    for name in (
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "sentence_bert_config.json",
    ):
        if (model / name).exists():
            (model / name).rename(model / "0_Transformer" / name)
    modules = json.loads((model / "modules.json").read_text())
    modules[0]["path"] = "0_Transformer"
    (model / "modules.json").write_text(json.dumps(modules))
    doc = audit_target(str(model)).to_dict()
    assert [(s["name"], s["role"]) for s in doc["sections"]] == [("0_Transformer", "Transformer"), ("2_Dense", "Dense")]
    assert doc["verdict"] == "pass" and codes(doc) == []
    hidden = json.loads((model / "0_Transformer" / "config.json").read_text())
    (model / "0_Transformer" / "config.json").write_text(json.dumps(dict(hidden, hidden_size=24)))
    doc = audit_target(str(model)).to_dict()
    assert (
        "1_Pooling/config.json expects embeddings of width 16 but 0_Transformer/config.json passes 24"
        in [f["message"] for f in doc["findings"]][0]
    )


def test_kohya_lora_file_written_by_diffusers(tmp_path: Path) -> None:
    folder = rebuild("tiny-kohya-lora", tmp_path / "kohya")
    doc = audit_target(str(folder / "kohya_lora.safetensors")).to_dict()
    assert doc["verdict"] == "pass" and codes(doc) == []
    assert doc["kind"]["detail"] == "diffusion LoRA (kohya/sd-scripts names): 32 modules, ranks [4], 32 alphas"
    tensors = build.load_folder_dump("tiny-kohya-lora")["files"]
    original = [tuple(t) for t in tensors["kohya_lora.safetensors"]["tensors"]]
    # the dot before lora_down/lora_up lost (as in a real file of the corpus): loaders cannot pair the tensors
    undotted = [(n.replace(".lora_down", "_lora_down").replace(".lora_up", "_lora_up"), d, s) for n, d, s in original]
    build.write_file(folder / "undotted.safetensors", undotted)
    doc = audit_target(str(folder / "undotted.safetensors")).to_dict()
    assert codes(doc) == ["lora-names-invalid"]
    # an alpha that is not a scalar
    bad_alpha = [(n, d, [2] if n.endswith(".alpha") and "attn1_to_k" in n else s) for n, d, s in original]
    build.write_file(folder / "alpha.safetensors", bad_alpha)
    doc = audit_target(str(folder / "alpha.safetensors")).to_dict()
    assert codes(doc) == ["shape-mismatch"] and "not a scalar" in doc["findings"][0]["message"]


def test_a_sentence_transformers_manifest_without_any_weights_is_not_a_pass(tmp_path: Path) -> None:
    model = rebuild("tiny-sentence-transformers", tmp_path / "st")
    for weights in model.rglob("*.safetensors"):
        weights.unlink()
    proc = run_cli("audit", str(model))
    assert proc.returncode == 3 and "hold no safetensors weights" in proc.stderr
