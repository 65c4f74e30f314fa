"""Report formats are one class each, registered in one place (``auditor.formats.FORMATS``): the command line asks the
class, never the name. A format written here, outside the package, is registered by a program that then runs the
command line's entry point (``auditor.cli.main``), and its output is the one the command prints."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from auditor.formats import FORMATS, fleet_formats, register, report_format
from auditor.formats.base import ReportFormat
from tests.support.cli import NETGUARD, run_cli
from tests.support.paths import ROOT

TENSORS = [("model.embed_tokens.weight", "BF16", [64, 16]), ("model.norm.weight", "BF16", [16])]

# a format of its own: the verdict, the tensor count and every finding code, one line per checkpoint
TOY = """
from auditor.formats.base import ReportFormat


class Toy(ReportFormat):
    name = "toy"

    def single(self, report, width=None):
        codes = ",".join(f.code for f in report.active_findings)
        return f"toy {report.verdict} {report.totals.tensors} [{codes}]\\n"
"""
# the program: register the format, then the command line as the st-audit console script runs it
PROGRAM = """
import sys
from auditor.formats import register
register("{name}", "{where}")
from auditor.cli import main
sys.argv[0] = "st-audit"
main()
"""


def _run_toy(
    tmp_path: Path, *args: str, module: str = "toyformat", source: str = TOY, name: str = "toy", cls: str = "Toy"
) -> subprocess.CompletedProcess[str]:
    (tmp_path / f"{module}.py").write_text(source)
    (tmp_path / "st_audit_toy.py").write_text(PROGRAM.format(name=name, where=f"{module}:{cls}"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([NETGUARD, str(tmp_path), str(ROOT)])}
    env.pop("ST_AUDIT_FORMAT", None)
    return subprocess.run(
        [sys.executable, str(tmp_path / "st_audit_toy.py"), *args], capture_output=True, text=True, env=env, timeout=300
    )


def _json(*args: str) -> dict:
    proc = run_cli(*args, "-f", "json")
    return json.loads(proc.stdout)


def test_a_format_registered_outside_the_package_is_a_choice_of_the_command_line(
    tmp_path: Path, make_checkpoint: Callable[..., Path]
) -> None:
    clean = make_checkpoint(TENSORS)
    broken = make_checkpoint(
        TENSORS[:1],
        config={
            "model_type": "llama",
            "hidden_size": 16,
            "vocab_size": 64,
            "num_hidden_layers": 1,
            "intermediate_size": 32,
            "num_attention_heads": 2,
        },
    )
    for target in (clean, broken):
        proc = _run_toy(tmp_path, "audit", str(target), "-f", "toy")
        doc = _json("audit", str(target))
        codes = ",".join(f["code"] for f in doc["findings"] if not f.get("ignored"))
        assert proc.stdout == f"toy {doc['verdict']} {doc['totals']['tensors']} [{codes}]\n", proc.stderr
        assert proc.returncode == doc["exit_code"]
        # not a terminal and not the summary: the verdict line on stderr, uncoloured (a toy format does not colour)
        assert proc.stderr.splitlines()[-1].startswith(f"{doc['verdict'].upper()}: ") and "\033[" not in proc.stderr
    assert json.loads(run_cli("audit", str(broken), "-f", "json").stdout)["verdict"] == "fail"


def test_a_registered_format_renders_a_report_of_sections_section_by_section(
    tmp_path: Path, make_checkpoint: Callable[..., Path]
) -> None:
    """Two targets: the default ``composite`` shows the failing one through the toy's ``single`` under its heading,
    the healthy one in one line, and the run's verdict line last."""
    clean = make_checkpoint(TENSORS)
    broken = make_checkpoint(
        TENSORS[:1],
        config={
            "model_type": "llama",
            "hidden_size": 16,
            "vocab_size": 64,
            "num_hidden_layers": 1,
            "intermediate_size": 32,
            "num_attention_heads": 2,
        },
    )
    proc = _run_toy(tmp_path, "audit", str(clean), str(broken), "-f", "toy", "-q")
    doc = _json("audit", str(broken))
    codes = ",".join(f["code"] for f in doc["findings"] if not f.get("ignored"))
    assert f"toy fail {doc['totals']['tensors']} [{codes}]" in proc.stdout.splitlines()
    assert not any(line.startswith("toy pass") for line in proc.stdout.splitlines())  # healthy: one line
    summary = run_cli("audit", str(clean), str(broken), "-f", "summary").stdout.splitlines()[-1]
    assert proc.stdout.splitlines()[-1] == summary and proc.returncode == 1


