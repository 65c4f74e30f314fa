"""A checkpoint's text is its author's: every format shows it safely (issue 32, item 7).

One checkpoint (tests/support/hostile.py, written by the safetensors library) carries newlines, CI workflow commands,
terminal escapes (OSC 8, CSI 2J) and HTML in a tensor name, a shard's and a stray file's names, header metadata,
the index's total_size and its own folder's name; findings quote them. The table and summary (a terminal, a CI
log), the pre-commit hook, the GitHub Action's log, annotations and step summary, JUnit, Markdown (rendered by a
CommonMark renderer that passes raw HTML through, then read back), HTML (headless Chromium: the page shows the text
and runs no script of the author's), the diff: each shows the text with visible escapes and nothing a runner or a
browser would act on. JSON keeps every name exactly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.support import hostile
from tests.support.browser import Page, find_chromium
from tests.support.cli import NETGUARD, run_cli
from tests.support.resources import absent


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding the hostile checkpoint (found with --recursive: its own name is the author's too)."""
    parent = tmp_path_factory.mktemp("hostile")
    hostile.build(parent)
    return parent


def _audit(target: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = run_cli("audit", "--recursive", str(target), "--no-policy", *args)
    assert proc.returncode == 1, proc.stderr  # the extra tensor, the stray file, the index's total: it fails
    return proc


class _Elements(HTMLParser):
    """The elements of an HTML document and its text, as a browser builds them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parsed(html: str) -> _Elements:
    parser = _Elements()
    parser.feed(html)
    return parser


def test_table_and_stderr_in_a_log(target: Path) -> None:
    proc = _audit(target, "--tensors")
    hostile.inert(proc.stdout)
    hostile.inert(proc.stderr)
    out = proc.stdout
    assert hostile.SHOWN in out and hostile.SHOWN_FILE in out  # the finding's tensor, the folder, the stray file
    assert "<script>document.title='pwned'</script>" in out  # shown as text, as it is (a terminal runs no HTML)
    assert "\\x1b]8;;https://evil.example/" in out and "\\x1b[2J" in out


def test_summary_lines(target: Path) -> None:
    proc = _audit(target, "--format", "summary")
    hostile.inert(proc.stdout)
    (line,) = proc.stdout.splitlines()
    assert line.startswith("FAIL: ") and hostile.SHOWN_FILE in line


def test_precommit_hook(target: Path) -> None:
    shard = next(p for p in target.rglob("model-base.safetensors"))
    proc = run_cli("precommit", str(shard), "--no-policy")
    assert proc.returncode == 1
    hostile.inert(proc.stdout + proc.stderr)
    assert hostile.SHOWN in proc.stdout


def test_junit(target: Path) -> None:
    proc = _audit(target, "--format", "junit")
    hostile.inert(proc.stdout)  # a test report may be printed into a log too
    root = ET.fromstring(proc.stdout)
    failure = next(c.find("failure") for c in root.iter("testcase") if c.get("name") == "unexpected-tensor")
    assert failure is not None and hostile.SHOWN in (failure.get("message") or "")
    assert hostile.SHOWN in (failure.text or "")


def _markdown_html(md: str) -> _Elements:
    """``md`` rendered by a CommonMark renderer with GitHub's tables and strike-through, raw HTML let through (the
    strictest reading: GitHub sanitizes some), read back as elements and text."""
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")
    return _parsed(renderer.render(md))


def _assert_markdown_inert(md: str) -> str:
    hostile.inert(md)
    page = _markdown_html(md)
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"script", "img", "a"}, tags
    text = "".join(page.text)
    # nothing of the author's is markup: the tags, the emphasis and the link are shown as typed
    assert "<script>document.title='pwned'</script>" in text and "| *bold* [link](https://evil.example)" in text
    return text


def test_markdown(target: Path) -> None:
    text = _assert_markdown_inert(_audit(target, "--format", "markdown").stdout)
    assert hostile.SHOWN in text and hostile.SHOWN_FILE in text


def test_github_action_log_annotations_and_summary(target: Path, tmp_path: Path) -> None:
    """The Action as the runner starts it: its stdout and stderr are the job's log, where a line starting with
    ``::`` is a workflow command; the only ones are st-audit's own annotations, each one line."""
    folder = next(target.iterdir())
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs"
    env = {
        **os.environ,
        "INPUT_TARGET": str(folder),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        "PYTHONPATH": NETGUARD,
        "ST_AUDIT_POLICY": "",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "auditor.github_action"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    commands = [line for line in proc.stdout.splitlines() if line.lstrip().startswith("::")]
    assert commands and all(line.startswith("::error title=st-audit ") for line in commands)
    annotation = next(line for line in commands if "unexpected-tensor" in line)
    assert hostile.SHOWN in annotation  # the name's newline shown as \n (not %0A: one line in the annotation too)
    rest = "\n".join(line for line in proc.stdout.splitlines() if line not in commands)
    hostile.inert(rest)
    hostile.inert(proc.stderr)
    assert all(line.split("::")[1].split()[:2] == ["error", "title=st-audit"] for line in commands)
    _assert_markdown_inert(summary.read_text())
    assert outputs.read_text().startswith("verdict=fail\n")


def test_html_in_a_browser(target: Path, tmp_path: Path) -> None:
    page_file = tmp_path / "report.html"
    _audit(target, "--format", "html", "-o", str(page_file), "-q")
    html = page_file.read_text()
    elements = _parsed(html)
    assert [t for t, _ in elements.tags if t == "script"] == ["script"]  # st-audit's own filter script only
    assert not [t for t, a in elements.tags if t == "img" or any(k.startswith("on") for k in a)]
    text = "".join(elements.text)
    assert hostile.SHOWN in text and hostile.SHOWN_FILE in text
    chromium = find_chromium()
    if chromium is None:
        absent(
            "no Chromium to load the page in (apt-get install chromium, or set ST_AUDIT_CHROMIUM)",
            "ST_AUDIT_REQUIRE_BROWSER",
        )
    with Page(chromium) as page:
        page.load(page_file)
        assert page.errors == [], page.errors
        assert page.evaluate("document.title").startswith("st-audit")  # no script of the author's ran
        assert page.evaluate("document.querySelectorAll('img').length") == 0
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        shown = page.evaluate("document.body.innerText")
        assert hostile.SHOWN in shown and "<script>document.title='pwned'</script>" in shown
        # the search box over tensor names finds the author's tensor by its text, and runs none of it
        page.evaluate("document.getElementById('tsearch').focus()")
        page.call("Input.insertText", {"text": "<script>"})
        leaves = page.evaluate(
            "[...document.querySelectorAll('.tree .row.leaf')].filter(e => e.offsetParent).map(e => e.dataset.t)"
        )
        assert len(leaves) == 1 and hostile.SHOWN in leaves[0]  # as the page shows it: control characters escaped
        assert page.evaluate("document.title").startswith("st-audit")
        assert page.errors == [], page.errors


def test_json_keeps_the_exact_names(target: Path) -> None:
    proc = _audit(target, "--format", "json", "--tensors")
    doc = json.loads(proc.stdout)
    assert doc["target"].endswith(hostile.FOLDER)
    assert hostile.TENSOR in {t["name"] for t in doc["tensors"]}
    unexpected = next(f for f in doc["findings"] if f["code"] == "unexpected-tensor")
    assert unexpected["tensors"] == [hostile.TENSOR] and hostile.TENSOR in unexpected["message"]
    assert hostile.SHARD in {f["name"] for f in doc["files"]}
    assert hostile.STRAY in doc["ignored_files"]
    total = next(f for f in doc["findings"] if f["code"] == "index-total-size-mismatch")
    assert total["expected"] == hostile.TEXT


def test_diff(target: Path, tmp_path: Path) -> None:
    """``diff`` against the same model without the author's extras: the added tensor and the files, shown safely
    in the table and in Markdown; JSON names the tensor exactly."""
    from tests.support.truth import write_case

    folder = next(target.iterdir())
    plain = write_case(hostile.CASE, tmp_path / "plain")
    table = run_cli("diff", str(plain), str(folder))
    assert table.returncode == 1, table.stderr
    hostile.inert(table.stdout)
    assert hostile.SHOWN in table.stdout
    md = run_cli("diff", str(plain), str(folder), "--format", "markdown")
    assert hostile.SHOWN in _assert_markdown_inert(md.stdout)
    doc = json.loads(run_cli("diff", str(plain), str(folder), "--format", "json").stdout)
    assert doc["added"]["tensors"] == [hostile.TENSOR]


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding a checkpoint whose fp16 variant alone carries the author's tensor."""
    parent = tmp_path_factory.mktemp("hostile-variants")
    hostile.build_variants(parent)
    return parent


def test_an_alternate_variants_text_in_every_format(variants: Path) -> None:
    """The author's tensor only in the fp16 variant: the alternate's findings, printed after the counted weights'
    report (table, Markdown), in the variant's own JUnit suite and in its fold of the HTML page, are shown as safely
    as the counted weights' own; JSON keeps the name exactly."""
    table = _audit(variants)
    hostile.inert(table.stdout)
    hostile.inert(table.stderr)
    head = "variant fp16 (audited beside the default weights, not counted): FAIL"
    assert head in table.stdout and hostile.SHOWN in table.stdout.split(head)[1]

    text = _assert_markdown_inert(_audit(variants, "--format", "markdown").stdout)
    assert hostile.SHOWN in text.split("variant fp16 (an alternate of the default weights, not counted)")[1]

    junit = _audit(variants, "--format", "junit").stdout
    hostile.inert(junit)
    suites = ET.fromstring(junit).findall("testsuite")
    (alternate,) = [s for s in suites if (s.get("name") or "").endswith(" :: variant fp16")]
    assert hostile.SHOWN_FILE in (alternate.get("name") or "")  # the folder's name, in the suite's
    failure = next(c.find("failure") for c in alternate.iter("testcase") if c.get("name") == "unexpected-tensor")
    assert failure is not None and hostile.SHOWN in (failure.get("message") or "")

    html = _audit(variants, "--format", "html").stdout
    elements = _parsed(html)
    assert [t for t, _ in elements.tags if t == "script"] == ["script"]
    assert not [t for t, a in elements.tags if t == "img" or any(k.startswith("on") for k in a)]
    assert hostile.SHOWN in "".join(elements.text).split("Findings of variant fp16")[1]

    doc = json.loads(_audit(variants, "--format", "json").stdout)
    (alt,) = doc["variants"]["alternates"]
    unexpected = next(f for f in alt["report"]["findings"] if f["code"] == "unexpected-tensor")
    assert unexpected["tensors"] == [hostile.TENSOR]


def test_an_alternate_variant_in_the_lock_refusal_and_the_diff(variants: Path, tmp_path: Path) -> None:
    """``lock`` refuses the failing variant with its findings on stderr, and ``diff`` against the same model with a
    clean fp16 variant names the author's tensor as added in ``(fp16)``: both shown safely."""
    from tests.support import build
    from tests.support.truth import tensors, write_case

    folder = next(variants.iterdir())
    refused = run_cli("lock", str(folder), "--no-policy", "-o", str(tmp_path / "lock.json"))
    assert refused.returncode == 1 and not (tmp_path / "lock.json").exists()
    hostile.inert(refused.stderr)
    assert hostile.SHOWN in refused.stderr
    plain = write_case(hostile.CASE, tmp_path / "plain")
    build.write_file(plain / "model.fp16.safetensors", tensors(hostile.CASE))
    table = run_cli("diff", str(plain), str(folder))
    assert table.returncode == 1, table.stderr
    hostile.inert(table.stdout)
    assert hostile.SHOWN in table.stdout.partition(" (fp16)")[2]
    assert hostile.SHOWN in _assert_markdown_inert(
        run_cli("diff", str(plain), str(folder), "--format", "markdown").stdout
    )
    doc = json.loads(run_cli("diff", str(plain), str(folder), "--format", "json").stdout)
    assert {s["name"]: s["added"]["tensors"] for s in doc["sections"]}["(fp16)"] == [hostile.TENSOR]
