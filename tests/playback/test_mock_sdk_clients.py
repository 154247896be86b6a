"""Real SDK clients get from `mcpspy mock` what they got from the server it was recorded from."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Stream
from tests.conftest import MCPSPY, REPO, replay

pytestmark = pytest.mark.clients

CLIENTS = REPO / "tests" / "clients"
CI_MODULES = REPO / ".ci" / "clients" / "node_modules"  # where .ci/clients/install.sh puts them
NODE_MODULES = CLIENTS / "node_modules"  # ts_client.mjs resolves its imports from here
PY_CLIENT = [sys.executable, str(CLIENTS / "py_client.py")]
TS_CLIENT = ["node", str(CLIENTS / "ts_client.mjs")]
PY_SERVER = [sys.executable, str(CLIENTS / "servers" / "py_server.py")]
EVERYTHING = [str(NODE_MODULES / ".bin" / "mcp-server-everything")]


def need_node() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if not NODE_MODULES.exists() and CI_MODULES.is_dir():
        try:
            NODE_MODULES.symlink_to(CI_MODULES)
        except FileExistsError:  # another worker made it
            pass
    if not (NODE_MODULES / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.skip("the npm modules are absent: run .ci/clients/install.sh")


def summary(client: list[str], tool: str, arguments: dict[str, object], server: list[str]) -> list[object]:
    """What the client prints: its tool names, then the content of one call."""
    done = subprocess.run(
        [*client, tool, json.dumps(arguments), "--", *server],
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return [json.loads(line) for line in done.stdout.splitlines()]


def record(
    tmp_path: Path, client: list[str], tool: str, arguments: dict[str, object], server: list[str]
) -> tuple[Path, list[object]]:
    capture = tmp_path / "recorded.jsonl"
    printed = summary(client, tool, arguments, [*MCPSPY, "--capture", str(capture), "--", *server])
    return capture, printed


def test_python_sdk_client_gets_the_same_from_a_mock_of_a_python_sdk_server(tmp_path: Path) -> None:
    capture, recorded = record(tmp_path, PY_CLIENT, "add", {"a": 2, "b": 3}, PY_SERVER)
    assert recorded[0] == ["add"]
    assert (
        summary(PY_CLIENT, "add", {"a": 2, "b": 3}, [*MCPSPY, "mock", str(capture), "--timing", "fast"])
        == recorded
    )
    # behind the proxy, recorded timing: the mock's own capture holds the recorded server's bytes exactly
    of_mock = tmp_path / "of-the-mock.jsonl"
    proxied = summary(
        PY_CLIENT,
        "add",
        {"a": 2, "b": 3},
        [*MCPSPY, "--capture", str(of_mock), "--", *MCPSPY, "mock", str(capture)],
    )
    assert proxied == recorded
    assert replay(read_capture(of_mock), Stream.S2C) == replay(read_capture(capture), Stream.S2C)


def test_python_sdk_client_gets_an_error_for_a_call_the_recording_never_made(tmp_path: Path) -> None:
    capture, _ = record(tmp_path, PY_CLIENT, "add", {"a": 2, "b": 3}, PY_SERVER)
    done = subprocess.run(
        [
            *PY_CLIENT,
            "add",
            json.dumps({"a": 2, "b": 4}),
            "--",
            *MCPSPY,
            "mock",
            str(capture),
            "--timing",
            "fast",
        ],
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode != 0
    assert b"no recorded tools/call request matches" in done.stderr


def test_typescript_sdk_client_gets_the_same_from_a_mock_of_server_everything(tmp_path: Path) -> None:
    need_node()
    capture, recorded = record(tmp_path, TS_CLIENT, "echo", {"message": "hi"}, EVERYTHING)
    assert "echo" in recorded[0]  # type: ignore[operator]
    mocked = summary(
        TS_CLIENT, "echo", {"message": "hi"}, [*MCPSPY, "mock", str(capture), "--timing", "fast"]
    )
    assert mocked == recorded


def test_typescript_sdk_client_against_a_mock_recorded_with_the_python_client(tmp_path: Path) -> None:
    """Another client's initialize matches on the method; its tools/list and tools/call match exactly."""
    need_node()
    capture, recorded = record(tmp_path, PY_CLIENT, "add", {"a": 2, "b": 3}, PY_SERVER)
    mocked = summary(
        TS_CLIENT, "add", {"a": 2, "b": 3}, [*MCPSPY, "mock", str(capture), "--timing", "fast", "--strict"]
    )
    assert mocked[0] == recorded[0] == ["add"]
    assert mocked[1] == [{"type": "text", "text": "5"}]
