"""CaptureReader reads a capture's lines, however its bytes arrive, as each line read alone reads."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.capture.format import (
    CaptureFormatError,
    decode_entry,
    decode_header,
    encode_header,
    encode_record,
)
from mcpspy.capture.reader import CaptureReader
from mcpspy.capture.records import Header, LifecycleRecord, LineRecord, Record, Stream

HEADER = encode_header(Header("1.0", "s1", "2026-12-02T19:30:00.000Z", ("node",), "server", "/", "0.1.0", 42))
MAX_LINE = 160  # the header's line is 140 bytes
RECORD = st.builds(
    lambda seq, stream, data: encode_record(LineRecord(seq, seq / 8, stream, data))[:-1],
    st.integers(1, 99),
    st.sampled_from(list(Stream)),
    st.binary(max_size=12).map(lambda data: data.replace(b"\n", b"")),
)
# What a line of a capture can be: a record, a record cut short or otherwise damaged, blank, no JSON.
LINE = st.one_of(
    RECORD,
    RECORD,
    RECORD.map(lambda line: line[: len(line) // 2]),
    RECORD.map(lambda line: line + b"\r"),
    RECORD.map(lambda line: b"  " + line + b" x"),
    st.sampled_from([b"", b" ", b"\t\r", b"{}", b"[1,2]", b'{"seq":1}', b'{"seq":1,"t":0,"event":"nope"}']),
    st.binary(max_size=30).map(lambda data: data.replace(b"\n", b"")),
    st.sampled_from([b"x" * MAX_LINE, b"x" * (MAX_LINE + 1)]),  # at the bound and past it
)


def read_alone(data: bytes) -> tuple[list[Record], list[str], int]:
    """The reference: each complete line read on its own, as the reader documents (no streamed parts here)."""
    *lines, held = data.split(b"\n")
    header_read, records, problems = False, list[Record](), list[str]()
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE:
            problems.append(
                f"line {number}: a record of {len(line)} bytes, longer than any mcpspy writes ({MAX_LINE}): skipped"
            )
        elif not header_read:
            decode_header(line)
            header_read = True
        else:
            try:
                records.append(decode_entry(line))  # type: ignore[arg-type]  # no parts among these lines
            except CaptureFormatError as exc:
                if line.strip():
                    problems.append(f"line {number}: {exc}")
    return records, problems, len(held)


@settings(max_examples=300)
@given(st.lists(LINE, max_size=12), st.binary(max_size=170), st.lists(st.integers(0, 900), max_size=8))
def test_a_capture_fed_in_any_pieces_is_read_line_by_line(
    lines: list[bytes], torn: bytes, cuts: list[int]
) -> None:
    data = HEADER + b"\n".join(lines) + (b"\n" if lines else b"") + torn.replace(b"\n", b"")
    reader = CaptureReader(Path("c.jsonl"), max_line=MAX_LINE, fd=-1)
    records: list[Record] = []
    start = 0
    for cut in [*sorted(cuts), len(data)]:
        records += reader.feed(data[start : max(start, cut)])
        start = max(start, cut)
    expected_records, expected_problems, held = read_alone(data)
    skipping = len(data) - data.rfind(b"\n") - 1 > MAX_LINE  # a torn line over the bound: dropped as read
    assert records == expected_records
    assert reader.problems == expected_problems
    assert (reader.held_bytes, reader._skipping) == ((0, held) if skipping else (held, 0))
    assert all(type(r) in (LineRecord, LifecycleRecord) for r in records)
