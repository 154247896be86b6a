"""`mcpspy check --format junit`: a testcase per check and era; a failure or warning fails it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from mcpspy.check.catalogue import CHECKS, verdict_fix
from mcpspy.check.model import CheckRun, EraRun, Status, Verdict
from mcpspy.render.junit import QUOTE, document, set_counts, xml_lines, xml_text
from mcpspy.terminal import visible_bytes


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
        set_counts(suite, counts)
        ET.SubElement(suite, "properties").extend(
            [
                ET.Element("property", name="capture", value=xml_text(str(era.capture))),
                ET.Element("property", name="command", value=xml_text(" ".join(run.command))),
            ]
        )
        for key in totals:
            totals[key] += counts[key]
    set_counts(suites, totals)
    return document(suites)


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
