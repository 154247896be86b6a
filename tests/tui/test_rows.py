"""The message list's rows: what a call names, long methods cut in the middle, every column kept when narrowed."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.capture.records import Stream
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.widgets.rowlist import elide_method, elide_middle
from tests.tui.test_navigation import wait_loaded, write_capture

CALLS = [
    (Stream.C2S, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "lookup_ticket"}}),
    (Stream.S2C, {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "x" * 80}]}}),
    (Stream.C2S, {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "triage"}}),
    (
        Stream.C2S,
        {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "file:///a\x1b[2J"}},
    ),
    (Stream.S2C, {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}),
]


def drawn_rows(app: InspectorApp) -> list[str]:
    table = app.message_list
    return [table.render_line(y).text for y in range(1, len(table.rows) + 1)]


async def open_calls(tmp_path: Path, size: tuple[int, int], *keys: str) -> list[str]:
    lines = [(stream, orjson.dumps(body)) for stream, body in CALLS]
    app = InspectorApp(write_capture(tmp_path / "c.jsonl", lines), live=False)
    async with app.run_test(size=size) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press(*keys)
        await pilot.pause(0.1)
        return drawn_rows(app)


async def test_a_call_shows_what_it_names_and_its_reply_too(tmp_path: Path) -> None:
    rows = await open_calls(tmp_path, (200, 30))
    assert "tools/call lookup_ticket" in rows[0] and "tools/call lookup_ticket" in rows[1]  # the reply
    assert "prompts/get triage" in rows[2]
    assert "resources/read file:///a\\x1b[2J" in rows[3] and "\x1b" not in "".join(rows)  # made visible


async def test_narrow_the_method_loses_its_middle_and_the_name_stays(tmp_path: Path) -> None:
    rows = await open_calls(tmp_path, (120, 30))  # the list at its narrowest, the side pane beside it
    assert "notif…/progress" in rows[4]
    assert "lookup" in rows[0] and "tools/call lookup" not in rows[0]


@pytest.mark.parametrize("width", [120, 80])
async def test_clock_time_keeps_the_numbers_and_the_findings_mark(tmp_path: Path, width: int) -> None:
    """`t` widens the time column: a text column gives way, never the size nor the `!` mark."""
    rows = await open_calls(tmp_path, (width, 30), "t")
    size = len(orjson.dumps(CALLS[1][1])) + 1
    assert rows[1].rstrip().endswith(str(size)) or f" {size} " in rows[1]
    marked = [row for row in rows if row.rstrip()[-1:] in {"✖", "▲", "·"}]
    assert marked, rows  # the findings column is still drawn
    assert all(len(row.rstrip()) <= width for row in rows)


@given(st.text(min_size=0, max_size=60), st.integers(min_value=1, max_value=40))
def test_elision_fits_the_width(text: str, width: int) -> None:
    assert len(elide_middle(text, width)) <= max(width, 0) or len(text) <= width
    shown = elide_method(text, width)
    assert len(shown) <= width or "/" not in text.partition(" ")[0] or len(text) <= width
