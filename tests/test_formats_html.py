"""The HTML report's structure (issue 23): the module tree adds up to the stored totals exactly, every tensor group
is one leaf, missing tensors sit where they should have been, findings mark their path, the tensors of a file that
could not be read are "not checked" (not missing); the files view lists every file of the JSON report with the
severity of the findings naming it; a pipeline's sections fold, open when they fail; the page is self-contained
and a DeepSeek-V3-sized report stays small. The markdown summary's mermaid pie; ``diff -f html``; ``--open``.
The same targets are loaded in a real browser by tests/test_formats_html_browser.py."""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path

import pytest

import auditor
from auditor.formats import formatter
from auditor.formats.markdown import mermaid_pie
from auditor.formats.tree import Node, module_tree
from auditor.report.composite import AnyReport
from auditor.report.single import Report
from tests.support import gptq
from tests.support.cli import run_cli
from tests.support.realistic import deepseek_v3_fp8
from tests.support.report_targets import BROKEN_DROP, GPTQ_DROP, GPTQ_LAYOUT, TARGETS
from tests.support.truth import CASES, tensors, write_case


def _singles(report: AnyReport) -> list[Report]:
    if isinstance(report, Report):
        return [report]
    return [r for s in report.sections for r in _singles(s.report)]


def _check_sums(node: Node) -> None:
    if node.is_leaf:
        return
    stored = [c for c in node.children.values() if c.tensors]
    assert sum(c.parameters for c in stored) == node.parameters, node.path
    assert sum(c.bytes for c in stored) == node.bytes, node.path
    assert sum(c.tensors for c in stored) == node.tensors, node.path
    for child in node.children.values():
        _check_sums(child)


@pytest.mark.parametrize("name", list(TARGETS))
def test_tree_adds_up_to_the_json_report(reports: dict[str, tuple[Path, AnyReport]], name: str) -> None:
    for report in _singles(reports[name][1]):
        doc = report.to_dict()
        root = module_tree(report)
        totals = doc["totals"]
        assert (root.tensors, root.bytes) == (totals["tensors"], totals["bytes"])
        assert root.parameters + report.reconciliation.packed_extra == totals["parameters"]
        _check_sums(root)
        # every group is in exactly one leaf (a grid split around its holes: its pieces in one), with the JSON
        # groups' numbers
        leaves = Counter((leaf.template, leaf.dtype, leaf.shape) for leaf in root.leaves() if leaf.dtype is not None)
        assert set(leaves.values()) <= {1}  # (a section with no readable file has none)
        sums: dict[tuple[object, ...], list[int]] = {}
        for g, d in zip(report.groups, doc["groups"]):
            row = sums.setdefault((g.template, g.dtype, g.shape), [0, 0, 0])
            for i, key in enumerate(("count", "parameters", "bytes")):
                row[i] += d[key]
        assert {
            (leaf.template, leaf.dtype, leaf.shape): [leaf.tensors, leaf.parameters, leaf.bytes]
            for leaf in root.leaves()
            if leaf.dtype is not None
        } == sums


def test_layer_chart_keys_only_the_looks_it_has(reports: dict[str, tuple[Path, AnyReport]]) -> None:
    """The per-layer chart says what hatched / dashed / red bars mean only where it draws them."""

    def keys(name: str) -> set[str]:
        page = formatter("html")(reports[name][1])
        return set(re.findall(r"(hatched|dashed|amber|red|grey): ", page.split(">Per layer</h2>", 1)[1]))

    assert keys("dense") == set()
    assert "red" in keys("broken") and "dashed" not in keys("broken")
    assert "dashed" in keys("unread")


def _layer_bars(page: str) -> dict[int, tuple[str, int, int | None]]:
    """The first per-layer chart's bars: layer -> (status, its value, the formula's line or None)."""
    chart = page.split(">Per layer</h2>", 1)[1].split("</svg>", 1)[0]
    return {
        int(m["i"]): (
            m["status"],
            int(m["value"].replace(",", "")),
            int(m["expected"].replace(",", "")) if m["expected"] else None,
        )
        for m in re.finditer(
            r'class="bar (?P<status>\w+)"[^>]*><title>layer (?P<i>\d+) [^:]*: (?:stored|encoded) '
            r"(?P<value>[\d,]+)(?:, expected (?P<expected>[\d,]+))?;",
            chart,
        )
    }


