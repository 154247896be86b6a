"""The filter and search history outlives the app: kept private, bounded, and distrusted when read back."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from textual.widgets import Input

from mcpspy.state_dir import state_dir
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.history_file import LIMIT, NAME, HistoryFile
from tests.conftest import FIXTURES
from tests.tui.test_navigation import wait_loaded

CAPTURE = FIXTURES / "lesson-out-of-order.jsonl"


async def test_the_filter_history_is_there_in_the_next_run() -> None:
    first = InspectorApp(CAPTURE, live=False)
    async with first.run_test(size=(100, 30)) as pilot:
        await wait_loaded(first, pilot)
        for text in ("dir:s2c", "id:3"):
            await pilot.press("slash", "ctrl+a", "ctrl+k", *text, "enter")
        await pilot.press("ctrl+f", *"ticket", "enter")
    path = state_dir() / NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text()) == {
        "filter": ["dir:s2c", "id:3"],
        "search": ["ticket"],
    }  # typed, no more

    second = InspectorApp(CAPTURE, live=False)
    async with second.run_test(size=(100, 30)) as pilot:
        await wait_loaded(second, pilot)
        box = second.query_one("#filter-bar Input", Input)
        await pilot.press("slash", "up")
        assert box.value == "id:3"
        await pilot.press("up")
        assert box.value == "dir:s2c"
        await pilot.press("escape", "ctrl+f", "up")
        assert second.query_one("#search-bar Input", Input).value == "ticket"


def test_the_history_is_bounded_and_keeps_the_newest(tmp_path: Path) -> None:
    history = HistoryFile(tmp_path / "state")
    for i in range(LIMIT + 20):
        history.add("filter", f"id:{i}")
    history.add("filter", "id:30")  # again: moves to the end, once
    kept = HistoryFile(tmp_path / "state").load("filter")
    assert len(kept) == LIMIT and kept[-1] == "id:30" and kept.count("id:30") == 1 and kept[0] == "id:20"


def test_a_hostile_history_file_is_distrusted(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    directory.mkdir(mode=0o700)
    path = directory / NAME
    for text in ("not json", "[1, 2]", '{"filter": "id:1"}', "[" * 100_000):
        path.write_text(text)
        assert HistoryFile(directory).load("filter") == []
    path.write_text(json.dumps({"filter": ["ok", "\x1b]52;c;aGk=\x07", 7, None, "x" * 5000, "a\nb", "fine"]}))
    assert HistoryFile(directory).load("filter") == ["ok", "fine"]


def test_the_history_is_never_read_or_written_through_a_symlink(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    directory.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text('{"filter": ["secret"]}')
    (directory / NAME).symlink_to(victim)
    history = HistoryFile(directory)
    assert history.load("filter") == []
    history.add("filter", "id:1")
    assert victim.read_text() == '{"filter": ["secret"]}'
    assert not (directory / NAME).is_symlink() and history.load("filter") == [
        "id:1"
    ]  # replaced, not followed


def test_a_state_dir_others_can_write_is_not_used(tmp_path: Path) -> None:
    directory = tmp_path / "state"
    directory.mkdir()
    os.chmod(directory, 0o777)
    HistoryFile(directory).add("filter", "id:1")
    assert not (directory / NAME).exists()
