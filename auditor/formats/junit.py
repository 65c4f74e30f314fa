"""JUnit XML for CI systems that display test reports (GitLab, Jenkins, Azure, test-reporter actions).

One test case per check (every finding code in the registry): a check fails when a finding of that code is
at or above ``fail_on``; the failure carries each finding's message and the tensors and files it names.
Findings below the threshold leave the test passing and appear in its ``system-out``; ignored codes are
``skipped``, and so is a check that did not run (``needs`` in core/codes.toml against ``Report.checks``: the
content checks outside ``verify``, ``lock-drift`` without a lock ...): a check that did not run never passes. A
target that could not be audited is a test case in ``error`` (``error_suite``). Deterministic: no timestamps or
durations beyond ``time="0"``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.findings import CODE_DATA, CODES, SEVERITY_RANK, Finding, plural
from ..core.untrusted import printable
from ..report.single import Report
from .base import ReportFormat
from .sections import section_title

if TYPE_CHECKING:
    from ..report.composite import CompositeReport

MAX_NAMES = 1000
# a check that runs only when asked for (core/codes.toml ``needs``) and why it did not run
NEEDS = {code: d["needs"] for code, d in CODE_DATA.items() if "needs" in d}
NOT_RUN = {
    "content": "not run: only `st-audit verify` reads the tensor data",
    "digests": "not run: no expected digests (verify a Hugging Face cache snapshot, or pass --against)",
    "listing": "not run: no Hub listing to compare the files with (verify --against ORG/NAME)",
    "lock": "not run: no lock to compare with (--lock FILE, or the policy's lock)",
    "policy": "not run: no policy rule (st-audit.toml, or flags such as --expect-parameters)",
    "variants": "not run: only an alternate variant is compared with the counted weights (its own suite)",
}
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
    """One test suite for the checkpoint, then one per alternate variant of its weights (``variant`` property); each
    skips the checks that did not run on it."""
    target = printable(report.target)
    suites = [_checkpoint_suite(report, f"st-audit {target}")]
    suites += [
        _checkpoint_suite(a.report, f"st-audit {target} :: variant {printable(a.variant)}", a.variant)
        for a in report.alternates
    ]
    return document(suites)


def _checkpoint_suite(report: Report, name: str, variant: str | None = None) -> ET.Element:
    """The suite of one checkpoint's weights (the counted ones, or an alternate ``variant``), under its own
    ``checks``."""
    t = report.totals
    props = (
        ("target", report.target),
        ("verdict", report.counted_verdict),
        ("fail_on", report.fail_on),
        ("tensors", str(t.tensors)),
        ("parameters", str(t.parameters)),
        ("bytes", str(t.bytes)),
        ("expected_parameters", str(report.reconciliation.expected_parameters)),
        *((("variant", variant),) if variant is not None else ()),
    )
    return suite(name, report.findings, report.ignored_codes, report.fail_on, report.checks, props)


def suite(
    name: str,
    findings: list[Finding],
    ignored: tuple[str, ...],
    fail_on: str,
    checks: frozenset[str],
    props: tuple[tuple[str, str], ...] = (),
    codes: list[str] | None = None,
) -> ET.Element:
    """One ``<testsuite>``: a test case per check of ``codes`` (default: every code), judged from ``findings``;
    ``name`` as shown (its checkpoint text already ``printable``)."""
    threshold = None if fail_on == "never" else SEVERITY_RANK[fail_on]
    by_code: dict[str, list[Finding]] = {}
    for f in findings:
        by_code.setdefault(f.code, []).append(f)
    cases = []
    failures = skipped = 0
    for code in CODES if codes is None else codes:
        meaning = CODES[code][1]
        case = ET.Element("testcase", {"classname": "st-audit", "name": code, "time": "0"})
        found = by_code.get(code, [])
        need = NEEDS.get(code)
        if code in ignored:
            ET.SubElement(case, "skipped", {"message": _clean(f"ignored ({plural(len(found), 'finding')})")})
            skipped += 1
        elif need is not None and need not in checks and not found:
            ET.SubElement(case, "skipped", {"message": NOT_RUN[need]})
            skipped += 1
        else:
            failing = [f for f in found if threshold is not None and SEVERITY_RANK[f.severity] >= threshold]
            if failing:
                failures += 1
                el = ET.SubElement(
                    case,
                    "failure",
                    {
                        "type": code,
                        "message": _clean(
                            printable(failing[0].message)
                            if len(failing) == 1
                            else f"{len(failing)} findings: {printable(failing[0].message)}"
                        ),
                    },
                )
                el.text = _clean("\n\n".join(_describe(f) for f in failing))
            rest = [f for f in found if f not in failing]
            out = ET.SubElement(case, "system-out")
            out.text = _clean("\n\n".join([meaning] + [_describe(f) for f in rest]))
        cases.append(case)
    element = ET.Element(
        "testsuite",
        {
            "name": _clean(name),
            "tests": str(len(cases)),
            "failures": str(failures),
            "errors": "0",
            "skipped": str(skipped),
            "time": "0",
        },
    )
    if props:
        properties = ET.SubElement(element, "properties")
        for key, value in props:
            ET.SubElement(properties, "property", {"name": key, "value": _clean(printable(value))})
    element.extend(cases)
    return element


def error_suite(name: str, message: str) -> ET.Element:
    """A target that could not be audited at all: one test case in ``error`` (exit 3), with why; ``name`` as
    shown."""
    element = ET.Element(
        "testsuite", {"name": _clean(name), "tests": "1", "failures": "0", "errors": "1", "skipped": "0", "time": "0"}
    )
    case = ET.SubElement(element, "testcase", {"classname": "st-audit", "name": "audit", "time": "0"})
    ET.SubElement(case, "error", {"type": "could-not-audit", "message": _clean(printable(message))})
    return element


def document(suites: list[ET.Element], name: str = "st-audit") -> str:
    """The ``<testsuites>`` document of ``suites``, its counts their sums; ``name`` as shown."""
    root = ET.Element("testsuites", {"name": _clean(name)})
    root.extend(suites)
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(x.get(key, "0")) for x in suites)))
    root.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def composite_report(report: CompositeReport, inner_format: Callable[[Any], str]) -> str:
    """Each section's test suites (named by the section), a suite for the checks of the whole when it has findings
    of its own (a component with no weights, a lock's section the target lacks, the Hub listing), and a suite in
    error for each target that could not be audited."""
    suites: list[ET.Element] = []
    for s in report.sections:
        doc = ET.fromstring(inner_format(s.report).split("\n", 1)[1])
        for element in doc.findall("testsuite"):
            if isinstance(s.report, Report):  # a pipeline among several targets names its own sections
                # an alternate variant's suite says which (its property, already shown through ``printable``)
                variant = element.find("properties/property[@name='variant']")
                also = f" :: variant {variant.get('value')}" if variant is not None else ""
                element.set("name", f"st-audit {printable(report.target)} :: {printable(section_title(s))}{also}")
            suites.append(element)
    own = report.active_findings
    if own:
        codes = list(dict.fromkeys(f.code for f in own))
        suites.append(
            suite(
                f"st-audit {printable(report.target)} :: the whole",
                report.findings,
                report.ignored_codes,
                report.fail_on,
                frozenset(),
                codes=codes,
            )
        )
    suites += [error_suite(f"st-audit {printable(name)}", why) for name, why in report.could_not]
    return document(suites, f"st-audit {printable(report.target)}")


class JUnit(ReportFormat):
    """``-f junit``: one test suite per checkpoint; a report of sections puts each section's under one
    ``<testsuites>``."""

    name = "junit"

    def single(self, report: Report, width: int | None = None) -> str:
        return format_report(report)

    def composite(self, report: CompositeReport, width: int | None = None) -> str:
        return composite_report(report, lambda inner: self.render(inner, width))