def test_packed_layers_are_compared_with_their_formula(
    reports: dict[str, tuple[Path, AnyReport]], tmp_path: Path
) -> None:
    """A GPTQ export stores 8 4-bit values per int32 ``qweight``: each layer's bar counts the parameters its
    packed weights encode (scales, zeros and g_idx are not parameters), so a healthy export matches its formula
    line in every layer and a lost or misshapen ``qweight`` flags exactly its layer."""
    healthy = reports["gptq"][1]
    assert isinstance(healthy, Report) and healthy.reconciliation.packed_extra > 0
    page = formatter("html")(healthy)
    bars = _layer_bars(page)
    assert sorted(bars) == list(range(32)) and len(set(bars.values())) == 1
    [(status, value, expected)] = set(bars.values())
    assert status == "ok" and value == expected == 218_112_000  # Llama-3-8B's decoder layer, every one compared
    assert "Every layer holds what its formula expects." in page and "packed weights: the values they encode" in page
    assert ": encoded 218,112,000" in page  # a bar's hover text says which count it is
    broken = reports["gptq-broken"][1]
    layer = int(GPTQ_DROP.split(".")[2])
    bars = _layer_bars(formatter("html")(broken))
    assert {i for i, (status, _, _) in bars.items() if status != "ok"} == {layer}
    status, value, expected = bars[layer]
    assert status == "error" and expected is not None and value < expected
    assert all(v == e for i, (_, v, e) in bars.items() if i != layer)
    assert f"1 of 32 layers differs: layer <b>{layer}</b>" in formatter("html")(broken)
    # a qweight one row short: it encodes 8 x 4096 values too few, its layer alone is red
    bad = "model.layers.9.self_attn.o_proj.qweight"  # [4096 // 32 * 4, 4096] = [512, 4096]
    misshapen = auditor.audit(
        str(gptq.gptq_checkpoint(tmp_path / "bad", GPTQ_LAYOUT, replace={bad: (bad, "I32", [511, 4096])}))
    )
    bars = _layer_bars(formatter("html")(misshapen))
    assert {i: s for i, (s, _, _) in bars.items() if s != "ok"} == {9: "error"}
    assert bars[9][1] == bars[9][2] - 8 * 4096  # type: ignore[operator]


def test_missing_tensor_sits_where_it_belongs(reports: dict[str, tuple[Path, AnyReport]]) -> None:
    report = reports["broken"][1]
    assert isinstance(report, Report)
    root = module_tree(report)
    layers = root.children[("model",)].children[("layers.{}",)]
    assert layers.repeat == 36 and layers.severity == "error" and layers.missing == 1
    k_norm = layers.children[("self_attn",)].children[("k_norm",)]
    [leaf] = k_norm.leaves()  # the 35 stored and the one lost: one leaf
    assert (leaf.tensors, leaf.missing, leaf.severity) == (35, 1, "error") and "missing-tensor" in leaf.codes
    assert leaf.missing_pattern == BROKEN_DROP
    assert root.children[("lm_head",)].severity is None  # untouched branches stay unmarked
    buffers = [leaf for leaf in root.leaves() if leaf.categories.get("buffers")]
    assert [leaf.path for leaf in buffers] == ["model.layers.{}.self_attn.rotary_emb.inv_freq"]


@pytest.mark.parametrize("name", list(TARGETS))
def test_page_is_self_contained(reports: dict[str, tuple[Path, AnyReport]], name: str) -> None:
    page = formatter("html")(reports[name][1])
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page), "the page must fetch nothing"
    assert "<link" not in page and "@import" not in page and "prefers-color-scheme:dark" in page
    assert page.count("<details") == page.count("</details>")
    if name != "broken":  # a healthy checkpoint: no layer drawn missing or different from its formula
        assert 'class="bar missing"' not in page and 'class="bar differs"' not in page
    if name == "vlm":  # the decoder's layers take the formula's type, not the vision tower's blocks of equal count
        assert re.search(r"<code>layers\.\{0\.\.1\}</code>: 2 layers.*?decoder: 2 layers", page)


