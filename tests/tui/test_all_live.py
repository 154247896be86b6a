"""`watch --all` end to end: real proxy processes, real servers, clients on real pipes, one view of them all."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import orjson

from mcpspy.analysis.model import Message
from mcpspy.capture.format import FORMAT_VERSION, encode_header, encode_line
from mcpspy.capture.records import Header, Stream
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.panes.filter_bar import FilterBar
from tests.tui.test_app import header_of
from tests.tui.test_live_proxy import SERVER, shown

HOSTILE = "ev\x1b[31mil[b]"  # a crafted capture's server name: shown made visible, never obeyed


def crafted_live_capture(home: Path) -> None:
    """A capture whose header names a hostile server, live (this test's pid), with one line."""
    header = Header(
        FORMAT_VERSION, "crafted", "2026-12-04T00:00:00.000Z", ("x",), HOSTILE, "/", "0", os.getpid()
    )
    line = orjson.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {}})
    (home / "zz-crafted.jsonl").write_bytes(
        encode_header(header) + encode_line(1, 0.1, Stream.S2C, line, True)
    )


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
            await beta.call(1, "tools/call")  # the same id as alpha's: paired in its own session only
            await gamma.call(1, "prompts/get")
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
