"""One root cause, one error: an unread shard is one finding; what only follows from it is info with caused_by.

The real-world corpus (../shared/real-world, 97 cases written by real tools, rebuilt header-only at test time)
is the measure: no case may get an error or warning that is only a consequence of a file that could not be
read. Synthetic checkpoints pin each rule.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support import build
from tests.support.cli import run_cli, run_json
from tests.support.resources import rebuild_corpus

# problems that leave a file's tensors unknown
ROOT_CODES = {
    "index-shard-missing",
    "not-safetensors",
    "file-unreadable",
    "header-too-small",
    "header-too-large",
    "header-length-invalid",
    "header-invalid-json",
    "header-invalid-utf8",
}
# what such a file's absence used to surface as
CONSEQUENCE_CODES = {
    "missing-tensor",
    "config-mismatch",
    "tied-head",
    "shard-count-mismatch",
    "index-tensor-missing",
    "index-total-size-mismatch",
    "index-total-parameters-mismatch",
    "range-gap",
}
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"0" * 64 + b"\nsize 123456789\n"


@pytest.mark.corpus
def test_real_world_corpus_has_no_false_secondary_errors(tmp_path: Path) -> None:
    """Every case with an unread file: that file is the only error or warning of its kind; the rest is info."""
    import auditor
    from auditor.core.errors import AuditError

    offenders: dict[str, list[str]] = {}
    with_roots = 0
    for case in rebuild_corpus(tmp_path):
        try:
            report = auditor.audit(str(case))
        except AuditError:
            continue  # could not audit at all (one sentence): no findings to judge
        codes = {f.code for f in report.findings}
        if not codes & ROOT_CODES:
            continue
        with_roots += 1
        loud = [
            f"{f.code}: {f.message[:120]}"
            for f in report.findings
            if f.code in CONSEQUENCE_CODES and f.severity != "info"
        ]
        if loud:
            offenders[case.name] = loud
        for f in report.findings:
            if f.caused_by is not None:
                assert f.severity == "info" and f.caused_by in codes, (case.name, f)
    assert with_roots >= 20  # the corpus holds ~25 cases with LFS pointers or absent shards
    assert not offenders, json.dumps(offenders, indent=1)


def test_lfs_pointer_shard_is_one_error_naming_the_hidden_tensors(layout_checkpoint, tmp_path: Path) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-0.6B", shards=3)
    index = json.loads((ckpt / "model.safetensors.index.json").read_text())
    shard = sorted(set(index["weight_map"].values()))[1]
    hidden = sorted(t for t, s in index["weight_map"].items() if s == shard)
    (ckpt / shard).write_bytes(LFS_POINTER)
    code, doc = run_json("audit", str(ckpt))
    assert code == 1
    loud = [f for f in doc["findings"] if f["severity"] != "info"]
    assert [f["code"] for f in loud] == ["not-safetensors"], loud
    root = loud[0]
    assert shard in root["files"] and "git lfs pull" in root["message"]
    assert f"{len(hidden)} tensors in it could not be checked" in root["message"]
    assert root["count"] == len(hidden) and len(root["tensors"]) == min(20, len(hidden))
    caused = [f for f in doc["findings"] if f.get("caused_by")]
    assert caused and all(f["caused_by"] == "not-safetensors" and f["severity"] == "info" for f in caused)
    assert {t for f in caused if f["code"] == "missing-tensor" for t in f["patterns"]}  # grouped names kept


def test_missing_shard_folds_layers_config_and_head(layout_checkpoint) -> None:
    """The last shard (holding the final layers and the untied head) is absent."""
    ckpt = layout_checkpoint("Qwen__Qwen3-8B", shards=4)
    index = json.loads((ckpt / "model.safetensors.index.json").read_text())
    last = sorted(set(index["weight_map"].values()))[-1]
    (ckpt / last).unlink()
    proc = run_cli("audit", str(ckpt))
    assert proc.returncode == 1
    errors = [line for line in proc.stdout.splitlines() if line.strip().startswith(("ERROR", "WARNING"))]
    assert len(errors) == 1 and "index-shard-missing" in errors[0] and last in errors[0], proc.stdout
    assert "could not be checked" in errors[0]
    notes = proc.stdout.split("findings:")[1]
    assert "randomly initialised" not in errors[0] and "a consequence of index-shard-missing" in notes


def test_a_real_missing_tensor_beside_a_missing_shard_stays_an_error(layout_checkpoint) -> None:
    """Folding never hides what the index itself proves: a tensor of the unread shard's own layers that the
    index does not name either."""
    probe = layout_checkpoint("Qwen__Qwen3-0.6B", shards=3)
    index = json.loads((probe / "model.safetensors.index.json").read_text())
    last = sorted(set(index["weight_map"].values()))[-1]
    gone = next(t for t, s in index["weight_map"].items() if s == last and t.endswith("mlp.up_proj.weight"))
    ckpt = layout_checkpoint("Qwen__Qwen3-0.6B", shards=3, drop=[gone])
    index = json.loads((ckpt / "model.safetensors.index.json").read_text())
    sibling = gone.replace("up_proj", "down_proj")
    assert index["weight_map"][sibling] == last  # its layer's other tensors are in the unread shard
    (ckpt / last).unlink()
    _, doc = run_json("audit", str(ckpt))
    missing = [f for f in doc["findings"] if f["code"] == "missing-tensor" and f["severity"] == "error"]
    assert len(missing) == 1 and missing[0]["tensors"] == [gone], doc["findings"]


def test_index_only_folder_checks_names_against_the_formula(layout_checkpoint) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-0.6B", shards=2)
    for shard in ckpt.glob("*.safetensors"):
        shard.unlink()
    _, doc = run_json("audit", str(ckpt))
    loud = [f for f in doc["findings"] if f["severity"] != "info"]
    assert [f["code"] for f in loud] == ["index-shard-missing"], loud
    assert "index-only" in loud[0]["message"] and "checked against config.json's formula" in loud[0]["message"]
    # now the index itself lacks a tensor the formula requires: that is an error of its own
    index_path = ckpt / "model.safetensors.index.json"
    index = json.loads(index_path.read_text())
    del index["weight_map"]["model.norm.weight"]
    index_path.write_text(json.dumps(index))
    _, doc = run_json("audit", str(ckpt))
    missing = [f for f in doc["findings"] if f["code"] == "missing-tensor" and f["severity"] == "error"]
    assert len(missing) == 1 and missing[0]["tensors"] == ["model.norm.weight"]
    assert "not named by model.safetensors.index.json either" in missing[0]["message"]


def test_single_file_lfs_pointer(tmp_path: Path) -> None:
    ckpt = tmp_path / "m"
    ckpt.mkdir()
    shutil.copy(build.CONFIGS / "Qwen__Qwen3-8B.json", ckpt / "config.json")
    (ckpt / "model.safetensors").write_bytes(LFS_POINTER)
    _, doc = run_json("audit", str(ckpt))
    loud = [f for f in doc["findings"] if f["severity"] != "info"]
    assert [f["code"] for f in loud] == ["not-safetensors"], loud
    assert "none of its tensors could be checked" in loud[0]["message"]


def test_unreadable_config_is_config_invalid_alone(make_checkpoint) -> None:
    ckpt = make_checkpoint([("w", "F32", [4])])
    (ckpt / "config.json").write_text("{not json")
    code, doc = run_json("audit", str(ckpt))
    codes = [f["code"] for f in doc["findings"]]
    assert code == 1 and "config-invalid" in codes
    assert "config-mismatch" not in codes and "config-missing" not in codes


def test_one_layer_in_another_dtype_is_one_outlier(layout_checkpoint) -> None:
    layout = build.load_layout("Qwen__Qwen3-0.6B")
    odd = [(n, "F32", s) for n, _, s in layout["tensors"] if n.startswith("model.layers.3.")]
    ckpt = layout_checkpoint("Qwen__Qwen3-0.6B", drop=[n for n, _, _ in odd], extra=odd)
    _, doc = run_json("audit", str(ckpt))
    outliers = [f for f in doc["findings"] if f["code"] == "dtype-outlier"]
    assert len(outliers) == 1, outliers
    assert (
        outliers[0]["message"].startswith("layer 3: ")
        and set(outliers[0]["patterns"])
        and outliers[0]["count"] == len(odd) > 1
    )
    assert outliers[0]["expected"] == "BF16" and outliers[0]["actual"] == "F32"


def test_policy_counts_fold_but_file_rules_do_not(layout_checkpoint, tmp_path: Path) -> None:
    """expect_parameters cannot be judged with a shard missing; max_shard_bytes about a present file still can."""
    ckpt = layout_checkpoint("Qwen__Qwen3-0.6B", shards=3)
    index = json.loads((ckpt / "model.safetensors.index.json").read_text())
    (ckpt / sorted(set(index["weight_map"].values()))[-1]).unlink()
    _, doc = run_json("audit", str(ckpt), "--no-policy", "--expect-parameters", "596M", "--max-shard-bytes", "1000")
    policy = [f for f in doc["findings"] if f["code"] == "policy-violation"]
    counts = [f for f in policy if "expect_parameters" in f["message"]]
    sizes = [f for f in policy if "max_shard_bytes" in f["message"]]
    assert counts and all(f["severity"] == "info" and f["caused_by"] == "index-shard-missing" for f in counts)
    assert sizes and all(f["severity"] == "error" and "caused_by" not in f for f in sizes)
    assert sizes[0]["expected"] == 1000 and sizes[0]["actual"] > 1000


def test_index_only_folder_names_a_tensor_the_formula_does_not_explain(tmp_path: Path) -> None:
    """Shards absent, index present: its names are checked against the formula in both directions; a name no
    rule explains is an error of its own (the index proves it), not a consequence of the absent shards."""
    import auditor
    from tests.support.truth import CASES, config, tensors

    case = CASES / "qwen3" / "Qwen3ForSequenceClassification-small"
    layout = tensors(case) + [("model.layers.0.mlp.extra_proj.weight", "F32", [4, 4])]
    ckpt = build.build_checkpoint(tmp_path / "ckpt", layout, config=config(case), shards=2)
    for shard in ckpt.glob("*.safetensors"):
        shard.unlink()
    report = auditor.audit(str(ckpt))
    errors = {f.code: f for f in report.findings if f.severity == "error"}
    assert set(errors) == {"index-shard-missing", "unexpected-tensor"}, json.dumps([f.message for f in errors.values()])
    assert errors["unexpected-tensor"].tensors == ("model.layers.0.mlp.extra_proj.weight",)


def test_a_pipeline_of_lfs_pointers_says_the_cause_once(tmp_path: Path) -> None:
    """issue 24: every section's one error is the same root cause; the table says it once, not 3 full reports (each
    with its fp16 alternate)."""
    pipe = build.build_folder_dump("tiny-sd-pipeline", tmp_path / "sd")
    for weights in pipe.rglob("*.safetensors"):
        weights.write_bytes(LFS_POINTER)
    proc = run_cli("audit", str(pipe))
    text = proc.stdout
    assert proc.returncode == 1 and text.count("Git LFS pointer") == 1 and "=== section" not in text
    assert "3 sections with no readable weights (not-safetensors)" in text and len(text.splitlines()) < 20
    code, doc = run_json("audit", str(pipe))  # the JSON keeps each section's (and each variant's) own finding
    assert [f["code"] for s in doc["sections"] for f in s["report"]["findings"] if f["severity"] == "error"] == [
        "not-safetensors"
    ] * 6


# one rule for "a quantized form of an expected tensor, by name" (quant.stand_ins): the reconciler's explainer, the
# no-config check and the root-cause pass must agree on it
FORMS = {
    "model.layers.0.self_attn.q_proj.qweight": "model.layers.0.self_attn.q_proj.weight",  # GPTQ / AWQ
    "model.layers.0.self_attn.q_proj.weight.absmax": "model.layers.0.self_attn.q_proj.weight",  # bitsandbytes
    "model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__nf4": "model.layers.0.mlp.down_proj.weight",
    "model.layers.0.mlp.experts.gate_up_proj_blocks": "model.layers.0.mlp.experts.gate_up_proj",  # MXFP4
    "model.layers.0.self_attn.o_proj.weight_scale_inv": "model.layers.0.self_attn.o_proj.weight",  # FP8 blocks
}
NOT_FORMS = [
    "model.layers.0.self_attn.q_proj.bias",  # a plain tensor beside an expected weight
    "model.layers.0.self_attn.q_proj.weight.extra",  # not a quantization leaf
    "model.layers.0.self_attn.k_scale",
]  # bookkeeping of no expected tensor


def test_quantized_forms_are_one_rule_for_explainer_unconfigured_and_lost_files() -> None:
    from auditor.quant import stands_for
    from auditor.quant.verdicts import unconfigured
    from auditor.read.header import Tensor
    from auditor.report.rootcause import Lost
    from auditor.specs.model import ExpectedTensor

    weight = ExpectedTensor((4, 4), "attention", "param", 0, None, False, 0, 16, (1, 1), None, False, ())
    expected = {base: weight for base in FORMS.values()} | {"model.layers.0.self_attn.q_proj.weight": weight}
    for name, base in FORMS.items():
        assert stands_for(name, expected) == base, name
        # lost under a wrapper prefix, the expected weight may be in that file; its bias may not
        lost = Lost(tensors={"language_model." + name: "model-00002-of-00002.safetensors"})
        assert lost.holds(base) and not lost.holds(base.rpartition(".")[0] + ".bias"), name
    for name in NOT_FORMS:
        assert stands_for(name, expected) is None, name
        assert not Lost(tensors={name: "x.safetensors"}).holds("model.layers.0.self_attn.q_proj.weight"), name
    stored = {n: Tensor(n, "F16", (4,), 4, "x.safetensors", 0, 8) for n in [*FORMS, *NOT_FORMS]}
    assert sorted(unconfigured(stored, expected)) == sorted(FORMS)


def test_pointers_in_a_pipeline_folder_are_said_from_the_finding_not_its_words(
    layout_checkpoint, tmp_path: Path
) -> None:
    """A component folder whose shards are all Git LFS pointers: the merged root names the files as its section
    does and says "each is" from the findings' ``actual`` (messages name them from the target's root, vae/...), and
    adds no advice of its own (the pointer's words say `git lfs pull`)."""
    pipe = build.build_folder_dump("tiny-sd-pipeline", tmp_path / "sd")
    encoder = pipe / "text_encoder"
    shutil.rmtree(encoder)
    shutil.copytree(layout_checkpoint("Qwen__Qwen3-0.6B", shards=3), encoder)
    for weights in encoder.glob("*.safetensors"):
        weights.write_bytes(LFS_POINTER)
    _, doc = run_json("audit", str(pipe))
    roots = [
        f
        for s in doc["sections"]
        for f in s["report"]["findings"]
        if f["code"] == "not-safetensors" and any("00001-of-00003" in name for name in f["files"])
    ]
    assert len(roots) == 1, roots
    message = roots[0]["message"]
    assert message.startswith("3 of 3 files could not be read: model-00001-of-00003.safetensors, "), message
    assert ": each is a Git LFS pointer file" in message and "text_encoder/" not in message, message
    assert message.count("git lfs pull") == 1 and "download" not in message, message
