"""Every entry point sees what ``st-audit audit`` sees: the library, ``verify``, ``lock``, ``audit --lock``,
``diff``, the pre-commit hook and the GitHub Action, on a plain model, a PEFT adapter, a diffusers pipeline and a
sentence-transformers model, each healthy and broken. The gate must never pass what ``audit`` fails.

Targets come from what the libraries wrote (fixtures/cases, fixtures/peft, fixtures/kinds), rebuilt header-only;
each broken one has one real fault: a lost tensor, a LoRA B matrix of the wrong rank, a lost UNet tensor, a
Dense layer whose config disagrees with its weights.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import auditor
from auditor import github_action
from tests.support import build
from tests.support.cli import run_cli, run_json
from tests.support.peft import load, make
from tests.support.truth import CASES, tensors, write_case


def _plain(dest: Path, broken: bool) -> Path:
    case = CASES / "qwen3" / "Qwen3ForCausalLM-small"
    layout = [t for t in tensors(case) if not (broken and t[0].endswith("layers.1.mlp.up_proj.weight"))]
    return write_case(case, dest, layout)


def _adapter(dest: Path, broken: bool) -> Path:
    doc = load("llama-qv")
    layout = [tuple(t) for t in doc["tensors"]]
    if broken:  # one lora_B with rank r + 1: PEFT cannot load it into the r-rank module
        victim = next(i for i, t in enumerate(layout) if ".lora_B." in t[0])
        name, dtype, shape = layout[victim]
        layout[victim] = (name, dtype, [shape[0], shape[1] + 1])
    adapter, _ = make(dest, doc, tensors=layout)
    return adapter


def _pipeline(dest: Path, broken: bool) -> Path:
    pipe = build.build_folder_dump("tiny-sd-pipeline", dest / "sd")
    if broken:  # the default unet loses one tensor
        files = build.load_folder_dump("tiny-sd-pipeline")["files"]
        kept = [
            tuple(t)
            for t in files["unet/diffusion_pytorch_model.safetensors"]["tensors"]
            if not t[0].endswith("conv_out.weight")
        ]
        build.write_file(pipe / "unet" / "diffusion_pytorch_model.safetensors", kept)
    return pipe


def _lose_a_variant_tensor(folder: Path, rel: str) -> None:
    """The fp16 weights of a component lose one tensor; its default weights stay whole."""
    files = build.load_folder_dump("tiny-sd-pipeline")["files"]
    kept = [tuple(t) for t in files[rel]["tensors"] if not t[0].endswith("conv_out.weight")]
    build.write_file(folder / rel, kept)


def _pipeline_variant(dest: Path, broken: bool) -> Path:
    """Default + fp16 weights in every component (as SD 1.5 and SDXL ship); broken: the fp16 unet lost a tensor."""
    pipe = build.build_folder_dump("tiny-sd-pipeline", dest / "sd")
    if broken:
        _lose_a_variant_tensor(pipe, "unet/diffusion_pytorch_model.fp16.safetensors")
    return pipe


def _component_variant(dest: Path, broken: bool) -> Path:
    """One component folder with default + fp16 weights, audited alone; broken: its fp16 weights lost a tensor."""
    pipe = _pipeline_variant(dest, broken)
    return pipe / "unet"


def _sentence_transformers(dest: Path, broken: bool) -> Path:
    model = build.build_folder_dump("tiny-sentence-transformers", dest / "st")
    if broken:  # the Dense layer's config no longer matches its weights
        config = json.loads((model / "2_Dense" / "config.json").read_text())
        (model / "2_Dense" / "config.json").write_text(json.dumps(dict(config, out_features=10)))
    return model


BUILDERS: dict[str, Callable[[Path, bool], Path]] = {
    "plain": _plain,
    "adapter": _adapter,
    "pipeline": _pipeline,
    "pipeline-variant": _pipeline_variant,
    "component-variant": _component_variant,
    "sentence-transformers": _sentence_transformers,
}
TARGETS = [(kind, broken) for kind in BUILDERS for broken in (False, True)]
IDS = [f"{kind}-{'broken' if broken else 'healthy'}" for kind, broken in TARGETS]


@pytest.fixture(params=TARGETS, ids=IDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, bool]:
    kind, broken = request.param
    return BUILDERS[kind](tmp_path / "t", broken), broken


def _codes(doc: dict[str, Any]) -> set[str]:
    """Every section's findings are in the top-level list too (each naming its section)."""
    return {f["code"] for f in doc["findings"] if f["severity"] != "info"}


