"""The HTML reports as a person sees them: headless Chromium loads the report of a dense LLM, an MoE, a VLM, a
pipeline, an adapter, a broken checkpoint, one with unread shards, a pipeline with a failing section and a diff;
any JavaScript exception or console error fails the test; the tree opens and closes, the severity filter hides
findings (a root cause stays while one of its consequences is shown), a section's fold opens from its link; a
screenshot of each (light, and one dark) is written under build/test-output/html/ (``ST_AUDIT_TEST_OUTPUT``) and
must not be blank.

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
from tests.support.browser import Page, find_chromium, png_ink
from tests.support.cli import run_cli
from tests.support.paths import ROOT
from tests.support.report_targets import TARGETS
from tests.support.resources import absent

REQUIRE = "ST_AUDIT_REQUIRE_BROWSER"
OUTPUT = Path(os.environ.get("ST_AUDIT_TEST_OUTPUT", ROOT / "build" / "test-output")) / "html"


def _chromium() -> str:
    found = find_chromium()
    if found is None:
        absent("no Chromium to load the HTML reports in (apt-get install chromium, or set ST_AUDIT_CHROMIUM)", REQUIRE)
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
    # layer 7 lost its k_norm, and the truncated last shard cut the rotary buffers of layers 32-35 (the tensors the
    # file-truncated finding names): theirs are the error bars; the lost tensor is visible in the open tree
    assert page.evaluate("[...document.querySelectorAll('svg.layers rect.bar.error')].map(r => "
                         "r.querySelector('title').textContent.split(':')[0])") == \
        ["layer 7 (decoder)", *(f"layer {i} (decoder)" for i in range(32, 36))]
    assert page.evaluate("[...document.querySelectorAll('code.tag-missing')].filter(e => e.offsetParent)"
                         ".map(e => e.textContent)") == ["model.layers.7.self_attn.k_norm.weight"]
    # filtering: only errors left
    page.evaluate("document.querySelectorAll('.sevfilter input:not([data-sev=error])').forEach(c => {c.checked = "
                  "false; c.dispatchEvent(new Event('change', {bubbles: true}));})")
    shown = page.evaluate("[...document.querySelectorAll('.finding:not(.hidden)')].map(f => f.dataset.sev)")
    assert shown and set(shown) == {"error"}


def test_pipeline_folds_and_unread_files(page: Page, reports: dict[str, tuple[Path, AnyReport]],  # noqa: F811
                                         tmp_path: Path) -> None:
    """A pipeline whose VAE is Git LFS pointers: its two sections open, the rest folded; a link from the sections
    table opens its fold. The files view shows the pointer with the tree's error mark."""
    html = tmp_path / "broken-pipeline.html"
    html.write_text(formatter("html")(reports["broken-pipeline"][1]))
    page.load(html)
    # one fold per component, its fp16 weights a fold inside it; the vae's two open (both are pointers)
    assert page.evaluate("document.querySelectorAll('details.part:not(.alternate)').length") == 3
    assert page.evaluate("document.querySelectorAll('details.part.alternate').length") == 3
    assert page.evaluate("[...document.querySelectorAll('details.part[open]')].map(d => d.id)") == ["s2", "s2v0"]
    page.evaluate("document.querySelector('a[href=\"#s0\"]').click()")
    assert page.evaluate("document.getElementById('s0').open") is True
    assert page.evaluate("[...document.querySelectorAll('tr.file.unread')].filter(r => r.offsetParent)"
                         ".map(r => r.querySelector('.dot').className)") == ["dot error", "dot error"]
    assert page.errors == [], page.errors


