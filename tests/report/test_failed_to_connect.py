"""A server that never started, or died before its first reply: one finding, and `report` exits 1 (issue 19)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Event, LifecycleRecord
from tests.conftest import python_server

SCRIPT = Path(sys.executable).with_name("mcpspy")  # the installed console script: the real executable
MCPSPY = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "mcpspy"]
INITIALIZE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
)


def proxy_then_report(
    tmp_path: Path, command: list[str], stdin: bytes
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    capture = tmp_path / "c.jsonl"
    subprocess.run(
        [*MCPSPY, "--capture", str(capture), "--", *command], input=stdin, capture_output=True, timeout=60
    )
    report = subprocess.run(
        [*MCPSPY, "report", "--json", str(capture)], capture_output=True, text=True, timeout=60
    )
    return capture, report


def test_a_command_that_cannot_start_is_a_failed_connection(tmp_path: Path) -> None:
    capture, report = proxy_then_report(tmp_path, ["no-such-cmd-mcpspy", "--stdio"], b"")
    exited = next(r for r in read_capture(capture).records if isinstance(r, LifecycleRecord))
    assert exited.event is Event.SERVER_EXITED and exited.details["command"] == "no-such-cmd-mcpspy --stdio"
    assert report.returncode == 1, report.stderr
    (finding,) = json.loads(report.stdout)["findings"]
    assert finding["id"] == "lifecycle.failed-to-connect" and finding["severity"] == "error"
    assert finding["message"] == (
        "the server never started: No such file or directory (exit code 127); "
        "command: no-such-cmd-mcpspy --stdio"
    )
    text = subprocess.run([*MCPSPY, "report", str(capture)], capture_output=True, text=True, timeout=60)
    assert text.returncode == 1 and "lifecycle.failed-to-connect" in text.stdout


def test_a_server_that_dies_before_its_first_reply_is_named_with_its_stderr(tmp_path: Path) -> None:
    server = python_server(
        "import sys\nsys.stdin.readline()\n"
        "sys.stderr.write('starting\\nImportError: no module named \\x1b[2Jzod\\n')\nsys.exit(3)\n"
    )
    _, report = proxy_then_report(tmp_path, server, INITIALIZE)
    assert report.returncode == 1, report.stderr
    (finding,) = json.loads(report.stdout)["findings"]
    assert finding["id"] == "lifecycle.failed-to-connect"
    message = finding["message"]
    assert message.startswith("the server exited before its first reply (exit code 3); command: ")
    assert message.endswith("its last stderr lines: starting | ImportError: no module named \\x1b[2Jzod")
    assert "\x1b" not in message
