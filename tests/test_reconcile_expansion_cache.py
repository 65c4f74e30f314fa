"""A process that audits many checkpoints of one architecture and config (a fleet) evaluates their formula once:
the same reports as fresh expansions, whatever was audited before, and a different config is never served another's
expected tensors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import auditor
from auditor.reconcile import engine
from tests.support import build


def _json(path: Path) -> str:
    doc = auditor.audit(str(path)).to_dict()
    doc.pop("source", None)
    doc.pop("target", None)
    return json.dumps(doc, sort_keys=True)


def test_expansions_are_reused_only_for_the_same_spec_and_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    healthy = build.build_layout(tmp_path / "a", "Qwen__Qwen3-0.6B")
    broken = build.build_layout(tmp_path / "b", "Qwen__Qwen3-0.6B")
    config = json.loads((broken / "config.json").read_text())
    (broken / "config.json").write_text(json.dumps({**config, "num_hidden_layers": config["num_hidden_layers"] + 1}))
    engine._EXPANDED.clear()
    fresh = {name: _json(path) for name, path in (("healthy", healthy), ("broken", broken))}
    calls: list[str] = []
    real = engine.expand
    monkeypatch.setattr(
        engine,
        "expand",  # append returns None: the lambda records, then expands
        lambda spec, cfg, **kw: (
            calls.append(spec.file)  # type: ignore[func-returns-value]
            or real(spec, cfg, **kw)
        ),
    )
    for _ in range(3):
        assert _json(healthy) == fresh["healthy"]
        assert _json(broken) == fresh["broken"]  # one more layer: its own expansion, its own findings
    assert calls == []  # both were kept from the first round
    engine._EXPANDED.clear()
    assert _json(broken) == fresh["broken"] and len(calls) == 1
    assert '"missing-tensor"' in fresh["broken"] and '"missing-tensor"' not in fresh["healthy"]
