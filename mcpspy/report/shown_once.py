"""Pages that list exchanges (HTML, HAR) show each message, and its findings, once.

A row finds its messages by seq, and a crafted capture may repeat a seq: then
thousands of rows name one message, and each row repeating its findings made
a page quadratic in size (a 259 KB capture: 5.8 GB). The first row to name a
message shows it; later rows say the seq is repeated. Pages also stop at
``MAX_ROWS`` rows, with a note, so a capture of a million messages makes a
page a browser opens (the whole session is in ``report --json`` and the TUI).
"""

from __future__ import annotations

from mcpspy.analysis.model import Message

MAX_ROWS = 10_000  # rows of an HTML page, entries of a HAR file


class ShownOnce:
    """The messages a page has shown so far."""

    __slots__ = ("_shown",)

    def __init__(self) -> None:
        self._shown: set[int] = set()

    def first(self, message: Message | None) -> Message | None:
        """``message`` the first time it is asked for; None after (its seq was repeated in the capture)."""
        if message is None or id(message) in self._shown:
            return None
        self._shown.add(id(message))
        return message


def rows_left_out(total: int) -> str:
    """The note that ends a page cut at ``MAX_ROWS``."""
    return (
        f"the first {MAX_ROWS} of {total} rows are shown; the whole session is in "
        "`mcpspy report --json` and `mcpspy view`"
    )
