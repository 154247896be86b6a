"""`mcpspy report --format junit`: a testcase per catalogue rule; one that fired at error or warning fails."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.model import Finding, Severity
from mcpspy.analysis.sources import public_source
from mcpspy.model.summary import Summary
from mcpspy.render.junit import document, set_counts, xml_lines, xml_text


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
    set_counts(suite, counts)
    set_counts(suites, counts)
    return document(suites)


def _occurrence(summary: Summary, finding: Finding) -> str:
    line = summary.line_of.get(finding.seq)
    where = f"capture line {line}" if line else f"seq {finding.seq}"
    return f"{where}: {finding.message}".replace("\n", " ")
