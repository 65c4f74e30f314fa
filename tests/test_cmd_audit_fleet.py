"""``st-audit audit`` over a fleet, as a user runs it: JSON lines streamed per target (each the target's full report,
valid against the schema, equal to what ``st-audit audit TARGET -f json`` says), a summary line whose verdict is the
exit code's, the same lines from one process and from one process per core, ``--resume`` after Ctrl-C (no target
lost, none twice, a line cut short redone), and the errors a user can make."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from tests.support import build
from tests.support.cli import NETGUARD, run_cli
from tests.support.hubstub import HubStub
from tests.support.paths import ROOT

SCHEMAS = ROOT / "auditor" / "schema"


def _validator() -> Draft202012Validator:
    report = json.loads((SCHEMAS / "report.schema.json").read_text())
    fleet = json.loads((SCHEMAS / "fleet.schema.json").read_text())
    registry = Registry().with_resources(
        [(report["$id"], Resource.from_contents(report)), (fleet["$id"], Resource.from_contents(fleet))]
    )
    return Draft202012Validator(fleet, registry=registry)


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def _without_timings(doc: dict[str, Any]) -> dict[str, Any]:
    """A line as two runs of the same audit agree on it: the seconds each took and the Hub traffic aside."""
    doc = {k: v for k, v in doc.items() if k != "fleet"}
    if isinstance(doc.get("source"), dict):
        doc["source"] = {k: v for k, v in doc["source"].items() if k != "http"}
    return doc


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A healthy model, a truncated copy, a pipeline, and a list of them with a path that does not exist."""
    root = tmp_path_factory.mktemp("fleet")
    good = build.build_layout(root / "good", "Qwen__Qwen3-0.6B", shards=2)
    broken = build.build_layout(root / "broken", "Qwen__Qwen3-0.6B", shards=2)
    last = sorted(broken.glob("*.safetensors"))[-1]
    os.truncate(last, last.stat().st_size - 1000)
    pipeline = build.build_folder_dump("tiny-sd-pipeline", root / "pipeline")
    listed = root / "targets.txt"
    listed.write_text(f"{good}\n{broken}\n{pipeline}\n{root / 'missing'}\n")
    return {"good": good, "broken": broken, "pipeline": pipeline, "missing": root / "missing", "list": listed}


def test_each_target_is_one_valid_line_equal_to_its_own_audit(fleet: dict[str, Path]) -> None:
    proc = run_cli("audit", "--from", str(fleet["list"]), "-f", "jsonl")
    docs = _lines(proc.stdout)
    validator = _validator()
    for doc in docs:
        errors = sorted(validator.iter_errors(doc), key=str)
        assert not errors, (doc.get("target"), [e.message[:200] for e in errors[:3]])
    *targets, summary = docs
    assert summary["summary"] == {
        **summary["summary"],
        "targets": 4,
        "audited": 4,
        "pass": 2,
        "fail": 1,
        "error": 1,
        "verdict": "error",
        "exit_code": 3,
    }
    assert proc.returncode == 3
    by_target = {d["fleet"]["target"]: d for d in targets}
    assert set(by_target) == {str(fleet[k]) for k in ("good", "broken", "pipeline", "missing")}
    for name in ("good", "broken", "pipeline"):
        alone = run_cli("audit", str(fleet[name]), "-f", "json")
        assert _without_timings(by_target[str(fleet[name])]) == _without_timings(json.loads(alone.stdout))
        assert by_target[str(fleet[name])]["exit_code"] == alone.returncode
    missing = by_target[str(fleet["missing"])]
    assert missing["verdict"] == "error" and missing["exit_code"] == 3 and "no such file" in missing["error"]
    assert "ERROR: 4 targets: 2 pass, 1 fail, 1 could not be audited (exit 3)" in proc.stderr


