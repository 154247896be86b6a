"""SARIF 2.1.0 for code scanning: one rule per check id and finding id, one result per failure.

A result's location is the capture line that shows it (the capture is the
artifact: relative to the working directory when it lies under it, as code
scanning expects, else a file URI). A check failure of the script's own is a
result under the check's id; each finding of the passive analysis is a result
under its rule's id, so one cause is never reported twice. A check gives one
run per era; a recorded session, one run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from mcpspy import __version__
from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.model import Finding, Severity
from mcpspy.analysis.sources import public_source, source_links
from mcpspy.check.catalogue import CHECKS, CheckSpec
from mcpspy.check.model import CheckRun, EraRun, Status
from mcpspy.report.summary import Summary
from mcpspy.terminal import visible_bytes, visible_line

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/mcpspy/mcpspy"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
QUOTE = 200


def render_check_sarif(run: CheckRun) -> str:
    return _document([_check_run(run, era) for era in run.eras])


def render_sarif(summary: Summary) -> str:
    """A recorded session: its findings, each at its capture line."""
    rules = _Rules()
    artifact = _artifact_uri(summary.path)
    results = [
        _finding_result(rules, f, artifact, summary.line_of.get(f.seq), None) for f in summary.findings
    ]
    return _document(
        [_run("mcpspy report", rules, artifact, results, f"mcpspy-report/{summary.capture.header.session}")]
    )


def _check_run(run: CheckRun, era: EraRun) -> dict[str, Any]:
    rules = _Rules()
    artifact = _artifact_uri(era.capture)
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
                "ruleIndex": rules.check(spec),
                "level": LEVEL[problem.severity],
                "message": {"text": visible_line(text)},
                "locations": [_location(artifact, era.line_of.get(seq) if seq is not None else None)],
                "properties": {"era": era.era.value, "target": verdict.target, "seq": seq},
            }
            results.append(result)
        for finding in verdict.findings:
            results.append(
                _finding_result(
                    rules, finding, artifact, era.line_of.get(finding.seq), (era, verdict.check_id)
                )
            )
    name = f"mcpspy check ({era.era.value})"
    return _run(name, rules, artifact, results, f"mcpspy-check/{era.era.value}")


def _finding_result(
    rules: _Rules, finding: Finding, artifact: str, line: int | None, check: tuple[EraRun, str] | None
) -> dict[str, Any]:
    properties: dict[str, Any] = {"seq": finding.seq}
    if check is not None:
        properties |= {"era": check[0].era.value, "check": check[1]}
    text = f"{finding.message}. {finding.rule.summary} See `mcpspy rules {finding.id}`."
    return {
        "ruleId": finding.id,
        "ruleIndex": rules.finding(finding.id),
        "level": LEVEL[finding.severity],
        "message": {"text": visible_line(text)},
        "locations": [_location(artifact, line)],
        "properties": properties,
    }


class _Rules:
    """The run's rules, each once, in the order first used; results name them by index."""

    def __init__(self) -> None:
        self.objects: list[dict[str, Any]] = []
        self._index: dict[str, int] = {}

    def check(self, spec: CheckSpec) -> int:
        return self._add(
            spec.id,
            {
                "id": spec.id,
                "shortDescription": {"text": spec.title},
                "fullDescription": {"text": f"{spec.title}. Source: {spec.source}."},
                "help": {"text": spec.fix},
                "properties": {"kind": "check", "source": spec.source, "conformance": list(spec.conformance)},
            },
        )

    def finding(self, rule_id: str) -> int:
        rule = RULES[rule_id]
        help_text = f"See `mcpspy rules {rule.id}`."
        if rule.good:
            help_text = f"Good: {rule.good} {help_text}"
        if rule.fix:
            help_text = f"{rule.fix} {help_text}"
        source, links = public_source(rule.source), source_links(rule.source)
        obj: dict[str, Any] = {
            "id": rule.id,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": f"{rule.summary} Source: {source}."},
            "help": {"text": help_text},
            "defaultConfiguration": {"level": LEVEL[rule.severity]},
            "properties": {"kind": "finding", "source": source},
        }
        if links:
            obj["helpUri"] = links[0]
        return self._add(rule.id, obj)

    def _add(self, rule_id: str, obj: dict[str, Any]) -> int:
        if rule_id not in self._index:
            self._index[rule_id] = len(self.objects)
            self.objects.append(obj)
        return self._index[rule_id]


def _run(
    name: str, rules: _Rules, artifact: str, results: list[dict[str, Any]], category: str
) -> dict[str, Any]:
    return {
        "tool": {
            "driver": {
                "name": name.split(" (")[0],
                "version": __version__,
                "informationUri": INFORMATION_URI,
                "rules": rules.objects,
            }
        },
        "automationDetails": {"id": f"{category}/"},
        "artifacts": [{"location": {"uri": artifact}, "mimeType": "application/jsonl"}],
        "results": results,
    }


def _location(artifact: str, line: int | None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact, "index": 0}}
    if line is not None:
        physical["region"] = {"startLine": line}
    return {"physicalLocation": physical}


def _artifact_uri(path: Path) -> str:
    absolute = path.resolve()
    try:
        return absolute.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return absolute.as_uri()


def _document(runs: list[dict[str, Any]]) -> str:
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": runs}
    return orjson.dumps(log, option=orjson.OPT_INDENT_2).decode() + "\n"
