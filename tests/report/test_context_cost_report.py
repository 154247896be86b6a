"""The report's context cost: the five dearest tools in text, a context_cost object in JSON."""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from mcpspy.capture.reader import read_capture
from mcpspy.model.summary import Summary, build_summary
from mcpspy.replay_policy import replay_records
from mcpspy.report.json_ import render_json
from mcpspy.report.text import render_text
from tests.analysis.steps import TOOLS_RESULT, build, c2s, req, res, s2c

TOOLS = [
    {"name": f"tool{i}", "description": "d" * (10 * i), "inputSchema": {"type": "object"}} for i in range(7)
]
TOOLS.append({"name": "evil\x1b[2J", "inputSchema": {"type": "object"}, "description": "e" * 500})


def summary_of(tmp_path: Path) -> Summary:
    steps = [c2s(req(1, "tools/list")), s2c(res(1, {**TOOLS_RESULT, "tools": TOOLS}))]
    path = tmp_path / "c.jsonl"
    path.write_bytes(build(steps, "cost"))
    capture = read_capture(path)
    return build_summary(capture, path, replay_records(capture.records, 30.0).analyzer)


def test_text_names_the_five_most_expensive_tools_dearest_first(tmp_path: Path) -> None:
    text = render_text(summary_of(tmp_path))
    section = text.split("context cost")[1].split("\n\n")[0]
    assert "\x1b" not in text and "evil\\x1b[2J" in section
    dearest = [line.split()[0] for line in section.split("most expensive tools\n")[1].splitlines()]
    assert dearest == ["evil\\x1b[2J", "tool6", "tool5", "tool4", "tool3"]
    total = len(orjson.dumps(TOOLS))
    assert f"8 tools {total:>10,} B  ~{-(-total // 4):,} tok" in section


def test_json_has_a_context_cost_object(tmp_path: Path) -> None:
    cost = json.loads(render_json(summary_of(tmp_path)))["context_cost"]
    assert cost["tools_list_bytes"] == len(orjson.dumps(TOOLS))
    assert cost["tools_list_tokens"] == -(-cost["tools_list_bytes"] // 4)
    assert [t["name"] for t in cost["per_tool"]] == [t["name"] for t in TOOLS]
    assert cost["per_tool"][0] == {"name": "tool0", "bytes": 65, "tokens": 17}
    assert cost["prompts_list_bytes"] == 0 and cost["resources_list_tokens"] == 0
    assert cost["tool_results"]["count"] == 0


def test_no_list_no_section(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(build([c2s(req(1, "ping"))], "none"))
    capture = read_capture(path)
    text = render_text(build_summary(capture, path, replay_records(capture.records, 30.0).analyzer))
    assert "context cost" not in text
