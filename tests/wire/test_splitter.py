from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mcpspy.wire.splitter import Line, LineSplitter


def split_all(chunks: list[bytes]) -> list[Line]:
    splitter = LineSplitter()
    lines: list[Line] = []
    for chunk in chunks:
        lines += splitter.feed(chunk)
    return lines + splitter.close()


def test_whole_buffer_bytewise_and_with_trailing_bytes() -> None:
    """h11's three ways: all at once, one byte at a time, and with bytes after."""
    data = b'{"a":1}\r\n\nready {"b":2}\n'
    expected = [Line(b'{"a":1}\r'), Line(b""), Line(b'ready {"b":2}')]
    assert split_all([data]) == expected
    assert split_all([bytes([b]) for b in data]) == expected
    assert split_all([data + b"tail"]) == [*expected, Line(b"tail", terminated=False)]


def test_partial_line_is_held_until_its_newline() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b"ready ") == []
    assert splitter.pending == 6
    assert splitter.feed(b'{"id":1}\nnext') == [Line(b'ready {"id":1}')]
    assert splitter.close() == [Line(b"next", terminated=False)]
    assert splitter.close() == []


def test_long_line_in_many_chunks_is_scanned_once() -> None:
    """100 MiB in 64 KiB chunks: linear work, one line out."""
    splitter = LineSplitter()
    chunk = b"x" * 65536
    for _ in range(1600):
        assert splitter.feed(chunk) == []
    (line,) = splitter.feed(b"\n")
    assert len(line.data) == 1600 * 65536


@given(st.binary(max_size=2000), st.lists(st.integers(min_value=1, max_value=50), max_size=60))
def test_any_chunking_gives_the_same_lines_and_the_same_bytes(data: bytes, cuts: list[int]) -> None:
    chunks, rest = [], data
    for cut in cuts:
        chunks.append(rest[:cut])
        rest = rest[cut:]
    chunks.append(rest)
    lines = split_all(chunks)
    assert lines == split_all([data])
    assert b"".join(line.wire for line in lines) == data
    assert all(b"\n" not in line.data for line in lines)
    assert all(line.terminated for line in lines[:-1])
