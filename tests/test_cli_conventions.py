"""The command line a new user expects, each behaviour run as a user would run it (a subprocess)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from auditor.core.findings import CODES
from tests.support import build
from tests.support.cli import run_cli, run_json
from tests.support.paths import ROOT

SCHEMA = json.loads((ROOT / "auditor" / "schema" / "report.schema.json").read_text())
TENSORS = [("model.embed_tokens.weight", "BF16", [64, 16]), ("model.norm.weight", "BF16", [16])]
COMMANDS = ("audit", "lock", "diff", "report", "precommit", "formula", "codes", "explain")


@pytest.fixture
def clean(make_checkpoint: Callable[..., Path]) -> Path:
    return make_checkpoint(TENSORS)


def test_version() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0 and re.fullmatch(r"st-audit \d+\.\d+\.\d+\S*\n", proc.stdout), proc.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_quiet_and_shows_choices_not_types(command: str) -> None:
    proc = run_cli(command, "--help")
    assert proc.returncode == 0 and "-q, --quiet" in proc.stdout
    assert not re.search(r"<(str|int|path|list\[str\]|bool)>", proc.stdout), proc.stdout
    if command in ("audit", "precommit"):
        assert "--fail-on [error|warning|info|never]" in proc.stdout


def test_quiet_leaves_stderr_empty(clean: Path, tmp_path: Path) -> None:
    lock = tmp_path / "l.json"
    for args in (
        ["audit", str(clean), "-q", "-f", "json"],
        ["lock", str(clean), "-q", "-o", str(lock)],
        ["diff", str(clean), str(lock), "-q"],
        ["formula", str(ROOT / "fixtures/configs/Qwen__Qwen3-8B.json"), "-q"],
        ["codes", "-q"],
        ["explain", "tied-head", "-q"],
        ["precommit", str(clean / "model.safetensors"), "-q"],
    ):
        proc = run_cli(*args)
        assert proc.returncode == 0 and proc.stderr == "", (args, proc.stderr)


def _in_a_terminal(*args: str, env: dict[str, str] | None = None) -> str:
    """stdout of the CLI when it is a terminal (a pseudo-terminal here)."""
    import pty

    master, slave = pty.openpty()
    try:
        subprocess.run(
            [sys.executable, "-m", "auditor", *args],
            stdout=slave,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "TERM": "xterm", **(env or {})},
            timeout=120,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks).decode()
    finally:
        os.close(master)


def test_colours_on_a_terminal_only_and_never_with_no_color(clean: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    assert "\x1b[" in _in_a_terminal("audit", str(clean), env=env)
    assert "\x1b[" not in _in_a_terminal("audit", str(clean), env={**env, "NO_COLOR": "1"})
    assert "\x1b[" not in _in_a_terminal("audit", str(clean), "--color", "never", env=env)
    piped = run_cli("audit", str(clean))
    assert "\x1b[" not in piped.stdout
    forced = run_cli("audit", str(clean), "--color", "always", env={"NO_COLOR": "1"})
    assert "\x1b[1;32mPASS\x1b[0m:" in forced.stdout


def test_format_summary_is_exactly_one_line(clean: Path) -> None:
    proc = run_cli("audit", str(clean), "--format", "summary")
    assert proc.returncode == 0 and proc.stdout.count("\n") == 1 and proc.stdout.startswith("PASS: ")
    assert "PASS" not in proc.stderr  # not printed twice
    assert "2 tensors, 1,040 parameters" in proc.stdout and "0 errors, 0 warnings, 1 note" in proc.stdout


def test_output_creates_folders_and_unwritable_output_is_exit_2_before_auditing(clean: Path, tmp_path: Path) -> None:
    out = tmp_path / "reports" / "nested" / "r.json"
    proc = run_cli("audit", str(clean), "-f", "json", "-o", str(out))
    assert proc.returncode == 0 and json.loads(out.read_text())["verdict"] == "pass"
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for command in (["audit", str(tmp_path / "does-not-exist")], ["lock", str(tmp_path / "does-not-exist")]):
        proc = run_cli(*command, "-o", str(blocker / "r.json"))
        assert proc.returncode == 2 and "--output" in proc.stderr, proc.stderr  # 2, not 3: checked first
    proc = run_cli("audit", str(clean), "-o", str(tmp_path))
    assert proc.returncode == 2 and "is a directory" in proc.stderr


def test_st_audit_format_applies_only_where_the_command_has_it(clean: Path, tmp_path: Path) -> None:
    env = {"ST_AUDIT_FORMAT": "junit"}
    assert run_cli("audit", str(clean), env=env).stdout.startswith("<?xml")
    config = str(ROOT / "fixtures/configs/Qwen__Qwen3-8B.json")
    proc = run_cli("formula", config, env=env)
    assert proc.returncode == 0 and "parameters: 8,190,735,360" in proc.stdout
    proc = run_cli("diff", str(clean), str(clean), env=env)
    assert proc.returncode == 0 and "identical" in proc.stdout
    proc = run_cli("formula", config, env={"ST_AUDIT_FORMAT": "json"})
    assert json.loads(proc.stdout)["parameters"] == 8_190_735_360


def test_internal_error_is_exit_4_in_cli_action_and_precommit(clean: Path, tmp_path: Path) -> None:
    boom = (
        "import sys, auditor.run.audit, auditor.run.dispatch\n"
        "def broken(*args, **kw):\n    raise RuntimeError('simulated bug')\n"
        "sys.modules['auditor.run.audit'].audit = sys.modules['auditor.run.dispatch'].audit = broken\n"
    )
    cli = subprocess.run(
        [
            sys.executable,
            "-c",
            boom + "import sys; sys.argv[0] = 'st-audit'\nfrom auditor.cli import main; main()",
            "audit",
            str(clean),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cli.returncode == 4 and "internal error" in cli.stderr and "simulated bug" in cli.stderr
    assert "Traceback" not in cli.stderr
    hook = subprocess.run(
        [
            sys.executable,
            "-c",
            boom + "from auditor.cli import main; main()",
            "precommit",
            str(clean / "model.safetensors"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert hook.returncode == 4 and "internal error" in hook.stdout
    outputs, summary, junit = tmp_path / "out", tmp_path / "summary.md", tmp_path / "ci" / "junit.xml"
    env = {
        **os.environ,
        "INPUT_TARGET": str(clean),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(summary),
        "INPUT_JUNIT": str(junit),
    }
    action = subprocess.run(
        [sys.executable, "-c", boom + "from auditor.github_action import main; main()"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert action.returncode == 4
    assert "verdict=error" in outputs.read_text() and "exit-code=4" in outputs.read_text()
    assert "simulated bug" in summary.read_text() and 'errors="1"' in junit.read_text()
    env["INPUT_TARGET"] = str(tmp_path / "nowhere")  # could not audit: 3, outputs written all the same
    action = subprocess.run(
        [sys.executable, "-m", "auditor.github_action"], capture_output=True, text=True, env=env, timeout=120
    )
    assert action.returncode == 3 and "exit-code=3" in outputs.read_text() and junit.exists()


def test_json_findings_are_capped_with_count_and_patterns(layout_checkpoint: Callable[..., Path]) -> None:
    layout = build.load_layout("Qwen__Qwen3-8B")
    gone = [n for n, _, _ in layout["tensors"] if n.startswith(("model.layers.3.", "model.layers.4."))]
    ckpt = layout_checkpoint("Qwen__Qwen3-8B", drop=gone)
    _, doc = run_json("audit", str(ckpt))
    jsonschema.validate(doc, SCHEMA)
    [missing] = [f for f in doc["findings"] if f["code"] == "missing-tensor"]
    assert missing["count"] == len(gone) == 22 and len(missing["tensors"]) == 20
    assert missing["patterns"] and all("{3..4}" in p for p in missing["patterns"])
    _, full = run_json("audit", str(ckpt), "--tensors")
    [missing] = [f for f in full["findings"] if f["code"] == "missing-tensor"]
    assert sorted(missing["tensors"]) == sorted(gone)


def test_shape_mismatch_has_structured_expected_and_actual(layout_checkpoint: Callable[..., Path]) -> None:
    layout = build.load_layout("Qwen__Qwen3-0.6B")
    name, dtype, shape = next(t for t in layout["tensors"] if t[0].endswith("layers.2.mlp.up_proj.weight"))
    wrong = [shape[0] + 1, shape[1]]
    ckpt = layout_checkpoint("Qwen__Qwen3-0.6B", drop=[name], extra=[(name, dtype, wrong)])
    _, doc = run_json("audit", str(ckpt))
    [f] = [f for f in doc["findings"] if f["code"] == "shape-mismatch"]
    assert f["expected"] == {name: list(shape)} and f["actual"] == {name: wrong}


def test_codes_and_explain() -> None:
    proc = run_cli("codes")
    assert proc.returncode == 0 and all(code in proc.stdout for code in CODES)
    listed = json.loads(run_cli("codes", "-f", "json").stdout)
    assert [c["code"] for c in listed] == list(CODES) and {c["severity"] for c in listed} <= {
        "error",
        "warning",
        "info",
    }
    proc = run_cli("explain", "index-shard-missing")
    assert proc.returncode == 0 and "error by default" in proc.stdout and "--ignore index-shard-missing" in proc.stdout
    proc = run_cli("explain", "missing-tensr")
    assert proc.returncode == 2 and "did you mean missing-tensor" in proc.stderr


def test_policy_expect_model_parameters_and_dtype_aliases(
    layout_checkpoint: Callable[..., Path], tmp_path: Path
) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-8B")
    policy = tmp_path / "st-audit.toml"
    policy.write_text('expect_model_parameters = "8.19B"\nallowed_dtypes = ["bfloat16"]\n')
    code, doc = run_json("audit", str(ckpt), "--policy", str(policy))
    assert code == 0, doc["findings"]
    code, doc = run_json(
        "audit", str(ckpt), "--no-policy", "--expect-model-parameters", "8.3B", "--allow-dtype", "Bf16"
    )
    [v] = [f for f in doc["findings"] if f["code"] == "policy-violation"]
    assert code == 1 and "expect_model_parameters" in v["message"]
    assert v["expected"] == 8_300_000_000 and v["actual"] == 8_190_735_360
    proc = run_cli("audit", str(ckpt), "--no-policy", "--allow-dtype", "brainfloat")
    assert proc.returncode == 2 and "unknown dtype" in proc.stderr


def test_plurals_and_digit_grouping(make_checkpoint: Callable[..., Path]) -> None:
    ckpt = make_checkpoint([(f"w.{i}", "F32", [3]) for i in range(1_000)] + [("x", "F32", [1])])
    (ckpt / "config.json").write_text("[]")  # not an object: exactly one error
    proc = run_cli("audit", str(ckpt), "-f", "summary")
    assert "1,001 tensors, 3,001 parameters" in proc.stdout and "; 1 error, 0 warnings, 0 notes" in proc.stdout


def test_group_table_shows_holes_in_the_pattern(make_checkpoint: Callable[..., Path]) -> None:
    tensors = [
        (f"model.layers.{layer}.mlp.experts.{e}.w", "BF16", [4])
        for layer in range(3)
        for e in range(20)
        if (layer, e) != (1, 17)
    ]
    proc = run_cli("audit", str(make_checkpoint(tensors)))
    assert "model.layers.1.mlp.experts.{0..16,18..19}.w" in proc.stdout
    assert "model.layers.{0,2}.mlp.experts.{0..19}.w" in proc.stdout


def test_mistral_native_file_beside_hf_shards_is_quiet(layout_checkpoint: Callable[..., Path]) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-0.6B", shards=2)
    build.write_file(ckpt / "consolidated.safetensors", [("tok_embeddings.weight", "BF16", [8, 4])])
    (ckpt / "params.json").write_text('{"dim": 4}')
    code, doc = run_json("audit", str(ckpt))
    assert code == 0 and "shard-unreferenced" not in {f["code"] for f in doc["findings"]}
    assert "Mistral's native format" in doc["ignored_files"]["consolidated.safetensors"]
    (ckpt / "params.json").unlink()  # without params.json it is a stray file again
    _, doc = run_json("audit", str(ckpt))
    assert "shard-unreferenced" in {f["code"] for f in doc["findings"]}


def test_variant(make_checkpoint: Callable[..., Path]) -> None:
    ckpt = make_checkpoint(TENSORS)
    build.write_file(ckpt / "model.fp16.safetensors", [(n, "F16", s) for n, _, s in TENSORS])
    code, doc = run_json("audit", str(ckpt))
    assert code == 0 and list(doc["totals"]["by_dtype"]) == ["BF16"]
    # model.fp16.safetensors is the same model again: audited beside the default weights, never counted
    assert doc["variants"]["audited"] == [None, "fp16"] and "model.fp16.safetensors" not in doc["ignored_files"]
    [fp16] = doc["variants"]["alternates"]
    assert list(fp16["report"]["totals"]["by_dtype"]) == ["F16"] and fp16["verdict"] == "pass"
    assert doc["totals"]["parameters"] == fp16["report"]["totals"]["parameters"]
    code, doc = run_json("audit", str(ckpt), "--variant", "fp16")
    assert code == 0 and list(doc["totals"]["by_dtype"]) == ["F16"]
    (ckpt / "model.safetensors").unlink()
    code, doc = run_json("audit", str(ckpt))  # only the variant is there: audited, and the report says which
    assert code == 0 and list(doc["totals"]["by_dtype"]) == ["F16"] and doc["kind"]["variant"] == "fp16"
    assert "only variant weights are present (fp16)" in doc["kind"]["notes"][0]
    proc = run_cli("audit", str(ckpt), "--variant", "bf16")
    assert proc.returncode == 3 and "variants present: fp16" in proc.stderr


def test_one_shard_of_a_sharded_checkpoint(layout_checkpoint: Callable[..., Path]) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-8B", shards=5)
    shard = sorted(ckpt.glob("model-*.safetensors"))[1]
    code, doc = run_json("audit", str(shard))
    assert code == 0, [f for f in doc["findings"] if f["severity"] != "info"]
    [note] = [f for f in doc["findings"] if f["code"] == "partial-checkpoint"]
    assert "shard 2 of 5" in note["message"] and "audit the directory" in note["message"]
    # its own tensors are still checked against the formula
    index = json.loads((ckpt / "model.safetensors.index.json").read_text())
    mine = next(t for t, s in index["weight_map"].items() if s == shard.name and t.endswith("up_proj.weight"))
    bad = shard.parent / "bad" / shard.name
    bad.parent.mkdir()
    (bad.parent / "config.json").write_bytes((ckpt / "config.json").read_bytes())
    (bad.parent / "model.safetensors.index.json").write_bytes((ckpt / "model.safetensors.index.json").read_bytes())
    tensors = [(t.name, t.dtype, [1, 1] if t.name == mine else list(t.shape)) for t in _header_tensors(shard)]
    build.write_file(bad, tensors)
    code, doc = run_json("audit", str(bad))
    assert code == 1 and [f["code"] for f in doc["findings"] if f["severity"] == "error"] == ["shape-mismatch"]
    code, doc = run_json("audit", str(shard), "--no-config")
    assert code == 0 and any("--no-config" in f["message"] for f in doc["findings"] if f["code"] == "config-missing")
    assert doc["expected"]["parameters"] is None


def _header_tensors(path: Path) -> list:
    from auditor.read.sources.local import read_local_header

    return read_local_header(path, path.name).tensors


def test_path_like_targets_are_no_such_file(tmp_path: Path) -> None:
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    for target, needle in (
        ("./nope", "./nope: no such file or directory"),
        ("../nope", "no such file or directory"),
        ("a/b/c", "a/b/c: no such file or directory"),
        ("/abs/nope", "no such file or directory"),
        ("model.safetensors", "no such file or directory"),
        (str(tmp_path / "dangling"), "dangling symbolic link"),
        (str(tmp_path / "loop"), "symbolic link loop"),
        ("gpt2", "pass --hub"),
    ):
        proc = run_cli("audit", target, cwd=tmp_path)
        assert proc.returncode == 3 and needle in proc.stderr, (target, proc.stderr)
        assert "Hub" not in proc.stderr.replace("Hub model", "") and len(proc.stderr.splitlines()) == 1


def test_odd_entries_inside_a_checkpoint_are_named_and_never_abort(make_checkpoint: Callable[..., Path]) -> None:
    ckpt = make_checkpoint(TENSORS)
    (ckpt / "notes").symlink_to(ckpt / "notes")  # a loop in an unrelated file
    (ckpt / "a.txt").symlink_to(ckpt / "b.txt")
    (ckpt / "b.txt").symlink_to(ckpt / "a.txt")
    code, doc = run_json("audit", str(ckpt))
    assert code == 0, doc["findings"]
    (ckpt / "model.safetensors").rename(ckpt / "weights.safetensors")
    (ckpt / "other.safetensors").symlink_to("/nonexistent/blob")
    code, doc = run_json("audit", str(ckpt))
    # no config, index or model.safetensors binds the two files: each is audited on its own (a section each)
    findings = doc["findings"]  # every section's too, each naming its section
    [root] = [f for f in findings if f["code"] == "file-unreadable"]
    assert code == 1 and "other.safetensors" in root["message"] and "dangling symbolic link" in root["message"]
    assert "/nonexistent/blob" in root["message"]


def test_config_json_that_is_a_directory_or_missing_from_a_directory(
    make_checkpoint: Callable[..., Path], tmp_path: Path
) -> None:
    ckpt = make_checkpoint(TENSORS)
    (ckpt / "config.json").mkdir()
    code, doc = run_json("audit", str(ckpt))
    [f] = [f for f in doc["findings"] if f["code"] == "config-invalid"]
    assert code == 1 and "config.json is a directory" in f["message"]
    proc = run_cli("formula", str(tmp_path))
    assert proc.returncode == 3 and "without a config.json" in proc.stderr


def test_usage_doc_matches_help() -> None:
    """Every option docs/usage.md's usage block shows exists in --help, and every --help option is in it."""
    doc = (ROOT / "docs" / "usage.md").read_text()
    usage = doc.split("## Commands", 1)[1].split("```", 2)[1]
    chunks: dict[str, str] = {}
    current = None
    for line in usage.splitlines():
        if line.startswith("st-audit "):
            current = line.split()[1]
            chunks[current] = chunks.get(current, "") + line.split("#", 1)[0]
        elif line.startswith(" ") and current is not None:
            chunks[current] += line.split("#", 1)[0]
        else:
            current = None
    for command in COMMANDS:
        assert command in chunks, f"docs/usage.md lacks st-audit {command}"
        block = chunks[command]
        shown = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b", block))
        helptext = run_cli(command, "--help").stdout.split("Options:", 1)[1]
        aliases = dict(re.findall(r"^\s+(-[a-zA-Z]), (--[a-z][a-z-]*)", helptext, re.M))
        offered = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b", helptext)) - {"--help"}
        assert shown <= offered, (command, shown - offered)
        missing = {
            o
            for o in offered
            if o not in shown
            and o not in aliases
            and not any(long == o and short in shown for short, long in aliases.items())
        }
        assert not missing, (command, missing)
    assert "st-audit --version" in usage and "docs/usage.md" in (ROOT / "README.md").read_text()


