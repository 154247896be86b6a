"""Turn what the pumps read into capture records, in the order it was read.

Pure: no I/O, no clock, no locks (the caller serialises every call). A pump
takes a ticket (0, 1, 2...) the moment a chunk is read, forwards the chunk,
and only then hands it in. Pumps run concurrently, so chunks can be handed in
out of ticket order; the recorder holds each one until every earlier ticket
has come in, then splits it into lines and numbers the lines. That is how a
reply is never numbered before the request it answers.

What is released waits in ``due``, in order, until ``take_due``. The lines of
one chunk come out as one ``LineBatch`` (one object a chunk, not one a line);
``records.as_records`` turns them into line records when wanted. A line too
long to hold (``wire.splitter.PART_AT``) comes out as ``LinePart``s as it
arrives, then its end; with ``keep_edges`` the end also carries the line's
head and tail (``capture.pieces``), for live views that analyse it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace

from mcpspy.capture.pieces import KEEP, Joiner
from mcpspy.capture.records import Event, LifecycleRecord, LineBatch, LinePart, Recorded, Stream
from mcpspy.wire.splitter import PART_AT, PART_SIZE, LineData, LineSplitter, LongLine


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


@dataclass(frozen=True, slots=True)
class _Mark:
    """An injection (``--inject``): recorded before the first of the next ``lines`` lines of ``stream``."""

    t: float
    stream: Stream
    lines: int
    details: dict[str, int | str | float]
    skip: int = 0  # lines before its own that it left as they were


class Recorder:
    def __init__(self, part_at: int = PART_AT, part_size: int = PART_SIZE) -> None:
        self._next_ticket = 0  # the first ticket not released yet
        self._held: dict[int, _Chunk | _Lifecycle | _Mark] = {}  # handed in ahead of their turn
        self._splitters = {stream: LineSplitter(part_at, part_size) for stream in Stream}
        self._seq = 0
        self._due: list[Recorded] = []
        self.released = 0  # bytes of chunks released so far
        self.held = 0  # of those, the bytes the splitters hold for lines not ended (nor streamed) yet
        self.keep_edges = False  # give a streamed line's end its head and tail (live views want them)
        self.keep = KEEP  # what the edges keep (``capture.pieces``)
        self._edges: dict[Stream, Joiner] = {}
        self._marks: dict[Stream, deque[_Mark]] = {}  # injections waiting for their line (if any)
        self._owed: dict[Stream, int] = {}  # lines still to come that an injection recorded already covers

    def hand_in(self, ticket: int, stream: Stream, t: float, data: bytes) -> None:
        """A chunk read under ``ticket`` (b"" at end of stream). Every ticket must be handed in."""
        if ticket == self._next_ticket and not self._held:  # in its turn: no detour by the dict
            self._next_ticket += 1
            self._release_chunk(stream, t, data)
        else:
            self._held[ticket] = _Chunk(stream, t, data)
            self._release_in_turn()

    def event(self, ticket: int, t: float, event: Event, **details: int | str | float) -> None:
        """A lifecycle event, ordered where its ticket was taken."""
        self._held[ticket] = _Lifecycle(t, event, details)
        self._release_in_turn()

    def mark(
        self,
        ticket: int,
        t: float,
        stream: Stream,
        lines: int,
        details: dict[str, int | str | float],
        skip: int = 0,
    ) -> None:
        """An injection, handed in before the bytes it wrote: recorded before its first line, naming it.

        The record (event ``injected``) gets ``altered``, the seq of the first of the ``lines``
        line records it made on ``stream`` (none when it made none: a dropped reply), after
        ``skip`` lines it left as they were.
        """
        self._held[ticket] = _Mark(t, stream, lines, details, skip)
        self._release_in_turn()

    def note(self, t: float, event: Event, **details: int | str | float) -> None:
        """A lifecycle record of the recording's own (a gap), numbered now, after what is released."""
        self._seq += 1
        self._due.append(LifecycleRecord(self._seq, t, event, details))

    @property
    def lines_open(self) -> bool:
        """Whether some stream is inside a line: bytes held, or parts of it out before its end."""
        return bool(self.held) or any(splitter.parts_taken for splitter in self._splitters.values())

    @property
    def due_count(self) -> int:
        """Records released and not taken yet."""
        return len(self._due)

    def take_due(self) -> list[Recorded]:
        """The records released since the last take, in order."""
        due, self._due = self._due, []
        return due

    def finish(self, t: float) -> None:
        """Release everything still held, at the end of the session.

        A ticket that never came in (a write the server never read) no longer
        holds back what came after it, and a stream that never reached its end
        gives up its partial last line, unterminated.
        """
        self._release_in_turn()
        for ticket in sorted(self._held):
            self._release(self._held.pop(ticket))
        for stream in Stream:
            self._close(stream, t)
        for marks in self._marks.values():  # injections whose bytes never made a line
            for mark in marks:
                self._seq += 1
                self._due.append(LifecycleRecord(self._seq, mark.t, Event.INJECTED, mark.details))
        self._marks.clear()

    def _release_in_turn(self) -> None:
        held = self._held
        while self._next_ticket in held:
            self._release(held.pop(self._next_ticket))
            self._next_ticket += 1

    def _release(self, item: _Chunk | _Lifecycle | _Mark) -> None:
        if isinstance(item, _Lifecycle):
            self._seq += 1
            self._due.append(LifecycleRecord(self._seq, item.t, item.event, item.details))
        elif isinstance(item, _Mark):
            if item.lines:
                self._marks.setdefault(item.stream, deque()).append(item)
            else:
                self._seq += 1
                self._due.append(LifecycleRecord(self._seq, item.t, Event.INJECTED, item.details))
        else:
            self._release_chunk(item.stream, item.t, item.data)

    def _release_chunk(self, stream: Stream, t: float, data: bytes) -> None:
        if not data:
            self._close(stream, t)
            return
        self.released += len(data)
        splitter = self._splitters[stream]
        held = splitter.pending
        lines = splitter.feed(data)
        if lines:
            first = lines[0]
            if type(first) is LongLine and first.parts:
                lines = [self._ended(stream, first), *lines[1:]]
            if self._marks and stream in self._marks:
                self._attach(stream, len(lines))
            self._due.append(LineBatch(self._seq + 1, t, stream, lines))
            self._seq += len(lines)
        if splitter.pending >= splitter.part_size:
            self._take_parts(splitter, stream, t)
        self.held += splitter.pending - held

    def _attach(self, stream: Stream, count: int) -> None:
        """Record the injections whose first line is among the next ``count`` lines of ``stream``."""
        pending = self._marks[stream]
        at = self._owed.get(stream, 0)  # where in these lines the next injection's lines start
        starting: list[tuple[_Mark, int]] = []
        while pending and at + pending[0].skip < count:
            mark = pending.popleft()
            at += mark.skip
            starting.append((mark, at))
            at += mark.lines
        if pending and at < count:  # the next one's lines left as they were began among these
            pending[0] = replace(pending[0], skip=pending[0].skip - (count - at))
        owed = self._owed[stream] = max(0, at - count)
        if not pending and not owed:  # kept while owed: the next injection starts after those lines
            del self._marks[stream]
        first_line = self._seq + len(starting) + 1
        for mark, index in starting:
            self._seq += 1
            details = {**mark.details, "altered": first_line + index, "lines": mark.lines}
            self._due.append(LifecycleRecord(self._seq, mark.t, Event.INJECTED, details))

    def _take_parts(self, splitter: LineSplitter, stream: Stream, t: float) -> None:
        parts = splitter.take_parts()
        index = splitter.parts_taken - len(parts)
        joiner = self._edges.setdefault(stream, Joiner(self.keep)) if self.keep_edges else None
        for part in parts:
            index += 1
            self._due.append(LinePart(stream, t, index, part))
            if joiner is not None:
                joiner.add(part)

    def _ended(self, stream: Stream, line: LongLine) -> LineData:
        """A streamed line's end: with its edges, when they are kept."""
        joiner = self._edges.pop(stream, None)
        if joiner is None:
            return line
        for piece in line.pieces:
            joiner.add(piece)
        return replace(line, edges=joiner.result())

    def _close(self, stream: Stream, t: float) -> None:
        splitter = self._splitters[stream]
        self.held -= splitter.pending
        tail = splitter.close()
        if tail is not None:
            if type(tail) is LongLine and tail.parts:
                tail = self._ended(stream, tail)
            if self._marks and stream in self._marks:
                self._attach(stream, 1)
            self._seq += 1
            self._due.append(LineBatch(self._seq, t, stream, (tail,), terminated=False))
