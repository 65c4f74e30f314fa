"""What a person sees from `st-audit audit`, seen as they see it: the real command line in a subprocess, the GitHub
Action as the runner runs it (its log and annotations), the Hub stand-in over HTTP. The problem first, one line per
healthy part, one error per accident, every label true (issue 29)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support import demo
from tests.support.action import run_action
from tests.support.build import build_folder_dump
from tests.support.cli import run_cli, run_json

LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"0" * 64 + b"\nsize 123456789\n"


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in root.rglob("*") if p.is_file()}


def _pointers(folder: Path, names: list[str] | None = None) -> None:
    for shard in sorted(folder.glob("model-*.safetensors")):
        if names is None or shard.name in names:
            shard.write_bytes(LFS_POINTER)


# -- composite targets: one line per healthy section, each component read once, one traffic line ----------------


def test_a_pipeline_shows_its_failing_section_and_a_line_for_each_other(tmp_path: Path) -> None:
    pipe = build_folder_dump("tiny-sd-pipeline", tmp_path / "sd")
    proc = run_cli("audit", str(pipe), "--no-policy")
    assert proc.returncode == 0 and "=== section" not in proc.stdout
    assert [line.split(":")[1].split()[0] for line in proc.stdout.splitlines() if line.startswith("  PASS: ")] == [
        "text_encoder",
        "unet",
        "vae",
    ]
    assert len(proc.stdout.splitlines()) < 10  # 233 lines when every section was printed in full
    # each component's headers announced once: its fp16 weights are read next, said on the same line
    reading = [line for line in proc.stderr.splitlines() if line.startswith("reading ")]
    assert reading == [f"reading 1 header from {pipe}/{c} (then variant fp16)" for c in ("text_encoder", "unet", "vae")]
    shard = pipe / "unet" / "diffusion_pytorch_model.fp16.safetensors"
    os.truncate(shard, shard.stat().st_size - 100)
    proc = run_cli("audit", str(pipe), "--no-policy")
    out = proc.stdout.splitlines()
    assert proc.returncode == 1 and [line for line in out if line.startswith("=== ")] == [
        "=== section unet (diffusers-component, UNet2DConditionModel) ==="
    ]
    assert any(line.startswith("  FAIL: unet (diffusers-component, UNet2DConditionModel): 208 tensors") for line in out)
    assert sum(line.startswith("  PASS: ") for line in out) == 2
    assert run_cli("audit", str(pipe), "--no-policy", "-v").stdout.count("=== section ") == 3  # -v: all in full


def test_a_pipeline_on_the_hub_says_its_traffic_once(hub: Any, tmp_path: Path) -> None:
    pipe = build_folder_dump("tiny-sd-pipeline", tmp_path / "sd")
    hub.add_repo("org/tiny-sd", _files(pipe))
    proc = run_cli("audit", "org/tiny-sd", "--no-policy", env=hub.hf_env(tmp_path / "hf"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert [line for line in lines if line.startswith("reading ")] == [
        f"reading 1 header from org/tiny-sd/{c} (then variant fp16)" for c in ("text_encoder", "unet", "vae")
    ]
    traffic = [line for line in lines if line.startswith("hub: ")]
    assert len(traffic) == 1 and traffic[0].startswith("hub: org/tiny-sd@default branch (commit ")
    requests = int(traffic[0].split("): ")[1].split()[0])
    assert requests == len([r for r in hub.requests if not r.is_telemetry])  # every request of the target, once


# -- files that could not be read: one true thing, once ----------------------------------------------------------


def test_a_checkpoint_of_git_lfs_pointers_shows_its_finding_first(tmp_path: Path) -> None:
    clean, _ = demo.build(tmp_path)
    _pointers(clean)
    proc = run_cli("audit", str(clean), "--no-policy")
    out = proc.stdout.splitlines()
    assert proc.returncode == 1 and "files audited: 5 (none could be read)" in out
    assert not any(line.startswith(("dtype ", "component ", "ledger")) for line in out)  # no tables of zeros
    first = out.index("findings:") + 1
    assert out[first].startswith("  ERROR   not-safetensors: 5 of 5 files could not be read") and first < 10
    assert "399 tensors in them could not be checked" in out[first]


def test_one_pointer_shard_is_said_once(tmp_path: Path) -> None:
    clean, _ = demo.build(tmp_path)
    name = "model-00002-of-00005.safetensors"
    weight_map = json.loads((clean / "model.safetensors.index.json").read_text())["weight_map"]
    held = sum(1 for shard in weight_map.values() if shard == name)  # the index says what the shard holds
    _pointers(clean, [name])
    code, doc = run_json("audit", str(clean / name), "--no-policy")
    messages = {f["code"]: f["message"] for f in doc["findings"]}
    assert code == 1 and f"{held} tensors in it could not be checked" in messages["not-safetensors"]
    assert "none of its tensors could be checked" not in messages["not-safetensors"]
    assert (
        "could not be read itself" in messages["partial-checkpoint"]
        and "were checked" not in messages["partial-checkpoint"]
    )


# -- the truncated shard names its damaged tensors; a short file on the Hub is no download ------------------------


def _past_the_end(path: Path) -> list[str]:
    """The tensors whose data a short file lacks, from its header's JSON read with the standard library."""
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    entries = {k: v for k, v in json.loads(raw[8 : 8 + n]).items() if k != "__metadata__"}
    data = len(raw) - 8 - n
    return [
        k for k, v in sorted(entries.items(), key=lambda kv: kv[1]["data_offsets"][0]) if v["data_offsets"][1] > data
    ]