def test_ci_examples_name_this_repository() -> None:
    text = (ROOT / "README.md").read_text() + (ROOT / "docs" / "ci.md").read_text()
    assert "OWNER" not in text
    assert "uses: st-audit/st-audit@" in text and "repo: https://github.com/st-audit/st-audit" in text


def test_ledger_names_the_formula_only_when_one_applies(clean: Path, layout_checkpoint: Callable[..., Path]) -> None:
    proc = run_cli("audit", str(clean))
    assert "formula's parameters" not in proc.stdout and "model (no formula applies" in proc.stdout
    proc = run_cli("audit", str(layout_checkpoint("Qwen__Qwen3-0.6B")))
    assert "model (the formula's parameters)" in proc.stdout


def test_a_folder_of_files_no_loader_would_use_says_so(make_checkpoint: Callable[..., Path]) -> None:
    ckpt = make_checkpoint(TENSORS)
    (ckpt / "model.safetensors").rename(ckpt / "cnn.safetensors")
    build.write_file(ckpt / "mlp.safetensors", [("fc.weight", "F32", [4, 4])])
    _, doc = run_json("audit", str(ckpt))  # said on the first line, and each file audited on its own
    assert doc["kind"]["kind"] == "safetensors-files" and "no index, no model.safetensors" in doc["kind"]["detail"]
    assert [s["name"] for s in doc["sections"]] == ["cnn.safetensors", "mlp.safetensors"]
    (ckpt / "cnn.safetensors").rename(ckpt / "model.safetensors")  # a name loaders use: one model again
    _, doc = run_json("audit", str(ckpt))
    assert "sections" not in doc and "loose-files" not in {f["code"] for f in doc["findings"]}
    # the single-checkpoint stage still says it when handed such a folder as one checkpoint
    (ckpt / "model.safetensors").rename(ckpt / "cnn.safetensors")
    from auditor.run.audit import audit as audit_checkpoint

    [note] = [f for f in audit_checkpoint(ckpt).findings if f.code == "loose-files"]
    assert note.severity == "info" and "no loader would use these 2 files" in note.message