def test_one_process_and_one_process_per_core_give_the_same_lines(fleet: dict[str, Path]) -> None:
    threads = run_cli("audit", "--from", str(fleet["list"]), "-f", "jsonl", "-j", "1")
    processes = run_cli("audit", "--from", str(fleet["list"]), "-f", "jsonl", "-j", "4")
    assert threads.returncode == processes.returncode == 3

    def keyed(text: str) -> dict[str, dict[str, Any]]:
        return {d["fleet"]["target"]: _without_timings(d) for d in _lines(text) if "fleet" in d}

    assert keyed(threads.stdout) == keyed(processes.stdout)


def test_summary_lines_stream_and_end_with_the_exit_codes_verdict(fleet: dict[str, Path]) -> None:
    proc = run_cli("audit", str(fleet["good"]), str(fleet["broken"]), "--from", "/dev/null", "-f", "summary")
    lines = proc.stdout.splitlines()
    assert sorted(line.split(":")[0] for line in lines) == ["FAIL", "PASS"]
    assert proc.returncode == 1 and "FAIL: 2 targets: 1 pass, 1 fail (exit 1)" in proc.stderr


def test_summary_lines_show_the_targets_text_safely(tmp_path: Path) -> None:
    """A fleet's streamed summary lines go to a terminal or a CI log: a hostile checkpoint's folder name and a target
    that could not be audited (its error quoting the name) show their newlines, escapes and workflow commands as
    visible escapes, one line each (tests/support/hostile.py)."""
    from tests.support import hostile

    folder = hostile.build(tmp_path)
    missing = tmp_path / f"missing-{hostile.FILE_TEXT}"
    proc = run_cli("audit", str(folder), str(missing), "--from", "/dev/null", "-f", "summary", "--no-policy")
    hostile.inert(proc.stdout)
    hostile.inert(proc.stderr)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 3 and sorted(line.split(":")[0] for line in lines) == ["ERROR", "FAIL"]
    assert all(hostile.SHOWN_FILE in line for line in lines)
    assert any(line.startswith("ERROR: ") and "no such file or directory" in line for line in lines)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["-f", "table"], "a fleet run streams one line per target"),
        (["--resume"], "--resume needs -o FILE"),
        (["--ray-address", "127.0.0.1:1"], "--ray-address applies to --engine ray"),
        (["--engine", "spark"], "--engine 'spark'"),
        (["--limit", "3"], "--hub-filter and --limit apply to --hub-author"),
    ],
)
def test_fleet_usage_errors_are_one_line(fleet: dict[str, Path], args: list[str], said: str) -> None:
    proc = run_cli("audit", "--from", str(fleet["list"]), *args)
    assert proc.returncode == 2, proc.stderr
    assert said in proc.stderr and "Traceback" not in proc.stderr


def test_html_pages_per_target_and_the_fleet_page(fleet: dict[str, Path], tmp_path: Path) -> None:
    out, pages = tmp_path / "run" / "fleet.jsonl", tmp_path / "run" / "pages"
    proc = run_cli("audit", "--from", str(fleet["list"]), "-o", str(out), "--html-dir", str(pages), "-q")
    assert proc.returncode == 3 and proc.stderr == ""
    written = sorted(p.name for p in pages.iterdir())
    assert len(written) == 3 and all(n.endswith(".html") for n in written)
    table = run_cli("report", str(out))
    assert table.returncode == 3
    lines = table.stdout.splitlines()
    rows = lines[lines.index(next(line for line in lines if line.startswith("-----"))) + 1 :]
    assert [r.split()[3] for r in rows] == ["ERROR", "FAIL", "PASS", "PASS"]  # failing first
    assert "ERROR: 4 targets: 2 pass, 1 fail, 1 could not be audited" in table.stdout
    page = tmp_path / "site" / "fleet.html"
    assert run_cli("report", str(out), "-f", "html", "-o", str(page)).returncode == 3
    html = page.read_text()
    for name in written:
        assert f'href="../run/pages/{name}"' in html  # relative to where the page is


