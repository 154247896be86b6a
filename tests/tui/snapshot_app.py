"""The inspector on a fixture capture, settled and on a fixed clock: what the snapshot tests draw.

A snapshot must come out the same on every run: captures are read to their
end (or, live, until the analysis has caught up), and in-flight ages tick by a
clock that does not move.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from mcpspy.capture.format import decode_header
from mcpspy.tui.app import InspectorApp
from tests.conftest import FIXTURES

AGE = 42.0  # seconds since the session started, by the fixed clock of a live snapshot


def started_epoch(path: Path) -> float:
    with path.open("rb") as capture:
        started = decode_header(capture.readline()).started
    return datetime.fromisoformat(started.replace("Z", "+00:00")).timestamp()


def inspector(fixture: str, live: bool = False) -> InspectorApp:
    """The app on ``fixtures/<fixture>.jsonl``; live, its clock stands AGE seconds after the start."""
    path = FIXTURES / f"{fixture}.jsonl"
    now = started_epoch(path) + AGE
    return InspectorApp(path, live=live, clock=lambda: now)


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the capture is read and analysed: ended, or (live) caught up with the file."""
    app = pilot.app
    assert isinstance(app, InspectorApp)
    for _ in range(400):
        caught_up = app.message_list.all_messages and not app.reading and not app.unanalysed
        if app.loaded or (app.live and caught_up):
            break
        await pilot.pause(0.05)
    else:
        raise AssertionError("the capture never settled")
    for box in app.query(Input):
        box.cursor_blink = False  # a blinking cursor is a coin toss in a screenshot
    await pilot.pause(0.1)


def settled_then(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """A ``run_before`` that settles the app, then presses ``keys``."""

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press(*keys)
        for box in pilot.app.screen.query(Input):  # a screen the keys opened has boxes of its own
            box.cursor_blink = False
        await pilot.pause(0.1)
        pilot.app.clear_notifications()  # a toast ("time: clock") is news, not the look
        await pilot.pause(0.05)

    return run_before
