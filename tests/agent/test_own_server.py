"""`mcpspy mcp` judged by mcpspy itself: its tools/list is small and portable, `mcpspy check` passes it in
both eras; and it is mcpspy's subcommand whatever else is on PATH."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from mcpspy.analysis.context_cost import context_cost
from mcpspy.analysis.model import Severity
from mcpspy.replay_policy import open_capture
from tests.agent.helpers import MODES, call
from tests.conftest import MCPSPY

TOOLS_LIST_BUDGET = 2500  # estimated tokens (README says so)


@pytest.mark.parametrize("mode", MODES)
async def test_its_own_capture_is_clean_and_its_tools_list_is_small(tmp_path: Path, mode: str) -> None:
    spy, data = tmp_path / "spy", tmp_path / "data"
    data.mkdir()
    command = [*MCPSPY, "--home", str(spy), "--", *MCPSPY, "mcp", "--home", str(data)]
    async with Client(StdioServerParameters(command=command[0], args=command[1:]), mode=mode) as client:  # type: ignore[arg-type]
        tools = await client.list_tools()
        assert len(tools.tools) == 8
        await call(client, "explain_rule", rule="stdout.not-json")
    [capture] = spy.glob("*.jsonl")
    analyzer = open_capture(capture).analyzer
    cost = context_cost(analyzer.exchanges, analyzer.message)
    assert 0 < cost.tools.tokens < TOOLS_LIST_BUDGET, cost.tools
    problems = [f"{f.id}: {f.message}" for f in analyzer.findings if f.severity >= Severity.WARNING]
    assert problems == []
    assert [f.id for f in analyzer.findings if f.id.startswith("tools.")] == []


def test_mcpspy_check_passes_it_in_both_eras(tmp_path: Path) -> None:
    """No check fails; and a line that is not JSON gets its -32700 (the SDK alone leaves it unanswered).
    Warnings are not held against it here: some checks are timed, and this machine is shared."""
    done = subprocess.run(
        [
            *MCPSPY,
            "check",
            "--format",
            "json",
            "--home",
            str(tmp_path / "checks"),
            "--",
            *MCPSPY,
            "mcp",
            "--home",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["counts"]["fail"] == 0 and set(report["capture"]) == {"modern", "legacy"}
    parse_error = {c["era"]: c["status"] for c in report["checks"] if c["id"] == "robust.parse-error"}
    assert parse_error == {"modern": "pass", "legacy": "pass"}


def test_mcp_is_mcpspys_subcommand_even_with_an_mcp_program_on_path(tmp_path: Path) -> None:
    impostor = tmp_path / "mcp"
    impostor.write_text("#!/bin/sh\necho impostor\n")
    impostor.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    done = subprocess.run([*MCPSPY, "mcp", "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0 and "impostor" not in done.stdout
    assert "usage: mcpspy mcp" in done.stdout


def test_without_the_sdk_it_names_the_extra(tmp_path: Path) -> None:
    """The SDK hidden from the import system: one line naming mcpspy[mcp], exit 2, no traceback."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('mcp', 'mcp_types'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}:{os.environ.get('PYTHONPATH', '')}".rstrip(":")}
    done = subprocess.run(
        [*MCPSPY, "mcp"], capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2
    assert done.stderr == "mcpspy mcp: needs the MCP SDK: pip install 'mcpspy[mcp]'\n"