def test_every_entry_point_gives_audits_verdict(
    target: tuple[Path, bool], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, broken = target
    code, doc = run_json("audit", str(path), "-q")
    assert code == (1 if broken else 0), _codes(doc)
    assert bool(_codes(doc)) == broken

    # the library returns the report `audit -f json` prints
    assert json.loads(json.dumps(auditor.audit(str(path)).to_dict())) == doc

    # verify: the same audit, plus the bytes (header-only files read as zeros: content notes, no other verdict)
    proc = run_cli("verify", str(path), "-q", "--format", "json")
    verified = json.loads(proc.stdout)
    assert proc.returncode == code and _codes(doc) <= _codes(verified)
    assert verified.get("kind", {}).get("kind") == doc.get("kind", {}).get("kind")

    # lock refuses what audit fails; a lock of a healthy target holds it, section by section
    lock_file = tmp_path / "lock.json"
    proc = run_cli("lock", str(path), "-o", str(lock_file), "-q")
    assert proc.returncode == code, proc.stderr
    if not broken:
        assert run_cli("audit", str(path), "--lock", str(lock_file), "-q").returncode == 0
        assert run_cli("diff", str(lock_file), str(path), "-q").returncode == 0
    assert run_cli("diff", str(path), str(path), "-q").returncode == 0

    # the pre-commit hook, given the files a commit touches (weights inside a component folder included)
    touched = [str(p) for p in path.rglob("*.safetensors")]
    proc = run_cli("precommit", *touched)
    assert proc.returncode == code
    assert proc.stdout.count("PASS" if code == 0 else "FAIL") == 1  # one target: a pipeline, not its folders

    # the GitHub Action
    out = tmp_path / "action.json"
    monkeypatch.chdir(tmp_path)
    env = {"INPUT_TARGET": str(path), "INPUT_JSON": str(out), "GITHUB_OUTPUT": str(tmp_path / "outputs")}
    assert github_action.run(env) == code
    assert json.loads(out.read_text()) == doc
    assert (tmp_path / "outputs").read_text().startswith(f"verdict={doc['verdict']}\n")
    assert doc["verdict"] == ("fail" if broken else "pass")


def test_a_lock_of_a_pipeline_catches_a_change_in_one_component(tmp_path: Path) -> None:
    pipe = _pipeline(tmp_path / "a", broken=False)
    lock_file = tmp_path / "lock.json"
    assert run_cli("lock", str(pipe), "-o", str(lock_file), "-q").returncode == 0
    locked = json.loads(lock_file.read_text())
    assert locked["kind"] == "diffusers-pipeline" and "unet" in locked["sections"]
    files = build.load_folder_dump("tiny-sd-pipeline")["files"]
    retyped = [
        (n, "BF16" if n.endswith("conv_in.weight") else d, s)
        for n, d, s in files["vae/diffusion_pytorch_model.safetensors"]["tensors"]
    ]
    build.write_file(pipe / "vae" / "diffusion_pytorch_model.safetensors", retyped)
    code, doc = run_json("audit", str(pipe), "--lock", str(lock_file), "-q")
    drift = {
        s["name"]: [f["message"] for f in s["report"]["findings"] if f["code"] == "lock-drift"] for s in doc["sections"]
    }
    assert code == 1 and any("changed dtype" in m for m in drift["vae"])
    assert all(not m for name, m in drift.items() if name != "vae")


def test_diff_of_two_pipelines_goes_component_by_component(tmp_path: Path) -> None:
    a = _pipeline(tmp_path / "a", broken=False)
    b = _pipeline(tmp_path / "b", broken=True)
    proc = run_cli("diff", str(a), str(b), "-q", "--format", "json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 1 and not doc["identical"]
    changed = {
        s["name"]: s["removed"]["tensors"] for s in doc["sections"] if s["removed"]["count"] or s["added"]["count"]
    }
    assert changed == {"unet": ["conv_out.weight"]}


def test_the_library_takes_one_options_object_or_its_fields(tmp_path: Path) -> None:
    path = _plain(tmp_path / "p", broken=True)
    by_object = auditor.audit(str(path), auditor.AuditOptions(fail_on="never", ignore=("missing-tensor",)))
    by_keywords = auditor.audit(str(path), fail_on="never", ignore=["missing-tensor"])
    assert by_object.to_dict() == by_keywords.to_dict() and by_object.exit_code == 0
    with pytest.raises(TypeError, match="unknown audit option"):
        auditor.audit(str(path), fail_om="never")


@pytest.mark.parametrize("make", [_plain, _adapter, _pipeline], ids=["model", "adapter", "pipeline"])
def test_the_options_object_reaches_each_parts_audit_whole(
    make: Callable[[Path, bool], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 30: the one frozen ``AuditOptions`` goes down to every part's ``run.audit.audit`` as given (only the
    variant is the part's own, and an alternate's progress), so no setting stops on the way (``lock --variant fp16 --verify`` once locked the
    default weights)."""
    from dataclasses import replace

    from auditor.run import dispatch

    seen: list[auditor.AuditOptions] = []
    real = dispatch.audit

    def spy(target: Any, options: auditor.AuditOptions, **kw: Any) -> Any:
        seen.append(options)
        return real(target, options, **kw)

    monkeypatch.setattr(dispatch, "audit", spy)
    given = auditor.AuditOptions(
        fail_on="warning",
        ignore=("range-gap",),
        use_config=True,
        include_tensors=True,
        token="not-used-locally",
        use_cache=False,
        progress=lambda line: None,
        jobs=2,
    )
    auditor.audit(str(make(tmp_path / "t", False)), given)
    # an alternate variant (a pipeline's fp16 weights) is read quietly: its progress goes nowhere
    assert seen and all(
        options == replace(given, variant=options.variant, progress=options.progress)
        and options.progress in (given.progress, None)
        for options in seen
    ), seen
    assert any(options.progress is given.progress for options in seen)


def test_a_target_that_could_not_be_audited_makes_the_run_an_error_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``audit good ./missing``: the good one is reported, the missing one named with why; the run's verdict is
    ``error`` in every format and exit 3, and its last line is the run's (no target's name on a sum of unrelated
    models). ``verify`` says the same; the one-target entry points (lock, diff, the Action) exit 3 on it too."""
    good, missing = str(_plain(tmp_path / "good", broken=False)), str(tmp_path / "missing")
    code, doc = run_json("audit", good, missing, "-q")
    assert (code, doc["verdict"], doc["exit_code"]) == (3, "error", 3)
    assert doc["errors"] == [{"target": missing, "error": f"{missing}: no such file or directory"}]
    assert doc["target"] == f"{good}, {missing}" and [s["verdict"] for s in doc["sections"]] == ["pass"]

    table = run_cli("audit", good, missing)
    run_line = "ERROR: 2 targets in all: 1 passed, 1 could not be audited; 0 errors, 0 warnings, 0 notes"
    assert table.returncode == 3 and table.stdout.splitlines()[-1] == run_line
    assert f"  ERROR: {missing}: could not be audited" in table.stdout
    summary = run_cli("audit", good, missing, "--format", "summary")
    lines = summary.stdout.splitlines()
    assert summary.returncode == 3 and len(lines) == 3
    assert lines[0].startswith(f"PASS: {good} ") and lines[1].startswith(f"ERROR: {missing}: could not be audited")
    assert lines[2] == run_line
    markdown = run_cli("audit", good, missing, "--format", "markdown")
    assert markdown.returncode == 3 and markdown.stdout.splitlines()[-1] == run_line
    junit = run_cli("audit", good, missing, "--format", "junit")
    root = ET.fromstring(junit.stdout)
    assert junit.returncode == 3 and root.get("errors") == "1" and root.get("failures") == "0"
    (error,) = root.iter("error")
    assert f"{missing}: no such file or directory" in (error.get("message") or "")

    proc = run_cli("verify", good, missing, "--format", "json", "-q")
    verified = json.loads(proc.stdout)
    assert (proc.returncode, verified["verdict"], verified["exit_code"]) == (3, "error", 3)

    assert run_cli("lock", missing, "-o", str(tmp_path / "lock.json"), "-q").returncode == 3
    assert run_cli("diff", good, missing, "-q").returncode == 3
    monkeypatch.chdir(tmp_path)
    outputs = tmp_path / "outputs"
    assert github_action.run({"INPUT_TARGET": missing, "GITHUB_OUTPUT": str(outputs)}) == 3
    assert outputs.read_text().startswith("verdict=error\nexit-code=3\n")


def test_a_run_of_a_pipeline_with_variants_and_a_missing_target_is_an_error_per_variant(tmp_path: Path) -> None:
    """A pipeline whose components hold default + fp16 weights (its fp16 unet broken) beside a target that does not
    exist: the run is ``error`` (exit 3) in JSON, the table and the summary, the pipeline's own verdict ``fail``.
    JUnit has a suite per variant of each component, each judged by the checks that ran on it: the broken fp16
    unet's suite fails, ``variant-differs`` ran in every alternate's suite (not in the counted weights', where it
    is skipped as not run), ``lock-drift`` is skipped everywhere (no lock), and the missing target is an error."""
    pipe = str(_pipeline_variant(tmp_path / "a", broken=True))
    missing = str(tmp_path / "missing")
    code, doc = run_json("audit", pipe, missing, "-q")
    assert (code, doc["verdict"], doc["exit_code"]) == (3, "error", 3)
    assert [s["verdict"] for s in doc["sections"]] == ["fail"] and doc["errors"][0]["target"] == missing
    table = run_cli("audit", pipe, missing)
    assert table.returncode == 3
    assert table.stdout.splitlines()[-1].startswith("ERROR: 2 targets in all: 1 failed, 1 could not be audited; ")
    summary = run_cli("audit", pipe, missing, "--format", "summary").stdout.splitlines()
    assert summary[-1] == table.stdout.splitlines()[-1]

    junit = run_cli("audit", pipe, missing, "--format", "junit")
    root = ET.fromstring(junit.stdout)
    assert junit.returncode == 3 and root.get("errors") == "1"
    suites = {s.get("name") or "": s for s in root.findall("testsuite")}
    alternates = [n for n in suites if n.endswith(" :: variant fp16")]
    counted = [n for n in suites if n.startswith(f"st-audit {pipe} :: ") and n not in alternates]
    assert len(alternates) == 3 and len(counted) == 3

    def case(suite: str, code: str) -> ET.Element:
        return next(c for c in suites[suite].iter("testcase") if c.get("name") == code)

    broken = [n for n in alternates if suites[n].get("failures") != "0"]
    assert len(broken) == 1 and " :: unet (" in broken[0]
    assert all(case(n, "variant-differs").find("skipped") is None for n in alternates)
    assert all(
        "not run" in (case(n, "variant-differs").find("skipped").get("message") or "")  # type: ignore[union-attr]
        for n in counted
    )
    assert all(case(n, "lock-drift").find("skipped") is not None for n in alternates + counted)
    (error,) = root.iter("error")
    assert f"{missing}: no such file or directory" in (error.get("message") or "")


def test_a_lock_of_a_pipeline_with_variants_counts_once_and_holds_each_variant(tmp_path: Path) -> None:
    """The lock's totals count each component once (its default weights); each fp16 variant is locked beside them
    and held to its own snapshot: a change in the fp16 unet is drift on that alternate only, a variant deleted
    since is drift naming its files."""
    pipe = _pipeline_variant(tmp_path / "a", broken=False)
    lock_file = tmp_path / "lock.json"
    assert run_cli("lock", str(pipe), "-o", str(lock_file), "-q").returncode == 0
    locked = json.loads(lock_file.read_text())
    code, doc = run_json("audit", str(pipe), "-q")
    assert locked["totals"] == doc["totals"]
    assert locked["totals"]["parameters"] == sum(s["report"]["totals"]["parameters"] for s in doc["sections"])
    assert {name: list(s.get("variants", {})) for name, s in locked["sections"].items()} == {
        "text_encoder": ["fp16"],
        "unet": ["fp16"],
        "vae": ["fp16"],
    }
    assert {f["name"] for f in locked["sections"]["unet"]["variants"]["fp16"]["files"]} == {
        "diffusion_pytorch_model.fp16.safetensors"
    }
    _lose_a_variant_tensor(pipe, "unet/diffusion_pytorch_model.fp16.safetensors")
    code, doc = run_json("audit", str(pipe), "--lock", str(lock_file), "-q")
    drift = [(f["section"], f.get("variant"), f["message"]) for f in doc["findings"] if f["code"] == "lock-drift"]
    assert code == 1 and drift and all((s, v) == ("unet", "fp16") for s, v, _ in drift)
    assert any("conv_out.weight" in m for *_, m in drift)
    # one accident, one error: the fp16 unet's missing-tensor; the drift that says the same is folded under it
    errors = [(f["section"], f.get("variant"), f["code"]) for f in doc["findings"] if f["severity"] == "error"]
    assert errors == [("unet", "fp16", "missing-tensor")]
    assert {
        f.get("caused_by") for f in doc["findings"] if f["code"] == "lock-drift" and "conv_out" in f["message"]
    } == {"missing-tensor"}
    for fp16 in (pipe / "vae").glob("*.fp16.*"):
        fp16.unlink()
    code, doc = run_json("audit", str(pipe), "--lock", str(lock_file), "-q")
    gone = [f for f in doc["findings"] if f["code"] == "lock-drift" and f["section"] == "vae"]
    assert [(f.get("variant"), f["files"]) for f in gone] == [(None, ["diffusion_pytorch_model.fp16.safetensors"])]
    assert "variant fp16" in gone[0]["message"]


def test_a_lock_of_one_variant_holds_that_variant(tmp_path: Path) -> None:
    """``lock --variant fp16`` locks the fp16 weights: ``audit --variant fp16`` matches it; a plain audit, which
    counts the default weights, does not."""
    unet = _component_variant(tmp_path / "a", broken=False)
    lock_file = tmp_path / "lock.json"
    assert run_cli("lock", str(unet), "--variant", "fp16", "-o", str(lock_file), "-q").returncode == 0
    locked = json.loads(lock_file.read_text())
    assert locked["variant"] == "fp16" and "variants" not in locked and list(locked["totals"]["by_dtype"]) == ["F16"]
    assert run_cli("audit", str(unet), "--variant", "fp16", "--lock", str(lock_file), "-q").returncode == 0
    code, doc = run_json("audit", str(unet), "--lock", str(lock_file), "-q")
    messages = [f["message"] for f in doc["findings"] if f["code"] == "lock-drift" and "variant" not in f]
    assert code == 1 and any("variant changed" in m for m in messages)


def test_diff_of_two_pipelines_with_variants_goes_variant_by_variant(tmp_path: Path) -> None:
    a = _pipeline_variant(tmp_path / "a", broken=False)
    b = _pipeline_variant(tmp_path / "b", broken=True)
    proc = run_cli("diff", str(a), str(b), "-q", "--format", "json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 1 and not doc["identical"]
    names = [s["name"] for s in doc["sections"]]
    assert names == ["text_encoder", "text_encoder (fp16)", "unet", "unet (fp16)", "vae", "vae (fp16)"]
    changed = {s["name"]: s["removed"]["tensors"] for s in doc["sections"] if not s["identical"]}
    assert changed == {"unet (fp16)": ["conv_out.weight"]}
    text = run_cli("diff", str(a), str(b), "-q").stdout
    assert f"st-audit diff: {a}/unet (fp16) -> {b}/unet (fp16): different" in text
    assert text.rstrip().splitlines()[-1] == f"st-audit diff: {a} -> {b}: different (unet (fp16))"
    # one component alone: its variant goes by the component's name
    text = run_cli("diff", str(a / "unet"), str(b / "unet"), "-q").stdout
    assert text.rstrip().splitlines()[-1] == f"st-audit diff: {a / 'unet'} -> {b / 'unet'}: different (variant fp16)"
    assert run_cli("diff", str(a), str(a), "-q").returncode == 0


@pytest.mark.parametrize("lock_name, folder", [("tiny-sd-pipeline", ""), ("tiny-sd-unet", "unet")])
def test_a_lock_written_when_variants_were_sections_still_holds(tmp_path: Path, lock_name: str, folder: str) -> None:
    """Locks st-audit wrote before variants were alternates (sections ``unet`` and ``unet (fp16)``; a component
    folder as sections ``.`` and ``. (fp16)``, fixtures/locks) are read as the same target is locked now: the
    target they describe passes against them, and a change in an fp16 file is still drift on that variant."""
    import gzip

    lock_file = tmp_path / "old.lock.json"
    lock_file.write_bytes(
        gzip.decompress((build.KINDS.parent / "locks" / f"{lock_name}.before-alternates.lock.json.gz").read_bytes())
    )
    target = _pipeline_variant(tmp_path / "t", broken=False) / folder
    code, doc = run_json("audit", str(target), "--lock", str(lock_file), "-q")
    assert (code, [f["message"] for f in doc["findings"] if f["code"] == "lock-drift"]) == (0, [])
    assert run_cli("diff", str(lock_file), str(target), "-q").returncode == 0
    _lose_a_variant_tensor(tmp_path / "t" / "sd", "unet/diffusion_pytorch_model.fp16.safetensors")
    code, doc = run_json("audit", str(target), "--lock", str(lock_file), "-q")
    drift = {(f.get("section"), f.get("variant")) for f in doc["findings"] if f["code"] == "lock-drift"}
    assert code == 1 and drift == {("unet" if not folder else None, "fp16")}
