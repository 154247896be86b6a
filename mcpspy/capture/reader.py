"""Read a capture, finished or still being written.

``CaptureReader.poll`` returns the records that have landed since the last
call and holds back a last line whose newline has not been written yet, in the
way toolong follows a growing log: read from the offset, never re-read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from mcpspy.capture.format import CaptureFormatError, decode_header, decode_record
from mcpspy.capture.records import Header, Record

READ_SIZE = 1 << 20


class CaptureReader:
    """Incremental reader of one capture file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.header: Header | None = None
        self.problems: list[str] = []  # unreadable lines, each said once
        self._fd = os.open(self.path, os.O_RDONLY)
        self._held = b""
        self._line_no = 0
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
        """Bytes of a last line with no newline yet: truncated, if the writer is gone."""
        return len(self._held)

    def poll(self, max_bytes: int | None = None) -> list[Record]:
        """Records completed since the last poll. Raises CaptureFormatError on a bad header."""
        chunks = [self._held]
        budget = max_bytes
        self.at_end = False
        while budget is None or budget > 0:
            size = READ_SIZE if budget is None else min(READ_SIZE, budget)
            chunk = os.read(self._fd, size)
            if not chunk:
                self.at_end = True
                break
            chunks.append(chunk)
            if budget is not None:
                budget -= len(chunk)
        data = b"".join(chunks)
        end = data.rfind(b"\n")
        if end == -1:
            self._held = data
            return []
        self._held = data[end + 1 :]
        records: list[Record] = []
        for raw in data[:end].split(b"\n"):
            self._line_no += 1
            if self.header is None:
                self.header = decode_header(raw)
                continue
            if not raw.strip():
                continue
            try:
                records.append(decode_record(raw))
            except CaptureFormatError as exc:
                self.problems.append(f"line {self._line_no}: {exc}")
        return records


@dataclass
class Capture:
    """A whole capture read at once."""

    header: Header
    records: list[Record]
    problems: list[str] = field(default_factory=list)


def read_capture(path: str | os.PathLike[str]) -> Capture:
    """Read everything readable; a torn last line becomes a problem note, not an error."""
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
        return Capture(reader.header, records, problems)
