"""Split a byte stream into newline-terminated lines, exactly.

Like h11's receive buffer, the splitter remembers how far it has scanned, so a
line that arrives in many chunks is searched once: a 100 MiB line costs O(n).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Line:
    """One line as it was on the wire, without its ``\\n``.

    ``terminated`` is False only for bytes still unterminated when the stream
    closed. A ``\\r`` before the newline stays in ``data``.
    """

    data: bytes
    terminated: bool = True

    @property
    def wire(self) -> bytes:
        """The bytes exactly as they travelled."""
        return self.data + b"\n" if self.terminated else self.data


class LineSplitter:
    """Feed chunks, get back the lines they complete; ``close`` flushes the tail."""

    __slots__ = ("_buffer", "_scanned")

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._scanned = 0  # bytes of _buffer known to hold no newline

    @property
    def pending(self) -> int:
        """Bytes held that no newline has ended yet."""
        return len(self._buffer)

    def feed(self, chunk: bytes) -> list[Line]:
        if not self._buffer:
            return self._split_fresh(chunk)
        self._buffer += chunk
        end = self._buffer.find(b"\n", self._scanned)
        if end == -1:
            self._scanned = len(self._buffer)
            return []
        with memoryview(self._buffer) as view:  # one copy of a long line, not two
            lines = [Line(bytes(view[:end]))]
            rest = bytes(view[end + 1 :])
        self._buffer.clear()
        self._scanned = 0
        lines.extend(self._split_fresh(rest))
        return lines

    def _split_fresh(self, chunk: bytes) -> list[Line]:
        """Split a chunk when nothing is held: the common, fast path."""
        if not chunk:
            return []
        parts = chunk.split(b"\n")
        tail = parts.pop()
        if tail:
            self._buffer += tail
            self._scanned = len(tail)
        return [Line(part) for part in parts]

    def close(self) -> list[Line]:
        """End of stream: whatever is held becomes an unterminated line."""
        if not self._buffer:
            return []
        line = Line(bytes(self._buffer), terminated=False)
        self._buffer.clear()
        self._scanned = 0
        return [line]
