"""`watch --all` end to end: real proxy processes, real servers, clients on real pipes, one view of them all."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import orjson
from textual.widgets import Static

from mcpspy.analysis.model import Message
from mcpspy.capture.format import FORMAT_VERSION, encode_header, encode_line
from mcpspy.capture.records import Header, Stream
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.panes.filter_bar import FilterBar
from mcpspy.tui.panes.inflight import InFlightPane
from tests.tui.test_app import header_of
from tests.tui.test_live_proxy import SERVER, shown

HOSTILE = "ev\x1b[31mil[b]"  # a crafted capture's server name: shown made visible, never obeyed


def crafted_live_capture(home: Path) -> None:
    """A capture whose header names a hostile server, live (this test's pid), with one line."""
    line = orjson.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {}})
    live_capture(home / "zz-crafted.jsonl", HOSTILE, "2026-12-04T00:00:00.000Z", [(0.1, Stream.S2C, line)])


def live_capture(path: Path, name: str, started: str, lines: list[tuple[float, Stream, bytes]]) -> None:
    """A capture of server ``name``, live (this test's pid: its proxy runs as long as the test)."""
    header = Header(FORMAT_VERSION, path.stem, started, ("x",), name, "/", "0", os.getpid())
    records = [encode_line(seq, t, stream, line, True) for seq, (t, stream, line) in enumerate(lines, 1)]
    path.write_bytes(encode_header(header) + b"".join(records))


def request(id_: int, method: str) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": id_, "method": method})


async def test_in_flight_and_timeline_show_every_session_on_one_clock(tmp_path: Path) -> None:
    """Under --all, what waits is what waits anywhere: every session's in-flight requests and bars."""
    home = tmp_path / "sessions"
    home.mkdir()
    # alpha began 10 s before beta: its request (t=1) is older than beta's (t=2) by the clock
    live_capture(
        home / "a.jsonl", "alpha", "2026-12-04T10:00:00.000Z", [(1.0, Stream.C2S, request(7, "tools/call"))]
    )
    live_capture(
        home / "b.jsonl",
        "beta",
        "2026-12-04T10:00:10.000Z",
        [(0.5, Stream.C2S, request(7, "tools/list")), (0.6, Stream.S2C, b'{"jsonrpc":"2.0","id":7,"result":{}}'),
         (2.0, Stream.C2S, request(8, "prompts/get"))],
    )  # fmt: skip
    app = InspectorApp(home, live=True, session_dirs=[home], all_live=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: len(app.message_list.rows) == 4, "not every message was listed")
        app.message_list.move_to(0)  # the cursor on alpha's session: beta's requests are shown all the same
        await pilot.press("3")
        in_flight = app.query_one(InFlightPane)
        await until(pilot, lambda: len(in_flight.rows) == 2, "not every session's pending request shown")
        rows = [in_flight.row_text(i).split() for i in range(2)]
        assert [row[2:4] for row in rows] == [["alpha", "7"], ["beta", "8"]]  # oldest by the clock first
        assert [row[4] for row in rows] == ["tools/call", "prompts/get"]
        await pilot.press("5")
        bars = app.query_one("#timeline-bars", Static)
        await until(pilot, lambda: "prompts/get" in str(bars.render()), "the timeline missed a session")
        lines = str(bars.render()).splitlines()
        assert [line.split()[:3] for line in lines] == [
            ["alpha", "→", "7"],
            ["beta", "→", "7"],
            ["beta", "→", "8"],
        ]  # by the clock: beta's t=0.5 is 10.5 s after alpha began, alpha's t=1 before it

        table = app.message_list
        await pilot.press("colon", *"beta:3", "enter")  # another server's seq
        assert table.current is not None and (app.server_of(table.current), table.current.seq) == ("beta", 3)
        await pilot.press("colon", *"1", "enter")  # a bare seq: of the cursor's session
        assert table.current is not None and (app.server_of(table.current), table.current.seq) == ("beta", 1)
        await pilot.press("colon", *"nobody:1", "enter")
        assert app.server_of(table.current) == "beta"  # unmoved: said so
        await pilot.press("e")
        await pilot.pause(0.1)
        assert "the view of beta's session: 3 messages" in str(app.screen.query_one("#scope-view").label)


