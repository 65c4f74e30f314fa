"""The fleet's progress line, as a person watching a terminal sees it (tmux): redrawn in place while the run goes
(done / total, pass / fail / error, rate, ETA), then replaced by the summary line, which says what the exit code says;
nothing of it in a file or a pipe."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

from tests.support import build
from tests.support.cli import NETGUARD
from tests.support.hubstub import HubStub
from tests.support.paths import ROOT
from tests.support.terminal import Pane

PROGRESS = re.compile(r"^\[\s*(\d+)/12\] .*· [\d.]+/s")


def test_the_progress_line_is_redrawn_then_replaced_by_the_summary(tmp_path: Path) -> None:
    model = build.build_layout(tmp_path / "model", "Qwen__Qwen3-0.6B")
    with HubStub(latency=0.25) as hub:
        for i in range(12):
            hub.add_repo_from_dir(f"acme/m{i:02d}", model)
        env = {**hub.hf_env(tmp_path / "hf"), "PYTHONPATH": NETGUARD}
        out = tmp_path / "fleet.jsonl"
        command = (
            f"cd {shlex.quote(str(ROOT))} && {sys.executable} -m auditor audit hf://acme -j 2 --no-cache "
            f"-o {shlex.quote(str(out))} --color never; echo exit=$?"
        )
        with Pane(command, tmp_path, width=100, env=env) as pane:
            during = pane.wait_for(
                lambda lines: any(PROGRESS.match(line) and not line.startswith("[ 0") for line in lines)
            )
            line = next(line for line in during if PROGRESS.match(line))
            assert "pass" in line and len(line) <= 100
            final = [line for line in pane.finish() if line.strip()]
        assert final[-2].startswith("PASS: 12 targets: 12 pass, 0 fail (exit 0) in ")
        assert final[-1] == "exit=0"
        assert not any(PROGRESS.match(line) for line in final)  # the progress line gave way to the summary
        assert all(json.loads(line) for line in out.read_text().splitlines())  # the file: JSON lines only