def test_the_truncated_shard_names_its_damaged_tensors(tmp_path: Path) -> None:
    _, broken = demo.build(tmp_path)
    shard = broken / "model-00005-of-00005.safetensors"
    damaged = _past_the_end(shard)
    assert damaged == ["lm_head.weight", *demo.BUFFERS]  # the demo's: the head, cut, and the 36 buffers after it
    code, doc = run_json("audit", str(broken), "--no-policy")
    (f,) = [f for f in doc["findings"] if f["code"] == "file-truncated"]
    assert f["count"] == len(damaged) and f["tensors"] == damaged[:20] and f["files"] == [shard.name]
    assert f["patterns"] == ["lm_head.weight", "model.layers.{0..35}.self_attn.rotary_emb.inv_freq"]
    assert f["expected"] - f["actual"] == demo.CUT and f["actual"] == shard.stat().st_size
    assert "37 tensors lie past the end of the file: lm_head.weight" in f["message"]
    assert "(incomplete download?)" in f["message"]  # a local copy: a download that stopped early
    assert run_cli("audit", str(broken), "--no-policy", "-f", "json", "-v").stdout.count('"lm_head.weight"') >= 2


def test_a_short_file_on_the_hub_is_not_an_incomplete_download(hub: Any, tmp_path: Path) -> None:
    _, broken = demo.build(tmp_path)
    hub.add_repo("my-org/Qwen3-8B-ft", _files(broken))
    proc = run_cli("audit", "my-org/Qwen3-8B-ft", "--no-policy", "-f", "json", env=hub.hf_env(tmp_path / "hf"))
    (f,) = [f for f in json.loads(proc.stdout)["findings"] if f["code"] == "file-truncated"]
    assert "incomplete download" not in f["message"] and "the file is stored short" in f["message"]
    assert f["count"] == 37 and f["expected"] - f["actual"] == demo.CUT  # the same facts as the local file
    explained = run_cli("explain", "file-truncated").stdout
    local, remote = explained.split("For a Hub repo's or an object store's own file:")
    assert "download the file again" in local and "upload the file again" in remote
    assert "download" not in remote.replace("downloading it again gives the same bytes", "")
    from auditor.core.findings import remedy  # what a format shows as the next step, by the report's source kind

    fix_remote, fix_local = remedy("file-truncated", remote=True), remedy("file-truncated")
    assert fix_remote is not None and fix_local is not None
    assert fix_remote in remote and fix_local in local


# -- one accident, one error: the Action's annotations ------------------------------------------------------------


def test_one_accident_is_one_error_in_the_action(tmp_path: Path) -> None:
    """The README's gate: the broken demo under a policy and the clean demo's lock. Three accidents (a lost k_norm,
    buffers saved, a truncated shard), three error annotations; the lock's drift that an error already states is a
    note under it. The policy and the lock are found in the workspace and named as there, never by absolute path."""
    work = tmp_path / "ws"
    clean, broken = demo.build(work / "demo")
    (work / "model").symlink_to(broken, target_is_directory=True)
    assert run_cli("lock", str(clean), "-o", str(work / "st-audit.lock.json"), "-q", "--no-policy").returncode == 0
    (work / "st-audit.toml").write_text(
        'expect_parameters = "8.19B"\nallowed_dtypes = ["BF16"]\nlock = "st-audit.lock.json"\n'
    )
    proc, summary, out = run_action(tmp_path, cwd=work, target="model", json=str(tmp_path / "report.json"))
    annotations = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert proc.returncode == 1 and out["verdict"] == "fail"
    assert [a.split("::")[1] for a in annotations] == [
        "error title=st-audit file-truncated",
        "error title=st-audit missing-tensor",
        "error title=st-audit policy-violation",
    ]
    assert not any(str(tmp_path) in a for a in annotations) and "(st-audit.toml)" in annotations[2]
    assert str(tmp_path) not in proc.stdout and "policy: st-audit.toml (4 rules" in proc.stdout
    doc = json.loads((tmp_path / "report.json").read_text())
    drift = [f for f in doc["findings"] if f["code"] == "lock-drift"]
    assert {f["severity"] for f in drift} == {"info"} and doc["counts"]["error"] == 3
    by_cause = {f.get("caused_by"): f["count"] for f in drift if f.get("caused_by")}
    assert by_cause == {"missing-tensor": 1, "policy-violation": 36}


