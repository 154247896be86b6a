"""Turn what the pumps read into capture records, in the order it was read.

Pure: no I/O, no clock, no locks (the proxy serialises ``ticket``). A pump
takes a ticket the moment a chunk is read, forwards the chunk, and only then
hands it in. Pumps run concurrently, so
chunks can be handed in out of ticket order; the recorder holds them until
every earlier ticket has come in, then splits them into lines and numbers the
lines. That is how a reply is never numbered before the request it answers.

The lines of one chunk come out as one ``LineBatch`` (one object a chunk, not
one a line); ``records.as_records`` turns them into line records when wanted.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from mcpspy.capture.records import Event, LifecycleRecord, LineBatch, Recorded, Stream
from mcpspy.wire.splitter import LineSplitter


@dataclass(slots=True)
class _Lifecycle:
    t: float
    event: Event
    details: dict[str, int | str | float] = field(default_factory=dict)


_Chunk = tuple[Stream, float, bytes]  # b"" means end of stream


class Recorder:
    def __init__(self) -> None:
        #: Reserve a place in the record order (0, 1, 2...). Every ticket must be handed in.
        self.ticket: Callable[[], int] = itertools.count().__next__
        self._next_due = 0
        self._waiting: dict[int, _Chunk | _Lifecycle] = {}
        self._splitters = {stream: LineSplitter() for stream in Stream}
        self._seq = 0

    def event(self, ticket: int, t: float, event: Event, **details: int | str | float) -> None:
        """A lifecycle event, ordered where its ticket was taken."""
        self._waiting[ticket] = _Lifecycle(t, event, details)

    def hand_in(self, ticket: int, stream: Stream, t: float, data: bytes) -> list[Recorded]:
        """A chunk read under ``ticket`` (b"" at end of stream); what is now due, in order."""
        out: list[Recorded] = []
        if ticket == self._next_due and not self._waiting:  # nothing held: no detour by the dict
            self._next_due = ticket + 1
            self._emit_chunk(stream, t, data, out)
            return out
        self._waiting[ticket] = (stream, t, data)
        self._drain_into(out)
        return out

    def hand_in_line(self, ticket: int, stream: Stream, data: bytes) -> int:
        """The common case, with no batch made: ``data`` is one whole line, handed in its turn.

        Returns the line's seq (the caller records ``data`` without its newline
        under it), or 0 when the chunk is anything else: then call ``hand_in``.
        """
        if (
            ticket != self._next_due
            or self._waiting
            or not data
            or data.find(b"\n") != len(data) - 1
            or self._splitters[stream].pending
        ):
            return 0
        self._next_due = ticket + 1
        self._seq += 1
        return self._seq

    def drain(self) -> list[Recorded]:
        """What every ticket handed in with no gap before it recorded."""
        out: list[Recorded] = []
        self._drain_into(out)
        return out

    def finish(self, t: float) -> list[Recorded]:
        """Everything still held, at the end of the session.

        A ticket that never came in (a write the server never read) no longer
        holds back what came after it, and a stream that never reached its end
        gives up its partial last line, unterminated.
        """
        out = self.drain()
        for ticket in sorted(self._waiting):
            self._emit(self._waiting.pop(ticket), out)
        for stream in Stream:
            self._close(stream, t, out)
        return out

    def _drain_into(self, out: list[Recorded]) -> None:
        waiting = self._waiting
        while self._next_due in waiting:
            self._emit(waiting.pop(self._next_due), out)
            self._next_due += 1

    def _emit(self, item: _Chunk | _Lifecycle, out: list[Recorded]) -> None:
        if isinstance(item, _Lifecycle):
            self._seq += 1
            out.append(LifecycleRecord(self._seq, item.t, item.event, item.details))
        else:
            self._emit_chunk(*item, out)

    def _emit_chunk(self, stream: Stream, t: float, data: bytes, out: list[Recorded]) -> None:
        if not data:
            self._close(stream, t, out)
            return
        lines = self._splitters[stream].feed(data)
        if lines:
            out.append(LineBatch(self._seq + 1, t, stream, lines))
            self._seq += len(lines)

    def _close(self, stream: Stream, t: float, out: list[Recorded]) -> None:
        tail = self._splitters[stream].close()
        if tail is not None:
            self._seq += 1
            out.append(LineBatch(self._seq, t, stream, (tail,), terminated=False))
