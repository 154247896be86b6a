"""Lines too long to hold are streamed in parts (format 1.1) and joined by readers, keeping head and tail."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.analysis.rules.framing import MAX_LINE_BYTES
from mcpspy.capture.format import decode_entry, encode_part
from mcpspy.capture.pieces import KEEP, Joiner
from mcpspy.capture.reader import CaptureReader, read_capture
from mcpspy.capture.recorder import Recorder
from mcpspy.capture.records import Header, LinePart, LineRecord, Stream
from mcpspy.capture.redact import RedactionPolicy, Redactor, StreamedRedaction
from mcpspy.capture.writer import CaptureWriter
from mcpspy.wire.splitter import LineSplitter

HEADER = Header("1.1", "s", "2026-12-03T00:00:00.000Z", ("srv",), "srv", "/", "0", 1)


def test_what_a_reader_keeps_is_more_than_the_analysis_parses_whole() -> None:
    """A cut line must stay oversized, so that it is classified from its edges."""
    assert KEEP == MAX_LINE_BYTES + 1


@given(st.lists(st.binary(max_size=50), max_size=30), st.integers(min_value=2, max_value=120))
def test_a_joined_line_is_whole_up_to_keep_then_its_head_and_tail(pieces: list[bytes], keep: int) -> None:
    joiner = Joiner(keep)
    for piece in pieces:
        joiner.add(piece)
    whole = b"".join(pieces)
    expected = whole if len(whole) <= keep else whole[: keep // 2] + whole[len(whole) - (keep - keep // 2) :]
    assert joiner.result() == expected and joiner.size == len(whole)
    assert joiner.elided == max(0, len(whole) - keep)


chunks = st.lists(
    st.tuples(
        st.sampled_from(list(Stream)),
        st.one_of(
            st.binary(max_size=90),
            st.text(max_size=40).map(lambda s: s.encode()),
        ).map(lambda b: b.replace(b"x", b"\n")),
    ),
    max_size=40,
)


@settings(max_examples=300)
@given(chunks, st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=20))
def test_splitter_holds_at_most_part_at_and_the_parts_rebuild_every_line(
    handed: list[tuple[Stream, bytes]], part_at: int, part_size: int
) -> None:
    splitters = {s: LineSplitter(part_at, part_size) for s in Stream}
    out: dict[Stream, list[bytes]] = {s: [] for s in Stream}
    open_line: dict[Stream, list[bytes]] = {s: [] for s in Stream}
    for stream, data in handed:
        splitter = splitters[stream]
        for line in splitter.feed(data):
            out[stream].append(b"".join(open_line[stream]) + bytes(line))
            open_line[stream] = []
        open_line[stream] += splitter.take_parts()
        assert splitter.pending < max(part_at, part_size) + len(data)
    for stream in Stream:
        tail = splitters[stream].close()
        if tail is not None:
            out[stream].append(b"".join(open_line[stream]) + bytes(tail))
        expected = b"".join(data for s, data in handed if s is stream)
        assert b"\n".join(out[stream]) == expected.removesuffix(b"\n") or expected == b"\n" * len(out[stream])


def write_due(writer: CaptureWriter, recorder: Recorder, ahead: bool) -> None:
    """What the recorder released, written; ``ahead``: encoded first, as the proxy's pumps do."""
    due = recorder.take_due()
    if ahead:
        writer.encode_ahead(due)
    writer.write_recorded(due)


def record_through(
    path: Path, handed: list[tuple[Stream, bytes]], part_at: int, part_size: int, ahead: bool = True
) -> None:
    """Chunks through the recorder and the capture writer, as the proxy records them."""
    recorder = Recorder(part_at, part_size)
    writer = CaptureWriter(path, on_failure=lambda message: None, redaction=RedactionPolicy(enabled=False))
    writer.open(HEADER, private_dir=False)
    for ticket, (stream, data) in enumerate(handed):
        recorder.hand_in(ticket, stream, 0.5, data)
        write_due(writer, recorder, ahead)
    recorder.finish(1.0)
    write_due(writer, recorder, ahead)
    writer.close()


@settings(max_examples=200)
@given(chunks, st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=20), st.booleans())
def test_any_chunks_streamed_in_parts_read_back_to_their_bytes(
    tmp_path_factory: pytest.TempPathFactory,
    handed: list[tuple[Stream, bytes]],
    part_at: int,
    part_size: int,
    ahead: bool,
) -> None:
    """Encoded ahead by the pumps or by the writer as it writes, the same bytes come back."""
    path = tmp_path_factory.mktemp("c") / "c.jsonl"
    record_through(path, handed, part_at, part_size, ahead)
    with CaptureReader(path, keep=1 << 20) as reader:
        records = reader.poll()
        assert reader.problems == [] and reader.ending() == []
    assert [r.seq for r in records] == list(range(1, len(records) + 1))
    for stream in Stream:
        got = b"".join(r.wire for r in records if isinstance(r, LineRecord) and r.stream is stream)
        assert got == b"".join(data for s, data in handed if s is stream)