def test_deepseek_v3_report_is_small_and_fast(tmp_path: Path) -> None:
    """92k tensors, a layer's experts lost: the tree comes from ~45 groups, not 92k nodes."""
    lost = [f"model.layers.40.mlp.experts.{e}.{w}.weight" for e in range(17, 20) for w in ("gate_proj", "up_proj")]
    ckpt = deepseek_v3_fp8(tmp_path / "ds3", drop=lost)
    report = auditor.audit(str(ckpt))
    assert isinstance(report, Report) and report.totals.tensors > 90_000
    started = time.perf_counter()
    page = formatter("html")(report)
    elapsed = time.perf_counter() - started
    assert len(page.encode()) < 2_000_000, len(page)
    assert elapsed < 5, elapsed  # measured ~0.3 s; generous for a loaded machine
    root = module_tree(report)
    assert sum(1 for _ in root.walk()) < 500
    experts = root.children[("model",)].children[("layers.{}",)].children[("mlp",)].children[("experts.{}",)]
    assert experts.repeat == 256 and experts.severity == "error" and experts.missing == len(lost)
    # issue 29: the one layer that lost experts is named and counted as one; the MTP layer 61 is not a difference
    assert "1 of 61 layers differs: layer <b>40</b>" in page
    assert "Layer 61 is beyond config.json's 61 layers: the multi-token-prediction module" in page
    # the 163-row files table: only the rows something is said about show until the toggle is ticked
    assert page.count('<tr class="file') == 163 and page.count('<tr class="file quiet"') == 163


def test_markdown_has_a_mermaid_pie_of_the_components(reports: dict[str, tuple[Path, AnyReport]]) -> None:
    report = reports["dense"][1]
    assert isinstance(report, Report)
    md = formatter("markdown")(report)
    block = md[md.index("```mermaid") :]
    block = block[: block.index("```", 3) + 3]
    lines = block.splitlines()
    assert lines[1].startswith("pie showData title ")
    values = [re.fullmatch(r'    "[^"]+" : (\d+)', line) for line in lines[2:-1]]
    assert all(values)
    assert sum(int(m.group(1)) for m in values if m) == report.reconciliation.expected_parameters
    adapter = reports["adapter"][1]
    assert isinstance(adapter, Report) and mermaid_pie(adapter) == []  # no formula, no pie


def test_cli_html_output_diff_and_open(reports: dict[str, tuple[Path, AnyReport]], tmp_path: Path) -> None:
    dense = reports["dense"][0]
    out = tmp_path / "r.html"
    proc = run_cli("audit", str(dense), "-f", "html", "-o", str(out))
    assert proc.returncode == 0 and out.read_text().startswith("<!DOCTYPE html>")
    assert f"HTML report: {out.resolve().as_uri()}" in proc.stderr
    # --open: a browser is started on the file ($BROWSER=true stands in for it); without -o, a temporary file
    proc = run_cli("audit", str(dense), "-f", "html", "--open", env={"BROWSER": "true"})
    assert proc.returncode == 0 and proc.stdout == ""
    opened = Path(re.search(r"HTML report: file://(\S+)", proc.stderr).group(1))  # type: ignore[union-attr]
    assert opened.read_text().startswith("<!DOCTYPE html>")
    opened.unlink()
    proc = run_cli("audit", str(dense), "--open")
    assert proc.returncode == 2 and "-f html" in proc.stderr
    # diff: the two trees side by side, what changed highlighted
    case = CASES / "qwen3" / "Qwen3ForCausalLM-small"
    other = write_case(
        case,
        tmp_path / "other",
        [
            t
            for t in tensors(case)
            if not t[0].endswith("layers.1.mlp.up_proj.weight") and not t[0].startswith("lm_head.")
        ],
    )
    page = tmp_path / "diff.html"
    proc = run_cli("diff", str(dense), str(other), "-f", "html", "-o", str(page))
    assert proc.returncode == 1, proc.stderr
    text = page.read_text()
    assert 'class="drow leaf changed"' in text  # up_proj: 2 tensors -> 1
    assert 'class="drow removed"' in text  # lm_head: only in a
    assert "IDENTICAL" not in text and "DIFFERENT" in text


