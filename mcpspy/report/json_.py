"""`mcpspy report --json`: the report object (model/report.py documents it), indented."""

from __future__ import annotations

import orjson

from mcpspy.json_text import terminal_safe_json
from mcpspy.model.report import report_object
from mcpspy.model.summary import Summary


def render_json(summary: Summary) -> str:
    return (
        terminal_safe_json(orjson.dumps(report_object(summary), option=orjson.OPT_INDENT_2).decode()) + "\n"
    )
