"""The HTML reports as a person sees them: headless Chromium loads the report of a dense LLM, an MoE, a VLM, a
pipeline, an adapter, a broken checkpoint and a diff; any JavaScript exception or console error fails the test;
the tree opens and closes, the severity filter hides findings; a screenshot of each (light, and one dark) is
written under build/test-output/html/ (``ST_AUDIT_TEST_OUTPUT``) and must not be blank.

Without a browser these tests skip with one line, except where ``ST_AUDIT_REQUIRE_BROWSER`` is set (CI: .ci/run
installs Debian's chromium), where they fail.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from auditor.formats import formatter
from auditor.report.composite import AnyReport
from tests.browser import Page, find_chromium, png_ink
from tests.conftest import ROOT, run_cli
from tests.test_html_report import TARGETS, reports  # noqa: F401 (the module-scoped fixture)

REQUIRE = "ST_AUDIT_REQUIRE_BROWSER"
OUTPUT = Path(os.environ.get("ST_AUDIT_TEST_OUTPUT", ROOT / "build" / "test-output")) / "html"


def _chromium() -> str:
    found = find_chromium()
    if found is None:
        why = "no Chromium to load the HTML reports in (apt-get install chromium, or set ST_AUDIT_CHROMIUM)"
        if os.environ.get(REQUIRE):
            pytest.fail(f"{why}, and {REQUIRE} is set")
        pytest.skip(why)
    return found


@pytest.fixture(scope="module")
def page() -> Iterator[Page]:
    with Page(_chromium()) as p:
        yield p


def _shoot(page: Page, html: Path, name: str) -> None:
    """Load, no script error, a non-blank screenshot of the whole page."""
    page.load(html)
    assert page.errors == [], page.errors
    assert page.evaluate("document.querySelectorAll('svg').length") > 0 or "diff" in name
    data = page.screenshot(OUTPUT / f"{name}.png")
    width, height, ink = png_ink(data)
    assert width == 1280 and height > 600, (width, height)
    assert ink > 0.005, f"{name}.png looks blank (ink {ink:.4f})"


@pytest.mark.parametrize("name", list(TARGETS))
def test_report_renders(page: Page, reports: dict[str, tuple[Path, AnyReport]], name: str,  # noqa: F811
                        tmp_path: Path) -> None:
    html = tmp_path / f"{name}.html"
    html.write_text(formatter("html")(reports[name][1]))
    _shoot(page, html, name)
    # the trees (one per section): collapse all closes every module, expand all opens them again
    nodes = page.evaluate("document.querySelectorAll('details.node').length")
    assert nodes > 0
    page.evaluate("document.querySelectorAll('button[data-tree=none]').forEach(b => b.click())")
    assert page.evaluate("document.querySelectorAll('details.node[open]').length") == 0
    page.evaluate("document.querySelectorAll('button[data-tree=all]').forEach(b => b.click())")
    assert page.evaluate("document.querySelectorAll('details.node[open]').length") == nodes
    # the severity filter: unticking every severity hides every finding
    findings = page.evaluate("document.querySelectorAll('.finding').length")
    if findings:
        page.evaluate("document.querySelectorAll('.sevfilter input').forEach(c => {c.checked = false; "
                      "c.dispatchEvent(new Event('change', {bubbles: true}));})")
        assert page.evaluate("document.querySelectorAll('.finding:not(.hidden)').length") == 0
    assert page.errors == [], page.errors


def test_broken_report_shows_what_is_wrong(page: Page, reports: dict[str, tuple[Path, AnyReport]],  # noqa: F811
                                           tmp_path: Path) -> None:
    html = tmp_path / "broken.html"
    html.write_text(formatter("html")(reports["broken"][1]))
    page.load(html)
    assert page.evaluate("document.querySelector('.verdict').textContent") == "FAIL"
    # layer 7 lost its k_norm: its bar is the error one; the lost tensor is visible in the open tree
    assert page.evaluate("[...document.querySelectorAll('svg.layers rect.bar.error')].map(r => "
                         "r.querySelector('title').textContent.split(':')[0])") == ["layer 7 (decoder)"]
    assert page.evaluate("[...document.querySelectorAll('code.tag-missing')].filter(e => e.offsetParent)"
                         ".map(e => e.textContent)") == ["model.layers.7.self_attn.k_norm.weight"]
    # filtering: only errors left
    page.evaluate("document.querySelectorAll('.sevfilter input:not([data-sev=error])').forEach(c => {c.checked = "
                  "false; c.dispatchEvent(new Event('change', {bubbles: true}));})")
    shown = page.evaluate("[...document.querySelectorAll('.finding:not(.hidden)')].map(f => f.dataset.sev)")
    assert shown and set(shown) == {"error"}


def test_dark_report_and_diff(reports: dict[str, tuple[Path, AnyReport]], tmp_path: Path) -> None:  # noqa: F811
    dense, moe = reports["dense"][0], reports["broken"][0]
    html = tmp_path / "dense-dark.html"
    html.write_text(formatter("html")(reports["dense"][1]))
    with Page(_chromium(), dark=True) as dark:
        dark.load(html)
        assert dark.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(13, 17, 23)"
        _shoot(dark, html, "dense-dark")
    diff = tmp_path / "diff.html"
    proc = run_cli("diff", str(dense), str(moe), "-f", "html", "-o", str(diff))
    assert proc.returncode == 1, proc.stderr
    with Page(_chromium()) as light:
        _shoot(light, diff, "diff")
        assert light.evaluate("document.querySelectorAll('.drow.added, .drow.removed, .drow.changed').length") > 0
