from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.capture.format import (
    CaptureFormatError,
    decode_header,
    decode_record,
    encode_header,
    encode_record,
)
from mcpspy.capture.reader import CaptureReader, read_capture
from mcpspy.capture.recorder import Recorder
from mcpspy.capture.records import Event, Header, LifecycleRecord, LineRecord, Stream

HEADER = Header("1.0", "s1", "2026-12-02T19:30:00.000Z", ("node", "server.js"), "server", "/", "0.1.0", 42)


@given(st.binary(), st.booleans(), st.sampled_from(list(Stream)), st.integers(1, 10**9))
def test_line_records_round_trip_exactly(data: bytes, terminated: bool, stream: Stream, seq: int) -> None:
    record = LineRecord(seq, 1.5, stream, data.replace(b"\n", b""), terminated)
    encoded = encode_record(record)
    assert encoded.endswith(b"\n") and encoded.count(b"\n") == 1
    assert decode_record(encoded[:-1]) == record


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
    assert [r.seq for r in capture.records] == [1]
    assert "truncated" in capture.problems[0]


def test_recorder_numbers_by_read_order_not_hand_in_order() -> None:
    """A request read first keeps the lower seq even if its pump hands it in last."""
    recorder = Recorder()
    request = recorder.ticket()
    reply = recorder.ticket()
    recorder.chunk(reply, Stream.S2C, 0.2, b'{"id":1,"result":{}}\n')
    assert recorder.drain() == []
    recorder.chunk(request, Stream.C2S, 0.1, b'{"id":1,"method":"x"}\n')
    records = recorder.drain()
    assert [(r.seq, r.stream) for r in records if isinstance(r, LineRecord)] == [
        (1, Stream.C2S),
        (2, Stream.S2C),
    ]


def test_recorder_joins_lines_across_chunks_per_stream() -> None:
    recorder = Recorder()
    for stream, data in ((Stream.S2C, b"rea"), (Stream.ERR, b"log\n"), (Stream.S2C, b"dy\n{")):
        recorder.chunk(recorder.ticket(), stream, 0.0, data)
    recorder.end_of_stream(recorder.ticket(), Stream.S2C, 1.0)
    out = [(r.stream, r.data, r.terminated) for r in recorder.drain() if isinstance(r, LineRecord)]
    assert out == [
        (Stream.ERR, b"log", True),
        (Stream.S2C, b"ready", True),
        (Stream.S2C, b"{", False),
    ]
