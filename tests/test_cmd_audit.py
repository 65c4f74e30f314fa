"""The command line as a user runs it: exit codes, formats, the JSON contract, error messages."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from auditor.core.findings import CODES, codes_table
from tests.support.cli import run_cli, run_json
from tests.support.paths import ROOT

SCHEMA = json.loads((ROOT / "auditor" / "schema" / "report.schema.json").read_text())
TENSORS = [("model.embed_tokens.weight", "BF16", [64, 16]), ("model.norm.weight", "BF16", [16])]


@pytest.fixture
def clean(make_checkpoint: Callable[..., Path]) -> Path:
    return make_checkpoint(TENSORS)


@pytest.fixture
def truncated(make_checkpoint: Callable[..., Path]) -> Path:
    path = make_checkpoint(TENSORS, shards=2)
    shard = sorted(path.glob("*.safetensors"))[0]
    with open(shard, "r+b") as f:
        f.truncate(shard.stat().st_size - 10)
    return path


def test_exit_0_and_valid_json(clean: Path) -> None:
    code, report = run_json("audit", str(clean), "--tensors")
    assert code == 0 and report["verdict"] == "pass"
    jsonschema.validate(report, SCHEMA)
    assert sum(report["ledger"].values()) == report["totals"]["parameters"] == 64 * 16 + 16
    assert [t["name"] for t in report["tensors"]] == ["model.embed_tokens.weight", "model.norm.weight"]


def test_exit_1_with_report_still_printed(truncated: Path) -> None:
    code, report = run_json("audit", str(truncated))
    assert code == 1 and report["verdict"] == "fail"
    jsonschema.validate(report, SCHEMA)
    assert any(f["code"] == "file-truncated" and f["files"] for f in report["findings"])


def test_ignore_and_fail_on(truncated: Path, clean: Path) -> None:
    code, report = run_json("audit", str(truncated), "--ignore", "file-truncated", "--ignore", "config-missing")
    assert code == 0 and all(f["code"] != "file-truncated" for f in report["findings"])
    assert report["ignored_codes"] == ["config-missing", "file-truncated"]
    code, _ = run_json("audit", str(truncated), "--fail-on", "never")
    assert code == 0
    code, report = run_json("audit", str(clean), "--fail-on", "info")  # config-missing is an info finding
    assert code == 1 and report["findings"][0]["code"] == "config-missing"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["audit", "X", "--format", "yaml"], "yaml"),
        (["audit", "X", "--fail-on", "sometimes"], "--fail-on"),
        (["audit", "X", "--ignore", "no-such-code"], "no-such-code"),
        (["audit", "X", "--bogus"], "--bogus"),
        (["audit"], "Missing argument"),
    ],
)
def test_exit_2_usage(clean: Path, args: list[str], needle: str) -> None:
    proc = run_cli(*[str(clean) if a == "X" else a for a in args])
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr


def test_exit_3_could_not_audit(tmp_path: Path) -> None:
    proc = run_cli("audit", str(tmp_path / "missing-dir"))
    assert proc.returncode == 3 and "no such file or directory" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    (tmp_path / "empty").mkdir()
    proc = run_cli("audit", str(tmp_path / "empty"))
    assert proc.returncode == 3 and "no .safetensors" in proc.stderr
    (tmp_path / "pkl").mkdir()
    (tmp_path / "pkl" / "pytorch_model.bin").write_bytes(b"PK\x03\x04")
    proc = run_cli("audit", str(tmp_path / "pkl"), "--debug")
    assert proc.returncode == 3 and "pytorch_model.bin" in proc.stderr and "Traceback" in proc.stderr


def test_formats_and_output_file(clean: Path, tmp_path: Path) -> None:
    table = run_cli("audit", str(clean))
    assert table.returncode == 0 and "model.embed_tokens.weight" in table.stdout and "PASS" in table.stdout
    markdown = run_cli("audit", str(clean), "--format", "markdown")
    assert markdown.stdout.startswith("## ") and "| " in markdown.stdout
    out = tmp_path / "r.json"
    proc = run_cli("audit", str(clean), "--format", "json", "--output", str(out))
    assert proc.stdout == "" and json.loads(out.read_text())["verdict"] == "pass"
    assert "PASS" in proc.stderr  # human summary on stderr


def test_env_defaults(clean: Path, truncated: Path) -> None:
    proc = run_cli("audit", str(clean), env={"ST_AUDIT_FORMAT": "json"})
    assert json.loads(proc.stdout)["schema_version"] == 1
    proc = run_cli("audit", str(truncated), env={"ST_AUDIT_FAIL_ON": "never"})
    assert proc.returncode == 0


def test_help_lists_commands() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0 and "audit" in proc.stdout and "formula" in proc.stdout


def test_docs_document_every_finding_code() -> None:
    """docs/codes.md's table is generated from auditor/core/codes.toml (make coverage writes it); the README links it."""
    assert codes_table() in (ROOT / "docs" / "codes.md").read_text(), "run make coverage"
    assert "docs/codes.md" in (ROOT / "README.md").read_text()
    assert all(f"| `{code}` |" in codes_table() for code in CODES)


def test_formula_command_on_a_config(tmp_path: Path) -> None:
    config = ROOT / "fixtures" / "configs" / "Qwen__Qwen3-8B.json"
    proc = run_cli("formula", str(config), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["parameters"] == 8_190_735_360
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "no-such-family"}')
    proc = run_cli("formula", str(bad))
    assert proc.returncode == 3 and "no formula" in proc.stderr


def test_unreadable_directory_and_special_files_exit_3(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "model.safetensors"
    os.mkfifo(fifo)
    proc = run_cli("audit", str(fifo))
    assert proc.returncode == 3 and f"{fifo} is a named pipe (FIFO)" in proc.stderr
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        proc = run_cli("audit", str(locked))
        if os.geteuid() == 0:  # root reads anything: the empty directory is the problem then
            assert proc.returncode == 3 and "no .safetensors" in proc.stderr
        else:
            assert proc.returncode == 3 and "cannot list" in proc.stderr
    finally:
        locked.chmod(0o755)


def test_fifo_inside_a_checkpoint_never_hangs(make_checkpoint: Callable[..., Path]) -> None:
    import os

    path = make_checkpoint(TENSORS)
    os.mkfifo(path / "extra.safetensors")
    proc = run_cli("audit", str(path), "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["totals"]["tensors"] == 2
