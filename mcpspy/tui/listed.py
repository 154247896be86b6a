"""A message listed before its line is read: how a 100,000-message backlog goes up at once.

Reading a line (``analysis.analyzer.read_line``: parse it; its kind, id, method,
params) costs more than reading its capture record. The loader lists a
backlog's line records as ``ListedMessage``: a Message whose seq, time,
stream and bytes are set and whose other fields are not. The first time one
of those is asked for (the UI thread drawing its row, filtering, searching,
exporting), the line is read into the same object, which becomes a plain
Message. The worker reads every line again into its message as it analyses
it (``read_for_analysis``), so the analysis gets what the reading said and
its findings and exchange land on the message the list shows; a line the UI
read first (a drawn row) is parsed twice, every other once. One lock keeps
two threads from reading into one message at once.

A finished capture is analysed in a child process instead (analysis_child.py),
whose findings and exchanges are put on the listed messages as they come,
read or not: a line read later keeps them (``_ANALYSED``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import partial
from typing import Any

from mcpspy.analysis.analyzer import read_line
from mcpspy.analysis.jsonrpc import Parsed
from mcpspy.analysis.model import Message
from mcpspy.capture.records import LineRecord

_READING = threading.Lock()  # one line read into its message at a time (a read is a few microseconds)
FIELDS = frozenset(Message.__dataclass_fields__)
_INIT = Message.__init__  # every field set anew, by position: a message read as if made by read_line
READ_TOGETHER = 32  # lines read under one lock, then analysed (read_for_analysis)
# What an analysis elsewhere puts on a message (analysis_child.Mirror), as slots: kept across the read.
_ANALYSED = tuple(Message.__dict__[name] for name in ("exchange", "findings", "injected", "method"))


class ListedMessage(Message):
    """A message whose line is not read yet; read at the first ask for a field it does not have.

    No slots of its own: it becomes a Message once read (``__class__`` is assigned, which needs
    the same layout), since a class with ``__getattr__`` is slower at every attribute and the
    analysis reads a message's fields many times.
    """

    __slots__ = ()

    @classmethod
    def of(cls, record: LineRecord) -> ListedMessage:
        """What the list needs before the line is read (the seq above all: its indexes)."""
        message = cls.__new__(cls)
        message.seq, message.t, message.stream = record.seq, record.t, record.stream
        message.raw, message.terminated = record.data, record.terminated
        return message

    def __getattr__(self, name: str) -> Any:
        """Called only for a field not set yet: the line is unread."""
        if name not in FIELDS:
            raise AttributeError(name)
        with _READING:
            if type(self) is ListedMessage:  # not read by the other thread meanwhile
                analysed = [(slot, value) for slot in _ANALYSED if (value := _set(slot, self)) is not _UNSET]
                read_line(self._record(), partial(_INIT, self))  # type: ignore[arg-type]
                for slot, value in analysed:
                    slot.__set__(self, value)
                self.__class__ = Message  # type: ignore[assignment]  # read: a Message now
        return getattr(self, name)

    def _record(self) -> LineRecord:
        return LineRecord(self.seq, self.t, self.stream, self.raw, self.terminated)


_UNSET = object()


def _set(slot: Any, message: Message) -> Any:
    """A slot's value, or _UNSET."""
    try:
        return slot.__get__(message)
    except AttributeError:
        return _UNSET


def read_now(message: Message) -> None:
    """Read a listed message's line now, if it is not read yet (before its fields are written)."""
    if type(message) is ListedMessage:
        message.kind  # noqa: B018 - the read is the point


def read_for_analysis(lines: Sequence[tuple[Message, LineRecord]]) -> list[Parsed | None]:
    """Read each record into its message for the analysis, under one lock: what each reading said.

    A few at a time (``READ_TOGETHER``), each analysed right after: a lock taken a line costs 5% of
    the worker's time, and a slice read whole before its analysis is analysed 25% slower (its
    payloads are out of the cache by then).
    """
    with _READING:
        # Message.__init__ fills the message held here: read_line's own return is not used.
        said = [read_line(record, partial(_INIT, message))[1] for message, record in lines]  # type: ignore[arg-type]
        for message, _ in lines:
            message.__class__ = Message
    return said