def test_variants_are_alternates_of_one_component(page: Page, reports: dict[str, tuple[Path, AnyReport]],  # noqa: F811
                                                  tmp_path: Path) -> None:
    """A pipeline with default + fp16 weights in every component, its fp16 unet short of a tensor: the donut has
    one slice per component (no "unet (fp16)" slice) summing to the counted parameters, the sections table names
    each component's variants with the counted one first, and the broken variant is a fold of its own, opened,
    inside the unet's, showing its finding; the healthy variants stay folded."""
    report = reports["broken-variant"][1]
    html = tmp_path / "broken-variant.html"
    html.write_text(formatter("html")(report))
    _shoot(page, html, "broken-variant")
    slices = page.evaluate("[...document.querySelector('svg.donut').querySelectorAll('path, circle:not(.empty)')]"
                           ".map(s => s.querySelector('title').textContent)")
    assert [s.split(":")[0] for s in slices] == ["text_encoder", "unet", "vae"]
    assert sum(int(s.split(": ")[1].split(" ")[0].replace(",", "")) for s in slices) == \
        report.total_counts()["parameters"]
    cells = page.evaluate("[...document.querySelectorAll('td.variants')].map(c => c.innerText.replace(/\\s+/g, ' '))")
    assert cells == ["default (counted) · fp16 PASS", "default (counted) · fp16 FAIL", "default (counted) · fp16 PASS"]
    assert page.evaluate("[...document.querySelectorAll('details.part[open]')].map(d => d.id)") == ["s1", "s1v0"]
    alternate = "document.getElementById('s1v0')"
    assert page.evaluate(f"{alternate}.querySelector('summary code').textContent") == "variant fp16"
    assert page.evaluate(f"[...{alternate}.querySelectorAll('.finding')].filter(f => f.offsetParent)"
                         ".map(f => f.querySelector('code').textContent)") == ["missing-tensor"]
    rows = page.evaluate("[...document.querySelectorAll('#s1 div.variants > table tr')].slice(1).map(r => "
                         "[...r.cells].slice(1, 3).map(c => c.textContent))")
    assert rows == [["default", "counted"], ["fp16", "alternate"]]
    # a folded alternate opens from its summary
    page.evaluate("document.querySelector('#s0v0 > summary').click()")
    assert page.evaluate("document.getElementById('s0v0').open") is True
    assert page.errors == [], page.errors


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


MERMAID = ROOT / "build" / "mermaid" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"


def test_the_markdown_summary_pie_renders_as_mermaid(page: Page, reports: dict[str, tuple[Path, AnyReport]],  # noqa: F811
                                                     tmp_path: Path) -> None:
    """The step summary's pie, rendered by mermaid itself (what GitHub runs) in the browser: one slice per
    component, no error. mermaid comes from the npm registry (.ci/run installs it; locally
    ``npm install --prefix build/mermaid mermaid@11``)."""
    import html as html_module
    import time
    if not MERMAID.is_file():
        absent(f"mermaid.js is not installed at {MERMAID} (npm install --prefix build/mermaid mermaid@11)", REQUIRE)
    md = formatter("markdown")(reports["moe"][1])
    start = md.index("```mermaid\n") + len("```mermaid\n")
    block = md[start:md.index("```", start)]
    values = [float(line.rsplit(":", 1)[1]) for line in block.splitlines() if line.strip().startswith('"')]
    # mermaid draws a slice for each share that rounds to at least 1%, and lists every one in its legend
    drawn = sum(1 for v in values if round(100 * v / sum(values)) >= 1)
    page_file = tmp_path / "mermaid.html"
    page_file.write_text(
        f'<!doctype html><html><body><pre class="mermaid">{html_module.escape(block)}</pre>'
        f'<script src="{MERMAID.as_uri()}"></script><script>mermaid.initialize({{startOnLoad: false}});'
        'mermaid.run().then(() => document.body.dataset.done = "yes", e => console.error(String(e)));'
        '</script></body></html>')
    page.load(page_file)
    deadline = time.monotonic() + 20
    while page.evaluate("document.body.dataset.done || ''") != "yes" and time.monotonic() < deadline and \
            not page.errors:
        time.sleep(0.1)
    assert page.errors == [] and page.evaluate("document.body.dataset.done") == "yes"
    assert len(values) > 2 and drawn > 2
    assert page.evaluate("document.querySelectorAll('pre.mermaid svg path.pieCircle').length") == drawn
    assert page.evaluate("document.querySelectorAll('pre.mermaid svg g.legend').length") == len(values)
    page.screenshot(OUTPUT / "mermaid-pie.png")