def test_formula_of_an_unreachable_hub_repo_is_one_sentence(tmp_path: Path) -> None:
    """As audit, diff, lock and verify: the listing first, so an unreachable Hub is one line at once, not
    huggingface_hub's retry messages (HF_ENDPOINT is a closed port here)."""
    proc = run_cli("formula", "org/model", env={"HF_HOME": str(tmp_path / "home")})
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 3 and len(lines) == 1 and lines[0].startswith("st-audit: error: ")
    assert "Retry" not in proc.stderr and ("org/model" in lines[0] or "Hub" in lines[0])


def test_one_missing_target_does_not_throw_the_others_away(
    make_checkpoint: Callable[..., Path], tmp_path: Path
) -> None:
    ckpt = make_checkpoint(TENSORS)
    proc = run_cli("audit", str(ckpt), str(tmp_path / "missing"), "--format", "json", "-q")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 3 and [s["name"] for s in doc["sections"]] == [str(ckpt)]
    jsonschema.validate(doc, SCHEMA)
    assert doc["errors"] == [
        {"target": str(tmp_path / "missing"), "error": f"{tmp_path / 'missing'}: no such file or directory"}
    ]
    assert proc.stderr.strip().splitlines() == [f"st-audit: error: {tmp_path / 'missing'}: no such file or directory"]
    assert run_cli("audit", str(tmp_path / "missing"), str(tmp_path / "gone")).returncode == 3


