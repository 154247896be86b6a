"""A surface comparison as text for a person or JSON for CI.

Names, descriptions and values come from servers: every one goes through
``visible_line`` before it reaches a terminal.
"""

from __future__ import annotations

import orjson

from mcpspy.drift.compare import Drift, DriftKind, SurfaceComparison
from mcpspy.jsonutil.paths import render_path
from mcpspy.jsonutil.quote import json_safe, show_value
from mcpspy.jsonutil.structural import MISSING
from mcpspy.terminal import visible_line

REPORT_VERSION = 1
AREA_TITLES = {
    "server": "server",
    "capabilities": "capabilities",
    "tools": "tools",
    "prompts": "prompts",
    "resources": "resources",
    "resourceTemplates": "resource templates",
}
MARKS = {
    DriftKind.ADDED: "+",
    DriftKind.REMOVED: "-",
    DriftKind.CAPABILITY_ADDED: "+",
    DriftKind.CAPABILITY_REMOVED: "-",
    DriftKind.ANNOTATION_RISK: "!",
}


def drift_line(d: Drift) -> str:
    """One drift, without its area: ``add: inputSchema $.properties.c: tightened, new required property``."""
    if d.kind in (DriftKind.ADDED, DriftKind.REMOVED):
        return f"{d.kind.value}: {d.item}"
    where = " ".join(p for p in (d.field, render_path(d.path) if d.path else None) if p) or "$"
    head = f"{d.item}: " if d.item is not None else ""
    if d.kind.value.startswith("schema-"):
        verdict = d.kind.value.removeprefix("schema-")
        return f"{head}{where}: {verdict}, {d.what}{_values(d)}"
    return f"{head}{where}: {d.what}{_values(d)}"


def _values(d: Drift) -> str:
    if d.old is MISSING and d.new is MISSING:
        return ""
    if d.old is MISSING:
        return f" {show_value(d.new, 80)}"
    if d.new is MISSING:
        return f" (was {show_value(d.old, 80)})"
    return f" {show_value(d.old, 80)} → {show_value(d.new, 80)}"


def text_report(result: SurfaceComparison, a: str, b: str) -> str:
    lines = [visible_line(f"A: {a}"), visible_line(f"B: {b}")]
    if not result.drifts:
        lines.append("no drift")
    else:
        lines.append(f"{len(result.drifts)} change{'s' if len(result.drifts) != 1 else ''}")
    for area, title in AREA_TITLES.items():
        found = [d for d in result.drifts if d.area == area]
        if not found:
            continue
        lines.append("")
        lines.append(title)
        for d in found:
            lines.append(f"  {MARKS.get(d.kind, '~')} {visible_line(drift_line(d))}")
    for note in result.not_compared:
        lines.append(f"not compared: {note}")
    return "\n".join(lines) + "\n"


def json_report(result: SurfaceComparison, a: str, b: str) -> bytes:
    body = {
        "drift_version": REPORT_VERSION,
        "a": a,
        "b": b,
        "drift": bool(result.drifts),
        "changes": [
            {
                "area": d.area,
                "item": d.item,
                "kind": d.kind.value,
                "field": d.field,
                "path": render_path(d.path),
                "what": d.what,
                "old": json_safe(d.old),
                "new": json_safe(d.new),
            }
            for d in result.drifts
        ],
        "not_compared": result.not_compared,
    }
    return orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n"
