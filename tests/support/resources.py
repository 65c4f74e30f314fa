"""Resources a test may find absent (the real-world corpus, a browser, tmux): skip with one line, or fail where
CI requires them (.ci/run sets the ``ST_AUDIT_REQUIRE_*`` variables)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

from .paths import ROOT

# The real-world corpus (97 cases from public repositories) lives in the project's workspace beside the repository,
# not in it: on a bare clone its tests skip; CI sets ST_AUDIT_REQUIRE_CORPUS=1 (.ci/run), so there they fail instead
CORPUS = ROOT.parent / "shared" / "real-world"
REQUIRE_CORPUS = "ST_AUDIT_REQUIRE_CORPUS"


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
