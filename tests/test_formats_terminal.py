"""What a person sees in a terminal, at its real width: the report is run in a tmux pane 100 columns wide and the
screen is read back. Long prose (the closed formula, findings, the verdict) is folded under a hanging indent,
tables fit, and nothing is lost; a pipe gets every line whole. Without tmux these tests skip with one line, except
where ``ST_AUDIT_REQUIRE_TERMINAL`` is set (CI: .ci/run installs tmux), where they fail."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.support.cli import run_cli
from tests.support.paths import ROOT
from tests.support.resources import absent
from tests.support.truth import CASES, tensors, write_case

REQUIRE = "ST_AUDIT_REQUIRE_TERMINAL"
WIDTH = 100


def _tmux() -> str:
    found = shutil.which("tmux")
    if found is None:
        absent("no tmux to show the report in a terminal (apt-get install tmux)", REQUIRE)
    return found


def _screen(args: list[str], tmp_path: Path) -> list[str]:
    """The lines a WIDTH-column terminal shows for ``st-audit ARGS`` (long enough that nothing scrolls away)."""
    tmux = _tmux()
    session = f"st-audit-{uuid.uuid4().hex[:8]}"
    done = tmp_path / "done"
    command = " ".join([sys.executable, "-m", "auditor", *args, "--no-policy", "--color", "never"])
    script = f"cd {ROOT} && {command}; touch {done}; sleep 60"
    socket = ["-L", session]
    subprocess.run([tmux, *socket, "new-session", "-d", "-s", session, "-x", str(WIDTH), "-y", "200", script],
                   check=True, env={**os.environ, "TERM": "xterm"})
    try:
        deadline = time.monotonic() + 60
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert done.exists(), "st-audit did not finish in the terminal"
        screen = subprocess.run([tmux, *socket, "capture-pane", "-p", "-t", session], check=True,
                                capture_output=True, text=True).stdout
    finally:
        subprocess.run([tmux, *socket, "kill-server"], capture_output=True)
    return screen.rstrip("\n").splitlines()


def test_the_report_fits_a_100_column_terminal_and_loses_nothing(tmp_path: Path) -> None:
    case = CASES / "qwen3" / "Qwen3ForCausalLM-default"
    layout = [t for t in tensors(case) if not t[0].endswith("layers.7.self_attn.k_norm.weight")]
    ckpt = write_case(case, tmp_path / "model", layout)
    lines = _screen(["audit", str(ckpt)], tmp_path)
    assert max(len(line) for line in lines) <= WIDTH
    whole = run_cli("audit", str(ckpt), "--no-policy").stdout  # a pipe: every line whole
    formula = next(line for line in whole.splitlines() if line.startswith("formula: "))
    assert len(formula) > WIDTH  # the case this test is about
    shown = " ".join(line.strip() for line in lines)
    assert formula in shown or " ".join(formula.split()) in " ".join(shown.split())
    start = next(i for i, line in enumerate(lines) if line.startswith("formula: "))
    assert lines[start + 1].startswith("    ")  # folded under a hanging indent
    table = [line for line in lines if line.startswith(("component", "embedding", "= total"))]
    assert len(table) == 3 and all(len(line) <= WIDTH for line in table)  # the breakdown is not folded
    assert any("missing-tensor" in line for line in lines) and lines[-1].startswith(("FAIL", "    "))


def test_a_checkpoints_escape_sequences_do_not_drive_the_terminal(tmp_path: Path) -> None:
    """A tensor name holding CSI 2J (clear the screen) and an OSC 8 hyperlink, a folder name holding a newline
    (tests/support/hostile.py, found by --recursive): on the screen the output starts at its first line (nothing
    was cleared), the escapes are visible text, and no line starts with a CI command."""
    from tests.support import hostile
    hostile.build(tmp_path / "models")
    lines = _screen(["audit", "--recursive", str(tmp_path / "models"), "--tensors"], tmp_path)
    assert lines[0].startswith("reading 2 headers from ")  # the screen was not cleared under it
    assert any(line.startswith("st-audit report for ") for line in lines[1:6])
    screen = "".join(lines)  # the terminal wraps long lines at its width
    assert "\\x1b]8;;https://evil.example/\\x1b\\click" in screen  # shown, not made a hyperlink "click"
    assert "\\x1b[2J" in screen and "<script>document.title='pwned'</script>" in screen
    assert hostile.SHOWN_FILE in screen  # the folder's name too
    assert not any(line.lstrip().startswith(("::", "##[")) for line in lines)
    assert lines[-1].startswith(("FAIL", "    "))
