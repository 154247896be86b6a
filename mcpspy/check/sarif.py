"""`mcpspy check --format sarif`: one run per era; a check's own failure is a result under the check's id,
each finding of the passive analysis one under its rule's id, so one cause is never reported twice."""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.model import Severity
from mcpspy.check.catalogue import CHECKS, CheckSpec
from mcpspy.check.model import CheckRun, EraRun, Status
from mcpspy.render.sarif import (
    LEVEL,
    QUOTE,
    Rules,
    artifact_uri,
    document,
    finding_result,
    location,
    make_run,
)
from mcpspy.terminal import visible_bytes, visible_line


def render_check_sarif(run: CheckRun) -> str:
    return document([era_run(era) for era in run.eras])


def era_run(era: EraRun) -> dict[str, Any]:
    rules = Rules()
    artifact = artifact_uri(era.capture)
    results: list[dict[str, Any]] = []
    for verdict in era.verdicts:
        if verdict.status is Status.SKIP:
            continue
        spec = CHECKS[verdict.check_id]
        fallback = verdict.seqs[0] if verdict.seqs else None
        for problem in verdict.problems:
            if problem.severity is Severity.INFO:
                continue
            seq = problem.seq if problem.seq is not None else fallback
            text = f"{problem.sentence}. Fix: {spec.fix}"
            if seq is not None and seq in era.raw_of:
                text += f" Line: {visible_bytes(era.raw_of[seq], QUOTE)}"
            result = {
                "ruleId": spec.id,
                "ruleIndex": check_rule(rules, spec),
                "level": LEVEL[problem.severity],
                "message": {"text": visible_line(text)},
                "locations": [location(artifact, era.line_of.get(seq) if seq is not None else None)],
                "properties": {"era": era.era.value, "target": verdict.target, "seq": seq},
            }
            results.append(result)
        for finding in verdict.findings:
            results.append(
                finding_result(
                    rules,
                    finding,
                    artifact,
                    era.line_of.get(finding.seq),
                    {"era": era.era.value, "check": verdict.check_id},
                )
            )
    name = f"mcpspy check ({era.era.value})"
    return make_run(name, rules, artifact, results, f"mcpspy-check/{era.era.value}")


def check_rule(rules: Rules, spec: CheckSpec) -> int:
    return rules.add(
        spec.id,
        {
            "id": spec.id,
            "shortDescription": {"text": spec.title},
            "fullDescription": {"text": f"{spec.title}. Source: {spec.source}."},
            "help": {"text": spec.fix},
            "properties": {"kind": "check", "source": spec.source, "conformance": list(spec.conformance)},
        },
    )
