"""The real Python SDK client calls every tool of `mcpspy mcp` on the demo's capture, in both eras,
and finds each planted fault through the tools alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agent.helpers import MODES, PLANTED, agent, call, make_demo, tool_error
from tests.conftest import MCPSPY


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("demo")
    make_demo(home)
    return home


def by_rule(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["rule"]: f for f in report["findings"]}


@pytest.mark.parametrize("mode", MODES)
async def test_every_planted_fault_is_found_through_the_tools(demo_home: Path, mode: str) -> None:
    async with agent(demo_home, mode) as client:
        listed = await call(client, "list_sessions", server="helpdesk")
        assert listed["total"] == 1 and listed["next_cursor"] is None
        session = listed["sessions"][0]
        assert session["errors"] >= 5 and session["live"] is False
        sid = session["id"]

        report = await call(client, "session_report", session=sid, limit=200)
        findings = by_rule(report)
        assert set(PLANTED.values()) <= set(findings), sorted(findings)
        assert report["session"]["era"] == "2026-07-28"
        assert report["session"]["captured"]["protocol_version"] == "2026-07-28"
        errors_only = await call(client, "session_report", session=sid, severity="error", limit=200)
        assert {f["severity"] for f in errors_only["findings"]} == {"error"}

        for rule in PLANTED.values():
            explained = await call(client, "explain_rule", rule=rule)
            assert explained["id"] == rule and explained["fix"] and explained["source"]

        # stray-ready: the line that is not JSON, found with the filter language
        stray = await call(client, "find_messages", session=sid, filter="dir:s2c kind:not-json")
        assert [m["captured"]["line"] for m in stray["messages"]] == ["ready"]
        assert stray["messages"][0]["flags"] == ["stdout.not-json"]

        # glued-ready: the reply to id 1 has "ready " before it, so the client lost it
        glued = await call(client, "get_exchange", session=sid, id="1")
        assert glued["state"] == "lost"
        assert glued["reply"]["captured"]["line"].startswith("ready {")
        assert "stdout.glued-prefix" in {f["rule"] for f in glued["findings"]}

        # wrong-id: a reply to an id nobody sent
        unknown = findings["pairing.unknown-id"]
        flagged = await call(client, "find_messages", session=sid, filter="is:flagged", limit=200)
        stray_reply = next(m for m in flagged["messages"] if m["seq"] == unknown["seq"])
        assert stray_reply["flags"] == ["pairing.unknown-id"] and stray_reply["captured"]["id"] == "1007"

        # reply-after-cancel: the exchange shows its cancel and the reply that came anyway
        late = findings["pairing.reply-after-cancel"]
        cancelled = await call(client, "get_exchange", session=sid, seq=late["related_seq"])
        assert cancelled["state"] == "cancelled" and cancelled["cancel"] is not None
        assert cancelled["reply"]["seq"] == late["seq"]
        assert "pairing.reply-after-cancel" in {f["rule"] for f in cancelled["findings"]}

        # killer-schema: the tools/list reply and its finding
        schema = findings["tools.schema-combinator"]
        listing = await call(client, "get_exchange", session=sid, seq=schema["seq"])
        assert listing["captured"]["method"] == "tools/list"
        assert "search_tickets" in listing["reply"]["captured"]["line"]

        # bodies are cut at the caller's limit, with the size and where to read the rest
        cut = await call(client, "find_messages", session=sid, filter="method:tools/list", max_bytes=20)
        reply = next(m for m in cut["messages"] if m["kind"] == "response")
        assert len(reply["captured"]["line"].encode()) <= 20 and reply["cut"] and reply["bytes"] > 20
        whole = await client.read_resource(reply["rest"])
        assert json.loads(whole.contents[0].text)["captured"]["line"].endswith("}")  # type: ignore[union-attr]

        # paging
        first = await call(client, "find_messages", session=sid, limit=5)
        second = await call(client, "find_messages", session=sid, limit=5, cursor=first["next_cursor"])
        assert first["total"] == second["total"] > 10
        assert first["messages"][-1]["seq"] < second["messages"][0]["seq"]

        same = await call(client, "diff_sessions", a=sid, b=sid)
        assert same["drift"] is False and same["changes"] == []

        nothing = await call(client, "wait_for_message", session="", filter="method:tools/list", timeout=0.3)
        assert nothing["matched"] is False and nothing["message"] is None

        resources = await client.list_resources()
        uris = [str(r.uri) for r in resources.resources]
        assert uris == [f"mcpspy://session/{sid}"]
        read = json.loads((await client.read_resource(uris[0])).contents[0].text)  # type: ignore[union-attr]
        assert set(PLANTED.values()) <= {f["rule"] for f in read["findings"]}
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == [
            "mcpspy://session/{session}/message/{seq}"
        ]

        prompts = await client.list_prompts()
        assert [p.name for p in prompts.prompts] == ["diagnose"]
        prompt = await client.get_prompt("diagnose", {"server": "helpdesk"})
        assert "list_sessions" in prompt.messages[0].content.text  # type: ignore[union-attr]


async def test_diff_against_a_baseline_sees_a_tool_that_was_added(demo_home: Path, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    saved = subprocess.run(
        [*MCPSPY, "diff", "--home", str(demo_home), "--save-baseline", str(baseline), "helpdesk-demo"],
        capture_output=True,
        timeout=60,
    )
    assert saved.returncode == 0, saved.stderr
    surface = json.loads(baseline.read_text())
    surface["tools"] = [t for t in surface["tools"] if t["name"] != "search_tickets"]
    baseline.write_text(json.dumps(surface))
    async with agent(demo_home) as client:
        drift = await call(client, "diff_sessions", a="helpdesk-demo", baseline=str(baseline))
    assert drift["drift"] is True
    assert [(c["area"], c["kind"], c["captured"]["item"]) for c in drift["changes"]] == [
        ("tools", "added", "search_tickets")
    ]


async def test_check_server_runs_mcpspy_check_on_the_command(demo_home: Path, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "mcpspy.demo.server", "--bugs", "stray-ready"]
    async with agent(tmp_path) as client:
        checked = await call(client, "check_server", command=command, timeout=300)
        assert checked["failed"] is True
        assert "stdout.not-json" in {f["rule"] for f in checked["findings"]}
        assert set(checked["captures"]) == {"modern", "legacy"}
        modern = await call(
            client, "session_report", session=checked["captures"]["modern"]
        )  # a capture by path
        assert "stdout.not-json" in {f["rule"] for f in modern["findings"]}
        timed_out = await tool_error(
            client, "check_server", command=[sys.executable, "-c", "import time; time.sleep(60)"], timeout=1
        )
        assert "did not finish within 1 seconds" in timed_out


async def test_bad_input_is_a_tool_error_of_one_sentence(demo_home: Path, tmp_path: Path) -> None:
    async with agent(demo_home) as client:
        assert "No session has the id or name 'nosuch'" in await tool_error(
            client, "session_report", session="nosuch"
        )
        assert "filter is not valid" in await tool_error(client, "find_messages", filter="method:")
        missing = str(tmp_path / "gone.jsonl")
        assert "No capture file exists" in await tool_error(client, "find_messages", session=missing)
        not_capture = tmp_path / "notes.jsonl"
        not_capture.write_text("hello\n")
        assert "is not an mcpspy capture" in await tool_error(
            client, "session_report", session=str(not_capture)
        )
        assert "Close: stdout.glued-prefix" in await tool_error(
            client, "explain_rule", rule="stdout.glued-prefx"
        )
        assert "either seq or id" in await tool_error(client, "get_exchange")
        assert "No request has the id" in await tool_error(client, "get_exchange", id="nope")
        assert "must be an integer" in await tool_error(client, "find_messages", limit="many")
        assert "There is no argument" in await tool_error(client, "list_sessions", colour="red")
        assert "cursor" in await tool_error(client, "find_messages", cursor="x")
        assert "since must be" in await tool_error(client, "list_sessions", since="last tuesday")
        assert "has ended" in await tool_error(client, "wait_for_message", session="helpdesk-demo", timeout=1)
        unknown = await client.call_tool("no_such_tool", {})
        assert unknown.is_error
