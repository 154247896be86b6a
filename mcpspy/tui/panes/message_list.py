"""The message list: every message that passes the filter, following the newest unless told not to.

It keeps every message the app gave it (the filter is applied again over all of
them), says which message is under the cursor (``Shown``) and when following,
the filter or the counts changed (``Changed``), and stops following when the
user moves up, as a pager does.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from textual import on
from textual.message import Message as TextualMessage

from mcpspy.analysis.model import Message
from mcpspy.filters import Filter
from mcpspy.tui.panes.detail import pair_of
from mcpspy.tui.rows import MESSAGE_COLUMNS, message_cells
from mcpspy.tui.widgets.rowlist import RowList


class MessageList(RowList[Message]):
    """One row a message; the cursor follows the newest while ``follow`` is on."""

    DEFAULT_CSS = """
    MessageList { height: 1fr; }
    """

    @dataclass
    class Shown(TextualMessage):
        """The message under the cursor (None: the list is empty)."""

        message_list: MessageList
        message: Message | None

        @property
        def control(self) -> MessageList:
            return self.message_list

    @dataclass
    class Changed(TextualMessage):
        """Following, the filter or the number of rows changed: what the header says about the list."""

        message_list: MessageList

        @property
        def control(self) -> MessageList:
            return self.message_list

    def __init__(self, id: str | None = None) -> None:
        super().__init__(MESSAGE_COLUMNS, message_cells, id=id, empty="no messages yet")
        self.all_messages: list[Message] = []  # everything the app has given, in order
        self.follow = True
        self.filter: Filter | None = None
        self._shown: list[Message] = []  # the rows: the messages that pass the filter
        self._row_of: dict[int, int] = {}  # seq -> row index
        self.rows = self._shown

    def add(self, messages: Iterable[Message], changed: Collection[int]) -> None:
        """New messages at the end; ``changed``: seqs whose analysis changed (a latency, a finding)."""
        for message in messages:
            self.all_messages.append(message)
            self._add_row(message)
        self.rows_added()
        row_of = self._row_of
        self.refresh_rows(row_of[seq] for seq in changed if seq in row_of)
        if self.follow and self._shown:
            self.move_to(len(self._shown) - 1)

    def _add_row(self, message: Message) -> None:
        if self.filter is None or self.filter(message):
            self._row_of[message.seq] = len(self._shown)
            self._shown.append(message)

    def set_filter(self, message_filter: Filter | None) -> None:
        """Show only the messages ``message_filter`` passes (all of them for None)."""
        self.filter = message_filter
        self._shown = []
        self._row_of = {}
        for message in self.all_messages:
            self._add_row(message)
        self.set_rows(self._shown, cursor=len(self._shown) - 1 if self.follow else 0)
        self.post_message(self.Changed(self))

    def set_follow(self, follow: bool) -> None:
        """Follow the newest message (the cursor goes there), or stay where the cursor is."""
        self.follow = follow
        if follow and self._shown:
            self.move_to(len(self._shown) - 1)
        self.post_message(self.Changed(self))

    def jump_to(self, seq: int | None) -> bool:
        """Put the cursor on message ``seq`` and stop following; False when it is not listed."""
        if seq is None or seq not in self._row_of:
            return False
        self.follow = False
        self.move_to(self._row_of[seq], upward=True)
        self.post_message(self.Changed(self))
        return True

    def jump_to_pair(self) -> None:
        """From a request to its reply and back."""
        if self.current is not None:
            self.jump_to(pair_of(self.current))

    @on(RowList.Highlighted)
    def _moved(self, event: RowList.Highlighted) -> None:
        """Moving up stops following; coming back to the end resumes it."""
        event.stop()
        if event.upward and self.follow:
            self.follow = False
            self.post_message(self.Changed(self))
        elif not event.upward and not self.follow and event.index == len(self._shown) - 1:
            self.follow = True
            self.post_message(self.Changed(self))
        self.post_message(self.Shown(self, self.current))
