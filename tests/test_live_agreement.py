"""A live capture gives one answer in every view: report, sessions, stats and the TUI's header.

A real proxy runs a server that never answers; the client's tools/call waits.
While the proxy lives, the request is pending in every view (no view closes
the books of a capture still being written); once the proxy has stopped,
every view calls it unanswered. Which of the two is decided once, by
``open_capture``, and the ``proxy-stopped`` record ends a capture for all.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcpspy.tui.app import InspectorApp
from tests.conftest import MCPSPY
from tests.tui.test_app import header_of

#: Reads every line and answers none; exits when its stdin closes.
SILENT_SERVER = "import sys\nfor _ in sys.stdin.buffer:\n    pass\n"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "wait", "arguments": {}, "_meta": META},
}


@pytest.fixture
def live_proxy(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path, Path]]:
    """A proxy with one tools/call sent and never answered, still running; its home and capture."""
    home = tmp_path / "home"
    proxy = subprocess.Popen(
        [*MCPSPY, "--home", str(home), "--", sys.executable, "-c", SILENT_SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert proxy.stdin is not None
        proxy.stdin.write(orjson.dumps(CALL) + b"\n")
        proxy.stdin.flush()
        capture = wait_for(lambda: recorded_call(home))
        yield proxy, home, capture
    finally:
        if proxy.poll() is None:
            proxy.kill()
        proxy.wait(timeout=30)


def wait_for(found: Any, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (value := found()) is not None:
            return value
        time.sleep(0.05)
    raise AssertionError("the proxy did not record the call")


def recorded_call(home: Path) -> Path | None:
    for path in home.glob("*.jsonl"):
        if b"tools/call" in path.read_bytes():
            return path
    return None


def mcpspy_json(*args: str) -> Any:
    result = subprocess.run([*MCPSPY, *args], capture_output=True, timeout=120)
    assert result.returncode in (0, 1), result.stderr.decode()
    return json.loads(result.stdout)


def severity_counts(findings: list[dict[str, Any]]) -> dict[str, int]:
    counts = {"error": 0, "warning": 0, "info": 0}
    for finding in findings:
        counts[finding["severity"]] += 1
    return counts


def views(home: Path, capture: Path) -> dict[str, Any]:
    """What report, sessions and stats say of the capture's one tools/call."""
    report = mcpspy_json("report", str(capture), "--json", "--fail-on", "never")
    (session,) = mcpspy_json("sessions", "--json", "--home", str(home))
    stats = mcpspy_json("stats", "--json", "--home", str(home))
    (server,) = stats["servers"]
    (tool,) = server["tools"]
    (exchange,) = report["exchanges"]
    return {
        "state": exchange["state"],
        "unanswered findings": [f["seq"] for f in report["findings"] if f["id"] == "pairing.unanswered"],
        "report counts": severity_counts(report["findings"]),
        "sessions counts": session["findings"],
        "sessions live": session["live"],
        "stats unanswered": tool["unanswered"],
    }


async def tui_header(capture: Path, live: bool) -> tuple[dict[str, int], int]:
    """The TUI header's finding counts and pending requests, once it has read the capture."""
    app = InspectorApp(capture, live=live)
    async with app.run_test(size=(160, 40)) as pilot:
        for _ in range(600):
            text = header_of(app)
            if re.search(r"\b1 msgs\b", text) and "analysing" not in text and (live or "ended" in text):
                break
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        text = header_of(app)
        counts = re.search(r"✖ (\d+) ▲ (\d+) · (\d+)", text)
        pending = re.search(r"(\d+) pending", text)
        assert counts and pending, text
    errors, warnings, infos = map(int, counts.groups())
    return {"error": errors, "warning": warnings, "info": infos}, int(pending.group(1))


async def test_every_view_agrees_on_a_live_capture_and_on_it_ended(
    live_proxy: tuple[subprocess.Popen[bytes], Path, Path],
) -> None:
    proxy, home, capture = live_proxy
    live = views(home, capture)
    assert live["state"] == "pending"
    assert live["unanswered findings"] == []
    assert live["sessions live"] is True
    assert live["sessions counts"] == live["report counts"]
    assert live["stats unanswered"] == 0
    assert await tui_header(capture, live=True) == (live["report counts"], 1)

    assert proxy.stdin is not None
    proxy.stdin.close()  # the client goes: the server reads EOF and exits, and the proxy stops
    proxy.wait(timeout=60)
    ended = views(home, capture)
    assert ended["state"] == "unanswered"
    assert len(ended["unanswered findings"]) == 1
    assert ended["sessions live"] is False
    assert ended["sessions counts"] == ended["report counts"]
    assert ended["stats unanswered"] == 1
    assert await tui_header(capture, live=False) == (ended["report counts"], 0)
