"""`mcpspy demo --no-tui` end to end, and the demo server on its own, through real pipes."""

from __future__ import annotations

import fcntl
import itertools
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import orjson
import pytest

from mcpspy.clients.profiles import DROPPING, profiles
from mcpspy.demo.client import META, request, ticket


def test_demo_report_names_every_planted_bug(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpspy", "demo", "--no-tui", "--home", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for rule, about in [
        ("stdout.not-json", "'ready'"),
        ("stdout.glued-prefix", "'ready '"),
        ("pairing.unknown-id", "id 1007"),
        ("pairing.reply-after-cancel", "id 8"),
        ("meta.missing", "id 3"),
        ("pairing.out-of-order", "id 6 overtook the reply to id 5"),
        ("tools.schema-combinator", "'search_tickets'"),
        ("request.sent-as-notification", "server/discover was sent without an id"),
    ]:
        assert any(rule in line and about in line for line in lines), (rule, done.stdout)
    captures = list(tmp_path.glob("*.jsonl"))
    assert len(captures) == 1
    report = subprocess.run(
        [sys.executable, "-m", "mcpspy", "report", "--json", str(captures[0]), "--fail-on", "never"],
        capture_output=True,
        timeout=60,
    )
    assert report.returncode == 0, report.stderr
    assert '"pairing.out-of-order"' in report.stdout.decode()
    # The planted top-level anyOf is named as dropped by the clients whose profiles drop it (issue 27).
    (planted,) = [f for f in orjson.loads(report.stdout)["findings"] if f["id"] == "tools.schema-combinator"]
    droppers = [p.name for p in profiles().values() if p.behaviours["top_level_composition"].does in DROPPING]
    assert planted["dropped_by"] == droppers and planted["severity"] == "error" and droppers
    titles = [profiles()[name].title for name in droppers]
    assert f"dropped by {', '.join(titles[:-1])} and {titles[-1]}" in planted["message"]


def talk(lines: list[bytes], *bugs: str) -> list[dict[str, object] | bytes]:
    """Send lines to the bare demo server, close stdin, and return what came back."""
    done = subprocess.run(
        [sys.executable, "-m", "mcpspy.demo.server", "--bugs", ",".join(bugs)],
        input=b"".join(line + b"\n" for line in lines),
        capture_output=True,
        timeout=30,
    )
    assert done.returncode == 0
    out: list[dict[str, object] | bytes] = []
    for line in done.stdout.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append(line)
    return out


def test_server_without_bugs_answers_by_the_lesson() -> None:
    replies = talk(
        [
            request(1, "server/discover"),
            orjson.dumps({"jsonrpc": "2.0", "method": "server/discover", "params": {"_meta": META}}),
            ticket(2, "1001", meta=False),
            b"hello server",
            request(3, "tickets/get"),
            ticket(4, "2318"),
            ticket(5, "1002"),
        ]
    )
    assert all(isinstance(r, dict) for r in replies)
    by_id = {r.get("id"): r for r in replies if isinstance(r, dict)}
    discover = by_id[1]["result"]
    assert isinstance(discover, dict)
    assert discover["resultType"] == "complete"
    assert discover["supportedVersions"] == ["2026-07-28"]
    assert discover["ttlMs"] == 3600000 and discover["cacheScope"] == "public"
    assert by_id[2]["error"] == {
        "code": -32602,
        "message": "Invalid params: _meta needs protocolVersion and clientCapabilities",
    }
    assert by_id[None]["error"] == {"code": -32700, "message": "Parse error"}
    assert by_id[3]["error"] == {"code": -32601, "message": "Method not found: tickets/get"}
    order = [r.get("id") for r in replies if isinstance(r, dict)]
    assert order.index(5) < order.index(4)  # the slow ticket is overtaken
    assert len(replies) == 6  # the notification got no answer


def test_server_legacy_initialize_and_cancel() -> None:
    init = orjson.dumps(
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}
    )
    cancel = orjson.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}})
    replies = talk([init, ticket(9, "2319", meta=False), cancel])
    assert len(replies) == 1
    first = replies[0]
    assert isinstance(first, dict)
    assert first["result"]["protocolVersion"] == "2025-06-18"  # type: ignore[index]
    late = talk([init, ticket(9, "2319", meta=False), cancel], "reply-after-cancel")
    assert [r.get("id") for r in late if isinstance(r, dict)] == [0, 9]


