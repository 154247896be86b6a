"""The filter bar checks as you type and keeps a history; keys typed after `/` land in it at once."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Input

from mcpspy.capture.records import Stream
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.panes.filter_bar import FilterBar
from mcpspy.tui.panes.message_list import NONE_MATCH
from tests.conftest import FIXTURES
from tests.tui.test_app import header_of
from tests.tui.test_navigation import calls, visible_rows, wait_loaded, write_capture


async def test_the_filter_is_checked_as_typed_and_applied_only_when_valid() -> None:
    app = InspectorApp(FIXTURES / "lesson-out-of-order.jsonl", live=False)
    async with app.run_test(size=(140, 30)) as pilot:
        await wait_loaded(app, pilot)
        bar = app.query_one(FilterBar)
        await pilot.press("slash", *'dir:s2c (id:2 OR "ticket 9')
        assert "a quote is not closed (col 18)" in bar.note and bar.input.has_class("-invalid")
        await pilot.press("enter")
        assert bar.is_open and app.message_list.filter is None and len(app.rows) == 4  # not applied
        await pilot.press("backspace", *'2318" OR id:3)')
        assert bar.note == "" and not bar.input.has_class("-invalid")
        await pilot.press("enter")
        assert not bar.is_open and [m.seq for m in app.rows] == [3, 4]
        assert 'filter: dir:s2c (id:2 OR "ticket 2318" OR id:3)' in header_of(app)


async def test_up_and_down_walk_the_filter_history() -> None:
    app = InspectorApp(FIXTURES / "lesson-out-of-order.jsonl", live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        box = app.query_one("#filter-bar Input", Input)
        for text in ("dir:s2c", "id:3", "dir:c2s"):
            await pilot.press("slash", "ctrl+a", "ctrl+k", *text, "enter")
        await pilot.press("slash", "ctrl+a", "ctrl+k", *"meth")
        await pilot.press("up")
        assert box.value == "dir:c2s"
        await pilot.press("up", "up", "up")  # stops at the oldest
        assert box.value == "dir:s2c"
        await pilot.press("down")
        assert box.value == "id:3"
        await pilot.press("down", "down")  # back to what was being typed
        assert box.value == "meth"


async def test_a_filter_that_matches_nothing_says_so() -> None:
    app = InspectorApp(FIXTURES / "lesson-out-of-order.jsonl", live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("slash", *"method:nothing/*", "enter")
        await pilot.pause(0.1)
        assert visible_rows(app.message_list)[0].strip() == NONE_MATCH
        assert "0/4 msgs" in header_of(app)


async def test_keys_typed_right_after_slash_land_in_the_box(tmp_path: Path) -> None:
    """Under load the app's queue is long: the keys after `/` were read before the focus moved."""
    app = InspectorApp(write_capture(tmp_path / "big.jsonl", calls(20_000)), live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):  # while the backlog is still being analysed
            if app.message_list.all_messages:
                break
            await pilot.pause(0.02)
        for key, char in [("slash", "/"), *((c, c) for c in "id:77"), ("colon", ":")]:
            app.post_message(events.Key(key, char))  # all queued before any is handled
        await wait_loaded(app, pilot)
        assert app.query_one("#filter-bar Input", Input).value == "id:77:"
        await pilot.press("backspace", "enter")
        await pilot.pause(0.1)
        assert [m.id for m in app.rows] == [77, 77] and all(m.stream in Stream for m in app.rows)