def _walkthrough_sarif() -> str:
    """The SARIF format exactly as docs/development.md writes it."""
    section = (ROOT / "docs" / "development.md").read_text().split("### Adding a report format: SARIF", 1)[1]
    return textwrap.dedent(section.split("```python\n", 1)[1].split("```", 1)[0])


def test_the_sarif_format_of_the_walkthrough_runs_as_written(
    tmp_path: Path, make_checkpoint: Callable[..., Path]
) -> None:
    broken = make_checkpoint(
        TENSORS[:1],
        config={
            "model_type": "llama",
            "hidden_size": 16,
            "vocab_size": 64,
            "num_hidden_layers": 1,
            "intermediate_size": 32,
            "num_attention_heads": 2,
        },
    )
    proc = _run_toy(
        tmp_path,
        "audit",
        str(broken),
        "-f",
        "sarif",
        "-q",
        module="sarif_walkthrough",
        source=_walkthrough_sarif(),
        name="sarif",
        cls="Sarif",
    )
    sarif = json.loads(proc.stdout)
    doc = _json("audit", str(broken))
    results = sarif["runs"][0]["results"]
    assert sarif["version"] == "2.1.0" and proc.returncode == doc["exit_code"] == 1
    assert [(r["ruleId"], r["level"]) for r in results] == [
        (f["code"], {"error": "error", "warning": "warning", "info": "note"}[f["severity"]]) for f in doc["findings"]
    ]
    assert [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]] == sorted(
        {f["code"] for f in doc["findings"]}
    )


def test_an_unknown_format_is_refused_with_the_registered_ones(make_checkpoint: Callable[..., Path]) -> None:
    proc = run_cli("audit", str(make_checkpoint(TENSORS)), "-f", "jsn")
    assert (
        proc.returncode == 2 and "'jsn' is not one of " + ", ".join(repr(f) for f in [*FORMATS, "jsonl"]) in proc.stderr
    )


def test_every_registered_format_is_its_class() -> None:
    for name in FORMATS:
        form = report_format(name)
        assert isinstance(form, ReportFormat) and form.name == name


@pytest.mark.parametrize("command", ["audit", "verify"])
def test_the_format_choices_in_help_are_the_registry(command: str) -> None:
    out = run_cli(command, "--help", env={"COLUMNS": "300"}).stdout
    extra = ["jsonl"] if command == "audit" else []
    assert "[" + "|".join([*FORMATS, *extra]) + "]" in out


def test_the_report_command_offers_the_formats_with_a_fleet_view() -> None:
    from auditor.cli import FLEET_METAVAR

    assert FLEET_METAVAR == "[" + "|".join(fleet_formats()) + "]"
    out = run_cli("report", "--help", env={"COLUMNS": "300"}).stdout
    assert re.search(re.escape(FLEET_METAVAR), out)


def test_register_replaces_and_the_registry_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(FORMATS, "table2", "auditor.formats.table:Table")
    assert report_format("table2").fits_terminal
    register("table2", "auditor.formats.json_format:Json")
    assert not report_format("table2").fits_terminal


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("st-audit audit -f ", lambda: [*FORMATS, "jsonl"]),
        ("st-audit verify --format ", lambda: list(FORMATS)),
        ("st-audit report x -f ", lambda: list(fleet_formats())),
    ],
)
def test_shell_completion_offers_the_registered_formats(words: str, expected: Callable[[], list[str]]) -> None:
    env = {
        **os.environ,
        "_ST_AUDIT_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split())),
        "PYTHONPATH": os.pathsep.join([NETGUARD, str(ROOT)]),
    }
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; sys.argv[0] = 'st-audit'; from auditor.cli import main; main()"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.stdout.split() == expected()
