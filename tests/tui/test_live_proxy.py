"""`watch` end to end: a real proxy process, a real server, a client on real pipes, the app following."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import orjson

from mcpspy.capture.sessions import SessionInfo, list_sessions
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.widgets.rowlist import RowList
from tests.tui.test_app import header_of

SERVER = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": {"resultType": "complete", "echo": message["method"]}}
        print(json.dumps(reply), flush=True)
"""


async def live_session(home: Path) -> SessionInfo:
    for _ in range(200):
        live = [s for s in list_sessions([home]) if s.live]
        if live:
            return live[-1]
        await asyncio.sleep(0.05)
    raise AssertionError("the proxy never started a session")


def shown(table: RowList[object]) -> list[str]:
    return [table.row_text(i) for i in range(len(table.rows))]


async def test_watch_shows_each_message_as_the_client_sends_it(tmp_path: Path) -> None:
    server = tmp_path / "echo_server.py"
    server.write_text(SERVER)
    home = tmp_path / "sessions"
    proxy = subprocess.Popen(
        [sys.executable, "-m", "mcpspy", "--home", str(home), "--", sys.executable, str(server)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proxy.stdin is not None and proxy.stdout is not None
    try:
        session = await live_session(home)
        app = InspectorApp(session.path, live=session.live)
        async with app.run_test(size=(120, 30)) as pilot:
            table = app.message_list
            for id_, method in enumerate(["tools/list", "tools/call", "resources/list"], 1):
                request = orjson.dumps({"jsonrpc": "2.0", "id": id_, "method": method})
                proxy.stdin.write(request + b"\n")
                proxy.stdin.flush()
                reply = await asyncio.wait_for(asyncio.to_thread(proxy.stdout.readline), 10)
                assert orjson.loads(reply)["id"] == id_  # forwarded through the proxy
                for _ in range(200):
                    if len(table.rows) >= 2 * id_:
                        break
                    await pilot.pause(0.05)
                rows = shown(table)
                assert len(rows) == 2 * id_, rows  # this exchange is on screen before the next is sent
                request_cells, reply_cells = rows[-2].split(), rows[-1].split()
                assert request_cells[1:5] == ["→", "c2s", "request", str(id_)] and method in rows[-2]
                assert reply_cells[1:5] == ["←", "s2c", "response", str(id_)] and method in rows[-1]
                assert table.cursor == len(rows) - 1 and "following" in header_of(app)
            assert f"{len(table.rows)} msgs" in header_of(app)
    finally:
        proxy.stdin.close()
        proxy.wait(timeout=30)
    assert proxy.returncode == 0
