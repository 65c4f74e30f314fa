"""The docs say what the command line does (issue 29: 3 of 14 claims checked by hand were wrong).

Every `$ st-audit ...` transcript in README.md and docs/*.md that can run offline is run as a reader would run it:
against the demo `make demo` builds (tools/demo.py), the test suite's Hub stand-in (as the README says its Hub example
comes from), or the real-world corpus beside the repository (docs/kinds.md's examples); each line the docs show must
be printed, in that order ("..." elides lines, or part of a line). A transcript that cannot run offline is named here
with why. Every option a documented command line uses must be one the command has, and the claims that can be
checked are: where the policy is looked for, what a lock holds, offline re-audit with a 12-character commit, what
happens to variant files, the DeepSeek-V3 page's size, the Python example of docs/ci.md.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support import demo
from tests.support.cli import NETGUARD, run_cli
from tests.support.paths import ROOT
from tests.support.resources import CORPUS, rebuild_corpus

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@dataclass
class Transcript:
    """``$ COMMAND`` in a doc's code block and the lines shown after it (up to the next ``$`` or the block's end)."""

    doc: str
    line: int
    command: str
    shown: list[str]

    @property
    def argv(self) -> list[str]:
        return self.command.split("#", 1)[0].split("|", 1)[0].split()

    @property
    def grep(self) -> str | None:
        """``| grep WORD``: the lines the docs show are those holding WORD."""
        piped = self.command.split("#", 1)[0].partition("|")[2].split()
        return piped[1] if piped[:1] == ["grep"] else None

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}: $ {self.command}"


def transcripts() -> list[Transcript]:
    out: list[Transcript] = []
    for path in DOCS:
        inside = False
        current: Transcript | None = None
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if line.startswith("```"):
                inside, current = not inside, None
                continue
            if not inside:
                continue
            if line.startswith("$ "):
                current = Transcript(path.relative_to(ROOT).as_posix(), number, line[2:].strip(), [])
                out.append(current)
            elif current is not None:
                current.shown.append(line)
    return out


# transcripts that cannot run offline here, and why (a new transcript must run, or be named here)
NEEDS: dict[str, str] = {
    "st-audit diff Qwen/Qwen3-4B ./my-finetune": "a real Hub repo",
    "st-audit audit Desmason__llama-lora__lora-adapter --base meta-llama/Llama-3.2-1B": "the base model's config from "
    "the real Hub",
}
DURATION = re.compile(r"\bin [0-9.]+ s\b")


def _pattern(line: str) -> re.Pattern[str]:
    """A shown line as a pattern: "..." stands for anything, runs of spaces for any (tables), durations vary."""
    parts = [
        r"\s+".join(re.escape(word) for word in piece.split()) for piece in DURATION.sub("in N s", line).split("...")
    ]
    return re.compile(r"\s*" + ".*".join(parts) + r"\s*$")


def assert_shows(transcript: Transcript, printed: str) -> None:
    """Each line the docs show is printed, in order (a "..." line skips any number of lines)."""
    lines = [DURATION.sub("in N s", line) for line in printed.splitlines()]
    if transcript.grep:
        lines = [line for line in lines if transcript.grep in line]
    at = 0
    for want in transcript.shown:
        if not want.strip() or want.strip() == "...":
            continue
        pattern = _pattern(want)
        found = next((i for i in range(at, len(lines)) if pattern.match(lines[i])), None)
        assert found is not None, (
            f"{transcript}\nthe docs show:\n  {want}\nst-audit printed (from line {at + 1}):\n"
            + "\n".join(f"  {line}" for line in lines[at : at + 60])
        )
        at = found + 1


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A documented command as a reader runs it (``st-audit`` is ``python -m auditor``), behind the network guard."""
    assert argv[0] == "st-audit"
    full = {**os.environ, "COLUMNS": "120", **(env or {})}  # the width the README's fleet table was made at
    full.pop("ST_AUDIT_FORMAT", None)
    full["PYTHONPATH"] = os.pathsep.join(p for p in (NETGUARD, full.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-m", "auditor", *argv[1:]], capture_output=True, text=True, cwd=cwd, env=full, timeout=300
    )


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo as `make demo` builds it: tools/demo.py, run as the Makefile runs it."""
    out = tmp_path_factory.mktemp("docs") / "demo"
    subprocess.run([sys.executable, str(ROOT / "tools" / "demo.py"), str(out)], check=True, capture_output=True)
    return out


def _workspace(tmp_path: Path, shared: Path, name: str) -> Path:
    ws = tmp_path / name
    ws.mkdir()
    (ws / "demo").symlink_to(shared, target_is_directory=True)
    return ws


def _toml_block(doc: str, first: str) -> str:
    """The docs' TOML block whose first line is ``first`` (the policy they show)."""
    text = (ROOT / doc).read_text()
    start = text.index(f"```toml\n{first}\n") + len("```toml\n")
    return text[start : text.index("```", start)]


@pytest.mark.parametrize(
    "transcript",
    [t for t in transcripts() if not t.doc.startswith("docs/kinds") and not t.doc.startswith("docs/checks")],
    ids=str,
)
def test_a_transcript_shows_what_st_audit_prints(
    transcript: Transcript, shared: Path, tmp_path: Path, hub: Any
) -> None:
    """README.md, docs/ci.md, docs/fleet.md ...: run against the demo (and the Hub stand-in for the README's Hub
    example, which it says comes from it)."""
    if transcript.argv[:1] != ["st-audit"]:  # `$ cat models.txt`: the file the next command reads
        return
    if transcript.command.split("#")[0].strip() in NEEDS:
        return
    ws = _workspace(tmp_path, shared, "ws")
    env: dict[str, str] = {}
    previous = [t for t in transcripts() if t.doc == transcript.doc and t.line < transcript.line]
    for earlier in previous:  # `$ cat FILE` shows a file a later command reads; earlier commands made theirs
        if earlier.argv[:1] == ["cat"]:
            (ws / earlier.argv[1]).write_text("\n".join(earlier.shown) + "\n")
    if "--policy st-audit.toml" in transcript.command:  # "demo/Qwen3-8B-broken; the lock is of demo/Qwen3-8B"
        (ws / "model").symlink_to(shared / "Qwen3-8B-broken", target_is_directory=True)
        (ws / "st-audit.toml").write_text(_toml_block(transcript.doc, "# st-audit.toml"))
        assert (
            _run(["st-audit", "lock", "demo/Qwen3-8B", "-o", "st-audit.lock.json", "-q", "--no-policy"], ws).returncode
            == 0
        )
    if "my-model" in transcript.command or "my-finetune" in transcript.command:
        (ws / "my-model").symlink_to(shared / "Qwen3-8B", target_is_directory=True)
        if "--lock st-audit.lock.json" in transcript.command or transcript.argv[1] == "diff":
            assert _run(["st-audit", "lock", "./my-model", "-o", "st-audit.lock.json", "-q"], ws).returncode == 0
    if transcript.argv[1] == "report":  # the fleet run before it wrote the lines it reads
        maker = next(t for t in reversed(previous) if "-o fleet.jsonl" in t.command)
        _run(maker.argv, ws)
    repo = next((a for a in transcript.argv[2:] if re.fullmatch(r"[\w-]+/[\w.-]+", a) and not (ws / a).exists()), None)
    if repo is not None:  # the README: "the broken demo checkpoint served by the test suite's Hub stand-in"
        hub.add_repo(repo, {p.name: p for p in (shared / "Qwen3-8B-broken").iterdir()})
        env = hub.hf_env(tmp_path / "hf")
    proc = _run(transcript.argv, ws, env)
    assert proc.returncode in (0, 1, 3), f"{transcript}\n{proc.stderr}"
    assert_shows(transcript, proc.stderr + proc.stdout)


@pytest.mark.corpus
@pytest.mark.parametrize(
    "transcript", [t for t in transcripts() if t.doc.startswith(("docs/kinds", "docs/checks"))], ids=str
)
def test_a_corpus_transcript_shows_what_st_audit_prints(transcript: Transcript, tmp_path: Path) -> None:
    """docs/kinds.md and docs/checks.md show real releases of the corpus beside the repository (rebuilt header-only)."""
    if transcript.command.split("#")[0].strip() in NEEDS:
        return
    names = {a.split("/")[0] for a in transcript.argv[2:] if not a.startswith("-")}
    cases = sorted(n for n in names if (CORPUS / n).exists() or "__" in n)
    rebuild_corpus(tmp_path, cases)
    proc = _run(transcript.argv, tmp_path)
    assert proc.returncode in (0, 1), f"{transcript}\n{proc.stderr}"
    assert_shows(transcript, proc.stdout)


def test_every_transcript_runs_or_says_why_not() -> None:
    """No transcript is silently left out: each runs above, or needs what is named in NEEDS (and those exist)."""
    commands = {t.command.split("#")[0].strip() for t in transcripts()}
    assert set(NEEDS) <= commands, set(NEEDS) - commands
    assert all(t.argv[:1] in (["st-audit"], ["cat"]) for t in transcripts()), [
        str(t) for t in transcripts() if t.argv[:1] not in (["st-audit"], ["cat"])
    ]


# -- every option a documented command line uses exists --------------------------------------------------------------

COMMAND_LINE = re.compile(r"^(?:\$ )?(?:[A-Z_]+=\S+ )*st-audit (?P<rest>.*)$")


def documented_commands() -> list[tuple[str, str, list[str]]]:
    """(where, command, options) for each `st-audit COMMAND ...` line of a code block (usage.md's synopsis included)."""
    out = []
    for path in DOCS:
        inside = False
        command = None
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if line.startswith("```"):
                inside, command = not inside, None
                continue
            m = COMMAND_LINE.match(line.strip()) if inside else None
            if m:
                words = m["rest"].split("#", 1)[0].split()
                command = words[0] if words and not words[0].startswith("-") else ""
                text = " ".join(words)
            elif inside and command is not None and line.startswith(" " * 10):  # usage.md's continued synopsis
                text = line.split("#", 1)[0]
            else:
                continue
            options = re.findall(
                r"(?<![\w-])--[a-z][a-z-]*", text.replace("--forbid-unexplained | ", "--forbid-unexplained ")
            )
            out.append((f"{path.relative_to(ROOT).as_posix()}:{number}", command, options))
    return out


def test_every_documented_option_exists() -> None:
    helps: dict[str, str] = {}
    for where, command, options in documented_commands():
        if command not in helps:
            proc = run_cli(*([command] if command else []), "--help", env={"COLUMNS": "200"})
            assert proc.returncode == 0, f"{where}: st-audit {command}: no such command"
            helps[command] = proc.stdout
        missing = [o for o in options if o not in helps[command] and o != "--help"]
        assert not missing, f"{where}: st-audit {command} has no {', '.join(missing)}"


# -- claims ------------------------------------------------------------------------------------------------------------


def test_the_policy_is_looked_for_where_the_docs_say(shared: Path, tmp_path: Path) -> None:
    """docs/ci.md: --policy (or ST_AUDIT_POLICY), else st-audit.toml or a pyproject.toml [tool.st-audit] in the
    target's folder or one above it, then from the working directory, up to the repository root."""
    text = (ROOT / "docs" / "ci.md").read_text()
    assert "up to the repository root" in text and "the folder of each local target" in text
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    demo.clean(repo / "models" / "qwen")  # in the repository (a symlink would be found where it points)
    (repo / "pyproject.toml").write_text('[tool.st-audit]\nexpect_parameters = "1B"\n')
    deep = repo / "a" / "b"
    deep.mkdir(parents=True)

    def policy(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Any:
        proc = _run(["st-audit", "audit", *args, "-f", "json", "-q"], cwd, env)
        return json.loads(proc.stdout).get("policy")

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # found from the target's folder, named as found (it is neither in the working directory nor above it) ...
    assert policy(str(repo / "models" / "qwen"), cwd=elsewhere)["path"] == f"{repo / 'pyproject.toml'} [tool.st-audit]"
    assert policy("repo/models/qwen", cwd=tmp_path)["path"] == "repo/pyproject.toml [tool.st-audit]"  # ... or in it
    assert policy("../../models/qwen", cwd=deep)["path"] == "../../pyproject.toml [tool.st-audit]"  # relative
    (repo / "models" / "st-audit.toml").write_text('fail_on = "never"\n')  # nearer the target: wins
    assert policy("qwen", cwd=repo / "models")["path"] == "st-audit.toml"
    assert policy("models/qwen", "--no-policy", cwd=repo) is None
    outside = tmp_path / "elsewhere.toml"
    outside.write_text('fail_on = "info"\n')
    assert policy("models/qwen", cwd=repo, env={"ST_AUDIT_POLICY": str(outside)})["path"] == str(outside)
    (tmp_path / "st-audit.toml").write_text('fail_on = "info"\n')  # above the repository root: never reached
    (repo / "models" / "st-audit.toml").unlink()
    (repo / "pyproject.toml").unlink()
    assert policy("models/qwen", cwd=repo) is None


def test_a_lock_is_what_the_docs_say(shared: Path, tmp_path: Path) -> None:
    """docs/ci.md: deterministic (no timestamps or paths: the same checkpoint anywhere gives the same bytes); the
    version of st-audit that wrote it is recorded and not compared."""
    text = (ROOT / "docs" / "ci.md").read_text()
    assert "`st_audit_version`" in text and "no timestamps or paths" in text
    here, there = tmp_path / "a.json", tmp_path / "b.json"
    demo.clean(tmp_path / "copy")  # the same checkpoint elsewhere (built: a copy would write 16 GB of holes)
    assert (
        _run(["st-audit", "lock", str(shared / "Qwen3-8B"), "-o", str(here), "-q", "--no-policy"], tmp_path).returncode
        == 0
    )
    assert _run(["st-audit", "lock", "copy", "-o", str(there), "-q", "--no-policy"], tmp_path).returncode == 0
    assert here.read_bytes() == there.read_bytes()
    doc = json.loads(here.read_text())
    from auditor.core.version import __version__

    assert doc["st_audit_version"] == __version__
    doc["st_audit_version"] = "0.0.1"
    here.write_text(json.dumps(doc))
    code = _run(["st-audit", "audit", "copy", "--lock", str(here), "--no-policy"], tmp_path).returncode
    assert code == 0  # another version's lock: the checkpoint is compared, not the version


def test_offline_with_the_12_characters_st_audit_prints(hub: Any, shared: Path, tmp_path: Path) -> None:
    """docs/hub.md: a commit audited before is audited again offline from the header cache, 12 characters enough."""
    assert "12 characters are enough" in (ROOT / "docs" / "hub.md").read_text()
    hub.add_repo("org/qwen", {p.name: p for p in (shared / "Qwen3-8B").iterdir()})
    env = hub.hf_env(tmp_path / "hf")
    online = _run(["st-audit", "audit", "org/qwen", "--no-policy"], tmp_path, env)
    short = re.search(r"\(commit ([0-9a-f]{12})\)", online.stderr)
    assert online.returncode == 0 and short, online.stderr
    hub.reset_log()
    offline = _run(
        ["st-audit", "audit", f"org/qwen@{short[1]}", "--no-policy"], tmp_path, {**env, "HF_HUB_OFFLINE": "1"}
    )
    assert offline.returncode == 0, offline.stderr
    assert offline.stdout.splitlines()[-1].startswith(f"PASS: org/qwen@{short[1]} ") and hub.requests == []


def test_variant_files_are_audited_as_the_docs_say(tmp_path: Path) -> None:
    """docs/usage.md and docs/kinds.md: a transformers model's model.fp16.safetensors is audited beside the default
    weights, not counted (as a diffusers component's); with --variant fp16 it is the one counted."""
    assert "variant files are listed as not audited" not in (ROOT / "docs" / "usage.md").read_text()
    clean, _ = demo.build(tmp_path / "demo")
    folder = tmp_path / "qwen"
    folder.mkdir()
    for p in clean.iterdir():
        (folder / p.name).symlink_to(p)
    (folder / "model.fp16.safetensors").symlink_to(clean / "model-00001-of-00005.safetensors")  # a shard, not all
    proc = _run(["st-audit", "audit", "qwen", "--no-policy"], tmp_path)
    assert "variant fp16 (audited beside the default weights, not counted): FAIL" in proc.stdout
    doc = json.loads(_run(["st-audit", "audit", "qwen", "--no-policy", "-f", "json"], tmp_path).stdout)
    assert doc["variants"]["audited"] == [None, "fp16"] and doc["totals"]["tensors"] == 399
    counted = json.loads(
        _run(["st-audit", "audit", "qwen", "--variant", "fp16", "--no-policy", "-f", "json"], tmp_path).stdout
    )
    assert counted["variants"]["counted"] == "fp16" and counted["totals"]["tensors"] < 399


def test_the_deepseek_v3_page_is_the_size_the_docs_say(tmp_path: Path) -> None:
    """docs/ci.md: "DeepSeek-V3 (92k tensors) is ~N kB" for the released layout (FP8 + MTP), within a fifth."""
    from tests.support.realistic import deepseek_v3_fp8

    claim = re.search(r"DeepSeek-V3 \(92k tensors\) is ~(\d+) kB", (ROOT / "docs" / "ci.md").read_text())
    assert claim
    deepseek_v3_fp8(tmp_path / "dsv3")
    page = tmp_path / "dsv3.html"
    assert (
        _run(["st-audit", "audit", "dsv3", "-f", "html", "-o", str(page), "-q", "--no-policy"], tmp_path).returncode
        == 0
    )
    assert abs(page.stat().st_size / 1000 - int(claim[1])) <= int(claim[1]) / 5, page.stat().st_size


def test_the_python_example_of_the_ci_docs_runs(shared: Path, tmp_path: Path) -> None:
    text = (ROOT / "docs" / "ci.md").read_text()
    code = text[text.index("```python\n") + len("```python\n") :]
    code = code[: code.index("```")]
    (tmp_path / "model").symlink_to(shared / "Qwen3-8B-broken", target_is_directory=True)
    (tmp_path / "st-audit.toml").write_text('allowed_dtypes = ["BF16"]\n')
    proc = subprocess.run(
        [sys.executable, "-c", code + "\nprint(report.exit_code, report.verdict)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0 and proc.stdout.split() == ["1", "fail"], proc.stderr
