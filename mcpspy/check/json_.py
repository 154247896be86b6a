"""`mcpspy check --format json`: the verdicts for scripts. The shape is public and versioned.

    {
      "check_version": 1,
      "mcpspy": str, "command": [str], "timeout_s": float, "max_time_s": float,
      "capture": {ERA: path},                 one capture per era ("modern", "legacy")
      "counts": {"pass"|"warn"|"fail"|"skip": int},
      "checks": [{"id", "era", "target" (str|null: a --call's tool), "status" ("pass"|"warn"|"fail"|
                  "skip"), "message", "title", "spec", "fix", "conformance": [str],
                  "findings": [finding id], "problems": [{"severity", "message", "seq", "line"}],
                  "seqs": [int]}],
      "findings": [the finding objects of `report --json`, plus "era" and "check"]
    }

``seq`` and ``line`` point into the era's capture. ``findings`` holds the
server's findings that count toward the verdict (not those about the check's
own deliberate probes). Fields may be added within version 1.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson

from mcpspy import __version__
from mcpspy.check.catalogue import CHECKS, verdict_fix
from mcpspy.check.model import CheckRun, EraRun, Status, Verdict
from mcpspy.json_text import terminal_safe_json
from mcpspy.model.report import report_object

CHECK_VERSION = 1


def check_object(run: CheckRun) -> dict[str, Any]:
    counts = Counter(v.status.value for v in run.verdicts)
    return {
        "check_version": CHECK_VERSION,
        "mcpspy": __version__,
        "command": list(run.command),
        "timeout_s": run.timeout,
        "max_time_s": run.max_time,
        "capture": {era.era.value: str(era.capture) for era in run.eras},
        "counts": {status.value: counts[status.value] for status in Status},
        "checks": [verdict_object(era, v) for era in run.eras for v in era.verdicts],
        "findings": [f for era in run.eras for f in finding_objects(era)],
    }


def verdict_object(era: EraRun, verdict: Verdict) -> dict[str, Any]:
    spec = CHECKS[verdict.check_id]
    return {
        "id": verdict.check_id,
        "era": era.era.value,
        "target": verdict.target,
        "status": verdict.status.value,
        "message": verdict.message,
        "title": spec.title,
        "spec": spec.source,
        "fix": verdict_fix(verdict),
        "conformance": list(spec.conformance),
        "findings": [f.id for f in verdict.findings],
        "problems": [
            {
                "severity": p.severity.label,
                "message": p.sentence,
                "seq": p.seq,
                "line": era.line_of.get(p.seq) if p.seq is not None else None,
            }
            for p in verdict.problems
        ],
        "seqs": verdict.seqs,
    }


def finding_objects(era: EraRun) -> list[dict[str, Any]]:
    """The report's finding objects for this era's counted findings, each with its era and check."""
    check_of = {id(f): v.check_id for v in era.verdicts for f in v.findings}
    objects: list[dict[str, Any]] = report_object(era.summary)["findings"]
    for finding, obj in zip(era.summary.findings, objects, strict=True):
        obj["era"] = era.era.value
        obj["check"] = check_of.get(id(finding))
    return objects


def render_check_json(run: CheckRun) -> str:
    return terminal_safe_json(orjson.dumps(check_object(run), option=orjson.OPT_INDENT_2).decode()) + "\n"
