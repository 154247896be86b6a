"""The capture's bounded buffer: what is let in, what is dropped, and the gap that says so. Pure.

Forwarding never waits on the disk, so what the proxy records waits here, in
memory, for the writer thread; this decides what gets in. The buffer is
bounded by bytes (``LIMIT``): past it, records are dropped and counted, and
once it has drained to half (``RESUME_AT``: not one gap a record while a disk
limps) the count is owed to the capture as one ``capture-gap`` record (lines,
bytes, the first and last seq lost, and the parts of streamed lines lost).

Lifecycle records always get in: they are few and small, and the end of a
session must be told. A streamed line (``wire.splitter.PART_AT``) that loses
one part loses the rest of it too, up to and including its end, so a reader
never joins a line with a hole; those losses join the gap when the line ends.

No locks and no clock: ``proxy.recording`` calls in under its lock.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpspy.capture.records import LifecycleRecord, LineBatch, LinePart, LineRecord, Record, Recorded, Stream
from mcpspy.wire.splitter import LongLine

#: 64 MiB: what the recording may hold in memory, the lines the splitters hold unended (up to
#: ``PART_AT``, 16 MiB, a stream) included. That keeps the proxy under ~100 MiB whatever the
#: traffic (BENCHMARKS.md) and holds ~3-6 s of a heavy session (10 MB/s) while a disk hangs. The
#: held lines count because they come out at once: a 64 MiB line echoed (16 MiB held on each of
#: two streams, then let go as parts) fits with 32 MiB to spare for a writer that keeps up, where a
#: buffer of 32 MiB beside them dropped three quarters of it on a healthy disk.
LIMIT = 64 << 20
RESUME_AT = LIMIT // 2
#: What the parts of streamed lines may use besides: one line echoed streams 128 MiB of parts in
#: 0.15 s, and a writer thread kept off the CPU for 40 ms by the machine's other work fell more than
#: the 32 MiB that two held lines leave behind (a capture-gap in 1 round of 20 at load 6). The
#: memory is bounded the same (a 1 GiB line with a hung disk holds 96 MiB, not 1 GiB), and floods
#: of short lines, which a writer cannot outrun, keep the 64 MiB bound.
PARTS_EXTRA = 32 << 20
RECORD_COST = 256  # what a record costs besides its bytes (its objects, its encoding's slack)


@dataclass
class Gap:
    """What was dropped and not yet told: a ``capture-gap`` record's details."""

    lines: int = 0
    bytes: int = 0
    first: int = 0  # seqs of the lines lost (0: none yet)
    last: int = 0
    parts: int = 0  # parts of streamed lines lost

    def __bool__(self) -> bool:
        return bool(self.lines or self.parts)

    def lost_lines(self, first_seq: int, count: int, size: int) -> None:
        self.lines += count
        self.bytes += size
        self.first = self.first or first_seq
        self.last = first_seq + count - 1

    def details(self) -> dict[str, int | str | float]:
        out: dict[str, int | str | float] = {"lines": self.lines, "bytes": self.bytes}
        if self.lines:
            out.update(first=self.first, last=self.last)
        if self.parts:
            out["parts"] = self.parts
        return out


def size_of(item: Recorded | Record) -> int:
    """The bytes an item carried on the wire, newlines included (a lifecycle record: none)."""
    if isinstance(item, LineBatch):
        return sum(map(len, item.lines)) + (len(item.lines) if item.terminated else 0)
    if isinstance(item, LinePart):
        return item.size
    return item.size if isinstance(item, LineRecord) else 0