class Proxy:
    """`mcpspy -- python NAME.py`: a live session of server NAME, driven on real pipes."""

    def __init__(self, home: Path, scripts: Path, name: str) -> None:
        script = scripts / f"{name}.py"
        script.write_text(SERVER)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcpspy", "--home", str(home), "--", sys.executable, str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    async def call(self, id_: int, method: str) -> None:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(orjson.dumps({"jsonrpc": "2.0", "id": id_, "method": method}) + b"\n")
        stdin.flush()
        reply = await asyncio.wait_for(asyncio.to_thread(stdout.readline), 20)
        assert orjson.loads(reply)["id"] == id_

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def server_part(app: InspectorApp, name: str) -> str:
    """What the header's line of servers says of ``name`` (its parts are two spaces apart)."""
    line = header_of(app).split("\n")[1]
    return next((part for part in line.split("  ") if part.startswith(f"{name} ")), "")


async def until(pilot: object, check: object, what: str) -> None:
    for _ in range(400):
        if check():  # type: ignore[operator]
            return
        await pilot.pause(0.05)  # type: ignore[attr-defined]
    raise AssertionError(what)


async def test_every_live_session_in_one_view_each_paired_alone(tmp_path: Path) -> None:
    home, scripts = tmp_path / "sessions", tmp_path / "scripts"
    scripts.mkdir()
    alpha = Proxy(home, scripts, "alpha")
    proxies = [alpha]
    try:
        for _ in range(200):  # the sessions dir exists once the first proxy has started
            if home.exists() and any(home.glob("*.jsonl")):
                break
            await asyncio.sleep(0.05)
        app = InspectorApp(home, live=True, session_dirs=[home], all_live=True)
        async with app.run_test(size=(160, 40)) as pilot:
            table = app.message_list
            await alpha.call(1, "tools/list")
            beta = Proxy(home, scripts, "beta")  # joins while the view is open
            gamma = Proxy(home, scripts, "gamma")
            proxies += [beta, gamma]
            await until(pilot, lambda: len(app.shown) == 3, "the new sessions never joined")
            # each proxy writes its capture in batches of up to 50 ms: wait for each call to be listed
            # before the next, so that the order they arrive in is the order they were made in
            await until(pilot, lambda: len(table.rows) == 2, "alpha's call was not listed")
            await beta.call(1, "tools/call")  # the same id as alpha's: paired in its own session only
            await until(pilot, lambda: len(table.rows) == 4, "beta's call was not listed")
            await gamma.call(1, "prompts/get")
            await until(pilot, lambda: len(table.rows) == 6, "gamma's call was not listed")
            await alpha.call(2, "resources/list")
            await until(pilot, lambda: len(table.rows) == 8, "not every message was listed")
            rows = shown(table)
            servers = [app.server_of(m) for m in table.rows]
            assert servers == ["alpha"] * 2 + ["beta"] * 2 + ["gamma"] * 2 + ["alpha"] * 2  # as they came
            assert [row.split()[3] for row in rows] == servers  # the server column
            replies: list[Message] = [m for m in table.rows if m.kind.value == "response"]
            assert all(m.exchange is not None and m.exchange.latency is not None for m in replies)
            assert not any(str(f.id).startswith("pairing.") for m in table.rows for f in m.findings)
            header = header_of(app)
            assert "all live: 3 of 3 sessions" in header
            assert all(
                f"{name} {count} ✖" in header for name, count in (("alpha", 4), ("beta", 2), ("gamma", 2))
            )

            crafted_live_capture(home)
            await until(pilot, lambda: len(table.rows) == 9, "the crafted session never joined")
            drawn = "\n".join(table.render_line(y).text for y in range(table.size.height))
            assert "\x1b" not in drawn and "ev\\x1b[3" in drawn  # made visible (the column may cut it)
            assert "\x1b" not in header_of(app) and server_part(app, "ev\\x1b[31mil[b]").startswith(
                "ev\\x1b[31mil[b] 1 ✖"
            )

            app.query_one(FilterBar).open()
            await pilot.press(*"server:beta", "enter")
            await until(pilot, lambda: len(table.rows) == 2, "server:beta did not filter")
            assert {app.server_of(m) for m in table.rows} == {"beta"}

            beta.stop()  # its proxy ends: the session is marked, its rows stay
            await until(
                pilot, lambda: server_part(app, "beta").endswith(" ended"), "beta's end was not marked"
            )
            assert not server_part(app, "alpha").endswith(" ended")
            again = Proxy(home, scripts, "beta")  # the server restarts: a new session of the same server
            proxies.append(again)
            await until(pilot, lambda: len(app.shown) == 5, "the restarted server never joined")
            await again.call(1, "tools/call")
            await until(pilot, lambda: len(table.rows) == 4, "the restarted server's lines were not listed")
            await until(
                pilot, lambda: server_part(app, "beta").startswith("beta ↻1 4 ✖"), "no restart counted"
            )
            assert not server_part(app, "beta").endswith(" ended")  # a session of it is live again
    finally:
        for proxy in proxies:
            proxy.stop()
