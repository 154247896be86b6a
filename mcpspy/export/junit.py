"""JUnit XML: a testcase per check (``mcpspy check``) or per catalogue rule (``mcpspy report``).

A failure at error level is ``<failure type="error">``, a warning ``<failure
type="warning">`` (as linters' JUnit reports do), a skip ``<skipped>``. Server
text is made visible (controls as escapes) and stripped of what XML 1.0 cannot
hold, so the document always parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.model import Finding, Severity
from mcpspy.analysis.sources import public_source
from mcpspy.check.catalogue import CHECKS, verdict_fix
from mcpspy.check.model import CheckRun, EraRun, Status, Verdict
from mcpspy.report.summary import Summary
from mcpspy.terminal import visible_bytes, visible_line

QUOTE = 200
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """Untrusted text for an XML attribute or element: controls visible, nothing XML 1.0 forbids."""
    return _NOT_XML.sub("\ufffd", visible_line(text))


def xml_lines(lines: list[str]) -> str:
    """Lines for an element's body: each made safe as one line, joined by real line breaks (a CI
    page shows them as lines, not as a literal \\x0a)."""
    return "\n".join(xml_text(line) for line in lines)


def render_check_junit(run: CheckRun) -> str:
    suites = ET.Element("testsuites", name="mcpspy check")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for era in run.eras:
        suite = ET.SubElement(suites, "testsuite", name=f"mcpspy check {era.era.title}")
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for verdict in era.verdicts:
            _testcase(suite, era, verdict)
            counts["tests"] += 1
            counts["failures"] += verdict.status in (Status.FAIL, Status.WARN)
            counts["skipped"] += verdict.status is Status.SKIP
        _set_counts(suite, counts)
        ET.SubElement(suite, "properties").extend(
            [
                ET.Element("property", name="capture", value=xml_text(str(era.capture))),
                ET.Element("property", name="command", value=xml_text(" ".join(run.command))),
            ]
        )
        for key in totals:
            totals[key] += counts[key]
    _set_counts(suites, totals)
    return _document(suites)


def _testcase(suite: ET.Element, era: EraRun, verdict: Verdict) -> None:
    name = verdict.check_id + (f"[{verdict.target}]" if verdict.target else "")
    case = ET.SubElement(suite, "testcase", classname=f"mcpspy.check.{era.era.value}", name=xml_text(name))
    message = xml_text(verdict.message)
    if verdict.status is Status.SKIP:
        ET.SubElement(case, "skipped", message=message)
        return
    if verdict.status is Status.PASS:
        return
    level = "error" if verdict.status is Status.FAIL else "warning"
    failure = ET.SubElement(case, "failure", type=level, message=message)
    failure.text = xml_lines(_details(era, verdict))


def _details(era: EraRun, verdict: Verdict) -> list[str]:
    lines = [f"{p.severity.label}: {p.sentence}" + _where(era, p.seq) for p in verdict.problems]
    lines += [
        f"finding {f.id} ({f.severity.label}): {f.message}{_where(era, f.seq)}; see `mcpspy rules {f.id}`"
        for f in verdict.findings
    ]
    spec = CHECKS[verdict.check_id]
    lines += [f"fix: {verdict_fix(verdict)}", f"spec: {spec.source}", f"capture: {era.capture}"]
    return [line.replace("\n", " ") for line in lines]


def _where(era: EraRun, seq: int | None) -> str:
    if seq is None or seq not in era.raw_of:
        return ""
    return f" (capture line {era.line_of.get(seq)}: {visible_bytes(era.raw_of[seq], QUOTE)})"


def render_junit(summary: Summary) -> str:
    """A recorded session: a testcase per catalogue rule; one that fired at error or warning fails."""
    header = summary.capture.header
    suites = ET.Element("testsuites", name="mcpspy report")
    suite = ET.SubElement(
        suites, "testsuite", name=xml_text(f"mcpspy report {header.session} ({header.name})")
    )
    by_rule: dict[str, list[Finding]] = {}
    for finding in summary.findings:
        by_rule.setdefault(finding.id, []).append(finding)
    failures = 0
    for rule in RULES.values():
        family = rule.id.split(".", 1)[0]
        case = ET.SubElement(suite, "testcase", classname=f"mcpspy.rules.{family}", name=rule.id)
        found = by_rule.get(rule.id, [])
        if not found:
            continue
        occurrences = [_occurrence(summary, f) for f in found]
        if rule.severity is Severity.INFO:
            ET.SubElement(case, "system-out").text = xml_lines(occurrences)
            continue
        failures += 1
        failure = ET.SubElement(
            case, "failure", type=rule.severity.label, message=xml_text(f"{len(found)}× {rule.summary}")
        )
        spec = public_source(rule.source)
        failure.text = xml_lines(
            [*occurrences, f"fix: {rule.fix}", f"source: {spec}", f"see `mcpspy rules {rule.id}`"]
        )
    ET.SubElement(suite, "properties").append(
        ET.Element("property", name="capture", value=xml_text(str(summary.path)))
    )
    counts = {"tests": len(RULES), "failures": failures, "skipped": 0}
    _set_counts(suite, counts)
    _set_counts(suites, counts)
    return _document(suites)


def _occurrence(summary: Summary, finding: Finding) -> str:
    line = summary.line_of.get(finding.seq)
    where = f"capture line {line}" if line else f"seq {finding.seq}"
    return f"{where}: {finding.message}".replace("\n", " ")


def _set_counts(element: ET.Element, counts: dict[str, int]) -> None:
    for key, value in counts.items():
        element.set(key, str(value))
    element.set("errors", "0")


def _document(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
