"""`mcpspy mcp` in the hands of real clients from npm: the TypeScript SDK calls every tool on the demo's
capture and finds each planted fault; Claude Code and Codex connect to it and list its tools."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpspy.capture.records import LineRecord, Stream
from tests.agent.helpers import PLANTED, agent_command, make_demo
from tests.clients.test_real_clients import cli, client_env, codex_env, codex_exec_until, need_node, sessions

pytestmark = pytest.mark.clients

HERE = Path(__file__).resolve().parent
TOOL_NAMES = {
    "list_sessions", "session_report", "find_messages", "get_exchange",
    "explain_rule", "check_server", "diff_sessions", "wait_for_message",
}  # fmt: skip


def ts_calls(home: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[dict[str, Any]]]:
    done = subprocess.run(
        ["node", str(HERE / "ts_agent.mjs"), json.dumps(calls), "--", *agent_command(home)],
        capture_output=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    names, *results = (json.loads(line) for line in done.stdout.splitlines())
    return names, results


def test_typescript_sdk_finds_every_planted_fault(tmp_path: Path) -> None:
    need_node()
    make_demo(tmp_path)
    check = [sys.executable, "-m", "mcpspy.demo.server", "--bugs", "killer-schema"]
    names, results = ts_calls(
        tmp_path,
        [
            ("list_sessions", {}),
            ("session_report", {"limit": 200}),
            ("find_messages", {"filter": "is:flagged", "limit": 200, "max_bytes": 60}),
            ("get_exchange", {"id": "1"}),
            ("explain_rule", {"rule": "stdout.glued-prefix"}),
            ("diff_sessions", {"a": "helpdesk-demo", "b": "helpdesk-demo"}),
            ("wait_for_message", {"timeout": 0.2}),
            ("check_server", {"command": check, "era": "legacy", "timeout": 300}),
            ("session_report", {"session": "no-such-session"}),
        ],
    )
    assert set(names) == TOOL_NAMES
    by_tool: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        by_tool.setdefault(result["tool"], []).append(result)
    assert set(by_tool) == TOOL_NAMES
    report, missing = by_tool["session_report"]
    assert set(PLANTED.values()) <= {f["rule"] for f in report["structuredContent"]["findings"]}
    assert missing["isError"] is True and missing["text"][0].startswith("No session has the id or name")
    flagged = by_tool["find_messages"][0]["structuredContent"]["messages"]
    assert {"stdout.not-json", "pairing.unknown-id"} <= {rule for m in flagged for rule in m["flags"]}
    assert by_tool["get_exchange"][0]["structuredContent"]["state"] == "lost"  # the glued reply
    assert by_tool["explain_rule"][0]["structuredContent"]["fix"]
    checked = by_tool["check_server"][0]["structuredContent"]
    assert "tools.schema-combinator" in {f["rule"] for f in checked["findings"]}
    assert by_tool["wait_for_message"][0]["structuredContent"]["matched"] is False


def spied_agent(tmp_path: Path, client: str, env: dict[str, str]) -> Path:
    """A demo session, and ``client`` configured with `mcpspy mcp` on it behind mcpspy's proxy (whose
    capture shows what the client asked); the proxy's sessions directory."""
    data, spy = tmp_path / "data", tmp_path / "spy"
    make_demo(data)
    cli(
        [
            client,
            "mcp",
            "add",
            "mcpspy",
            "--",
            "mcpspy",
            "--home",
            str(spy),
            "--",
            "mcpspy",
            "mcp",
            "--home",
            str(data),
        ],
        env,
    )
    return spy


def test_claude_code_connects_to_mcpspy_mcp(tmp_path: Path) -> None:
    need_node()
    env = client_env(tmp_path)
    spy = spied_agent(tmp_path, "claude", env)
    listed = cli(["claude", "mcp", "list"], env)
    line = next(x for x in listed.stdout.splitlines() if x.startswith("mcpspy"))
    assert "Connected" in line, listed.stdout
    assert listed_tools(spy), "Claude Code never listed the tools of mcpspy mcp"


def test_codex_lists_the_tools_of_mcpspy_mcp(tmp_path: Path) -> None:
    need_node()
    env = codex_env(tmp_path)
    spy = spied_agent(tmp_path, "codex", env)
    codex_exec_until(env, tmp_path, lambda: listed_tools(spy), timeout=60)
    assert listed_tools(spy), "codex never listed the tools of mcpspy mcp"


def served_tools(capture: Any) -> set[str]:
    """The tool names a tools/list reply in the capture carried."""
    for record in capture.records:
        if isinstance(record, LineRecord) and record.stream is Stream.S2C:
            result = json.loads(record.data).get("result")
            if isinstance(result, dict) and isinstance(result.get("tools"), list):
                return {tool["name"] for tool in result["tools"]}
    return set()


def listed_tools(spy: Path) -> bool:
    return any(served_tools(capture) == TOOL_NAMES for capture in sessions(spy))
