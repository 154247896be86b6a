"""A streamed line put back together, keeping at most its head and its tail. Pure.

A line longer than ``wire.splitter.PART_AT`` is recorded as parts before its
end (``capture.format``). Whoever joins them (a reader, or the proxy's live
views) keeps the whole line up to ``KEEP`` bytes, and past that only its first
halves of ``KEEP``: still more than the analysis parses whole,
so it is classified from its edges as any oversized line is, and no view ever
holds a 1 GiB line.
"""

from __future__ import annotations

from collections import deque

#: What is kept of one line: one byte more than the analysis parses whole
#: (``analysis.rules.framing.MAX_LINE_BYTES``; a test checks they agree), so a cut line stays oversized.
KEEP = (16 << 20) + 1


class Joiner:
    """Feed a line's pieces in order; ``result`` gives it whole, or its head and tail when too long."""

    __slots__ = ("_head", "_head_size", "_tail", "_tail_size", "head", "size", "tail")

    def __init__(self, keep: int = KEEP) -> None:
        self.head, self.tail = keep // 2, keep - keep // 2  # what is kept of each end
        self._head: list[bytes] = []
        self._head_size = 0
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self.size = 0  # every byte fed, kept or not

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        if self._head_size < self.head:
            take = piece[: self.head - self._head_size]
            self._head.append(take)
            self._head_size += len(take)
            piece = piece[len(take) :]
            if not piece:
                return
        self._tail.append(piece)
        self._tail_size += len(piece)
        while self._tail_size - len(self._tail[0]) >= self.tail:  # the oldest piece is not needed any more
            self._tail_size -= len(self._tail.popleft())

    @property
    def elided(self) -> int:
        """Bytes of the middle not kept."""
        return max(0, self.size - self.head - self.tail)

    def result(self) -> bytes:
        tail = b"".join(self._tail)
        if len(tail) > self.tail:
            tail = tail[-self.tail :]
        return b"".join(self._head) + tail
