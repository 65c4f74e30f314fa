"""pytest's fixtures and hooks for the whole suite: the network guard, checkpoint builders, the stand-in Hub and
the audited targets of the HTML tests. Plain helpers live in ``tests.support``; tests import them from there."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support import build

if TYPE_CHECKING:
    from auditor.report.composite import AnyReport

_real_connect = socket.socket.connect
_LOOPBACK = ("127.", "::1", "localhost")


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else str(address)
    if self.family in (socket.AF_INET, socket.AF_INET6) and not str(host).startswith(_LOOPBACK):
        raise RuntimeError(f"test tried to reach the network ({host}); tests must only talk to 127.0.0.1")
    return _real_connect(self, address)


@pytest.fixture(autouse=True, scope="session")
def user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The user's cache (the spec claims st-audit keeps there) is one of the session's own, never the real one."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user_cache")))
        yield


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


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A started stand-in Hub (tests/support/hubstub.py); huggingface_hub's constants point at it and at a private
    HF_HOME."""
    from huggingface_hub import constants

    from tests.support.hubstub import HubStub

    with HubStub() as stub:
        home = tmp_path / "hf_home"
        monkeypatch.delenv("HF_TOKEN", raising=False)  # the user's token never reaches a test
        monkeypatch.setenv("HF_HOME", str(home))
        monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
        monkeypatch.setattr(constants, "ENDPOINT", stub.url)
        monkeypatch.setattr(
            constants, "HUGGINGFACE_CO_URL_TEMPLATE", stub.url + "/{repo_id}/resolve/{revision}/{filename}"
        )
        old_home = constants.HF_HOME
        for name, value in list(vars(constants).items()):
            if isinstance(value, str) and value.startswith(old_home):
                monkeypatch.setattr(constants, name, str(home) + value[len(old_home) :])
        yield stub


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, AnyReport]]:
    """The HTML tests' targets (tests/support/report_targets.py), built and audited once per module."""
    from tests.support.report_targets import audit_targets

    return audit_targets(tmp_path_factory.mktemp("html-targets"))
