"""``st-audit report FLEET.jsonl``: the fleet at a glance, as a person reads it — the terminal table at its width,
the Markdown a CI job writes to its step summary, and the HTML page in headless Chromium (sorting, filtering, the
links to each target's own page), with checkpoint text that tries to escape every one of them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support import build
from tests.support.browser import Page, find_chromium
from tests.support.cli import run_cli
from tests.support.resources import absent

HOSTILE = "<img src=x onerror=\"document.title='pwned'\">\n::warning::injected|`x`"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fleet run of six targets: four healthy small models, one truncated, one missing; HTML pages written."""
    root = tmp_path_factory.mktemp("fleet-report")
    listed = []
    for i in range(4):
        listed.append(build.build_layout(root / f"healthy-{i}", "Qwen__Qwen3-0.6B"))
    broken = build.build_layout(root / "broken", "Qwen__Qwen3-0.6B", shards=2)
    shard = sorted(broken.glob("*.safetensors"))[-1]
    os.truncate(shard, shard.stat().st_size - 10)
    listed += [broken, root / "missing"]
    (root / "targets.txt").write_text("".join(f"{t}\n" for t in listed))
    out = root / "fleet.jsonl"
    proc = run_cli(
        "audit", "--from", str(root / "targets.txt"), "-o", str(out), "--html-dir", str(root / "pages"), "-q"
    )
    assert proc.returncode == 3, proc.stderr
    return out


def test_the_table_fits_the_terminal_and_puts_failures_first(run: Path) -> None:
    proc = run_cli("report", str(run), env={"COLUMNS": "100"})
    assert proc.returncode == 3
    lines = proc.stdout.splitlines()
    assert lines[0] == "ERROR: 6 targets: 4 pass, 1 fail, 1 could not be audited"
    rows = lines[lines.index(next(line for line in lines if line.startswith("-----"))) + 1 :]
    assert [r.split()[3] for r in rows] == ["ERROR", "FAIL", "PASS", "PASS", "PASS", "PASS"]
    assert "file-truncated" in rows[1] and rows[1].split()[0].endswith("/broken")
    assert all(len(line) <= 100 for line in lines)
    assert "by family: qwen3 5, - 1" in proc.stdout


def test_markdown_escapes_what_came_from_the_targets(run: Path, tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.jsonl"
    docs = [json.loads(line) for line in run.read_text().splitlines()]
    bad = next(d for d in docs if d.get("verdict") == "error")
    bad = {**bad, "error": HOSTILE, "target": HOSTILE, "fleet": {**bad["fleet"], "target": HOSTILE}}
    hostile.write_text(run.read_text() + json.dumps(bad) + "\n")
    text = run_cli("report", str(hostile), "-f", "markdown").stdout
    assert "<img" not in text and "&lt;img" in text
    assert not any(line.startswith("::") for line in text.splitlines())  # no workflow command in a CI log
    assert "\\n::warning" in text  # the newline shown as an escape, on the same line
    table = run_cli("report", str(hostile), env={"COLUMNS": "400"}).stdout  # a terminal, a CI log
    assert not any(line.lstrip().startswith("::") for line in table.splitlines())
    assert "\\n::warning" in table and not any(not c.isprintable() for c in table.replace("\n", ""))


def _chromium() -> str:
    found = find_chromium()
    if found is None:
        absent("no Chromium to load the fleet page in (apt-get install chromium)", "ST_AUDIT_REQUIRE_BROWSER")
    return found


def test_the_page_sorts_filters_and_links_each_target(run: Path, tmp_path: Path) -> None:
    page_file = tmp_path / "site" / "fleet.html"
    docs = [json.loads(line) for line in run.read_text().splitlines()]
    bad = next(d for d in docs if d.get("verdict") == "error")
    hostile = tmp_path / "fleet.jsonl"
    hostile.write_text(
        run.read_text() + json.dumps({**bad, "error": HOSTILE, "fleet": {**bad["fleet"], "target": "other"}}) + "\n"
    )
    assert run_cli("report", str(hostile), "-f", "html", "-o", str(page_file)).returncode == 3
    with Page(_chromium()) as page:
        page.load(page_file)
        assert page.errors == [], page.errors
        assert page.evaluate("document.title").startswith("st-audit fleet")  # the hostile name ran no script
        rows = "Array.from(document.querySelectorAll('#rows tbody tr')).filter(r => !r.hidden)"
        assert page.evaluate(f"{rows}.length") == 7
        assert page.evaluate(f"{rows}.map(r => r.dataset.verdict)") == ["error", "error", "fail"] + ["pass"] * 4
        # filter by verdict, then by text
        page.evaluate(
            "{const v = document.getElementById('verdict'); v.value = 'pass';v.dispatchEvent(new Event('change'))}"
        )
        assert page.evaluate(f"{rows}.length") == 4
        page.evaluate(
            "{const q = document.getElementById('q'); q.value = 'healthy-2';q.dispatchEvent(new Event('input'))}"
        )
        assert page.evaluate(f"{rows}.length") == 1
        assert page.evaluate("document.getElementById('shown').textContent") == "1"
        # every audited target links to its own page, which exists where the link says
        links = page.evaluate("Array.from(document.querySelectorAll('#rows a')).map(a => a.getAttribute('href'))")
        assert len(links) == 5
        assert all((page_file.parent / link).is_file() for link in links)
        # sorting by parameters: one click ascending, the next descending
        page.evaluate(
            "{const v = document.getElementById('verdict'); v.value = '';"
            "v.dispatchEvent(new Event('change'));"
            "const q = document.getElementById('q'); q.value = ''; q.dispatchEvent(new Event('input'));"
            "document.querySelectorAll('#rows th')[3].click()}"
        )
        keys = page.evaluate(
            "Array.from(document.querySelectorAll('#rows tbody tr td:nth-child(4)')).map(td => Number(td.dataset.key))"
        )
        assert keys == sorted(keys) and keys[-1] > 0
        page.evaluate("document.querySelectorAll('#rows th')[3].click()")
        keys = page.evaluate(
            "Array.from(document.querySelectorAll('#rows tbody tr td:nth-child(4)')).map(td => Number(td.dataset.key))"
        )
        assert keys == sorted(keys, reverse=True)
