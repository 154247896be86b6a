"""How each pane and screen looks, at 80x24 (the side pane under the list), 120x35 and 200x50 (beside it).

SVG snapshots under __snapshots__/test_snapshots/; after a change to the look,
check the report pytest writes, then accept with `pytest --snapshot-update`.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from mcpspy.capture.format import FORMAT_VERSION, decode_header, encode_header, encode_line
from mcpspy.capture.records import Header, Stream
from mcpspy.capture.sessions import SessionInfo
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.picker import SessionPicker
from tests.conftest import FIXTURES
from tests.tui.snapshot_app import AGE, inspector, settled_then, started_epoch

SIZES = [
    pytest.param((80, 24), id="80x24"),
    pytest.param((120, 35), id="120x35"),  # the side pane at its narrowest: findings wrap under their row
    pytest.param((200, 50), id="200x50"),  # findings wrap in their column
]

# pane: (fixture, live, keys pressed once the capture is read)
PANES: dict[str, tuple[str, bool, tuple[str, ...]]] = {
    "message-list": ("clean-shapes-legacy", False, ("g", "j", "j")),
    "detail": ("lesson-ready-glued", False, ("G", "tab")),
    "findings": ("meta-not-rejected", False, ("2", "tab")),
    "inflight": ("pairing-unanswered", True, ("3",)),
    "stderr": ("lifecycle-crash-in-flight", False, ("4",)),
    "timeline": ("lesson-out-of-order", False, ("5",)),
    "filter-bar": ("lesson-out-of-order", False, ("slash", *"dir:up", "enter")),
    "whole-message": ("lesson-ready-glued", False, ("G", "v")),
    "search": ("clean-progress", False, ("g", "ctrl+f", *"export", "enter", "n")),
    "follow-exchange": ("clean-progress", False, ("g", "j", "x")),
    "help": ("clean-modern", False, ("question_mark",)),
    "order-and-time": ("lesson-out-of-order", False, ("o", "t", "t")),
    "export": ("lesson-cancelled", False, ("g", "e")),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("pane", list(PANES))
def test_pane(pane: str, size: tuple[int, int], snap_compare: Any) -> None:
    fixture, live, keys = PANES[pane]
    app = inspector(fixture, live=live)
    assert snap_compare(app, terminal_size=size, run_before=settled_then(*keys))


def test_filter_applied_shows_in_the_header(snap_compare: Any) -> None:
    app = inspector("clean-shapes-modern")
    keys = ("slash", *"dir:s2c", "enter")
    assert snap_compare(app, terminal_size=(80, 24), run_before=settled_then(*keys))


def sessions(*fixtures: str) -> list[SessionInfo]:
    out = []
    for fixture in fixtures:
        path = FIXTURES / f"{fixture}.jsonl"
        with path.open("rb") as capture:
            out.append(SessionInfo(path, decode_header(capture.readline()), live=True))
    return out


@pytest.mark.parametrize("size", SIZES)
def test_session_picker(size: tuple[int, int], snap_compare: Any) -> None:
    found = sessions("clean-modern", "lesson-out-of-order", "meta-not-rejected")
    found[1] = replace(found[1], live=False)

    async def counted(pilot: Pilot[None]) -> None:
        picker = pilot.app.query_one(OptionList)
        for _ in range(200):  # the counts arrive from a thread
            if all("…" not in str(picker.get_option_at_index(i).prompt) for i in range(len(found))):
                return
            await pilot.pause(0.05)
        raise AssertionError("the sessions were never counted")

    assert snap_compare(SessionPicker(found), terminal_size=size, run_before=counted)


def live_capture(directory: Path, name: str, started: str, calls: list[tuple[int, str, float]]) -> None:
    """A live capture (this process's pid) of server ``name``: each call a request and its reply."""
    header = Header(FORMAT_VERSION, name, started, ("python3", f"{name}.py"), name, "/", "0", os.getpid())
    lines = [encode_header(header)]
    seq = 0
    for id_, method, t in calls:
        for stream, body, at in (
            (Stream.C2S, {"jsonrpc": "2.0", "id": id_, "method": method, "params": {"name": "lookup"}}, t),
            (Stream.S2C, {"jsonrpc": "2.0", "id": id_, "result": {"content": []}}, t + 0.137),
        ):
            seq += 1
            lines.append(encode_line(seq, at, stream, orjson.dumps(body), True))
    (directory / f"{name}.jsonl").write_bytes(b"".join(lines))


@pytest.mark.parametrize("size", [SIZES[0], SIZES[2]])
def test_all_live(size: tuple[int, int], snap_compare: Any, tmp_path: Path) -> None:
    """`watch --all` on three live servers: merged by time, a server column, a line of servers."""
    live_capture(
        tmp_path, "alpha", "2026-07-28T10:00:00.000Z", [(1, "tools/list", 0.5), (2, "tools/call", 3.0)]
    )
    live_capture(
        tmp_path, "beta", "2026-07-28T10:00:01.000Z", [(1, "tools/call", 0.2), (2, "prompts/get", 4.0)]
    )
    live_capture(tmp_path, "gamma", "2026-07-28T10:00:02.000Z", [(1, "resources/read", 0.1)])
    now = started_epoch(tmp_path / "gamma.jsonl") + AGE
    app = InspectorApp(tmp_path, live=True, clock=lambda: now, session_dirs=[tmp_path], all_live=True)

    async def settled(pilot: Pilot[None]) -> None:
        for _ in range(1200):  # a loaded machine: the three sessions join one by one
            if len(app.message_list.rows) == 10 and not app.unanalysed and not app.reading:
                break
            await pilot.pause(0.05)
        else:
            raise AssertionError(
                f"never settled: {len(app.message_list.rows)} rows, {app.unanalysed} to analyse"
            )
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=size, run_before=settled)
