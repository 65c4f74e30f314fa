"""Kinds of target are one class each, registered in one place (``auditor.run.dispatch.KINDS``): discovery asks them
in order and the runner asks a part's kind how to audit it. A kind written here, outside the package, is registered by
a program that then runs the command line's entry point, and the report is that kind's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.kinds.base import TargetKind
from auditor.kinds.discover import COMPONENT, FILE, Folder, Kind
from auditor.run.dispatch import KINDS, kind_of, register_kind
from tests.support import build
from tests.support.cli import NETGUARD
from tests.support.paths import ROOT

SCHEMA = json.loads((ROOT / "auditor" / "schema" / "report.schema.json").read_text())

# a kind of its own: a folder whose bundle.toy.json lists independent files, each a section; a listed file that is
# not there is a finding of the whole
TOY = """
from auditor.core.findings import finding
from auditor.kinds.base import TargetKind
from auditor.kinds.discover import FILE, Kind, Part


class Bundle(TargetKind):
    name = "toy-bundle"
    sections = True

    def recognise(self, folder):
        if "bundle.toy.json" not in folder.top:
            return None
        listed = folder.json("bundle.toy.json")["files"]
        parts = tuple(Part(n, FILE, "", (n,)) for n in listed if n in folder.top)
        return Kind(self.name, parts, f"{len(listed)} files listed", manifest={"files": listed})

    def manifest_findings(self, source, kind):
        present = source.list_files()
        return [finding("component-missing", f"bundle.toy.json lists {n} but it is not there", files=[n])
                for n in kind.manifest["files"] if n not in present]
"""
PROGRAM = """
import sys
from auditor.run.dispatch import register_kind
from toykind import Bundle
register_kind(Bundle(), before="diffusers-component")
from auditor.cli import main
sys.argv[0] = "st-audit"
main()
"""


def _run_toy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "toykind.py").write_text(TOY)
    (tmp_path / "st_audit_toy.py").write_text(PROGRAM)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([NETGUARD, str(tmp_path), str(ROOT)])}
    env.pop("ST_AUDIT_FORMAT", None)
    return subprocess.run(
        [sys.executable, str(tmp_path / "st_audit_toy.py"), *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_a_kind_registered_outside_the_package_is_discovered_and_audited(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    build.write_file(bundle / "a.safetensors", [("w", "F32", [4, 4])])
    build.write_file(bundle / "b.safetensors", [("w", "F32", [2]), ("v", "F32", [3])])
    (bundle / "bundle.toy.json").write_text(json.dumps({"files": ["a.safetensors", "b.safetensors", "c.safetensors"]}))
    proc = _run_toy(tmp_path, "audit", str(bundle), "-f", "json", "-q")
    doc = json.loads(proc.stdout)
    assert doc["kind"]["kind"] == "toy-bundle" and doc["kind"]["sections"] == ["a.safetensors", "b.safetensors"]
    assert [s["kind"] for s in doc["sections"]] == [FILE, FILE]  # each part audited by its own kind
    assert [s["report"]["totals"]["tensors"] for s in doc["sections"]] == [1, 2]
    missing = [f for f in doc["findings"] if f["code"] == "component-missing"]
    assert [f["files"] for f in missing] == [["c.safetensors"]]
    assert doc["verdict"] == "fail" and proc.returncode == 1
    # without the registration the same folder is what it was: independent files, nothing missing
    plain = subprocess.run(
        [sys.executable, "-m", "auditor", "audit", str(bundle), "-f", "json", "-q"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": NETGUARD},
        timeout=300,
    )
    assert json.loads(plain.stdout)["kind"]["kind"] == "safetensors-files"


def test_the_schema_names_every_registered_kind() -> None:
    assert sorted(SCHEMA["$defs"]["kind"]["properties"]["kind"]["enum"]) == sorted(KINDS)


def test_every_kind_is_registered_under_its_name_and_has_a_label() -> None:
    from auditor.core.conventions import KIND_LABELS

    for name, kind in KINDS.items():
        assert isinstance(kind, TargetKind) and kind.name == name and kind_of(name) is kind
    assert sorted(KINDS) == sorted(KIND_LABELS)


def test_register_kind_places_a_kind_before_another_and_replaces_one_of_its_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("auditor.run.dispatch.KINDS", dict(KINDS))
    from auditor.run import dispatch

    class Everything(TargetKind):
        name = "everything"

        def recognise(self, folder: Folder) -> Kind | None:
            return Kind(self.name, ())

    register_kind(Everything(), before=COMPONENT)
    names = list(dispatch.KINDS)
    assert names.index("everything") == names.index(COMPONENT) - 1
    register_kind(Everything())  # again: replaced, now last
    assert list(dispatch.KINDS)[-1] == "everything" and list(dispatch.KINDS).count("everything") == 1
