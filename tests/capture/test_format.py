from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.capture.format import (
    CaptureFormatError,
    _entry,
    decode_entry,
    decode_header,
    decode_record,
    encode_batch,
    encode_header,
    encode_record,
)
from mcpspy.capture.reader import CaptureReader, read_capture
from mcpspy.capture.records import Event, Header, LifecycleRecord, LineBatch, LineRecord, Stream
from mcpspy.wire.splitter import LongLine

HEADER = Header("1.0", "s1", "2026-12-02T19:30:00.000Z", ("node", "server.js"), "server", "/", "0.1.0", 42)


@given(st.binary(), st.booleans(), st.sampled_from(list(Stream)), st.integers(1, 10**9))
def test_line_records_round_trip_exactly(data: bytes, terminated: bool, stream: Stream, seq: int) -> None:
    record = LineRecord(seq, 1.5, stream, data.replace(b"\n", b""), terminated)
    encoded = encode_record(record)
    assert encoded.endswith(b"\n") and encoded.count(b"\n") == 1
    assert decode_record(encoded[:-1]) == record


def encode_line_as_before(seq: int, t: float, stream: Stream, data: bytes, terminated: bool) -> bytes:
    """The encoder of format 1.0 as first written (a dict through orjson): the reference."""
    obj: dict[str, Any] = {"seq": seq, "t": round(t * 1_000_000) / 1_000_000, "stream": stream.value}
    try:
        obj["text"] = data.decode("utf-8")
    except UnicodeDecodeError:
        obj["b64"] = base64.b64encode(data).decode("ascii")
    if not terminated:
        obj["unterminated"] = True
    return orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)


# Lines full of what an encoder can get wrong: invalid UTF-8, controls, quotes, backslashes,
# astral characters, NUL, DEL, lone continuation bytes, truncated sequences.
line_bytes = st.lists(
    st.one_of(
        st.binary(max_size=40),
        st.text(max_size=40).map(lambda s: s.encode("utf-8", "surrogatepass")),
        st.sampled_from(
            [
                b'"',
                b"\\",
                b"\r",
                b"\t",
                b"\x00",
                b"\x1f",
                b"\x7f",
                b"\xc3",
                b"\xe2\x82",
                b"\xf0\x9f\x98\x80",
                b"\xed\xa0\x80",
                "\u2028".encode(),
                b"\x80",
                b"</script>",
            ]
        ),
    ),
    max_size=12,
).map(lambda parts: b"".join(parts).replace(b"\n", b""))
times = st.floats(min_value=0, max_value=1e7, allow_nan=False, allow_infinity=False)


@settings(max_examples=500)
@given(
    st.lists(line_bytes, min_size=1, max_size=5),
    st.booleans(),
    st.sampled_from(list(Stream)),
    st.integers(1, 10**12),
    times,
)
def test_batches_decode_to_the_records_the_old_encoder_wrote(
    lines: list[bytes], terminated: bool, stream: Stream, seq: int, t: float
) -> None:
    batch = LineBatch(seq, t, stream, lines, terminated)
    new = b"".join(encode_batch(batch))
    old = b"".join(
        encode_line_as_before(seq + i, t, stream, line, terminated) for i, line in enumerate(lines)
    )
    assert new == old  # byte for byte
    assert new.count(b"\n") == len(lines) and new.endswith(b"\n")
    assert [decode_record(raw) for raw in new.splitlines()] == [
        decode_record(raw) for raw in old.splitlines()
    ]
    assert [orjson.loads(raw) for raw in new.splitlines()] == [orjson.loads(raw) for raw in old.splitlines()]
    assert [decode_record(raw) for raw in new.splitlines()] == [
        LineRecord(r.seq, round(t * 1_000_000) / 1_000_000, stream, r.data, terminated)
        for r in batch.records()
    ]


@settings(max_examples=100)
@given(
    st.lists(line_bytes, min_size=1, max_size=8),
    st.booleans(),
    st.integers(1, 2**40),
    times,
    st.integers(0, 7),
)
def test_long_lines_in_pieces_encode_like_the_joined_line(
    pieces: list[bytes], terminated: bool, seq: int, t: float, cut_at: int
) -> None:
    """Pieces may split a UTF-8 sequence anywhere; the record is the joined line's."""
    joined = b"".join(pieces)
    cut = min(cut_at, len(joined))
    recut = [joined[:cut], joined[cut:]] if cut else [joined]  # a cut inside a character, maybe
    for parts in (pieces, recut):
        batch = LineBatch(seq, t, Stream.S2C, [LongLine(tuple(parts))], terminated)
        new = b"".join(encode_batch(batch))
        assert new == encode_line_as_before(seq, t, Stream.S2C, joined, terminated)


