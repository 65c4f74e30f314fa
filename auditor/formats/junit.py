"""JUnit XML for CI systems that display test reports (GitLab, Jenkins, Azure, test-reporter actions).

One test case per check (every finding code in the registry): a check fails when a finding of that code is
at or above ``fail_on``; the failure carries each finding's message and the tensors and files it names.
Findings below the threshold leave the test passing and appear in its ``system-out``; ignored codes are
``skipped``. Deterministic: no timestamps or durations beyond ``time="0"``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ..core.findings import CODES, SEVERITY_RANK, Finding, plural
from ..report.single import Report

MAX_NAMES = 1000
# characters XML 1.0 cannot carry at all (a hostile header may put them in tensor names)
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _describe(f: Finding) -> str:
    lines = [f"[{f.severity}] {f.code}: {f.message}"]
    if f.tensors:
        lines.append(f"tensors ({len(f.tensors):,}):")
        lines += [f"  {t}" for t in f.tensors[:MAX_NAMES]]
        if len(f.tensors) > MAX_NAMES:
            lines.append(f"  ... and {len(f.tensors) - MAX_NAMES:,} more")
    if f.files:
        lines.append("files: " + ", ".join(f.files))
    return "\n".join(lines)


def format_report(report: Report) -> str:
    """One test suite for the checkpoint, then one per alternate variant of its weights (``variant`` property)."""
    suites = [_suite(report, f"st-audit {report.target}")]
    suites += [_suite(a.report, f"st-audit {report.target} :: variant {a.variant}", a.variant)
               for a in report.alternates]
    root = ET.Element("testsuites", {"name": "st-audit", **{key: str(sum(int(x.get(key, "0")) for x in suites))
                                                            for key in ("tests", "failures", "errors", "skipped")},
                                     "time": "0"})
    root.extend(suites)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(report: Report, suite_name: str, variant: str | None = None) -> ET.Element:
    threshold = None if report.fail_on == "never" else SEVERITY_RANK[report.fail_on]
    by_code: dict[str, list[Finding]] = {}
    for f in report.findings:
        by_code.setdefault(f.code, []).append(f)
    cases = []
    failures = skipped = 0
    for code, (_, meaning) in CODES.items():
        case = ET.Element("testcase", {"classname": "st-audit", "name": code, "time": "0"})
        found = by_code.get(code, [])
        if code in report.ignored_codes:
            ET.SubElement(case, "skipped", {"message": _clean(f"ignored ({plural(len(found), 'finding')})")})
            skipped += 1
        else:
            failing = [f for f in found if threshold is not None and SEVERITY_RANK[f.severity] >= threshold]
            if failing:
                failures += 1
                el = ET.SubElement(case, "failure", {"type": code, "message": _clean(
                    failing[0].message if len(failing) == 1 else f"{len(failing)} findings: {failing[0].message}")})
                el.text = _clean("\n\n".join(_describe(f) for f in failing))
            rest = [f for f in found if f not in failing]
            out = ET.SubElement(case, "system-out")
            out.text = _clean("\n\n".join([meaning] + [_describe(f) for f in rest]))
        cases.append(case)
    t = report.totals
    suite = ET.Element("testsuite", {"name": _clean(suite_name), "tests": str(len(cases)),
                                     "failures": str(failures), "errors": "0", "skipped": str(skipped),
                                     "time": "0"})
    props = ET.SubElement(suite, "properties")
    for name, value in (("target", report.target), ("verdict", report.counted_verdict), ("fail_on", report.fail_on),
                        ("tensors", str(t.tensors)), ("parameters", str(t.parameters)), ("bytes", str(t.bytes)),
                        ("expected_parameters", str(report.reconciliation.expected_parameters)),
                        *((("variant", variant),) if variant is not None else ())):
        ET.SubElement(props, "property", {"name": name, "value": _clean(value)})
    suite.extend(cases)
    return suite
