"""Read a capture, finished or still being written.

``CaptureReader.poll`` returns the records that have landed since the last
call and holds back a last line whose newline has not been written yet, in the
way toolong follows a growing log: read from the offset, never re-read, a
slice at a time (memory holds one record line, never the file).

Streamed lines (format 1.1, ``capture.format``) are joined here: their parts
wait per stream until the line record that ends them, and a line longer than
``capture.pieces.KEEP`` keeps only its head and tail. Parts whose end never
comes (a ``capture-gap`` dropped it) are let go when the stream's next line
ends. When the writer is gone, ``ending`` says whether the capture was cut
inside a record: a ``capture-torn`` record for the analysis to note. Parts
followed by a ``capture-gap`` are not that: their end fell in the gap, which
says so itself.

Every reader comes through here, so here is where a file is judged a
capture at all: a regular file (a symlink to one included), never a device
(``/dev/zero`` would be read forever), a FIFO or a directory. And one record
line is bounded (``MAX_RECORD_LINE``: what the proxy can write for the
longest line it stores whole); a longer one is skipped and noted, never held.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

from mcpspy.capture.format import CaptureFormatError, StreamedEnd, decode_entry, decode_header
from mcpspy.capture.pieces import KEEP, Joiner
from mcpspy.capture.records import Event, Header, LifecycleRecord, LinePart, LineRecord, Record, Stream
from mcpspy.wire.splitter import PART_AT

READ_SIZE = 1 << 20
#: The longest record line a proxy writes: a line of PART_AT bytes stored whole, each byte a ``\u0000``.
MAX_RECORD_LINE = 6 * PART_AT + (64 << 10)
NEWLINE = ord("\n")


def open_capture_file(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of ``path`` if it is a regular file; CaptureFormatError says what it is else.

    Opened without blocking, so that a FIFO with no writer is refused rather than waited on.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode) else "a device"
            raise CaptureFormatError(f"not a capture file: {kind}, not a regular file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


class CaptureReader:
    """Incremental reader of one capture file."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        keep: int = KEEP,
        max_line: int = MAX_RECORD_LINE,
        fd: int | None = None,
    ) -> None:
        """``fd``: read that (a pipe: the sink process's feed) instead of opening ``path``, its name."""
        self.path = Path(path)
        self._keep = keep  # what is kept of a streamed line (``capture.pieces``)
        self.header: Header | None = None
        self.problems: list[str] = []  # unreadable lines, each said once
        self._fd = open_capture_file(self.path) if fd is None else fd
        self._max_line = max_line
        self._held: list[bytes] = []  # the start of a record line whose newline is not read yet
        self._held_size = 0
        self._skipping = 0  # bytes of a record line over the bound, dropped as they are read
        self._line_no = 0
        self._streaming: dict[Stream, tuple[Joiner, int]] = {}  # parts so far, and the last index
        self._gapped: set[Stream] = set()  # streams whose parts a capture-gap followed (their end in it)
        self._last: tuple[int, float] = (0, 0.0)  # the last record's seq and time
        self.at_end = False  # the last poll read up to the end of what the file held

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> CaptureReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def held_bytes(self) -> int:
        """Bytes of a line not complete yet (a record without its newline, a streamed line's parts)."""
        return self._held_size + sum(joiner.size for joiner, _ in self._streaming.values())

    def poll(self, max_bytes: int | None = None) -> list[Record]:
        """Records completed since the last poll. Raises CaptureFormatError on a bad header."""
        records: list[Record] = []
        budget = max_bytes
        self.at_end = False
        while budget is None or budget > 0:
            size = READ_SIZE if budget is None else min(READ_SIZE, budget)
            chunk = os.read(self._fd, size)
            if not chunk:
                self.at_end = True
                break
            if budget is not None:
                budget -= len(chunk)
            self._take(chunk, records)
        return records

    def poll_slice(self, max_bytes: int) -> list[Record]:
        """``poll``, reading on past ``max_bytes`` while only part of a longer record has come: a slice
        has a record unless the file has no more."""
        records = self.poll(max_bytes)
        held = 0
        while not records and self.held_bytes > held:
            held = self.held_bytes
            records = self.poll(max_bytes)
        return records

    def feed(self, chunk: bytes) -> list[Record]:
        """The records ``chunk`` completes, for a caller that reads the bytes itself (a pipe)."""
        records: list[Record] = []
        self._take(chunk, records)
        return records

    @property
    def torn_bytes(self) -> int:
        """Bytes of a record the capture ends inside (a streamed line whose end fell in a gap is not one)."""
        streaming = self._streaming.items()
        return self._held_size + sum(
            joiner.size for stream, (joiner, _) in streaming if stream not in self._gapped
        )

    def ending(self) -> list[Record]:
        """The writer is gone: a ``capture-torn`` record if the capture ends inside a record."""
        torn = self.torn_bytes
        if not torn:
            return []
        seq, t = self._last
        return [LifecycleRecord(seq + 1, t, Event.CAPTURE_TORN, {"bytes": torn})]

    def _take(self, chunk: bytes, records: list[Record]) -> None:
        if self._skipping:
            first = chunk.find(b"\n")
            if first == -1:
                self._skipping += len(chunk)
                return
            self._skipped(self._skipping + first)
            chunk = chunk[first + 1 :]
        # Each line with its newline: BytesIO finds them with memchr, where bytes.split tests every
        # byte (27 ns a record against 101); orjson reads a record with its newline as without.
        raws = BytesIO(chunk).readlines()
        tail = raws.pop() if raws and raws[-1][-1] != NEWLINE else b""
        if not raws:  # no newline in the chunk
            self._held.append(tail)
            self._held_size += len(tail)
            if self._held_size > self._max_line:
                self._skipping = self._held_size
                self._held, self._held_size = [], 0
            return
        if self._held:
            self._held.append(raws[0])
            raws[0] = b"".join(self._held)
            self._held, self._held_size = [], 0
        self._lines(raws, records)
        if tail:
            self._held, self._held_size = [tail], len(tail)

    def _skipped(self, size: int) -> None:
        self._skipping = 0
        self._line_no += 1
        self.problems.append(
            f"line {self._line_no}: a record of {size} bytes, longer than any mcpspy writes "
            f"({self._max_line}): skipped"
        )

    def _lines(self, raws: list[bytes], records: list[Record]) -> None:
        """Record lines, each with its newline."""
        appended, too_long, append = len(records), self._max_line + 1, records.append
        for raw in raws:
            self._line_no += 1
            if len(raw) > too_long:
                self._line_no -= 1
                self._skipped(len(raw) - 1)
                continue
            if self.header is None:
                self.header = decode_header(raw[:-1])
                continue
            try:
                entry = decode_entry(raw)
            except CaptureFormatError:
                self._unreadable(raw[:-1])
                continue
            if type(entry) is LineRecord and not self._streaming:  # most records: nothing more to do
                append(entry)
                continue
            if isinstance(entry, LinePart):
                self._gapped.discard(entry.stream)
                self._part(entry)
                continue
            if isinstance(entry, LifecycleRecord) and entry.event is Event.CAPTURE_GAP:
                self._gapped.update(self._streaming)
            if isinstance(entry, StreamedEnd):
                entry = self._joined(entry)
            elif isinstance(entry, LineRecord) and entry.stream in self._streaming:
                del self._streaming[entry.stream]  # parts whose end was dropped (a capture-gap says so)
            records.append(entry)
        if len(records) > appended:
            last = records[-1]
            self._last = (last.seq, last.t)

    def _unreadable(self, raw: bytes) -> None:
        """Say why a line is no record, read without its newline (the error says where); a blank is none."""
        if raw and not raw.isspace():  # not strip(): a copy
            try:
                decode_entry(raw)
            except CaptureFormatError as exc:
                self.problems.append(f"line {self._line_no}: {exc}")

    def _part(self, part: LinePart) -> None:
        joiner, last = self._streaming.get(part.stream, (None, 0))
        if joiner is None or part.index != last + 1:
            if part.index != 1:
                return  # the line lost its start: its parts are dropped until a new line
            joiner = Joiner(self._keep)
        joiner.add(part.data)
        self._streaming[part.stream] = (joiner, part.index)

    def _joined(self, end: StreamedEnd) -> LineRecord:
        record = end.record
        joiner, last = self._streaming.pop(record.stream, (Joiner(self._keep), 0))
        if last != end.parts:
            self.problems.append(
                f"line {self._line_no}: seq {record.seq} ends a line of {end.parts} parts, "
                f"{last} of them read: the line is incomplete"
            )
        joiner.add(record.data)
        return LineRecord(record.seq, record.t, record.stream, joiner.result(), record.terminated)


@dataclass
class Capture:
    """A whole capture read at once."""

    header: Header
    records: list[Record]
    problems: list[str] = field(default_factory=list)


def read_capture(path: str | os.PathLike[str], growing: bool = False) -> Capture:
    """Read everything readable; a torn last line becomes a problem note and a ``capture-torn`` record.

    ``growing``: a proxy is still writing the capture, so a last line without its
    newline is one being written, left for a later read, not a torn end.
    """
    with CaptureReader(path) as reader:
        records = reader.poll()
        if reader.header is None:
            raise CaptureFormatError(f"{path}: empty or unreadable capture (no header line)")
        problems = list(reader.problems)
        if growing:
            return Capture(reader.header, records, problems)
        if reader._skipping:
            problems.append(
                f"the last line ({reader._skipping} bytes) is longer than any mcpspy writes: skipped"
            )
        if reader.torn_bytes:
            problems.append(
                f"the last line ({reader.torn_bytes} bytes) is truncated: "
                "the proxy was stopped while writing it"
            )
        records += reader.ending()
        return Capture(reader.header, records, problems)
