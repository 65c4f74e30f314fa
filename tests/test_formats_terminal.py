"""What a person sees in a terminal, at its real width: the report is run in a tmux pane 100 columns wide and the
screen is read back (wrapped lines joined again: a line wider than the terminal is one the terminal had to wrap).
Long prose (the closed formula, findings, the verdict) is folded under a hanging indent, tables fit (columns
dropped, the least needed first, or wrapped), and nothing is lost; a pipe gets every line whole. Without tmux these tests skip with one line, except
where ``ST_AUDIT_REQUIRE_TERMINAL`` is set (CI: .ci/run installs tmux), where they fail."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.support import demo
from tests.support.build import build_folder_dump
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


def _screen(
    args: list[str],
    tmp_path: Path,
    width: int = WIDTH,
    joined: bool = False,
    options: tuple[str, ...] = ("--no-policy", "--color", "never"),
    cwd: Path = ROOT,
) -> list[str]:
    """The lines a ``width``-column terminal shows for ``st-audit ARGS`` (long enough that nothing scrolls away);
    ``joined``: a line the terminal wrapped is one line again (tmux -J), so a line wider than ``width`` is one that
    was too wide for it."""
    tmux = _tmux()
    session = f"st-audit-{uuid.uuid4().hex[:8]}"
    done = tmp_path / f"done-{session}"
    command = " ".join([sys.executable, "-m", "auditor", *args, *options])
    script = f"cd {cwd} && {command}; touch {done}; sleep 60"
    socket = ["-L", session]
    subprocess.run(
        [tmux, *socket, "new-session", "-d", "-s", session, "-x", str(width), "-y", "400", script],
        check=True,
        env={**{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}, "TERM": "xterm"},
    )  # the size is the pane's, not the one pytest was given
    try:
        deadline = time.monotonic() + 60
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert done.exists(), "st-audit did not finish in the terminal"
        screen = subprocess.run(
            [tmux, *socket, "capture-pane", "-p", *(["-J"] if joined else []), "-S", "-", "-t", session],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
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
    assert any(line.startswith("st-audit report for") for line in lines[1:6])  # folded: the name on the next line
    screen = "".join(lines)  # the terminal wraps long lines at its width
    assert "\\x1b]8;;https://evil.example/\\x1b\\click" in screen  # shown, not made a hyperlink "click"
    assert "\\x1b[2J" in screen and "<script>document.title='pwned'</script>" in screen
    assert hostile.SHOWN_FILE in screen  # the folder's name too
    assert not any(line.lstrip().startswith(("::", "##[")) for line in lines)
    assert lines[-1].startswith(("FAIL", "    "))


NARROW = 80


def _fits(lines: list[str], width: int) -> None:
    wide = [line for line in lines if len(line) > width]
    assert not wide, f"{len(wide)} lines wider than {width} columns: {wide[:3]}"


def test_the_demo_fits_80_columns(tmp_path: Path) -> None:
    """The broken demo at 80 columns: the breakdown drops its share and per-layer columns rather than wrap, the
    -128 of layer 7's k_norm still shows; the truncated shard names its damaged tensors; nothing is wider."""
    _, broken = demo.build(tmp_path / "demo")
    lines = _screen(["audit", "demo/Qwen3-8B-broken"], tmp_path, NARROW, joined=True, cwd=tmp_path)
    _fits(lines, NARROW)
    header = next(line for line in lines if line.startswith("component "))
    assert header.split() == ["component", "stack", "layers", "expected", "stored", "diff"]
    assert any(line.startswith("qk_norm ") and line.rstrip().endswith("-128") for line in lines)
    text = " ".join(" ".join(lines).split())
    assert "ERROR file-truncated: model-00005-of-00005.safetensors: file is 3,273,832,168 bytes" in text
    assert (
        "37 tensors lie past the end of the file: lm_head.weight, model.layers.0.self_attn.rotary_emb.inv_freq" in text
    )
    piped = run_cli("audit", str(broken), "--no-policy").stdout  # a pipe: the whole table
    assert next(line for line in piped.splitlines() if line.startswith("component ")).split()[-1] == "share"


def test_the_long_view_wraps_tensor_patterns(tmp_path: Path) -> None:
    """-v at 60 columns: the tensor-pattern column is wrapped onto several lines, the other columns kept."""
    _, broken = demo.build(tmp_path / "demo")
    lines = _screen(["audit", "demo/Qwen3-8B-broken", "-v"], tmp_path, 60, joined=True, cwd=tmp_path)
    _fits(lines, 60)
    start = next(i for i, line in enumerate(lines) if line.startswith("tensor pattern"))
    assert lines[start].split()[-3:] == ["count", "dtype", "shape"]
    table = "".join(line.split()[0] for line in lines[start + 2 :] if line and not line.startswith(" "))
    assert "model.layers.{0..35}.self_attn.rotary_emb.inv_freq" in table  # the wrapped pieces, joined


def test_a_healthy_pipeline_is_one_line_per_section(tmp_path: Path) -> None:
    """A healthy pipeline at 80 columns: no section in full, one line each (folded under an indent), the verdict."""
    build_folder_dump("tiny-sd-pipeline", tmp_path / "sd")
    lines = _screen(["audit", "sd"], tmp_path, NARROW, joined=True, cwd=tmp_path)
    _fits(lines, NARROW)
    assert not any(line.startswith("=== section") for line in lines)
    assert [line.split(":")[1].split()[0] for line in lines if line.startswith("  PASS: ")] == [
        "text_encoder",
        "unet",
        "vae",
    ]
    assert lines[-1].startswith(("PASS: ", "    ")) and len(lines) < 25


def test_codes_and_formula_fit_80_columns(tmp_path: Path) -> None:
    """`st-audit codes` wraps its meanings, `st-audit formula` drops columns: both within 80 columns."""
    lines = _screen(["codes"], tmp_path, NARROW, joined=True, options=())
    _fits(lines, NARROW)
    assert sum(1 for line in lines if line.startswith("file-truncated ")) == 1
    clean, _ = demo.build(tmp_path / "demo")
    lines = _screen(["formula", str(clean / "config.json")], tmp_path, NARROW, joined=True, options=())
    _fits(lines, NARROW)
    assert any(line.startswith("parameters: 8,190,735,360") for line in lines)


def test_html_to_a_terminal_is_written_to_a_file(tmp_path: Path) -> None:
    """`-f html` in a terminal writes the page to a file and says where (no 100 KB of HTML on the screen); to a pipe
    the page is stdout."""
    clean, _ = demo.build(tmp_path / "demo")
    lines = _screen(["audit", str(clean), "-f", "html"], tmp_path, NARROW, joined=True)
    said = [line for line in lines if line.startswith("HTML report written to ")]
    assert len(said) == 1 and not any("<html" in line.lower() for line in lines), lines[:5]
    page = Path(said[0].split()[4])
    try:
        assert page.read_text().lstrip().lower().startswith("<!doctype html")
    finally:
        page.unlink()
    piped = run_cli("audit", str(clean), "-f", "html", "--no-policy")
    assert piped.returncode == 0 and piped.stdout.lstrip().lower().startswith("<!doctype html")
