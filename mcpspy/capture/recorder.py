"""Turn what the pumps read into capture records, in the order it was read.

Pure: no I/O, no clock, no locks (the proxy serialises ``ticket``). A pump
takes a ticket the moment a chunk is read, forwards the chunk, and only then
hands it in. Pumps run concurrently, so
chunks can be handed in out of ticket order; the recorder holds them until
every earlier ticket has come in, then splits them into lines and numbers the
lines. That is how a reply is never numbered before the request it answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Record, Stream
from mcpspy.wire.splitter import LineSplitter


@dataclass(frozen=True, slots=True)
class _Chunk:
    stream: Stream
    t: float
    data: bytes  # b"" means end of stream


@dataclass(frozen=True, slots=True)
class _Lifecycle:
    t: float
    event: Event
    details: dict[str, int | str | float] = field(default_factory=dict)


class Recorder:
    def __init__(self) -> None:
        self._next_ticket = 0
        self._next_due = 0
        self._waiting: dict[int, _Chunk | _Lifecycle] = {}
        self._splitters = {stream: LineSplitter() for stream in Stream}
        self._seq = 0

    def ticket(self) -> int:
        """Reserve a place in the record order. Every ticket must be handed in."""
        ticket = self._next_ticket
        self._next_ticket += 1
        return ticket

    def chunk(self, ticket: int, stream: Stream, t: float, data: bytes) -> None:
        self._waiting[ticket] = _Chunk(stream, t, data)

    def end_of_stream(self, ticket: int, stream: Stream, t: float) -> None:
        self._waiting[ticket] = _Chunk(stream, t, b"")

    def event(self, ticket: int, t: float, event: Event, **details: int | str | float) -> None:
        """A lifecycle event, ordered where its ticket was taken."""
        self._waiting[ticket] = _Lifecycle(t, event, details)

    def drain(self) -> list[Record]:
        """Records for every ticket handed in with no gap before it."""
        out: list[Record] = []
        while self._next_due in self._waiting:
            self._emit(self._waiting.pop(self._next_due), out)
            self._next_due += 1
        return out

    def finish(self, t: float) -> list[Record]:
        """Everything still held, at the end of the session.

        A ticket that never came in (a write the server never read) no longer
        holds back what came after it, and a stream that never reached its end
        gives up its partial last line, unterminated.
        """
        out = self.drain()
        for ticket in sorted(self._waiting):
            self._emit(self._waiting.pop(ticket), out)
        for stream, splitter in self._splitters.items():
            for line in splitter.close():
                self._seq += 1
                out.append(LineRecord(self._seq, t, stream, line.data, line.terminated))
        return out

    def _emit(self, item: _Chunk | _Lifecycle, out: list[Record]) -> None:
        if isinstance(item, _Lifecycle):
            self._seq += 1
            out.append(LifecycleRecord(self._seq, item.t, item.event, item.details))
            return
        splitter = self._splitters[item.stream]
        for line in splitter.feed(item.data) if item.data else splitter.close():
            self._seq += 1
            out.append(LineRecord(self._seq, item.t, item.stream, line.data, line.terminated))
