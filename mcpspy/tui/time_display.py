"""The message list's time column (`t` cycles): since the start, the wall clock, or since the row above.

Like Wireshark's time display formats: relative to the session's start (the
default), absolute (local wall-clock time, from the capture's start), and the
delta from the message shown above (with a filter, the one above in the list).
"""

from __future__ import annotations

import enum
from dataclasses import replace
from datetime import datetime

from mcpspy.analysis.model import Message
from mcpspy.tui.rows import MESSAGE_COLUMNS, SERVER_COLUMN, Column


class TimeDisplay(enum.Enum):
    RELATIVE = "since start"
    ABSOLUTE = "clock"
    DELTA = "since previous"

    @property
    def column(self) -> Column:
        title, width = {
            TimeDisplay.RELATIVE: ("time", 9),
            TimeDisplay.ABSOLUTE: ("clock", 12),
            TimeDisplay.DELTA: ("Δtime", 9),
        }[self]
        return replace(MESSAGE_COLUMNS[0], title=title, width=width)

    def next(self) -> TimeDisplay:
        members = list(TimeDisplay)
        return members[(members.index(self) + 1) % len(members)]


def message_columns(display: TimeDisplay, server: bool = False) -> tuple[Column, ...]:
    """The list's columns; ``server``: one naming each row's server, after the direction (`watch --all`)."""
    if server:
        return (display.column, MESSAGE_COLUMNS[1], SERVER_COLUMN, *MESSAGE_COLUMNS[2:])
    return (display.column, *MESSAGE_COLUMNS[1:])


def time_text(display: TimeDisplay, message: Message, above: Message | None, started: float | None) -> str:
    """The time cell of ``message`` (``above``: the row above it; ``started``: the start's epoch)."""
    if display is TimeDisplay.ABSOLUTE and started is not None:
        return datetime.fromtimestamp(started + message.t).strftime("%H:%M:%S.%f")[:-3]
    if display is TimeDisplay.DELTA:
        return f"{message.t - above.t:+.3f}" if above is not None else "+0.000"
    return f"{message.t:.3f}"
