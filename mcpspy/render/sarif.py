"""SARIF 2.1.0's skeleton for code scanning: rules by index, a finding as a result, a run, the log.

A result's location is the capture line that shows it (the capture is the
artifact: relative to the working directory when it lies under it, as code
scanning expects, else a file URI). Each finding of the passive analysis is a
result under its rule's id. report/sarif.py (a recorded session, one run) and
check/sarif.py (one run per era, a check's own failures under its id) fill it in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from mcpspy import __version__
from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.model import Finding, Severity
from mcpspy.analysis.sources import public_source, source_links
from mcpspy.terminal import visible_line

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/mcpspy/mcpspy"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
QUOTE = 200


def finding_result(
    rules: Rules, finding: Finding, artifact: str, line: int | None, properties: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A finding of the analysis as a result under its rule's id; ``properties`` added to its seq."""
    properties = {"seq": finding.seq, **(properties or {})}
    text = f"{finding.message}. {finding.rule.summary} See `mcpspy rules {finding.id}`."
    return {
        "ruleId": finding.id,
        "ruleIndex": rules.finding(finding.id),
        "level": LEVEL[finding.severity],
        "message": {"text": visible_line(text)},
        "locations": [location(artifact, line)],
        "properties": properties,
    }


class Rules:
    """The run's rules, each once, in the order first used; results name them by index."""

    def __init__(self) -> None:
        self.objects: list[dict[str, Any]] = []
        self._index: dict[str, int] = {}

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
        return self.add(rule.id, obj)

    def add(self, rule_id: str, obj: dict[str, Any]) -> int:
        """``obj`` as rule ``rule_id`` (once); its index."""
        if rule_id not in self._index:
            self._index[rule_id] = len(self.objects)
            self.objects.append(obj)
        return self._index[rule_id]


def make_run(
    name: str, rules: Rules, artifact: str, results: list[dict[str, Any]], category: str
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


def location(artifact: str, line: int | None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact, "index": 0}}
    if line is not None:
        physical["region"] = {"startLine": line}
    return {"physicalLocation": physical}


def artifact_uri(path: Path) -> str:
    absolute = path.resolve()
    try:
        return absolute.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return absolute.as_uri()


def document(runs: list[dict[str, Any]]) -> str:
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": runs}
    return orjson.dumps(log, option=orjson.OPT_INDENT_2).decode() + "\n"
