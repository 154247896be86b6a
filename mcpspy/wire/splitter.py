"""Split a byte stream into newline-terminated lines, exactly, holding at most ``PART_AT`` bytes.

Only the bytes of each new chunk are searched: bytes held for an unfinished
line are known to hold no newline, so a 100 MiB line costs O(n). A line that
arrived in many chunks is handed out as those chunks (a ``LongLine``), never
copied into one buffer: the capture writes it piece by piece.

A line is held whole up to ``PART_AT`` bytes (the analysis parses lines up to
that size whole, so a line it may parse is never cut). Past that, the holder
takes what is held as parts of about ``PART_SIZE`` bytes (``take_parts``) and
from then on each further ``PART_SIZE``: a 1 GiB line with no newline costs
``PART_AT`` bytes of memory, not 1 GiB. When such a line ends, it comes out as
a ``LongLine`` of its last bytes only, whose ``parts`` says how many parts
went before it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

#: A line that spans chunks and is longer than this stays in pieces.
JOIN_BELOW = 1 << 20
#: A line held longer than this is streamed in parts (= the analysis' whole-parse cap, 16 MiB).
PART_AT = 16 << 20
#: The size of one part, once a line streams: a capture record a reader can take in one piece.
PART_SIZE = 1 << 20


@dataclass(frozen=True, slots=True)
class LongLine:
    """A line as the chunks it arrived in, without its ``\\n``.

    ``parts``: how many parts of this line went out before these pieces
    (``LineSplitter.take_parts``); 0 for a line held whole. ``edges``: for a
    streamed line, its first and last bytes, when the recorder was asked to
    keep them (what a live view analyses: ``capture.pieces.Joiner``).
    """

    pieces: tuple[bytes, ...]
    parts: int = 0
    edges: bytes | None = None

    def __len__(self) -> int:
        return sum(map(len, self.pieces))

    def __bytes__(self) -> bytes:
        return b"".join(self.pieces)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.pieces)


#: A line without its newline: its bytes, or its pieces when long.
LineData = bytes | LongLine


def line_bytes(line: LineData) -> bytes:
    """The line's bytes; for a streamed line, its kept edges (or, without them, its last bytes)."""
    if isinstance(line, bytes):
        return line
    return line.edges if line.edges is not None else bytes(line)


def utf8_cut(data: bytes, at: int) -> int:
    """``at``, moved back (at most 3 bytes) so as not to cut a UTF-8 sequence in two."""
    if at >= len(data):
        return at
    cut = at
    while cut > at - 3 and cut > 0 and data[cut] & 0xC0 == 0x80:
        cut -= 1
    return cut if cut > 0 and data[cut] & 0xC0 != 0x80 else at


class LineSplitter:
    """Feed chunks, get back the lines they complete; ``close`` gives the unterminated tail.

    A ``\\r`` before a newline stays in the line; the newline itself does not.
    """

    __slots__ = ("_held", "_held_size", "_part_at", "_parts", "part_size")

    def __init__(self, part_at: int = PART_AT, part_size: int = PART_SIZE) -> None:
        self._held: list[bytes] = []  # pieces of the unfinished line: no newline in them
        self._held_size = 0
        self._parts = 0  # parts of the unfinished line already taken out
        self._part_at = part_at
        self.part_size = part_size

    @property
    def pending(self) -> int:
        """Bytes held that no newline has ended yet."""
        return self._held_size

    @property
    def parts_taken(self) -> int:
        """Parts of the unfinished line taken out so far (0: it is held whole)."""
        return self._parts

    def feed(self, chunk: bytes) -> Sequence[LineData]:
        if not self._held and not self._parts:
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
        lines: list[LineData] = [self._take_held()]
        lines += self._split_fresh(chunk[end + 1 :])
        return lines

    def take_parts(self) -> list[bytes]:
        """What is held, as parts of at most ``PART_SIZE`` (cut between UTF-8 sequences), once too much.

        Nothing until the line passes ``PART_AT``; then every whole part held. A part is the
        whole pieces that fit in one, as they came (a bulk read is one as it is); a piece longer
        than a part, or one that begins inside a UTF-8 sequence, is joined and cut.
        Pieces are let go as they are regrouped: memory never holds the line twice.
        """
        size = self.part_size
        limit = size if self._parts else self._part_at
        if self._held_size < limit:
            return []
        pieces, self._held = self._held, []
        parts: list[bytes] = []
        acc: list[bytes] = []
        acc_size = 0
        for i, piece in enumerate(pieces):
            pieces[i] = b""
            if acc and acc_size + len(piece) > size and piece[0] & 0xC0 != 0x80:
                # Whole pieces make the part, cut where they were read (not inside a UTF-8
                # sequence): a bulk read is a part as it is, no join and no slice. Joining a short
                # piece to a read and cutting would leave a rest, and so every read after it.
                parts.append(acc[0] if len(acc) == 1 else b"".join(acc))
                acc, acc_size = [], 0
            acc.append(piece)
            acc_size += len(piece)
            while acc_size >= size:
                data = acc[0] if len(acc) == 1 else b"".join(acc)
                cut = utf8_cut(data, size)
                parts.append(data[:cut])
                rest = data[cut:]
                acc, acc_size = ([rest] if rest else []), len(rest)
        self._held, self._held_size = acc, acc_size
        self._parts += len(parts)
        return parts

    def close(self) -> LineData | None:
        """End of stream: whatever is held, as an unterminated line."""
        return self._take_held() if self._held or self._parts else None

    def _split_fresh(self, chunk: bytes) -> list[bytes]:
        """Split a chunk when nothing is held: the common, fast path."""
        lines = chunk.split(b"\n")
        tail = lines.pop()
        if tail:
            self._held.append(tail)
            self._held_size = len(tail)
        return lines

    def _take_held(self) -> LineData:
        held, size, parts = self._held, self._held_size, self._parts
        self._held, self._held_size, self._parts = [], 0, 0
        if parts:
            return LongLine(tuple(held), parts)
        if len(held) == 1:
            return held[0]
        if size < JOIN_BELOW:
            return b"".join(held)
        return LongLine(tuple(held))
