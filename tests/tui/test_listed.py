"""Messages listed before their lines are read: read once asked, by either thread, as read_line reads them."""

from __future__ import annotations

import threading
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.analysis.analyzer import read_line
from mcpspy.analysis.model import Message
from mcpspy.capture.records import LineRecord, Stream
from mcpspy.replay_policy import open_capture
from mcpspy.tui import loader
from mcpspy.tui.listed import ListedMessage, read_for_analysis
from tests.conftest import FIXTURES
from tests.tui.test_loader import repeated

JSON_RPC = st.builds(
    orjson.dumps,
    st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0")},
        optional={
            "id": st.one_of(st.integers(-(2**53), 2**53), st.text(max_size=5), st.none()),
            "method": st.text(max_size=12),
            "params": st.dictionaries(st.text(max_size=5), st.integers(-9, 9), max_size=3),
            "result": st.dictionaries(st.text(max_size=5), st.integers(-9, 9), max_size=3),
        },
    ),
)
LINES = st.one_of(JSON_RPC, st.binary(max_size=80), JSON_RPC.map(lambda line: b"ready " + line + b"\r"))


@given(st.sampled_from(list(Stream)), LINES, st.booleans())
def test_a_field_asked_reads_the_line_into_the_listed_message_as_read_line_reads_it(
    stream: Stream, data: bytes, terminated: bool
) -> None:
    record = LineRecord(7, 0.5, stream, data, terminated)
    listed = ListedMessage.of(record)
    assert (listed.seq, listed.raw, type(listed)) == (7, data, ListedMessage)  # listed, not read
    expected, parsed = read_line(record)
    assert listed.kind is expected.kind  # asked: read now
    assert type(listed) is Message and listed == expected
    assert listed.exchange is None and listed.findings == ()
    assert read_for_analysis([(listed, record)]) == [parsed]  # read again for the analysis: the same
    assert listed == expected


def test_a_name_that_is_not_a_field_is_no_reason_to_read() -> None:
    listed = ListedMessage.of(LineRecord(1, 0.0, Stream.C2S, b'{"jsonrpc":"2.0","method":"x"}'))
    assert not hasattr(listed, "no_such_field") and type(listed) is ListedMessage


def test_rows_read_by_the_ui_thread_while_the_worker_analyses_change_no_finding(tmp_path: Path) -> None:
    """Every message read by another thread as the analysis goes: each read once into its one
    object, and the findings and exchanges are the report's."""
    path = repeated(FIXTURES / "lesson-missing-meta.jsonl", 300, tmp_path / "big.jsonl")
    feed = loader.CaptureFeed(path, live=False)
    listed: list[Message] = []
    while not feed.reader.at_end:
        listed += feed.step().messages
    assert all(type(m) is ListedMessage for m in listed)
    reading = threading.Thread(target=lambda: [m.kind for m in reversed(listed)])
    reading.start()
    findings = []
    while not feed.done:
        findings += feed.step().findings
    reading.join()
    expected = open_capture(path).analyzer
    assert [(f.id, f.seq, f.message) for f in findings] == [
        (f.id, f.seq, f.message) for f in expected.findings
    ]
    assert feed.analyzer.messages == listed == expected.messages
    assert not any(isinstance(m, ListedMessage) for m in listed)
    feed.close()
