"""A real terminal for the tests: a command run in a detached tmux pane of a given width, its screen read back
while it runs and when it is done (what a person sees, escape sequences and carriage returns applied)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path

from tests.support.resources import absent

REQUIRE = "ST_AUDIT_REQUIRE_TERMINAL"


def tmux() -> str:
    found = shutil.which("tmux")
    if found is None:
        absent("no tmux to show st-audit in a terminal (apt-get install tmux)", REQUIRE)
    return found


class Pane:
    """``command`` (a shell line) in a ``width`` x ``height`` pane; ``screen()`` reads it, ``wait_for`` polls it."""

    def __init__(
        self, command: str, folder: Path, *, width: int = 100, height: int = 50, env: Mapping[str, str] | None = None
    ) -> None:
        self.done = folder / f"done-{uuid.uuid4().hex[:8]}"
        self.session = f"st-audit-{uuid.uuid4().hex[:8]}"
        self._tmux = [tmux(), "-L", self.session]
        script = f"{command}; touch {self.done}; sleep 120"
        subprocess.run(
            [*self._tmux, "new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height), script],
            check=True,
            env={**(env if env is not None else os.environ), "TERM": "xterm"},
        )

    def screen(self) -> list[str]:
        out = subprocess.run(
            [*self._tmux, "capture-pane", "-p", "-t", self.session], check=True, capture_output=True, text=True
        ).stdout
        return out.rstrip("\n").splitlines()

    def wait_for(self, seen: Callable[[list[str]], bool], timeout: float = 60) -> list[str]:
        """The screen as soon as ``seen`` holds of it (fails after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while True:
            lines = self.screen()
            if seen(lines):
                return lines
            assert time.monotonic() < deadline, f"not seen on the screen in {timeout} s: {lines[-5:]}"
            time.sleep(0.05)

    def finish(self, timeout: float = 120) -> list[str]:
        """The screen once the command has ended."""
        deadline = time.monotonic() + timeout
        while not self.done.exists():
            assert time.monotonic() < deadline, "the command did not finish in the terminal"
            time.sleep(0.1)
        return self.screen()

    def close(self) -> None:
        subprocess.run([*self._tmux, "kill-server"], capture_output=True)

    def __enter__(self) -> Pane:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