# -- resume --------------------------------------------------------------------------------------------------


def _slow_hub(tmp_path: Path, repos: int) -> tuple[HubStub, dict[str, str]]:
    model = build.build_layout(tmp_path / "model", "Qwen__Qwen3-0.6B", shards=2)
    hub = HubStub(latency=0.15).start()
    for i in range(repos):
        hub.add_repo_from_dir(f"acme/m{i:02d}", model)
    env = {**hub.hf_env(tmp_path / "hf"), "PYTHONPATH": NETGUARD}
    return hub, env


def test_resume_after_ctrl_c_loses_no_target_and_repeats_none(tmp_path: Path) -> None:
    hub, env = _slow_hub(tmp_path, 12)
    out = tmp_path / "fleet.jsonl"
    args = [sys.executable, "-m", "auditor", "audit", "hf://acme", "-o", str(out), "-j", "2", "--no-cache"]
    try:
        run = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 3):
            time.sleep(0.05)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
        assert run.returncode == 130, err
        first = _lines(out.read_text())
        assert 3 <= len(first) < 12 and all("summary" not in d for d in first)  # interrupted: no summary line
        out.write_text(out.read_text() + '{"schema_version":1,"target":"hf://acme/m')  # a line a crash cut short
        hub.reset_log()
        again = subprocess.run([*args, "--resume"], env=env, capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
        docs = _lines(out.read_text())
        targets = [d["fleet"]["target"] for d in docs if "fleet" in d]
        assert sorted(targets) == [f"hf://acme/m{i:02d}" for i in range(12)]  # each once
        assert docs[: len(first)] == first  # the finished lines kept as they were
        summary = docs[-1]["summary"]
        assert summary["already_reported"] == len(first) and summary["audited"] == 12 - len(first)
        assert summary["pass"] == 12 and summary["exit_code"] == 0
        # a reported target costs one listing request (its commit), never its headers
        listed = [r.path for r in hub.requests if r.path.startswith("/api/models/acme/")]
        resolved = [r.path for r in hub.requests if "/resolve/" in r.path]
        assert len(listed) == 12 and len(resolved) == (12 - len(first)) * 4
    finally:
        hub.stop()


def test_resume_audits_again_a_local_target_that_changed(fleet: dict[str, Path], tmp_path: Path) -> None:
    model = build.build_layout(tmp_path / "a", "Qwen__Qwen3-0.6B")
    other = build.build_layout(tmp_path / "b", "Qwen__Qwen3-0.6B")
    out = tmp_path / "fleet.jsonl"
    assert run_cli("audit", str(model), str(other), "-o", str(out), "-f", "jsonl").returncode == 0
    config = model / "config.json"
    config.write_text(config.read_text())  # same bytes, a new modification time
    os.utime(config, ns=(time.time_ns(), time.time_ns() + 10**9))
    proc = run_cli("audit", str(model), str(other), "-o", str(out), "-f", "jsonl", "--resume")
    assert proc.returncode == 0
    targets = [d["fleet"]["target"] for d in _lines(out.read_text()) if "fleet" in d]
    assert sorted(targets) == sorted([str(model), str(other), str(model)])
    assert _lines(out.read_text())[-1]["summary"]["already_reported"] == 1


def test_a_few_hundred_repos_are_audited_many_at_a_time(tmp_path: Path) -> None:
    """The stand-in Hub with 240 repos and latency on every request: every repo once, all passing, and the server
    sees many requests at once (one at a time, this list would take 240 x 3 round trips)."""
    model = build.build_layout(tmp_path / "model", "Qwen__Qwen3-0.6B")
    with HubStub(latency=0.02, page_size=100) as hub:
        for i in range(240):
            hub.add_repo_from_dir(f"acme/m{i:03d}", model)
        env = {**hub.hf_env(tmp_path / "hf"), "PYTHONPATH": NETGUARD}
        proc = subprocess.run(
            [sys.executable, "-m", "auditor", "audit", "hf://acme", "-j", "16", "--no-cache"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        docs = _lines(proc.stdout)
        assert sorted(d["fleet"]["target"] for d in docs[:-1]) == [f"hf://acme/m{i:03d}" for i in range(240)]
        assert docs[-1]["summary"]["pass"] == 240
        assert 8 <= hub.peak_in_flight <= 16 * 3  # each of 16 targets in flight has at most its index, config, header
        commits = {d["source"]["commit"] for d in docs[:-1]}
        assert len(commits) == 240  # each line names the commit it audited


def test_a_fleet_under_an_object_store_prefix_resumes_by_etag(tmp_path: Path) -> None:
    """Every model folder under an S3 prefix (moto's server through the real s3fs client), then ``--resume``: the
    same objects are not audited again, a rewritten one is."""
    from tests.support.s3 import S3Stub

    tiny = build.build_layout(tmp_path / "tiny", "tiny-qwen3_moe", shards=2)
    with S3Stub() as s3:
        s3.bucket("ckpts")
        for step in ("step-100", "step-200", "step-300"):
            s3.put_folder("ckpts", f"run-7/{step}/", tiny)
        env = {**s3.env(), "PYTHONPATH": NETGUARD}
        out = tmp_path / "fleet.jsonl"
        args = [
            sys.executable,
            "-m",
            "auditor",
            "audit",
            "s3://ckpts/run-7",
            "--recursive",
            "-o",
            str(out),
            "-f",
            "jsonl",
        ]
        first = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
        assert first.returncode == 0, first.stderr
        docs = _lines(out.read_text())
        assert sorted(d["fleet"]["target"] for d in docs[:-1]) == [f"s3://ckpts/run-7/step-{n}00" for n in (1, 2, 3)]
        assert all(d["fleet"]["fingerprint"].startswith("files:") for d in docs[:-1])
        config = json.loads((tiny / "config.json").read_text())
        s3.put("ckpts", "run-7/step-200/config.json", json.dumps({**config, "_name_or_path": "changed"}).encode())
        s3.reset_log()
        again = subprocess.run([*args, "--resume"], env=env, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr
        summary = _lines(out.read_text())[-1]["summary"]
        assert summary["already_reported"] == 2 and summary["audited"] == 1
        reread = {r.path.split("/")[3] for r in s3.requests if r.method == "GET" and r.range}
        assert reread == {"step-200"}  # headers read again only where an object changed


def test_several_targets_on_the_command_line_are_audited_at_once_and_reported_in_order(tmp_path: Path) -> None:
    model = build.build_layout(tmp_path / "model", "Qwen__Qwen3-0.6B")
    with HubStub(latency=0.05) as hub:
        for i in range(12):
            hub.add_repo_from_dir(f"acme/m{i:02d}", model)
        env = {**hub.hf_env(tmp_path / "hf"), "PYTHONPATH": NETGUARD}
        targets = [f"acme/m{i:02d}" for i in reversed(range(12))]
        proc = subprocess.run(
            [sys.executable, "-m", "auditor", "audit", *targets, "-f", "summary", "--no-cache"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        assert [line.split()[1] for line in lines[:-1]] == targets  # one line each, in the order given
        assert hub.peak_in_flight >= 6  # not one repo at a time
        one = subprocess.run(
            [sys.executable, "-m", "auditor", "audit", *targets, "-f", "json", "--no-cache", "-j", "1"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        many = subprocess.run(
            [sys.executable, "-m", "auditor", "audit", *targets, "-f", "json", "--no-cache"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

        def comparable(text: str) -> list[dict[str, Any]]:
            return [_without_timings(s["report"]) for s in json.loads(text)["sections"]]

        assert comparable(one.stdout) == comparable(many.stdout)
