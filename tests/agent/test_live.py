"""`mcpspy mcp` on live sessions: wait_for_message sees a message that arrives after the call began, and
the client hears of new sessions (list_changed) in both eras."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import types

from tests.agent.helpers import agent, call, make_demo
from tests.conftest import MCPSPY

TOOLS_LIST = {"jsonrpc": "2.0", "method": "tools/list", "params": {"_meta": {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}}}  # fmt: skip


def send(proxy: subprocess.Popen[bytes], request_id: int) -> None:
    assert proxy.stdin is not None
    proxy.stdin.write(json.dumps({**TOOLS_LIST, "id": request_id}).encode() + b"\n")
    proxy.stdin.flush()


def replies_recorded(home: Path) -> int:
    """tools/list replies in the capture so far (each line's text is a JSON string there, quotes escaped)."""
    return sum(b'\\"tools\\":' in line for p in home.glob("*.jsonl") for line in p.read_bytes().splitlines())


def start_proxy(home: Path) -> subprocess.Popen[bytes]:
    """The demo server (no bugs) behind mcpspy's proxy, its stdin ours: a live session."""
    return subprocess.Popen(
        [*MCPSPY, "--home", str(home), "--", sys.executable, "-m", "mcpspy.demo.server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop(proxy: subprocess.Popen[bytes]) -> None:
    assert proxy.stdin is not None
    proxy.stdin.close()
    proxy.wait(timeout=30)


async def wait_while(home: Path, meanwhile: Callable[[], None]) -> tuple[dict[str, Any], list[float]]:
    """wait_for_message for a tools/list reply, ``meanwhile`` run once the wait has begun (its first
    progress notification says so); the result and the progress seen."""
    progress: list[float] = []
    waiting = anyio.Event()
    result: dict[str, Any] = {}

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)
        waiting.set()

    async with agent(home) as client:

        async def wait() -> None:
            called = await client.call_tool(
                "wait_for_message",
                {"filter": "dir:s2c method:tools/list", "timeout": 120},
                progress_callback=on_progress,
            )
            result.update(called.structured_content or {})
            waiting.set()  # had it returned early (a wrong match), the test goes on to say so

        with anyio.fail_after(150):
            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await waiting.wait()
                meanwhile()
    return result, progress


async def test_wait_for_message_sees_a_reply_that_arrives_during_the_wait(tmp_path: Path) -> None:
    proxy = start_proxy(tmp_path)
    try:
        send(proxy, 1)  # a reply before the wait: it must not count
        deadline = time.monotonic() + 30
        while replies_recorded(tmp_path) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert replies_recorded(tmp_path) == 1
        result, progress = await wait_while(tmp_path, lambda: send(proxy, 2))
    finally:
        stop(proxy)
    assert result["matched"] is True
    assert result["message"]["captured"]["id"] == "2" and result["message"]["kind"] == "response"
    assert progress and progress == sorted(progress)


async def test_wait_for_message_follows_a_session_that_starts_during_the_wait(tmp_path: Path) -> None:
    started: list[subprocess.Popen[bytes]] = []

    def start_and_ask() -> None:
        started.append(start_proxy(tmp_path))
        send(started[0], 7)

    try:
        result, _ = await wait_while(tmp_path, start_and_ask)
    finally:
        for proxy in started:
            stop(proxy)
    assert result["matched"] is True and result["message"]["captured"]["id"] == "7"
    [capture] = tmp_path.glob("*.jsonl")
    assert result["session"] in capture.read_text().split("\n", 1)[0]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_new_session_is_announced(tmp_path: Path, mode: str) -> None:
    source = tmp_path / "source"
    make_demo(source)
    home = tmp_path / "home"
    home.mkdir()
    heard = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceListChangedNotification):
            heard.set()

    async with agent(home, mode, message_handler=on_message) as client:
        assert (await client.list_resources()).resources == []
        if mode == "legacy":
            for capture in source.glob("*.jsonl"):
                shutil.copy(capture, home)
            with anyio.fail_after(30):
                await heard.wait()
        else:
            async with client.listen(resources_list_changed=True) as subscription:
                for capture in source.glob("*.jsonl"):
                    shutil.copy(capture, home)
                with anyio.fail_after(30):
                    async for _event in subscription:
                        break
        assert len((await client.list_resources()).resources) == 1


def capture_being_written(path: Path, pid: int) -> None:
    """A capture whose proxy (``pid``) has written a request and half of the next record."""
    header = {"format": "1.1", "session": "20261204T100000.000Z-growing-1", "started": "2026-12-04T10:00:00.000Z",
              "command": ["growing"], "name": "growing", "cwd": "/", "mcpspy": "0.1.0", "pid": pid}  # fmt: skip
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    lines = [header, {"seq": 1, "t": 0.01, "stream": "c2s", "text": json.dumps(request)}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"seq":2,"t":0.02,"str')


async def test_a_capture_being_written_is_read_as_the_tui_reads_it(tmp_path: Path) -> None:
    """Live: the half-written record waits and the request is still pending; once its proxy is gone,
    the same file ends torn and the request unanswered (as report says)."""
    live, ended = tmp_path / "live", tmp_path / "ended"
    live.mkdir()
    ended.mkdir()
    capture_being_written(live / "growing.jsonl", os.getpid())
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    capture_being_written(ended / "growing.jsonl", int(gone.stdout))
    async with agent(live) as client:
        report = await call(client, "session_report")
        exchange = await call(client, "get_exchange", id="1")
    assert report["session"]["live"] is True and report["never_answered"] == 1
    assert not {"capture.torn-line", "pairing.unanswered"} & {f["rule"] for f in report["findings"]}
    assert exchange["state"] == "pending"
    async with agent(ended) as client:
        report = await call(client, "session_report")
        exchange = await call(client, "get_exchange", id="1")
    assert report["session"]["live"] is False
    assert {"capture.torn-line", "pairing.unanswered"} <= {f["rule"] for f in report["findings"]}
    assert exchange["state"] == "unanswered"
