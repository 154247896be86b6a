"""A hostile server's words reach the agent only inside captured fields, with no escape byte anywhere."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.agent.untrusted import cut
from tests.agent.helpers import MODES, agent, call, outside_captured
from tests.agent.hostile_server import INJECTION
from tests.conftest import MCPSPY

HERE = Path(__file__).resolve().parent
ESCAPE_BYTES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
CLIENT_LINES = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 4, "method": "prompts/list"},
]


@pytest.fixture(scope="module")
def hostile_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("hostile")
    stdin = "".join(json.dumps(m) + "\n" for m in CLIENT_LINES).encode()
    done = subprocess.run(
        [*MCPSPY, "--home", str(home), "--", sys.executable, str(HERE / "hostile_server.py")],
        input=stdin,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert INJECTION.encode() in done.stdout  # the server did say it
    return home


def assert_contained(result: Any) -> int:
    """No escape character anywhere, the injected sentence only under captured; how often it was seen."""
    seen = 0
    for text, under_captured in outside_captured(result):
        assert ESCAPE_BYTES.search(text) is None, text
        if INJECTION in text:
            assert under_captured, text
            seen += 1
    return seen


@pytest.mark.parametrize("mode", MODES)
async def test_hostile_capture_stays_in_captured_fields(hostile_home: Path, mode: str) -> None:
    async with agent(hostile_home, mode) as client:
        session = (await call(client, "list_sessions"))["sessions"][0]["id"]
        results: list[Any] = []
        for tool, arguments in [
            ("list_sessions", {}),
            ("session_report", {"session": session, "limit": 200}),
            ("find_messages", {"session": session, "limit": 200, "max_bytes": 65536}),
            ("get_exchange", {"session": session, "id": "2"}),
            ("get_exchange", {"session": session, "id": "3"}),
            ("get_exchange", {"session": session, "id": "4"}),
            ("explain_rule", {"rule": "tools.name-format"}),
            ("diff_sessions", {"a": session, "b": session}),
            ("wait_for_message", {"timeout": 0.2}),
        ]:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, (tool, result.content)
            sentence, body = (c.text for c in result.content)  # type: ignore[union-attr]
            assert INJECTION not in sentence and ESCAPE_BYTES.search(sentence) is None, sentence
            assert json.loads(body) == result.structured_content
            results.append(result.structured_content)
        resources = await client.list_resources()
        for resource in resources.resources:
            read = await client.read_resource(resource.uri)
            results.append(json.loads(read.contents[0].text))  # type: ignore[union-attr]
        seen = sum(assert_contained(r) for r in results)
        assert seen >= 10  # the tool descriptions, replies, stray line, stderr and findings all quote it
        report = results[1]
        rules = {f["rule"] for f in report["findings"]}
        assert {
            "stdout.not-json",
            "tools.name-format",
            "tools.schema-combinator",
            "pairing.unknown-id",
        } <= rules
        for finding in report["findings"]:
            assert INJECTION not in finding["sentence"]


@given(
    st.binary(max_size=300) | st.text(max_size=100).map(str.encode), st.integers(min_value=0, max_value=400)
)
def test_a_cut_line_is_the_head_of_the_whole_line_and_shows_no_control(data: bytes, limit: int) -> None:
    shown, was_cut = cut(data, limit)
    whole, _ = cut(data, len(data))
    assert was_cut == (len(data) > limit)
    assert ESCAPE_BYTES.search(shown) is None
    assert whole.startswith(shown)
    assert shown == whole or was_cut


async def test_hostile_drift_stays_in_captured_fields(hostile_home: Path, tmp_path: Path) -> None:
    """A baseline whose tools and server info differ from the hostile session: every change names hostile
    items, keys and values, each under captured."""
    baseline = tmp_path / "baseline.json"
    session = str(next(hostile_home.glob("*.jsonl")))
    saved = subprocess.run(
        [*MCPSPY, "diff", "--save-baseline", str(baseline), session], capture_output=True, timeout=60
    )
    assert saved.returncode == 0, saved.stderr
    surface = json.loads(baseline.read_text())
    for tool in surface["tools"]:
        tool["description"] = "before"
    surface["server"] = {"name": "before"}
    baseline.write_text(json.dumps(surface))
    async with agent(hostile_home) as client:
        drift = await call(client, "diff_sessions", a=session, baseline=str(baseline))
    assert drift["drift"] is True and len(drift["changes"]) >= 3
    assert assert_contained(drift) >= 3


async def test_a_crafted_capture_header_shows_no_escape(tmp_path: Path) -> None:
    """A capture file written by hand, its header's id, name and start full of escapes: mcpspy's own
    sentences and fields show them made visible."""
    hostile = "\x1b]0;pwned\x07\u202e"
    header = {"format": "1.1", "session": f"id{hostile}", "started": f"2026-12-04T10:00:00.000Z{hostile}",
              "command": [hostile], "name": hostile, "cwd": "/", "mcpspy": "0.1.0", "pid": 1 << 22}  # fmt: skip
    request = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    record = {"seq": 1, "t": 0.01, "stream": "c2s", "text": json.dumps(request)}
    (tmp_path / "crafted.jsonl").write_text(json.dumps(header) + "\n" + json.dumps(record) + "\n")
    async with agent(tmp_path) as client:
        for tool, arguments in [
            ("list_sessions", {}),
            ("session_report", {}),
            ("find_messages", {}),
            ("get_exchange", {"seq": 1}),
        ]:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, (tool, result.content)
            for block in result.content:
                assert ESCAPE_BYTES.search(block.text) is None, block.text  # type: ignore[union-attr]
            assert_contained(result.structured_content)
        listed = await client.list_resources()
        assert all(ESCAPE_BYTES.search(str(r.uri) + r.name) is None for r in listed.resources)