def test_fail_on_short_forms_and_ignore_typos(make_checkpoint: Callable[..., Path]) -> None:
    ckpt = make_checkpoint(TENSORS, config={"model_type": "brand_new"})
    assert run_json("audit", str(ckpt), "--fail-on", "warn")[1]["fail_on"] == "warning"
    assert run_json("audit", str(ckpt), "--fail-on", "INFO")[1]["fail_on"] == "info"
    proc = run_cli("audit", str(ckpt), "--ignore", "buffer-storred")
    assert proc.returncode == 2 and "did you mean buffer-stored?" in proc.stderr
    proc = run_cli("audit", str(ckpt), "--fail-on", "loud")
    assert proc.returncode == 2 and "'loud' is not one of error, warning, info, never" in proc.stderr


def test_a_path_that_differs_only_in_case_is_named_not_sent_to_the_hub(make_checkpoint: Callable[..., Path]) -> None:
    ckpt = make_checkpoint(TENSORS)
    model = ckpt.parent / "Qwen3-8B"
    ckpt.rename(model)
    proc = run_cli("audit", "Qwen3-8b", cwd=model.parent)
    assert proc.returncode == 3 and "did you mean Qwen3-8B?" in proc.stderr and "Hub" not in proc.stderr


def test_help_lists_every_command_uncut_and_offers_completion() -> None:
    text = run_cli("--help").stdout
    listed = text.split("Commands:", 1)[1].strip().splitlines()  # COMMANDS and verify
    assert len(listed) == len(COMMANDS) + 1 and not any(line.rstrip().endswith("...") for line in listed)
    assert "--install-completion" in text