class Admission:
    """The buffer: ``admit`` what the recorder released, ``take`` for the writer, ``written`` after."""

    def __init__(self, limit: int = LIMIT, parts_extra: int = PARTS_EXTRA) -> None:
        self.limit = limit
        self.parts_limit = limit + parts_extra  # the bound for parts of streamed lines
        self.resume_at = limit // 2
        self.queue: list[Recorded] = []
        self.queued = 0  # bytes in the queue
        self.in_write = 0  # bytes taken by the writer and not written yet
        self.held = 0  # bytes the recorder's splitters hold (lines not ended yet), as of the last admit
        self.dropping = False
        self.gap = Gap()
        self._lost: dict[Stream, Gap] = {}  # streamed lines that lost a part, by stream: the rest goes too
        self.calm = True  # nothing dropped, owed or lost: the fast path may admit

    def admit(self, due: list[Recorded], cost: int, held: int = 0) -> None:
        """Let in what the recorder released; ``cost``: its bytes as the recorder counted them, plus
        ``RECORD_COST`` a record and the capture bytes already encoded for it (``LineBatch.encoded``);
        ``held``: what the recorder still holds, which the bound counts too."""
        self.held = held
        if self.calm and self.queued + self.in_write + held + cost <= self.limit:
            self.queue += due
            self.queued += cost
            return
        for item in due:
            self._admit_one(item)

    def gap_due(self) -> bool:
        """A gap is owed and the buffer has drained: time to tell it (then ``take_gap``)."""
        return bool(self.gap) and self.queued + self.in_write <= self.resume_at

    def take_gap(self) -> dict[str, int | str | float]:
        """The owed gap's details; the buffer admits again."""
        details = self.gap.details()
        self.gap = Gap()
        self.dropping = False
        self.calm = not self._lost
        return details

    def take(self) -> list[Recorded]:
        """Everything queued, for the writer; it stays counted until ``written``."""
        taken, self.queue = self.queue, []
        self.in_write += self.queued
        self.queued = 0
        return taken

    def written(self, size: int | None = None) -> None:
        """All that was taken is written; or, with ``size``, that much of it (a big line's parts)."""
        self.in_write = 0 if size is None else max(0, self.in_write - size)

    def abandon(self) -> list[Recorded]:
        """At the end, when the drain gives up: drop every line and part queued, keep the rest."""
        kept: list[Recorded] = []
        for item in self.queue:
            if isinstance(item, LifecycleRecord):
                kept.append(item)
            else:
                self._drop(item, size_of(item))
        self.queue, self.queued = kept, 0
        return kept

    def _admit_one(self, item: Recorded) -> None:
        if isinstance(item, LifecycleRecord):
            self.queue.append(item)
            return
        if isinstance(item, LinePart):
            lost = self._lost.get(item.stream)
            if lost is not None and item.index == 1:  # a new line, though the lost one never ended
                del self._lost[item.stream]
                self.gap.parts += lost.parts
                self.gap.bytes += lost.bytes
                lost = None
            size = item.size
            if lost is not None:  # the rest of a line that lost a part: told when the line ends
                lost.parts += 1
                lost.bytes += size
                return
            held = size if item.encoded is None else sum(map(len, item.encoded))  # what it holds in memory
            if self._room(held, self.parts_limit):
                self._queue(item, held)
            else:
                self._drop(item, size)
            return
        first = item.lines[0]
        if isinstance(first, LongLine) and first.parts and item.stream in self._lost:
            lost = self._lost.pop(item.stream)  # the end of a line that lost a part: it goes too
            self.gap.lost_lines(item.first_seq, 1, lost.bytes + len(first) + int(item.terminated))
            self.gap.parts += lost.parts
            self.calm = False
            if len(item.lines) == 1:
                return
            item = LineBatch(item.first_seq + 1, item.t, item.stream, item.lines[1:], item.terminated)
        size = size_of(item)
        held = size + (len(item.encoded) if item.encoded is not None else 0)  # its capture bytes too
        streamed_end = isinstance(first, LongLine) and first.parts > 0  # the rest of a streamed line
        if self._room(held, self.parts_limit if streamed_end else self.limit):
            self._queue(item, held)
        else:
            self._drop(item, size)

    def _room(self, size: int, limit: int) -> bool:
        if self.dropping:
            return False  # until the owed gap is told (``take_gap``), at half the buffer
        if self.queued + self.in_write + self.held + size + RECORD_COST > limit:
            self.dropping, self.calm = True, False
            return False
        return True

    def _queue(self, item: Recorded, size: int) -> None:
        self.queue.append(item)
        self.queued += size + RECORD_COST

    def _drop(self, item: Recorded, size: int) -> None:
        self.calm = False
        if isinstance(item, LineBatch):
            if isinstance(item.lines[0], LongLine) and item.lines[0].parts:
                self._lost.pop(item.stream, None)  # a streamed line's end, lost: its parts were written
            self.gap.lost_lines(item.first_seq, len(item.lines), size)
        elif isinstance(item, LinePart):
            self.gap.parts += 1
            self.gap.bytes += size
            self._lost.setdefault(item.stream, Gap())  # the rest of its line goes too
