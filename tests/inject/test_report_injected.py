"""An injected fault is shown as such in every view and counted as the server's in none."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

from mcpspy.capture.reader import read_capture
from mcpspy.replay_policy import replay_records
from mcpspy.tui.export import render_export, write_private
from tests.conftest import MCPSPY

#: A server with no fault of its own, speaking the legacy era properly.
SERVER = r"""
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "s", "version": "1"}}
    else:
        result = {"tools": []}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""


def mcpspy(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*MCPSPY, *args], capture_output=True, timeout=120)


class Client:
    """A client that waits for each reply (skipping lines that are not JSON), as a lenient one does."""

    def __init__(self, capture: Path, specs: list[str]) -> None:
        """``capture``: a file, or (a directory) the sessions directory."""
        options = [a for spec in specs for a in ("--inject", spec)]
        where = ["--home", str(capture)] if capture.is_dir() else ["--capture", str(capture)]
        self.proc = subprocess.Popen(
            [*MCPSPY, *where, *options, "--", sys.executable, "-c", SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        self.buffer = b""

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")

    def ask(self, i: int, method: str, params: str = "{}", wait: float = 1.0) -> bool:
        """Send a request; True once its reply came within ``wait`` seconds."""
        self.send(
            b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}' % (i, method.encode(), params.encode())
        )
        while True:
            line = self.line(wait)
            if line is None:
                return False
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("id") == i:
                return True

    def line(self, wait: float) -> bytes | None:
        assert self.proc.stdout is not None
        while b"\n" not in self.buffer:
            if not select.select([self.proc.stdout], [], [], wait)[0]:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def start(self) -> None:
        init = '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}'
        assert self.ask(1, "initialize", init, wait=30)
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=60)


def test_injected_findings_are_flagged_and_never_counted(tmp_path: Path) -> None:
    home = tmp_path / "sessions"
    home.mkdir(mode=0o700)
    client = Client(
        home,
        ["stdout.not-json@tools/list", "pairing.duplicate-response@id=3", "stdout.crlf@resources/read"],
    )
    client.start()
    assert client.ask(2, "tools/list")
    assert client.ask(3, "tools/list")
    assert client.ask(4, "tools/list")
    assert client.close() == 0
    (capture,) = home.glob("*.jsonl")
    analyzer = replay_records(read_capture(capture).records).analyzer
    assert analyzer.findings == []  # the server did nothing wrong
    assert {f.id for f in analyzer.injected_findings} == {"stdout.not-json", "pairing.duplicate-response"}
    assert all(f.injected for f in analyzer.injected_findings)

    report = mcpspy("report", str(capture), "--json")
    assert report.returncode == 0, report.stderr  # --fail-on error: the injected errors do not count
    data = json.loads(report.stdout)
    assert {(f["id"], f["injected"]) for f in data["findings"]} == {
        ("stdout.not-json", True),
        ("pairing.duplicate-response", True),
    }
    injected = data["injected"]
    assert [(i["fault"], i["spec"], i["reaction"]) for i in injected] == [
        ("stdout.not-json", "stdout.not-json@tools/list", "carried-on"),
        ("pairing.duplicate-response", "pairing.duplicate-response@id=3", "carried-on"),
    ]
    assert injected[0]["findings"] == ["stdout.not-json"]
    assert injected[1]["findings"] == ["pairing.duplicate-response"]
    assert data["unmatched"] == [
        {"fault": "stdout.crlf", "spec": "stdout.crlf@resources/read", "where": "a reply to resources/read"}
    ]
    assert mcpspy("report", str(capture), "--fail-on", "warning").returncode == 0

    text = mcpspy("report", str(capture)).stdout.decode()
    assert "injected (2): made by mcpspy --inject" in text
    assert "stdout.not-json [injected]" in text
    assert "unmatched --inject stdout.crlf@resources/read" in text
    html = mcpspy("report", str(capture), "--format", "html").stdout.decode()
    assert '<h2 id="injected">Injected (2)</h2>' in html and "[injected by mcpspy --inject" in html
    (session,) = json.loads(mcpspy("sessions", "--json", "--home", str(home)).stdout)
    assert session["findings"] == {"error": 0, "warning": 0, "info": 0}


def test_the_client_reaction_is_read_from_the_wire(tmp_path: Path) -> None:
    """A dropped reply is cancelled, a stray line before a reply carried on from, a duplicate
    reply followed by closing stdin: gave up."""
    capture = tmp_path / "c.jsonl"
    client = Client(
        capture, ["pairing.unanswered@id=2", "stdout.not-json@id=3", "pairing.duplicate-response@id=4"]
    )
    client.start()
    assert not client.ask(2, "tools/list")
    client.send(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}')
    assert client.ask(3, "tools/list")
    assert client.ask(4, "tools/list")
    assert client.close() == 0
    data = json.loads(mcpspy("report", str(capture), "--json").stdout)
    reactions = {i["spec"]: i["reaction"] for i in data["injected"]}
    assert reactions == {
        "pairing.unanswered@id=2": "cancelled",
        "stdout.not-json@id=3": "carried-on",
        "pairing.duplicate-response@id=4": "gave-up",
    }
    # The dropped reply's request, never answered, is the injection's doing, not the server's.
    assert [f["id"] for f in data["findings"] if not f["injected"]] == []


def test_a_client_that_starts_the_server_again_restarted(tmp_path: Path) -> None:
    """After a crash, the same command started again in the same sessions directory: restarted."""
    home = tmp_path / "sessions"
    home.mkdir(mode=0o700)
    crashed = Client(home, ["lifecycle.crash-in-flight@tools/list"])
    crashed.start()
    assert not crashed.ask(2, "tools/list", wait=10)  # the server died instead of answering
    assert crashed.close() == 128 + 9
    again = Client(home, [])
    again.start()
    assert again.ask(2, "tools/list")
    assert again.close() == 0
    first = min(home.glob("*.jsonl"))
    data = json.loads(mcpspy("report", str(first), "--json").stdout)
    (injected,) = data["injected"]
    assert injected["fault"] == "lifecycle.crash-in-flight"
    assert injected["reaction"] == "restarted"
    assert [f["id"] for f in data["findings"] if not f["injected"]] == []
    # the TUI's export (`e`) writes what `report` prints
    exported = tmp_path / "exported.json"
    write_private(exported, render_export(first, "json", None), overwrite=False)
    assert json.loads(exported.read_bytes())["injected"] == data["injected"]
