from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mcpspy.wire.splitter import JOIN_BELOW, LineData, LineSplitter, LongLine, line_bytes


def split_all(chunks: list[bytes]) -> tuple[list[bytes], bytes | None]:
    """Every terminated line, and the unterminated tail (None when the stream ended on a newline)."""
    splitter = LineSplitter()
    lines: list[LineData] = []
    for chunk in chunks:
        lines += splitter.feed(chunk)
    tail = splitter.close()
    return [line_bytes(line) for line in lines], None if tail is None else line_bytes(tail)


def test_whole_buffer_bytewise_and_with_trailing_bytes() -> None:
    """h11's three ways: all at once, one byte at a time, and with bytes after."""
    data = b'{"a":1}\r\n\nready {"b":2}\n'
    expected = [b'{"a":1}\r', b"", b'ready {"b":2}']
    assert split_all([data]) == (expected, None)
    assert split_all([bytes([b]) for b in data]) == (expected, None)
    assert split_all([data + b"tail"]) == (expected, b"tail")


def test_partial_line_is_held_until_its_newline() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b"ready ") == []
    assert splitter.pending == 6
    assert splitter.feed(b'{"id":1}\nnext') == [b'ready {"id":1}']
    assert splitter.close() == b"next"
    assert splitter.close() is None
    assert splitter.pending == 0


def test_long_line_in_many_chunks_stays_in_its_pieces() -> None:
    """100 MiB in 64 KiB chunks: linear work, one line out, never copied into one buffer."""
    splitter = LineSplitter()
    chunk = b"x" * 65536
    for _ in range(1600):
        assert splitter.feed(chunk) == []
    (line,) = splitter.feed(b"\n")
    assert isinstance(line, LongLine)
    assert len(line) == 1600 * 65536
    assert all(piece is chunk for piece in line.pieces)


def test_a_line_across_chunks_is_joined_when_short() -> None:
    splitter = LineSplitter()
    splitter.feed(b"a" * 10)
    assert splitter.feed(b"b\nc") == [b"a" * 10 + b"b"]
    splitter = LineSplitter()
    splitter.feed(b"a" * JOIN_BELOW)
    (line,) = splitter.feed(b"b\n")
    assert isinstance(line, LongLine) and bytes(line) == b"a" * JOIN_BELOW + b"b"


@given(st.binary(max_size=2000), st.lists(st.integers(min_value=1, max_value=50), max_size=60))
def test_any_chunking_gives_the_same_lines_and_the_same_bytes(data: bytes, cuts: list[int]) -> None:
    chunks, rest = [], data
    for cut in cuts:
        chunks.append(rest[:cut])
        rest = rest[cut:]
    chunks.append(rest)
    lines, tail = split_all(chunks)
    assert (lines, tail) == split_all([data])
    assert b"".join(line + b"\n" for line in lines) + (tail or b"") == data
    assert all(b"\n" not in line for line in lines)
    assert tail is None or (tail and b"\n" not in tail)
