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
inside a record: a ``capture-torn`` record for the analysis to note.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from mcpspy.capture.format import CaptureFormatError, StreamedEnd, decode_entry, decode_header
from mcpspy.capture.pieces import KEEP, Joiner
from mcpspy.capture.records import Event, Header, LifecycleRecord, LinePart, LineRecord, Record, Stream

READ_SIZE = 1 << 20


class CaptureReader:
    """Incremental reader of one capture file."""

    def __init__(self, path: str | os.PathLike[str], keep: int = KEEP, fd: int | None = None) -> None:
        """``fd``: read that (a pipe) instead of opening ``path``, which then only names it."""
        self.path = Path(path)
        self._keep = keep  # what is kept of a streamed line (``capture.pieces``)
        self.header: Header | None = None
        self.problems: list[str] = []  # unreadable lines, each said once
        self._fd = os.open(self.path, os.O_RDONLY) if fd is None else fd
        self._held: list[bytes] = []  # the start of a record line whose newline is not read yet
        self._held_size = 0
        self._line_no = 0
        self._streaming: dict[Stream, tuple[Joiner, int]] = {}  # parts so far, and the last index
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

    def feed(self, chunk: bytes) -> list[Record]:
        """The records ``chunk`` completes, for a caller that reads the bytes itself (a pipe)."""
        records: list[Record] = []
        self._take(chunk, records)
        return records

    def ending(self) -> list[Record]:
        """The writer is gone: a ``capture-torn`` record if the capture ends inside a record."""
        torn = self.held_bytes
        if not torn:
            return []
        seq, t = self._last
        return [LifecycleRecord(seq + 1, t, Event.CAPTURE_TORN, {"bytes": torn})]

    def _take(self, chunk: bytes, records: list[Record]) -> None:
        end = chunk.rfind(b"\n")
        if end == -1:
            self._held.append(chunk)
            self._held_size += len(chunk)
            return
        lines = chunk[:end]
        if self._held:
            self._held.append(lines)
            lines = b"".join(self._held)
            self._held, self._held_size = [], 0
        self._lines(lines.split(b"\n"), records)
        tail = chunk[end + 1 :]
        if tail:
            self._held, self._held_size = [tail], len(tail)

    def _lines(self, raws: list[bytes], records: list[Record]) -> None:
        for raw in raws:
            self._line_no += 1
            if self.header is None:
                self.header = decode_header(raw)
                continue
            if not raw.strip():
                continue
            try:
                entry = decode_entry(raw)
            except CaptureFormatError as exc:
                self.problems.append(f"line {self._line_no}: {exc}")
                continue
            if isinstance(entry, LinePart):
                self._part(entry)
                continue
            if isinstance(entry, StreamedEnd):
                entry = self._joined(entry)
            elif isinstance(entry, LineRecord) and entry.stream in self._streaming:
                del self._streaming[entry.stream]  # parts whose end was dropped (a capture-gap says so)
            records.append(entry)
            self._last = (entry.seq, entry.t)

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


def read_capture(path: str | os.PathLike[str]) -> Capture:
    """Read everything readable; a torn last line becomes a problem note and a ``capture-torn`` record."""
    with CaptureReader(path) as reader:
        records = reader.poll()
        if reader.header is None:
            raise CaptureFormatError(f"{path}: empty or unreadable capture (no header line)")
        problems = list(reader.problems)
        if reader.held_bytes:
            problems.append(
                f"the last line ({reader.held_bytes} bytes) is truncated: "
                "the proxy was stopped while writing it"
            )
        records += reader.ending()
        return Capture(reader.header, records, problems)
