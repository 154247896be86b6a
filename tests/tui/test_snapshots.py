"""How each pane and screen looks, at 80x24 (the side pane under the list), 120x35 and 200x50 (beside it).

SVG snapshots under __snapshots__/test_snapshots/; after a change to the look,
check the report pytest writes, then accept with `pytest --snapshot-update`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from mcpspy.capture.format import decode_header
from mcpspy.capture.sessions import SessionInfo
from mcpspy.tui.picker import SessionPicker
from tests.conftest import FIXTURES
from tests.tui.snapshot_app import inspector, settled_then

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