def test_a_streamed_line_is_stored_in_parts_that_give_its_exact_bytes(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    line = "é".encode() * 40 + b"\xff\xfe" + b"z" * 50
    record_through(path, [(Stream.S2C, line[i : i + 7]) for i in range(0, len(line), 7)], 32, 16)
    entries = [decode_entry(raw) for raw in path.read_bytes().splitlines()[1:]]
    parts = entries[:-1]
    assert [p.index for p in parts] == list(range(1, len(parts) + 1))  # type: ignore[union-attr]
    raw_records = [orjson.loads(raw) for raw in path.read_bytes().splitlines()[1:]]
    assert all("seq" not in r for r in raw_records[:-1])  # a part is numbered with its line's end
    assert raw_records[-1]["parts"] == len(parts) and raw_records[-1]["unterminated"] is True
    assert "text" in raw_records[0]  # cut between UTF-8 sequences: text, not base64
    stored = b"".join(r["text"].encode() if "text" in r else base64.b64decode(r["b64"]) for r in raw_records)
    assert stored == line


@pytest.mark.parametrize("ahead", [True, False], ids=["encoded-ahead", "encoded-by-the-writer"])
def test_a_streamed_line_that_may_name_a_credential_is_hidden_from_there_on(
    tmp_path: Path, ahead: bool
) -> None:
    path = tmp_path / "c.jsonl"
    line = b'{"jsonrpc":"2.0","id":1,"result":{"pad":"' + b"a" * 60 + b'","tok' + b'en":"SECRET-VALUE-1234"}}'
    recorder = Recorder(32, 16)
    writer = CaptureWriter(path, on_failure=lambda message: None)
    writer.open(HEADER, private_dir=False)
    wire = line + b"\n"
    for ticket, at in enumerate(range(0, len(wire), 7)):  # arriving in chunks: held, then streamed
        recorder.hand_in(ticket, Stream.S2C, 0.1, wire[at : at + 7])
        write_due(writer, recorder, ahead)
    writer.close()
    data = path.read_bytes()
    assert b"SECRET" not in data and b"<redacted:piece:" in data
    last = orjson.loads(data.splitlines()[-1])
    assert last["redacted"] is True and last["seq"] == 1
    first = orjson.loads(data.splitlines()[1])["text"].encode()
    assert first and line.startswith(first) and len(first) <= 16  # before the key: as it was


def test_parts_whose_end_was_dropped_are_let_go_and_a_capture_ending_among_them_is_torn(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.jsonl"
    record_through(path, [(Stream.S2C, b"p" * 100), (Stream.S2C, b"q" * 5)], 32, 16)
    lines = path.read_bytes().splitlines(keepends=True)
    # A gap dropped the first line's end: the next line of the stream begins afresh.
    orphaned = [*lines[:-1], b'{"seq":1,"t":0.5,"stream":"s2c","text":"next"}\n', *lines[1:3]]
    path.write_bytes(b"".join(orphaned))
    capture = read_capture(path)
    (first, torn) = capture.records
    assert isinstance(first, LineRecord) and first.data == b"next"
    assert torn.seq == 2 and torn.details == {"bytes": 32}  # type: ignore[union-attr]
    assert "truncated" in capture.problems[-1]


@given(st.binary(max_size=3000), st.floats(min_value=0, max_value=1e6))
def test_a_part_is_stored_as_its_exact_bytes_in_at_most_four_thirds_of_them(data: bytes, t: float) -> None:
    """Text when it is UTF-8 and no longer so, else base64: what the proxy's buffer holds for a part
    is bounded by its bytes, escapes or not (a control character is 6 bytes as JSON text)."""
    encoded = encode_part(LinePart(Stream.S2C, t, 7, data))
    entry = decode_entry(encoded.removesuffix(b"\n"))
    assert isinstance(entry, LinePart) and entry.data == data and entry.index == 7
    record = orjson.loads(encoded)
    assert len(record.get("text", record.get("b64", ""))) <= (len(data) + 2) // 3 * 4
    if data.isascii() and all(32 <= b != 34 and b != 92 for b in data):
        assert record["text"] == data.decode()  # plain text stays readable


key_parts = st.lists(
    st.lists(
        st.sampled_from(
            [b"x" * 50, b":", b'"', b"\\", b"\\u0074", b"token", b"pass", b"word", b"\xc3\xa9", b"\x01", b" "]
        ),
        max_size=12,
    ).map(b"".join),
    min_size=1,
    max_size=5,
)


@given(key_parts)
def test_a_part_known_plain_is_hidden_exactly_when_the_full_pre_check_would_hide_it(
    parts: list[bytes],
) -> None:
    """``encode_part`` tells the redaction a part is plain (ASCII, nothing escaped) to skip two passes:
    the parts it hides are the ones the full pre-check hides, a key cut across two parts too."""
    redactor = Redactor(RedactionPolicy().keys)
    fast, full = StreamedRedaction(redactor), StreamedRedaction(redactor)
    for index, data in enumerate(parts, 1):
        record = orjson.loads(encode_part(LinePart(Stream.S2C, 0.1, index, data), fast))
        expected = full.part(Stream.S2C, index, data)
        assert record.get("redacted", False) == (expected is not None), (index, data)
