"""Kinds through the Hub stand-in: a pipeline's components and an adapter whose base config is fetched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auditor import Report
from auditor.run.dispatch import audit_target
from tests.support.build import build_folder_dump as rebuild
from tests.support.hub import source
from tests.support.peft import load, make


def _files(root: Path) -> dict[str, Any]:
    return {p.relative_to(root).as_posix(): p for p in root.rglob("*") if p.is_file()}


def _strip(doc: dict[str, Any]) -> dict[str, Any]:
    doc = json.loads(json.dumps(doc))
    doc.pop("source", None)
    doc.pop("target", None)
    reports = [s["report"] for s in doc.get("sections", [])]
    for r in [doc, *reports]:  # a checkpoint's alternate variants too
        reports += [a["report"] for a in r.get("variants", {}).get("alternates", [])]
    for r in reports:
        for key in ("source", "target"):
            r.pop(key, None)
        r["files"] = [dict(f, size=None) for f in r["files"]]
    return doc


def test_pipeline_from_the_hub_matches_the_local_audit(hub: Any, tmp_path: Path) -> None:  # noqa: F811
    local = rebuild("tiny-sd-pipeline", tmp_path / "sd")
    hub.add_repo("org/tiny-sd", _files(local))
    remote = audit_target("org/tiny-sd", source=source("org/tiny-sd")).to_dict()
    here = audit_target(str(local)).to_dict()
    assert remote["verdict"] == "pass" and [s["name"] for s in remote["sections"]] == [
        s["name"] for s in here["sections"]
    ]
    assert _strip(remote) == _strip(here)
    assert remote["source"]["kind"] == "hub"


def test_adapter_base_config_fetched_from_the_hub(
    hub: Any,
    tmp_path: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = load("llama-qv")
    adapter, base = make(tmp_path, doc)
    config = dict(doc["adapter_config"], base_model_name_or_path="org/tiny-llama")
    (adapter / "adapter_config.json").write_text(json.dumps(config))
    hub.add_repo("org/tiny-llama", {"config.json": (base / "config.json").read_bytes()})
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    report = audit_target(str(adapter))
    assert isinstance(report, Report)
    summary = report.extra["adapter"]
    assert summary["base_source"] == "Hub org/tiny-llama (config.json)"
    assert summary["base_parameters"] == doc["base_parameters"] and report.verdict == "pass"
    fetched = [r.path for r in hub.requests if "resolve" in r.path]
    assert fetched and all(p.endswith("/config.json") for p in fetched)  # only config.json, never weights


def test_kind_discovery_costs_no_extra_hub_request(hub: Any, tmp_path: Path) -> None:  # noqa: F811
    from auditor.run.audit import audit
    from tests.support import build

    model = build.build_layout(tmp_path / "qwen", "Qwen__Qwen3-0.6B", shards=2)
    hub.add_repo("org/qwen-a", _files(model))  # two repos: neither audit finds the other's downloads cached
    hub.add_repo("org/qwen-b", _files(model))
    before = len(hub.requests)
    plain = audit("org/qwen-a", source=source("org/qwen-a", use_cache=False))
    direct = len(hub.requests) - before
    before = len(hub.requests)
    kinded = audit_target("org/qwen-b", source=source("org/qwen-b", use_cache=False))
    assert isinstance(kinded, Report)
    assert len(hub.requests) - before == direct
    assert kinded.extra["kind"]["kind"] == "transformers-model" and kinded.verdict == plain.verdict == "pass"


@pytest.mark.parametrize("case", ["release-flux-pipeline", "release-sharded-llm", "release-variant-only-component"])
def test_a_release_layout_from_the_hub_matches_the_local_audit(hub: Any, tmp_path: Path, case: str) -> None:  # noqa: F811
    """Sharded components, sharded text encoders and sharded variants read over HTTP ranges as from disk."""
    local = rebuild(case, tmp_path / case)
    hub.add_repo(f"org/{case}", _files(local))
    remote = audit_target(f"org/{case}", source=source(f"org/{case}")).to_dict()
    here = audit_target(str(local)).to_dict()
    assert remote["verdict"] == "pass" and _strip(remote) == _strip(here)
