"""A cursor on the detail pane's JSON lines (`l` / `L`), and the JSON path under it (`c`).

The detail pane shows the pretty JSON just above its last line (the raw
line), cut at ``DETAIL_LIMIT`` with a note: the cursor walks the lines shown,
and the path of each comes from ``json_paths`` (a cut line or the note has
none).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcpspy import json_text
from mcpspy.analysis.model import Message
from mcpspy.tui.json_paths import line_paths
from mcpspy.tui.rows import DETAIL_LIMIT, pretty_json
from mcpspy.tui.widgets.textview import TextView


@dataclass
class JsonCursor:
    """Which of one message's JSON lines the cursor is on."""

    seq: int | None = None
    paths: list[str] = field(default_factory=list)  # one per JSON line shown
    index: int | None = None

    def _load(self, message: Message) -> None:
        if message.seq == self.seq:
            return
        self.seq, self.index = message.seq, None
        full = json_text.pretty_json(message.payload) if message.payload is not None else None
        if full is None:  # no JSON, or too deep to show as such
            self.paths = []
            return
        shown = len(pretty_json(message.payload).split("\n"))
        whole = shown - (len(full) > DETAIL_LIMIT)  # a cut text ends with a note: no path
        self.paths = line_paths(message.payload)[:whole] + [""] * (shown - whole)

    def move(self, pane: TextView, message: Message | None, step: int) -> bool:
        """The cursor ``step`` lines on (around at the ends), drawn in ``pane``; False: no JSON."""
        if message is None:
            return False
        self._load(message)
        count = len(self.paths)
        if not count:
            return False
        if self.index is None or pane.marked is None:  # a new message, or the pane drawn again
            self.index = 0 if step > 0 else count - 1
        else:
            self.index = (self.index + step) % count
        pane.mark_line(pane.given_count - 1 - count + self.index)
        return True

    def path(self, pane: TextView, message: Message | None) -> str | None:
        """The JSON path of the line under the cursor (None: no cursor on this message's JSON)."""
        if message is None or message.seq != self.seq or self.index is None or pane.marked is None:
            return None
        return self.paths[self.index] or None
