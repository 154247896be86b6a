"""A replay's comparison as text for a person or JSON for a program.

Every value and method a server sent is shown through ``visible_line``: a
reply is hostile data, and this goes to a terminal.
"""

from __future__ import annotations

import orjson

from mcpspy.jsonutil.paths import render_path
from mcpspy.jsonutil.quote import json_safe, show_value
from mcpspy.jsonutil.structural import Change, Difference
from mcpspy.playback.compare import ExchangeDiff, ReplayComparison
from mcpspy.terminal import visible_line

VALUE_LIMIT = 120
REPORT_VERSION = 1


def describe(d: Difference) -> str:
    where = visible_line(render_path(d.path))
    if d.change is Change.ADDED:
        return f"{where}: added {show_value(d.new, VALUE_LIMIT)}"
    if d.change is Change.REMOVED:
        return f"{where}: removed (was {show_value(d.old, VALUE_LIMIT)})"
    return f"{where}: {show_value(d.old, VALUE_LIMIT)} → {show_value(d.new, VALUE_LIMIT)}"


def exchange_title(x: ExchangeDiff) -> str:
    seqs = f"recorded #{x.recorded_seq}" + ("" if x.new_seq is None else f", replayed #{x.new_seq}")
    return visible_line(f"{x.method} id {show_value(x.id, VALUE_LIMIT)} ({seqs})")


def text_report(result: ReplayComparison, recorded: str, capture: str) -> str:
    lines: list[str] = []
    if result.same:
        lines.append(f"{result.compared} exchanges replayed: no differences")
    else:
        lines.append(f"{result.compared} exchanges replayed: {len(result.changed)} differ")
    for x in result.changed:
        lines.append("")
        lines.append(exchange_title(x))
        if x.note is not None:
            lines.append(f"  {x.note}")
        lines.extend(f"  {describe(d)}" for d in x.differences)
    lines.append("")
    lines.append(f"recorded: {visible_line(recorded)}")
    lines.append(f"replayed: {visible_line(capture)}")
    return "\n".join(lines) + "\n"


def json_report(result: ReplayComparison, recorded: str, capture: str) -> bytes:
    body = {
        "replay_version": REPORT_VERSION,
        "recorded": recorded,
        "capture": capture,
        "same": result.same,
        "compared": result.compared,
        "exchanges": [
            {
                "method": x.method,
                "id": json_safe(x.id),
                "recorded_seq": x.recorded_seq,
                "new_seq": x.new_seq,
                "note": x.note,
                "differences": [
                    {
                        "path": render_path(d.path),
                        "change": d.change.value,
                        "old": json_safe(d.old),
                        "new": json_safe(d.new),
                    }
                    for d in x.differences
                ],
            }
            for x in result.changed
        ],
    }
    return orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n"