def test_summary_is_one_line_per_target_and_one_for_the_whole(
    make_checkpoint: Callable[..., Path], tmp_path: Path
) -> None:
    one, two = make_checkpoint(TENSORS), make_checkpoint(TENSORS)
    pipe = build.build_folder_dump("tiny-sd-pipeline", tmp_path / "sd")
    lines = run_cli("audit", str(one), str(two), str(pipe), "-f", "summary", "-q").stdout.splitlines()
    assert len(lines) == 4 and lines[2].startswith(f"PASS: {pipe} (diffusers pipeline")
    assert lines[3].startswith("PASS: 3 targets in all: 3 passed; ")  # the run's line: no model's name or sum
    assert len(run_cli("audit", str(pipe), "-f", "summary", "-q").stdout.splitlines()) == 1
    proc = run_cli("verify", str(one), "-f", "summary")
    assert len(proc.stdout.splitlines()) == 1 and proc.stdout.strip() not in proc.stderr  # the verdict once


def test_one_json_shape_for_ci(make_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    """Whatever the target, CI reads the verdict the same way: exit_code, counts by severity, the tool; diff too."""
    ckpt = make_checkpoint(TENSORS)
    pipe = build.build_folder_dump("tiny-sd-pipeline", tmp_path / "sd")
    shutil.rmtree(pipe / "text_encoder")  # one component missing: an error of the whole
    for target, expected_code in ((ckpt, 0), (pipe, 1)):
        code, doc = run_json("audit", str(target), "-q")
        jsonschema.validate(doc, SCHEMA)
        assert code == doc["exit_code"] == expected_code and doc["tool"]["name"] == "st-audit"
        assert (doc["counts"]["error"] > 0) == bool(expected_code)
    diff = json.loads(run_cli("diff", str(ckpt), str(ckpt), "-f", "json", "-q").stdout)
    assert diff["schema_version"] == 1 and diff["tool"]["name"] == "st-audit"


def test_polish_of_the_table(tmp_path: Path) -> None:
    """issue 24 point 9: no "12 layers layers x"; the spec and the formula are two different labels; an adapter's
    ledger row names the adapter, not a missing formula."""
    from tests.support.truth import CASES, write_case

    text = run_cli("audit", str(write_case(CASES / "clip_text_model" / "CLIPTextModel-default", tmp_path / "c"))).stdout
    assert "layers layers" not in text and "12 layers x (attention" in text
    assert [line.split(":")[0] for line in text.splitlines() if line.startswith(("spec:", "formula:"))] == [
        "spec",
        "formula",
    ]
    from tests.support.peft import load, make

    adapter, base = make(tmp_path / "a", load("llama-qv"))
    text = run_cli("audit", str(adapter), "--base", str(base)).stdout
    assert "adapter (its own tensors)" in text and "no formula applies" not in text


def test_formula_right_aligns_its_numbers_with_short_forms(layout_checkpoint: Callable[..., Path]) -> None:
    text = run_cli("formula", str(layout_checkpoint("Qwen__Qwen3-8B"))).stdout
    mlp = next(line for line in text.splitlines() if line.startswith("mlp"))
    assert mlp.split()[-3:] == ["5,435,817,984", "5.44B", "66.4%"] and "parameters: 8,190,735,360 (8.19B)" in text
    lines = [line for line in text.splitlines() if line.startswith(("embedding", "mlp"))]
    assert len({line.index(line.split()[-3]) + len(line.split()[-3]) for line in lines}) == 1  # right-aligned


def test_ci_snippets_pin_a_commit_that_exists() -> None:
    """The Action and pre-commit snippets name a version that exists: a commit of this repository's history."""
    import re
    import subprocess

    text = (ROOT / "README.md").read_text() + (ROOT / "docs" / "ci.md").read_text()
    pins = set(re.findall(r"uses: st-audit/st-audit@(\S+)", text)) | set(re.findall(r"^\s+rev: (\S+)", text, re.M))
    assert pins and all(re.fullmatch(r"[0-9a-f]{40}", p) for p in pins), pins
    shallow = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository"], capture_output=True, text=True
    )
    if shallow.returncode == 0 and shallow.stdout.strip() == "false":  # a full history: the commit is in it
        for pin in pins:
            assert subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{pin}^{{commit}}"]).returncode == 0


def test_the_readme_is_short_and_starts_with_how_to_install() -> None:
    text = (ROOT / "README.md").read_text()
    first_screen = "\n".join(text.splitlines()[:40])
    assert len(text.encode()) < 15_000 and "../shared" not in text
    assert all(s in first_screen for s in ("pip install", "make demo", "make test"))


def test_the_brief_view_and_the_long_one(layout_checkpoint: Callable[..., Path]) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-8B")
    brief = run_cli("audit", str(ckpt), "--no-policy").stdout
    assert "tensor pattern" not in brief and "share" in brief and len(brief.splitlines()) < 40
    long = run_cli("audit", str(ckpt), "--no-policy", "-v").stdout
    assert "tensor pattern" in long and "model.layers.{0..35}.mlp.up_proj.weight" in long
