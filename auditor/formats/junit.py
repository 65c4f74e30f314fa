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
from ..core.untrusted import printable
from ..report.single import Report

MAX_NAMES = 1000
# characters XML 1.0 cannot carry at all (a hostile header may put them in tensor names)
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _clean(text: str) -> str:
    """Nothing XML 1.0 cannot carry (the checkpoint's own text is already ``printable``: a test report is printed
    into CI logs too)."""
    return _INVALID_XML.sub("\ufffd", text)


def _describe(f: Finding) -> str:
    lines = [f"[{f.severity}] {f.code}: {printable(f.message)}"]
    if f.tensors:
        lines.append(f"tensors ({len(f.tensors):,}):")
        lines += [f"  {printable(t)}" for t in f.tensors[:MAX_NAMES]]
        if len(f.tensors) > MAX_NAMES:
            lines.append(f"  ... and {len(f.tensors) - MAX_NAMES:,} more")
    if f.files:
        lines.append("files: " + ", ".join(map(printable, f.files)))
    return "\n".join(lines)


def format_report(report: Report) -> str:
    threshold = None if report.fail_on == "never" else SEVERITY_RANK[report.fail_on]
    by_code: dict[str, list[Finding]] = {}
    for f in report.findings:
        by_code.setdefault(f.code, []).append(f)
    suite_name = f"st-audit {report.target}"
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
                    printable(failing[0].message) if len(failing) == 1
                    else f"{len(failing)} findings: {printable(failing[0].message)}")})
                el.text = _clean("\n\n".join(_describe(f) for f in failing))
            rest = [f for f in found if f not in failing]
            out = ET.SubElement(case, "system-out")
            out.text = _clean("\n\n".join([meaning] + [_describe(f) for f in rest]))
        cases.append(case)
    t = report.totals
    suite = ET.Element("testsuite", {"name": _clean(printable(suite_name)), "tests": str(len(cases)),
                                     "failures": str(failures), "errors": "0", "skipped": str(skipped),
                                     "time": "0"})
    props = ET.SubElement(suite, "properties")
    for name, value in (("target", report.target), ("verdict", report.verdict), ("fail_on", report.fail_on),
                        ("tensors", str(t.tensors)), ("parameters", str(t.parameters)), ("bytes", str(t.bytes)),
                        ("expected_parameters", str(report.reconciliation.expected_parameters))):
        ET.SubElement(props, "property", {"name": name, "value": _clean(printable(value))})
    suite.extend(cases)
    root = ET.Element("testsuites", {"name": "st-audit", "tests": str(len(cases)), "failures": str(failures),
                                     "errors": "0", "skipped": str(skipped), "time": "0"})
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
