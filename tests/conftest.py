"""Shared test fixtures: a network guard, checkpoint builders and a CLI runner."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # so tests can import fixtures.build

from fixtures import build  # noqa: E402

# The real-world corpus (97 cases from public repositories) lives in the project's workspace beside the repository,
# not in it: on a bare clone its tests skip; CI sets ST_AUDIT_REQUIRE_CORPUS=1 (.ci/run), so there they fail instead
CORPUS = ROOT.parent / "shared" / "real-world"
REQUIRE_CORPUS = "ST_AUDIT_REQUIRE_CORPUS"

NETGUARD = str(Path(__file__).resolve().parent / "netguard")
_real_connect = socket.socket.connect
_LOOPBACK = ("127.", "::1", "localhost")


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else str(address)
    if self.family in (socket.AF_INET, socket.AF_INET6) and not str(host).startswith(_LOOPBACK):
        raise RuntimeError(f"test tried to reach the network ({host}); tests must only talk to 127.0.0.1")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Any connection to a non-loopback host fails; the Hub client is isolated from the user's setup."""
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    home = tmp_path_factory.mktemp("hf_home")
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # unroutable default: a test must point it somewhere
    monkeypatch.delenv("HF_TOKEN", raising=False)
    for var in ("ST_AUDIT_FORMAT", "ST_AUDIT_FAIL_ON", "ST_AUDIT_POLICY"):
        monkeypatch.delenv(var, raising=False)
    yield


@pytest.fixture
def make_checkpoint(tmp_path: Path) -> Callable[..., Path]:
    """Build a header-only checkpoint: ``make_checkpoint(tensors, config=..., shards=...)``."""
    counter = iter(range(10_000))

    def make(tensors: Sequence[build.TensorSpec], **kw: Any) -> Path:
        return build.build_checkpoint(tmp_path / f"ckpt{next(counter)}", tensors, **kw)
    return make


@pytest.fixture
def layout_checkpoint(tmp_path: Path) -> Callable[..., Path]:
    """Build a dumped transformers layout: ``layout_checkpoint("Qwen__Qwen3-8B", shards=4, drop=[...])``."""
    counter = iter(range(10_000))

    def make(name: str, **kw: Any) -> Path:
        return build.build_layout(tmp_path / f"{name}-{next(counter)}", name, **kw)
    return make


def run_cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m auditor ARGS`` as a user would; returns the completed process."""
    full_env = {**os.environ, **(env or {})}
    # the child Python imports tests/netguard/sitecustomize.py first: no connection but loopback there either
    full_env["PYTHONPATH"] = os.pathsep.join(p for p in (NETGUARD, full_env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-m", "auditor", *args], capture_output=True, text=True,
                          env=full_env, cwd=cwd, timeout=300)


def run_json(*args: str, **kw: Any) -> tuple[int, dict[str, Any]]:
    """Run ``st-audit audit ... --format json`` and parse the report."""
    proc = run_cli(*args, "--format", "json", **kw)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def absent(why: str, required_by: str) -> NoReturn:
    """A resource a test needs (the corpus, a browser, tmux) is not here: skip with one line, or fail where the
    environment variable ``required_by`` says it must be (.ci/run sets them all)."""
    if os.environ.get(required_by):
        pytest.fail(f"{why}, and {required_by} is set")
    pytest.skip(why)


def corpus_rebuilder() -> ModuleType:
    """The corpus' own rebuild.py (``rebuild(case, dest)``, ``cases()``); skips the test when the corpus is absent,
    or fails it where the corpus is required (CI)."""
    script = CORPUS / "rebuild.py"
    if not script.is_file():
        absent(f"the real-world corpus is absent ({CORPUS}: the shared folder beside the repository)", REQUIRE_CORPUS)
    spec = importlib.util.spec_from_file_location("real_world_rebuild", script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rebuild_corpus(dest: Path, cases: Sequence[str] | None = None) -> list[Path]:
    """Corpus cases (all by default) rebuilt header-only under ``dest``; skips as ``corpus_rebuilder`` does."""
    module = corpus_rebuilder()
    return [Path(module.rebuild(name, str(dest))) for name in (cases or module.cases())]