def _rows(page: str) -> dict[str, tuple[str, str]]:
    """The files view's rows: file -> (its class, its severity mark)."""
    return {
        m["name"]: (m["cls"], m["sev"])
        for m in re.finditer(
            r'<tr class="file(?P<cls>[^"]*?)(?: quiet)?" id="[^"]+" data-file="(?P<name>[^"]+)" data-sev="(?P<sev>\w+)">',
            page,
        )
    }


def test_files_view_marks_the_files_findings_name(reports: dict[str, tuple[Path, AnyReport]]) -> None:
    """A Git LFS pointer and a missing shard: every file of the JSON report is a row of the files view, marked with
    the worst severity of the findings naming it; the tensors of those files are "not checked" in the tree, not
    missing."""
    report = reports["unread"][1]
    assert isinstance(report, Report)
    doc = report.to_dict()
    rows = _rows(formatter("html")(report))
    named = {name for f in doc["findings"] for name in f["files"]}
    assert set(rows) == {f["name"] for f in doc["files"]} | set(doc["ignored_files"]) | named
    worst = {
        name: max(
            (f["severity"] for f in doc["findings"] if name in f["files"]),
            key=["info", "warning", "error"].index,
            default="none",
        )
        for name in rows
    }
    assert {name: sev for name, (_, sev) in rows.items()} == worst
    assert rows["model-00002-of-00005.safetensors"] == (" unread", "error")  # the pointer
    assert rows["model-00004-of-00005.safetensors"] == (" missing", "error")  # in the index, not on disk
    assert rows["model-00001-of-00005.safetensors"] == ("", "none")
    root = module_tree(report)
    assert root.missing == 0 and root.unchecked == len(report.lost.tensors) == 179
    layers = root.children[("model",)].children[("layers.{}",)]
    assert layers.unchecked_values == set(range(6, 13)) | set(range(23, 30)) and layers.severity == "error"
    page = formatter("html")(report)
    assert "Layers not checked (their file could not be read): 5..13,22..30" in page
    assert 'class="bar missing"' not in page and 'tag-missing"> (index' not in page
    # the broken demo: its truncated last shard is a file-level finding, now on the files view
    broken = reports["broken"][1]
    assert isinstance(broken, Report)
    assert _rows(formatter("html")(broken))["model-00005-of-00005.safetensors"] == ("", "error")


def test_pipeline_has_one_fold_per_section(reports: dict[str, tuple[Path, AnyReport]]) -> None:
    """Each section a <details> whose summary says its verdict and counts, open exactly when it fails."""
    for name in ("pipeline", "broken-pipeline"):
        report = reports[name][1]
        assert not isinstance(report, Report)
        page = formatter("html")(report)
        folds = re.findall(r'<details class="part" id="s(\d+)"( open)?><summary>(.*?)</summary>', page)
        assert [int(i) for i, _, _ in folds] == list(range(len(report.sections)))
        for (_, opened, summary), s in zip(folds, report.sections):
            assert bool(opened) == (s.report.verdict == "fail"), s.part.name
            counts = s.report.severity_counts()
            assert f">{s.report.verdict.upper()}</span><code>{s.part.name}</code>" in summary
            assert (
                f"{counts['error']:,} error" in summary
                and f"{int(s.report.total_counts()['tensors']):,} tensors" in summary
            )
        failing = [s.part.name for s in report.sections if s.report.verdict == "fail"]
        assert failing == ([] if name == "pipeline" else ["vae"])  # its default and its fp16 weights
