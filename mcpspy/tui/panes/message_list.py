"""The message list: every message that passes the filter, following the newest unless told not to.

It keeps every message the app gave it (the filter is applied again over all of
them), says which message is under the cursor (``Shown``) and when following,
the filter, the order or the counts changed (``Changed``), and stops following
when the user moves up, as a pager does. Sorted by latency or size (`o`), it
keeps the cursor on its message and does not follow: the newest is not last.

The keys that act on the list and its selection are its actions (keymap.py
binds them): follow, pair, order, time, the search's next match, go to a seq,
the whole message, the exchange, copy.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Generic, TypeVar

from textual import on
from textual.message import Message as TextualMessage

from mcpspy.analysis.model import Kind, Message
from mcpspy.filters import Filter
from mcpspy.tui.clipboard import send_to_clipboard
from mcpspy.tui.follow_screen import FollowExchange
from mcpspy.tui.panes.detail import pair_of
from mcpspy.tui.rows import Cell, message_cells, subject_of
from mcpspy.tui.search import Search
from mcpspy.tui.time_display import TimeDisplay, message_columns, time_text
from mcpspy.tui.whole_message import WholeMessage
from mcpspy.tui.widgets.rowlist import CACHE_ROWS, RowList

NO_MESSAGES = "no messages yet"
Key = tuple[int, int]  # a row's message: (its session's origin, its seq)
SEQ_OF = attrgetter("seq")
V = TypeVar("V")


class Index(Generic[V]):
    """(origin, seq) -> a value, for the messages of a list that only grows, indexed as it is asked.

    Made in C for one session (no message has an origin of its own): 100,000 messages
    listed at once cost nothing until a key is looked up, then a few milliseconds.
    """

    def __init__(self) -> None:
        self._by_origin: dict[int, dict[int, V]] = {}
        self._done = 0  # the messages indexed so far

    def get(
        self, key: Key, messages: Sequence[Message], values: Sequence[V], origin_of: Mapping[int, int]
    ) -> V | None:
        """``values[i]`` for the message ``messages[i]`` whose key is ``key``."""
        start, by_origin = self._done, self._by_origin
        if start < len(messages):
            new, new_values = messages[start:], values[start:]
            if not origin_of:
                by_origin.setdefault(0, {}).update(zip(map(SEQ_OF, new), new_values, strict=True))
            else:
                for message, value in zip(new, new_values, strict=True):
                    by_origin.setdefault(origin_of.get(id(message), 0), {})[message.seq] = value
            self._done = len(messages)
        return by_origin.get(key[0], {}).get(key[1])


NONE_MATCH = "no messages match the filter"


class Order(enum.Enum):
    """The list's order (`o` cycles): as they came, slowest exchange first, biggest first."""

    SEQ = "seq"
    LATENCY = "latency"
    SIZE = "size"

    def next(self) -> Order:
        members = list(Order)
        return members[(members.index(self) + 1) % len(members)]


def latency_key(message: Message) -> tuple[float, int]:
    """Slowest first, a request beside its reply; no latency (pending, notifications) last."""
    exchange = message.exchange
    latency = exchange.latency if exchange is not None else None
    return (-latency if latency is not None else float("inf"), message.seq)


def size_key(message: Message) -> tuple[int, int]:
    return (-message.size, message.seq)


