"""Shared by the tests of `mcpspy mcp`: a demo capture, a real SDK client on `mcpspy mcp`, the untrusted walk."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.conftest import MCPSPY

# What the demo plants (mcpspy/demo/server.py), by the rule that names each fault.
PLANTED = {
    "stray-ready": "stdout.not-json",
    "glued-ready": "stdout.glued-prefix",
    "wrong-id": "pairing.unknown-id",
    "reply-after-cancel": "pairing.reply-after-cancel",
    "killer-schema": "tools.schema-combinator",
}
MODES = ("auto", "legacy")  # auto: server/discover, the 2026-07-28 era; legacy: the initialize handshake


def make_demo(home: Path) -> None:
    """One planted-bug session in ``home``, as a user makes it."""
    done = subprocess.run(
        [*MCPSPY, "demo", "--no-tui", "--home", str(home)], capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")


def agent_command(home: Path) -> list[str]:
    return [*MCPSPY, "mcp", "--home", str(home)]


@asynccontextmanager
async def agent(home: Path, mode: str = "auto", **options: Any) -> AsyncIterator[Client]:
    """The Python SDK's client on `mcpspy mcp --home HOME`, in the era ``mode`` asks for."""
    command = agent_command(home)
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(params, mode=mode, **options) as client:  # type: ignore[arg-type]
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured result; the call must succeed, and its text must be mcpspy's JSON of it."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    structured = result.structured_content
    assert isinstance(structured, dict)
    sentence, body = (c.text for c in result.content)  # type: ignore[union-attr]
    assert json.loads(body) == structured
    assert "\n" not in sentence
    return structured


async def tool_error(client: Client, tool: str, **arguments: Any) -> str:
    """The one sentence of a tool error (isError: true, never a protocol error)."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    assert len(result.content) == 1
    sentence = result.content[0].text  # type: ignore[union-attr]
    assert "\n" not in sentence and "Traceback" not in sentence and sentence.endswith("."), sentence
    return sentence


def outside_captured(value: Any, under_captured: bool = False) -> Iterator[tuple[str, bool]]:
    """Every string in a result, and whether it sits under a ``captured`` key (keys count as strings)."""
    if isinstance(value, dict):
        for key, sub in value.items():
            yield key, under_captured
            yield from outside_captured(sub, under_captured or key == "captured")
    elif isinstance(value, list):
        for sub in value:
            yield from outside_captured(sub, under_captured)
    elif isinstance(value, str):
        yield value, under_captured


def planted_rules(report: dict[str, Any]) -> set[str]:
    return {f["rule"] for f in report["findings"]}