def test_server_stray_output_bugs() -> None:
    replies = talk([request(1, "server/discover")], "stray-ready", "glued-ready")
    assert replies[0] == b"ready"
    assert isinstance(replies[1], bytes) and replies[1].startswith(b'ready {"jsonrpc"')


async def test_tui_demo_shows_the_live_messages_arrive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `mcpspy demo` does: the scripted client plays while the TUI follows the capture.

    The client holds its fifth line until the app has shown a row (or 30 s), so a loaded
    machine that starts the app slowly cannot let the whole script finish first.
    """
    from mcpspy.demo.client import Conversation
    from mcpspy.demo.command import start_demo
    from mcpspy.tui.app import InspectorApp

    rows_shown = threading.Event()
    sent = itertools.count()
    send = Conversation.send

    def held_send(self: Conversation, line: bytes) -> None:
        if next(sent) == 4:
            rows_shown.wait(30)
        send(self, line)

    monkeypatch.setattr(Conversation, "send", held_send)
    path = tmp_path / "demo.jsonl"
    client = start_demo(path)
    app = InspectorApp(path, live=True)
    async with app.run_test(size=(120, 32)) as pilot:
        seen_while_running = False
        for _ in range(400):
            if app.rows and client.is_alive():
                seen_while_running = True
                rows_shown.set()
            found = {f.id for m in app.rows for f in m.findings}
            if not client.is_alive() and "pairing.reply-after-cancel" in found:
                break
            await pilot.pause(0.05)
        assert seen_while_running, "no message showed up while the demo was still playing"
        found = {f.id for m in app.rows for f in m.findings}
        assert {
            "stdout.not-json",
            "stdout.glued-prefix",
            "pairing.unknown-id",
            "meta.missing",
            "pairing.reply-after-cancel",
            "tools.schema-combinator",
        } <= found
        assert any(m.exchange is not None and m.exchange.out_of_order for m in app.rows)


def test_server_killer_schema_lists_a_tool_a_real_client_drops() -> None:
    clean = talk([request(1, "tools/list")])
    planted = talk([request(1, "tools/list")], "killer-schema")
    names = [[t["name"] for t in r["result"]["tools"]] for r in (*clean, *planted) if isinstance(r, dict)]  # type: ignore[index]
    assert names == [["get_ticket"], ["get_ticket", "search_tickets"]]
    (reply,) = planted
    assert isinstance(reply, dict)
    assert "anyOf" in reply["result"]["tools"][1]["inputSchema"]  # type: ignore[index]


def test_the_demo_tui_leaves_a_pointer_to_its_session_once_closed(tmp_path: Path) -> None:
    """`mcpspy demo` on a terminal, closed with q: one line left names the session and `mcpspy report`.

    Textual draws on stderr, so all three streams are the terminal; the line is what follows the
    TUI's leaving the alternate screen.
    """
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    demo = subprocess.Popen(
        [sys.executable, "-m", "mcpspy", "demo", "--home", str(tmp_path)],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**os.environ, "TERM": "xterm-256color"},
    )
    os.close(follower)
    drawn = b""
    try:
        deadline = time.monotonic() + 60
        while b"helpdesk" not in drawn and time.monotonic() < deadline:  # the header names the session
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                drawn += os.read(leader, 65536)
        assert b"helpdesk" in drawn, "the TUI never drew"
        os.write(leader, b"q")
        while demo.poll() is None or select.select([leader], [], [], 0.2)[0]:  # drain to the end
            if select.select([leader], [], [], 0.2)[0]:
                try:
                    drawn += os.read(leader, 65536)
                except OSError:  # the terminal's other end is closed: all read
                    break
            assert time.monotonic() < deadline + 30, "q did not close the demo"
        demo.wait(timeout=30)  # the terminal closed first: the process is ending
    finally:
        demo.kill()
        os.close(leader)
    (capture,) = tmp_path.glob("*.jsonl")
    left = drawn.rsplit(b"\x1b[?1049l", 1)[-1].decode()  # after the alternate screen
    lines = [line for line in re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", left).splitlines() if line.strip()]
    assert demo.returncode == 0 and len(lines) == 1, left
    assert str(capture) in lines[0] and f"mcpspy report {capture}" in lines[0]
    report = subprocess.run(
        [sys.executable, "-m", "mcpspy", "report", str(capture), "--fail-on", "never"],
        capture_output=True,
        timeout=60,
    )
    assert report.returncode == 0 and b"helpdesk" in report.stdout  # the pointer leads somewhere
