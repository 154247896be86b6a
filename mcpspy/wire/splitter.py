"""Split a byte stream into newline-terminated lines, exactly.

Only the bytes of each new chunk are searched: bytes held for an unfinished
line are known to hold no newline, so a 100 MiB line costs O(n). A line that
arrived in many chunks is handed out as those chunks (a ``LongLine``), never
copied into one 100 MiB buffer: the capture writes it piece by piece.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

#: A line that spans chunks and is longer than this stays in pieces.
JOIN_BELOW = 1 << 20


@dataclass(frozen=True, slots=True)
class LongLine:
    """A line as the chunks it arrived in, without its ``\\n``."""

    pieces: tuple[bytes, ...]

    def __len__(self) -> int:
        return sum(map(len, self.pieces))

    def __bytes__(self) -> bytes:
        return b"".join(self.pieces)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.pieces)


#: A line without its newline: its bytes, or its pieces when long.
LineData = bytes | LongLine


def line_bytes(line: LineData) -> bytes:
    return line if isinstance(line, bytes) else bytes(line)


class LineSplitter:
    """Feed chunks, get back the lines they complete; ``close`` gives the unterminated tail.

    A ``\\r`` before a newline stays in the line; the newline itself does not.
    """

    __slots__ = ("_held", "_held_size")

    def __init__(self) -> None:
        self._held: list[bytes] = []  # pieces of the unfinished line: no newline in them
        self._held_size = 0

    @property
    def pending(self) -> int:
        """Bytes held that no newline has ended yet."""
        return self._held_size

    def feed(self, chunk: bytes) -> Sequence[LineData]:
        if not self._held:
            return self._split_fresh(chunk)
        end = chunk.find(b"\n")
        if end == -1:
            if chunk:
                self._held.append(chunk)
                self._held_size += len(chunk)
            return []
        if end:
            self._held.append(chunk[:end])
            self._held_size += end
        lines = [self._take_held()]
        lines += self._split_fresh(chunk[end + 1 :])
        return lines

    def close(self) -> LineData | None:
        """End of stream: whatever is held, as an unterminated line."""
        return self._take_held() if self._held else None

    def _split_fresh(self, chunk: bytes) -> list[bytes]:
        """Split a chunk when nothing is held: the common, fast path."""
        lines = chunk.split(b"\n")
        tail = lines.pop()
        if tail:
            self._held.append(tail)
            self._held_size = len(tail)
        return lines

    def _take_held(self) -> LineData:
        held, size = self._held, self._held_size
        self._held, self._held_size = [], 0
        if len(held) == 1:
            return held[0]
        if size < JOIN_BELOW:
            return b"".join(held)
        return LongLine(tuple(held))