def line_of(message: Message) -> str:
    """The message as it was on the wire (one JSON line), for the clipboard."""
    return message.raw.decode("utf-8", "replace")


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
        """Following, the filter, the order or the number of rows changed: what the header says."""

        message_list: MessageList

        @property
        def control(self) -> MessageList:
            return self.message_list

    def __init__(self, id: str | None = None) -> None:
        super().__init__(message_columns(TimeDisplay.RELATIVE), message_cells, id=id, empty=NO_MESSAGES)
        self.all_messages: list[Message] = []  # everything the app has given, in order
        self.follow = True
        self.filter: Filter | None = None
        self.order = Order.SEQ
        self.time_display = TimeDisplay.RELATIVE
        self.started_epochs: dict[int, float | None] = {}  # each session's start, for the wall-clock time
        self.search: Search | None = None
        self._shown: list[Message] = []  # the rows: the messages that pass the filter
        # Indexes made as they are asked (a backlog of 100,000 is listed before any is needed):
        self._row_of: Index[int] = Index()  # the rows: (origin, seq) -> row index
        self._message_of: Index[Message] = Index()  # every message: a reply's request, for its subject
        self.origin_of: dict[int, int] = {}  # id(message) -> its session's origin (watch --all)
        self.servers: list[str] | None = None  # each origin's server name: a server column (watch --all)
        self.rows = self._shown

    def key(self, message: Message) -> Key:
        """A message's key in the list: its session (0 but under `watch --all`) and its seq."""
        return (self.origin_of.get(id(message), 0), message.seq)

    def server_of(self, message: Message) -> str | None:
        """The name of the server that ``message`` is from (None: one session is shown)."""
        if self.servers is None:
            return None
        return self.servers[self.origin_of.get(id(message), 0)]

    def of_session(self, message: Message) -> list[Message]:
        """The messages of ``message``'s session (all of them, but under `watch --all`)."""
        if self.servers is None:
            return self.all_messages
        origin = self.origin_of.get(id(message), 0)
        return [m for m in self.all_messages if self.origin_of.get(id(m), 0) == origin]

    def row_of(self, key: Key) -> int | None:
        """The row of the message ``key`` names (None: not listed)."""
        return self._row_of.get(key, self._shown, range(len(self._shown)), self.origin_of)

    def message_of(self, key: Key) -> Message | None:
        """The message ``key`` names, shown or not."""
        messages = self.all_messages
        return self._message_of.get(key, messages, messages, self.origin_of)

    def index_messages(self) -> None:
        """Index every message listed by its key now (the first row drawn with a reply's subject would)."""
        messages = self.all_messages
        self._message_of.get((0, -1), messages, messages, self.origin_of)

    def subject(self, message: Message) -> str | None:
        """What a call names (tools/call's tool, ...): a reply shows its request's.

        Read as the row is drawn: a capture's 100,000 rows cost nothing until they are shown.
        """
        exchange = message.exchange
        request: Message | None = message
        if message.kind is not Kind.REQUEST and exchange is not None:
            request = self.message_of((self.key(message)[0], exchange.request_seq))
        if request is None or request.kind is not Kind.REQUEST:
            return None
        return subject_of(request)

    def show_servers(self, servers: list[str] | None) -> None:
        """A server column named from ``servers`` (by origin), or none (None)."""
        self.servers = servers
        self.set_columns(message_columns(self.time_display, servers is not None))
        self.set_rows(self._shown, cursor=self.cursor)

    def cells_of(self, index: int) -> tuple[Cell, ...]:
        """A message's row; its time cell reversed when it has the searched text (maybe not in sight)."""
        message = self._shown[index]
        cells = message_cells(message)
        subject = self.subject(message)
        if subject is not None:
            cells = (*cells[:4], (f"{cells[4][0]} {subject}", cells[4][1]), *cells[5:])
        time, style = cells[0]
        if self.time_display is not TimeDisplay.RELATIVE:
            above = self._shown[index - 1] if index > 0 else None
            origin = self.key(message)[0]
            started = self.started_epochs.get(origin)
            if above is not None and self.key(above)[0] != origin:  # the row above is of another session
                above = None
            time = time_text(self.time_display, message, above, started)
        if self.search is not None and self.search(message):
            style = "reverse bold"
        if self.servers is not None:
            return ((time, style), cells[1], (self.server_of(message) or "", "bold"), *cells[2:])
        return ((time, style), *cells[1:])

    def set_search(self, search: Search | None) -> None:
        """Mark the rows that have ``search``'s text, and highlight it where a cell shows it."""
        self.search = search
        self.set_highlight(search.pattern if search is not None else None)

    def add(self, messages: Sequence[Message], changed: Mapping[int, Collection[int]]) -> None:
        """New messages at the end; ``changed``: by session (origin), the seqs whose analysis changed
        (a latency, a finding).

        Under `watch --all`, each message's session is in ``origin_of`` before it is added.
        Unfiltered and in seq order, nothing here costs a Python step a message: a backlog comes
        100,000 messages at a time.
        """
        self.all_messages.extend(messages)
        if self.order is not Order.SEQ and (messages or any(changed.values())):
            self._rebuild(keep=self.current)  # a new row, or a latency, may belong anywhere
            return
        self._add_rows(messages)
        self.rows_added()
        if sum(map(len, changed.values())) > CACHE_ROWS:  # more than could be drawn: redraw what is
            self.forget_rows()
        else:
            rows = (self.row_of((origin, seq)) for origin, seqs in changed.items() for seq in seqs)
            self.refresh_rows(row for row in rows if row is not None)
        if self.follow and self._shown:
            self.move_to(len(self._shown) - 1)
        self._say_empty()

    def reset(self) -> None:
        """Forget every message (another session is shown); the filter, order and time display stay."""
        self.all_messages = []
        self.origin_of = {}
        self._message_of = Index()
        self.follow = True
        self._rebuild(keep=None)

    def _add_rows(self, messages: Sequence[Message]) -> None:
        """The messages that pass the filter, as rows at the end."""
        self._shown.extend(messages if self.filter is None else filter(self.filter, messages))

    def _rebuild(self, keep: Message | None) -> None:
        """Filter and order every message again; the cursor stays on ``keep`` when it is still shown."""
        self._shown = []
        self._row_of = Index()
        self._add_rows(self.all_messages)
        if self.order is not Order.SEQ:
            self._shown.sort(key=latency_key if self.order is Order.LATENCY else size_key)
        cursor = self.row_of(self.key(keep)) if keep is not None else None
        if cursor is None:
            cursor = len(self._shown) - 1 if self.follow else 0
        self._say_empty()
        self.set_rows(self._shown, cursor=cursor)

    def _say_empty(self) -> None:
        self.empty = NONE_MATCH if self.filter is not None and self.all_messages else NO_MESSAGES

    def set_filter(self, message_filter: Filter | None) -> None:
        """Show only the messages ``message_filter`` passes (all of them for None)."""
        self.filter = message_filter
        self._rebuild(keep=None if self.follow else self.current)
        self.post_message(self.Changed(self))

    def set_order(self, order: Order) -> None:
        """Sort the rows (not following: the newest is not at the end), or back in seq order."""
        self.order = order
        if order is not Order.SEQ:
            self.follow = False
        self._rebuild(keep=self.current)
        self.post_message(self.Changed(self))

    def set_time_display(self, display: TimeDisplay) -> None:
        self.time_display = display
        self.set_columns(message_columns(display, self.servers is not None))
        self.set_rows(self._shown, cursor=self.cursor)

    def set_follow(self, follow: bool) -> None:
        """Follow the newest message (the cursor goes there), or stay where the cursor is."""
        if follow and self.order is not Order.SEQ:
            self.set_order(Order.SEQ)  # following means the newest last
        self.follow = follow
        if follow and self._shown:
            self.move_to(len(self._shown) - 1)
        self.post_message(self.Changed(self))

    def jump_to(self, seq: int | None, origin: int | None = None) -> bool:
        """Put the cursor on message ``seq`` and stop following; False when it is not listed.

        ``origin``: of which session (default: the one under the cursor).
        """
        if origin is None:
            origin = self.key(self.current)[0] if self.current is not None else 0
        row = self.row_of((origin, seq)) if seq is not None else None
        if row is None:
            return False
        self.follow = False
        self.move_to(row, upward=True)
        self.post_message(self.Changed(self))
        return True

    def nearest_shown(self, seq: int, origin: int) -> int | None:
        """The seq of the listed message of session ``origin`` nearest to ``seq`` (None: none listed)."""
        shown = [m for m in self._shown if self.key(m)[0] == origin]
        if not shown:
            return None
        return min(shown, key=lambda m: (abs(m.seq - seq), m.seq)).seq

    def jump_to_pair(self) -> None:
        """From a request to its reply and back."""
        if self.current is not None:
            self.jump_to(pair_of(self.current))

    def jump_to_row(self, index: int) -> None:
        """Put the cursor on row ``index`` and stop following (a search hit)."""
        self.follow = False
        self.move_to(index, upward=True)
        self.post_message(self.Changed(self))

    @on(RowList.Highlighted)
    def _moved(self, event: RowList.Highlighted) -> None:
        """Moving up stops following; coming back to the end resumes it (in seq order)."""
        event.stop()
        if event.upward and self.follow:
            self.follow = False
            self.post_message(self.Changed(self))
        elif not event.upward and not self.follow and event.index == len(self._shown) - 1:
            self.follow = self.order is Order.SEQ  # sorted, the last row is not the newest
            self.post_message(self.Changed(self))
        self.post_message(self.Shown(self, self.current))

    # --- the keys (keymap.py): they do nothing while a screen is over the inspector

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.app.screen is self.screen

    def action_toggle_follow(self) -> None:
        self.set_follow(not self.follow)

    def action_pair(self) -> None:
        self.jump_to_pair()

    def action_order(self) -> None:
        order = self.order.next()
        self.set_order(order)
        self.notify(
            f"order: by {order.value}" + ("" if order.value == "seq" else " (f: back to following)"),
            markup=False,
        )

    def action_time_display(self) -> None:
        display = self.time_display.next()
        self.set_time_display(display)
        self.notify(f"time: {display.value}", markup=False)

    def action_search_next(self, step: int, include_current: bool = False) -> None:
        """`n`/`N`: the next (previous) message with the searched text, wrapping around."""
        if self.search is None:
            self.notify("nothing searched yet: ctrl+f", markup=False)
            return
        rows, cursor = self.rows, self.cursor
        if include_current and 0 <= cursor < len(rows) and self.search(rows[cursor]):
            index: int | None = cursor
        else:
            index = self.search.next_index(rows, cursor, step) if rows else None
        if index is None:
            self.notify(f"no message has {self.search.text!r}", severity="warning", markup=False)
            return
        self.jump_to_row(index)

    def go_to_seq(self, seq: int, origin: int | None = None) -> None:
        """`:`: the cursor to message ``seq`` of session ``origin`` (default: the cursor's) or the nearest."""
        if origin is None:
            origin = self.key(self.current)[0] if self.current is not None else 0
        if self.jump_to(seq, origin):
            return
        nearest = self.nearest_shown(seq, origin)
        if nearest is None:
            self.notify("no message of that session is listed", severity="warning", markup=False)
            return
        self.jump_to(nearest, origin)
        known = {m.seq for m in self.all_messages if self.key(m)[0] == origin}
        why = (
            "is hidden by the filter"
            if seq in known
            else "is not a message (a process event, or past the end)"
        )
        self.notify(f"seq {seq} {why}: at seq {nearest}, the nearest", markup=False)

    def action_whole(self) -> None:
        if self.current is not None:
            self.app.push_screen(WholeMessage(self.current))

    def action_follow_exchange(self) -> None:
        if self.current is not None:
            self.app.push_screen(FollowExchange(self.current, self.of_session(self.current)))

    def action_copy(self, with_pair: bool) -> None:
        """`y`: the message's line to the clipboard; `Y`: it and its pair, in seq order (JSON lines)."""
        message = self.current
        if message is None:
            return
        messages = [message]
        if with_pair:
            seq = pair_of(message)
            pair = next((m for m in self.of_session(message) if m.seq == seq), None) if seq else None
            if pair is None:
                self.notify(
                    f"seq {message.seq} has no pair: copied it alone", severity="warning", markup=False
                )
            else:
                messages = sorted([message, pair], key=lambda m: m.seq)
        text = "\n".join(line_of(m) for m in messages)
        done = send_to_clipboard(self.app.copy_to_clipboard, text)
        seqs = " and ".join(str(m.seq) for m in messages)
        self.notify(f"seq {seqs} ({len(text.encode()):,} bytes) {done}", markup=False)