def test_a_long_line_is_encoded_in_pieces_not_one_copy() -> None:
    text = LongLine(tuple(b'{"x":"' + b"\xc3\xa9" * 500 + b'"}' for _ in range(10)))
    parts = list(encode_batch(LineBatch(7, 0.5, Stream.C2S, [text])))
    assert len(parts) > 10 and max(map(len, parts)) < 2100
    assert orjson.loads(b"".join(parts))["text"] == bytes(text).decode()
    binary = LongLine(tuple(b"\xff" * 1001 for _ in range(10)))
    parts = list(encode_batch(LineBatch(8, 0.5, Stream.C2S, [binary], terminated=False)))
    record = decode_record(b"".join(parts).rstrip(b"\n"))
    assert record == LineRecord(8, 0.5, Stream.C2S, bytes(binary), terminated=False) and len(parts) > 10


def test_text_when_utf8_and_base64_when_not() -> None:
    text = orjson.loads(encode_record(LineRecord(1, 0.0, Stream.S2C, "héllo\r".encode())))
    assert text["text"] == "héllo\r" and "unterminated" not in text
    raw = orjson.loads(encode_record(LineRecord(2, 0.0, Stream.S2C, b"\xff\x00", terminated=False)))
    assert raw["b64"] == "/wA=" and raw["unterminated"] is True


def test_lifecycle_round_trip() -> None:
    record = LifecycleRecord(3, 2.0, Event.SERVER_EXITED, {"signal": "SIGTERM"})
    assert decode_record(encode_record(record)[:-1]) == record


def test_header_round_trip_and_newer_major_refused() -> None:
    assert decode_header(encode_header(HEADER)) == HEADER
    newer = orjson.dumps({"format": "2.0", "session": "x"})
    with pytest.raises(CaptureFormatError, match="newer"):
        decode_header(newer)
    with pytest.raises(CaptureFormatError, match="not an mcpspy capture"):
        decode_header(b"hello")


def test_reader_follows_a_growing_file_and_holds_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    first = encode_record(LineRecord(1, 0.1, Stream.C2S, b"{}"))
    second = encode_record(LineRecord(2, 0.2, Stream.S2C, b"{}"))
    path.write_bytes(encode_header(HEADER) + first + second[:5])
    with CaptureReader(path) as reader:
        assert [r.seq for r in reader.poll()] == [1]
        assert reader.header == HEADER
        assert reader.held_bytes == 5
        with path.open("ab") as f:
            f.write(second[5:])
        assert [r.seq for r in reader.poll()] == [2]
        assert reader.poll() == []
    path.write_bytes(encode_header(HEADER) + first + second[:5])
    capture = read_capture(path)
    assert [r.seq for r in capture.records] == [1, 2]
    torn = capture.records[-1]  # the reader's note for the analysis: the capture was cut inside a record
    assert (
        isinstance(torn, LifecycleRecord)
        and torn.event is Event.CAPTURE_TORN
        and torn.details == {"bytes": 5}
    )
    assert "truncated" in capture.problems[0]


RECORD_VALUES = st.one_of(
    st.integers(-5, 2**54),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(["c2s", "s2c", "err", "C2S", ""]),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=2),
)
RECORD_KEYS = st.sampled_from(["seq", "t", "stream", "text", "b64", "unterminated", "event", "part", "parts"])


def decoded_or_refused(line: bytes) -> object:
    try:
        return decode_entry(line)
    except CaptureFormatError as exc:
        return str(exc)


@given(st.dictionaries(RECORD_KEYS, RECORD_VALUES, max_size=6), st.sampled_from(list(Stream)), st.text())
def test_a_record_read_on_the_fast_path_is_the_record_the_full_reading_makes(
    fields: dict[str, Any], stream: Stream, text: str
) -> None:
    """decode_entry reads the common record (seq, t, stream, text) without _entry: the same record,
    and any other shape or value exactly as _entry reads or refuses it."""
    common = {"seq": fields.get("seq", 3), "t": fields.get("t", 0.5), "stream": stream.value, "text": text}
    for record in (fields, common, {**common, **fields}):
        try:
            line = orjson.dumps(record)
        except TypeError:  # an integer orjson does not write
            continue
        try:
            expected: object = _entry(orjson.loads(line))
        except CaptureFormatError as exc:
            expected = str(exc)
        assert decoded_or_refused(line) == expected


@settings(max_examples=300)
@given(  # each key's value: right most often, else of the wrong type or out of range
    st.one_of(st.integers(0, 2**53), st.sampled_from([-1, 2**53 + 1, 1.0, True, None])),
    st.one_of(st.floats(0, 1e9), st.sampled_from([-0.5, 1e9 + 1, 1e300, 0, 3, None, True])),
    st.one_of(st.sampled_from(["c2s", "s2c", "err"]), st.sampled_from(["C2S", "", None, 1, ["c2s"]])),
    st.one_of(st.text(), st.sampled_from([None, 1, ["x"]])),
)
def test_a_record_of_the_four_common_keys_is_read_as_the_full_reading_reads_it(
    seq: Any, t: Any, stream: Any, text: Any
) -> None:
    """Every value of each of the four keys the fast path reads: the record, or its refusal, as _entry's."""
    line = orjson.dumps({"seq": seq, "t": t, "stream": stream, "text": text})
    try:
        expected: object = _entry(orjson.loads(line))
    except CaptureFormatError as exc:
        expected = str(exc)
    assert decoded_or_refused(line) == expected