# -- -f summary: why each failing target fails ---------------------------------------------------------------------


def test_summary_lines_name_the_root_finding(tmp_path: Path) -> None:
    clean, broken = demo.build(tmp_path / "demo")
    pointers = demo.clean(tmp_path / "pointers")
    _pointers(pointers)
    proc = run_cli("audit", str(clean), str(broken), str(pointers), "-f", "summary", "--no-policy")
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and len(lines) == 4
    assert lines[0].startswith("PASS: ") and "root finding" not in lines[0]
    assert "; root finding: file-truncated: model-00005-of-00005.safetensors: file is" in lines[1]
    assert (
        "0 tensors, 0 parameters" in lines[2]
        and "; root finding: not-safetensors: 5 of 5 files could not be read" in lines[2]
    )
    listing = tmp_path / "targets.txt"
    listing.write_text(f"{clean}\n{broken}\n{pointers}\n")
    streamed = run_cli("audit", "--from", str(listing), "-f", "summary", "--no-policy", "-j", "1").stdout.splitlines()
    assert sorted(streamed[:3]) == sorted(lines[:3])  # the fleet's lines: the same formatter


# -- a parent folder, policy files, completion -----------------------------------------------------------------------


def test_a_parent_folder_names_the_model_folders_below_it(tmp_path: Path) -> None:
    demo.build(tmp_path / "demo")
    proc = run_cli("audit", "demo", "--no-policy", cwd=tmp_path)
    assert proc.returncode == 3 and proc.stderr.strip().endswith(
        "demo contains no .safetensors file or safetensors index; 2 model folders are below it (demo/Qwen3-8B, "
        "demo/Qwen3-8B-broken): `st-audit audit --recursive demo` audits each"
    )
    assert run_cli("audit", "--recursive", "demo", "--no-policy", cwd=tmp_path).returncode == 1  # as suggested


def test_a_policy_file_takes_what_the_command_line_takes(tmp_path: Path) -> None:
    clean, _ = demo.build(tmp_path / "demo")
    policy = tmp_path / "st-audit.toml"
    policy.write_text('fail_on = "warn"\n')
    code, doc = run_json("audit", str(clean), "--policy", str(policy))
    flag_code, flags = run_json("audit", str(clean), "--no-policy", "--fail-on", "warn")
    assert code == flag_code == 0 and doc["fail_on"] == flags["fail_on"] == "warning"
    for text, said in (
        ('fail_on = "warnig"', "did you mean warning"),
        ('fail-on = "error"', "did you mean fail_on"),
        ('ignore = ["missing-tensr"]', "did you mean missing-tensor"),
        ('allowed_dtypes = ["BF61"]', "did you mean BF16"),
        ('expected_parameters = "8B"', "did you mean expect_parameters"),
    ):
        policy.write_text(text + "\n")
        proc = run_cli("audit", str(clean), "--policy", str(policy))
        assert proc.returncode == 2 and said in proc.stderr, (text, proc.stderr)
    assert "did you mean warning" in run_cli("audit", str(clean), "--fail-on", "warnig").stderr  # as on the CLI


def test_shell_completion(tmp_path: Path) -> None:
    """--show-completion SHELL prints that shell's script; in bash (the one shell here) the script completes finding
    codes after --ignore and `explain`, and --fail-on's values."""
    zsh = run_cli("--show-completion", "zsh")
    assert zsh.returncode == 0 and zsh.stdout.startswith("#compdef st-audit") and "complete_zsh" in zsh.stdout
    assert "complete_fish" in run_cli("--show-completion", "fish").stdout
    assert run_cli("--show-completion", "tcsh").returncode == 2
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "st-audit").exists()

    def complete(*words: str) -> list[str]:
        script = (
            "source <(st-audit --show-completion bash)\n"
            f"COMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}\n"
            "_st_audit_completion st-audit; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
        )
        env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
        proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=60)
        return proc.stdout.split()

    assert complete("st-audit", "audit", "--ignore", "missing-") == ["missing-tensor"]
    assert complete("st-audit", "audit", "x", "--fail-on", "w") == ["warning"]
    assert complete("st-audit", "explain", "lock") == ["lock-drift"]
    assert "audit" in complete("st-audit", "au")
