"""Following a server across restarts: which session comes next, and the app switching on its own.

The pure part (``NextSession``) on hand-made captures; then real proxies: one
ends, a second starts, and the open app shows the second without a key.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import orjson

from mcpspy.capture.format import encode_header
from mcpspy.capture.records import Header
from mcpspy.capture.sessions import SessionInfo, read_session
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.restarts import OTHER_NAME_AFTER, NextSession
from tests.tui.test_app import header_of
from tests.tui.test_live_proxy import SERVER, live_session

DEAD_PID = 2**22 + 12345  # above the usual pid_max: no such process


def capture(home: Path, started: str, name: str, live: bool = False) -> SessionInfo:
    pid = os.getpid() if live else DEAD_PID
    header = Header("1.0", f"s-{name}-{started}", started, ("python", f"{name}.py"), name, "/", "0.1.0", pid)
    path = home / f"{started.replace(':', '')}-{name}-{pid}.jsonl"
    path.write_bytes(encode_header(header))
    info = read_session(path)
    assert info is not None
    return info


def test_only_sessions_that_start_later_are_followed(tmp_path: Path) -> None:
    old = capture(tmp_path, "2026-12-03T09:00:00.000Z", "helpdesk")
    current = capture(tmp_path, "2026-12-03T10:00:00.000Z", "helpdesk", live=True)
    watch = NextSession([tmp_path], current)
    assert watch.poll(ended=False, now=0.0) is None and watch.still_live()
    assert watch.poll(ended=True, now=1.0) is None  # the old session was there before: never a candidate
    new = capture(tmp_path, "2026-12-03T10:05:00.000Z", "helpdesk")
    assert watch.poll(ended=True, now=1.2) == new
    assert old != new


def test_the_same_server_first_then_any_after_a_grace(tmp_path: Path) -> None:
    current = capture(tmp_path, "2026-12-03T10:00:00.000Z", "helpdesk")
    watch = NextSession([tmp_path], current)
    other = capture(tmp_path, "2026-12-03T10:00:01.000Z", "weather")
    assert watch.poll(ended=False, now=0.0) is None  # not ended yet: nothing to switch to
    assert watch.poll(ended=True, now=1.0) is None  # another server: wait a little for ours
    same = capture(tmp_path, "2026-12-03T10:00:02.000Z", "helpdesk")
    assert watch.poll(ended=True, now=1.5) == same
    watch = NextSession([tmp_path], same)
    newer_other = capture(tmp_path, "2026-12-03T10:00:03.000Z", "weather")
    assert watch.poll(ended=True, now=10.0) is None
    assert watch.poll(ended=True, now=10.0 + OTHER_NAME_AFTER) == newer_other
    assert other != newer_other


def test_a_capture_without_its_header_yet_is_read_later(tmp_path: Path) -> None:
    current = capture(tmp_path, "2026-12-03T10:00:00.000Z", "helpdesk")
    watch = NextSession([tmp_path], current)
    empty = tmp_path / "20261203T100001.000Z-helpdesk-1.jsonl"
    empty.write_bytes(b"")
    assert watch.poll(ended=True, now=0.0) is None
    header = Header("1.0", "s2", "2026-12-03T10:00:01.000Z", ("python",), "helpdesk", "/", "0.1.0", DEAD_PID)
    empty.write_bytes(encode_header(header))
    found = watch.poll(ended=True, now=0.1)
    assert found is not None and found.path == empty


def start_proxy(home: Path, server: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "mcpspy", "--home", str(home), "--", sys.executable, str(server)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def ask(proxy: subprocess.Popen[bytes], id_: int, method: str) -> None:
    assert proxy.stdin is not None and proxy.stdout is not None
    proxy.stdin.write(orjson.dumps({"jsonrpc": "2.0", "id": id_, "method": method}) + b"\n")
    proxy.stdin.flush()
    assert orjson.loads(proxy.stdout.readline())["id"] == id_


async def test_watch_switches_to_the_restarted_server_without_a_key(tmp_path: Path) -> None:
    server = tmp_path / "echo_server.py"
    server.write_text(SERVER)
    home = tmp_path / "sessions"
    first = start_proxy(home, server)
    second: subprocess.Popen[bytes] | None = None
    try:
        session = await live_session(home)
        app = InspectorApp(session.path, live=True, session_dirs=[home], follow_restarts=True)
        async with app.run_test(size=(120, 30)) as pilot:
            await asyncio.to_thread(ask, first, 1, "tools/list")
            await pilot.press("slash", *"dir:s2c", "enter")  # the filter must survive the restart
            for _ in range(200):
                if app.message_list.all_messages and len(app.rows) == 1:
                    break
                await pilot.pause(0.05)
            assert first.stdin is not None
            first.stdin.close()  # the client goes away: the session ends
            await asyncio.to_thread(first.wait, 30)
            second = start_proxy(home, server)
            await asyncio.to_thread(ask, second, 7, "resources/list")
            for _ in range(200):  # no key is pressed: the app switches on its own
                if app.path != session.path and len(app.rows) == 1 and app.rows[0].id == 7:
                    break
                await pilot.pause(0.05)
            assert app.path != session.path and app.path.parent == home
            assert [m.method for m in app.message_list.all_messages] == ["resources/list", "resources/list"]
            assert [m.id for m in app.rows] == [7]  # still filtered: dir:s2c
            header = header_of(app)
            assert "filter: dir:s2c" in header and "new one started" in header.split("\n")[1]
            assert app.path.name in header.split("\n")[1] and "following" in header
    finally:
        for proxy in (first, second):
            if proxy is not None and proxy.poll() is None:
                assert proxy.stdin is not None
                proxy.stdin.close()
                proxy.wait(timeout=30)
