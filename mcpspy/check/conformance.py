"""`mcpspy check --format conformance`: the verdicts as the official conformance suite writes them.

The suite (modelcontextprotocol/conformance) writes ``checks.json``: a list of
``ConformanceCheck`` objects (its ``src/types.ts``)::

    [{"id", "name", "description", "status" ("SUCCESS"|"FAILURE"|"WARNING"|"SKIPPED"|"INFO"),
      "timestamp" (ISO 8601), "specReferences": [{"id", "url"?}], "details": {...}}]

A check whose row in check/catalogue.py names the suite's check ids gives one
object per id, under that id, so a server's stdio results read the same as the
suite's HTTP ones; a check the suite lacks keeps mcpspy's id, prefixed
``mcpspy-``. ``details`` says the era, mcpspy's check id, the message and the
capture. The timestamp is the era's capture start (a run's output is
reproducible from its captures).
"""

from __future__ import annotations

from typing import Any

import orjson

from mcpspy.analysis.sources import source_links
from mcpspy.check.catalogue import CHECKS
from mcpspy.check.model import CheckRun, EraRun, Status, Verdict

STATUS = {
    Status.PASS: "SUCCESS",
    Status.FAIL: "FAILURE",
    Status.WARN: "WARNING",
    Status.SKIP: "SKIPPED",
}
OWN_PREFIX = "mcpspy-"


def conformance_checks(run: CheckRun) -> list[dict[str, Any]]:
    return [item for era in run.eras for verdict in era.verdicts for item in _objects(era, verdict)]


def _objects(era: EraRun, verdict: Verdict) -> list[dict[str, Any]]:
    spec = CHECKS[verdict.check_id]
    references = [{"id": spec.source, **({"url": links[0]} if (links := source_links(spec.source)) else {})}]
    details: dict[str, Any] = {
        "era": era.era.value,
        "mcpspyCheck": verdict.check_id,
        "message": verdict.message,
        "capture": str(era.capture),
    }
    if verdict.target is not None:
        details["target"] = verdict.target
    ids = verdict.conformance or spec.conformance or (f"{OWN_PREFIX}{verdict.check_id}",)
    return [
        {
            "id": check_id,
            "name": check_id,
            "description": spec.title,
            "status": STATUS[verdict.status],
            "timestamp": era.summary.capture.header.started,
            "specReferences": references,
            "details": details,
        }
        for check_id in ids
    ]


def render_check_conformance(run: CheckRun) -> str:
    return orjson.dumps(conformance_checks(run), option=orjson.OPT_INDENT_2).decode() + "\n"
