"""A message's payload, let go once it is analysed, reads the same when a view asks for it again.

A retained analysis keeps each message's line, not its parsed payload (message_fields.LeanMessage):
every view reads ``payload``, ``params`` and ``meta`` as if the analysis had kept them. Held here
against the same analysis with nothing let go, over every fixture, the noise corpus of the digest
and arbitrary lines.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.analysis import analyzer as analyzer_module
from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.message_fields import LeanMessage
from mcpspy.analysis.model import Kind, Message
from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import LineRecord, Record, Stream
from mcpspy.replay_policy import replay_records
from tests.analysis.digest import FIXTURES, NOISE_SEEDS, fixture_lines, noise
from tests.analysis.test_robustness import messages as json_messages
from tests.analysis.test_robustness import rpc

FIXTURE_PATHS = sorted(FIXTURES.glob("*.jsonl"))


@contextmanager
def nothing_let_go() -> Iterator[None]:
    """The analysis as it was: every message keeps its parsed payload."""
    with mock.patch.object(analyzer_module, "let_payload_go", lambda message: None):
        yield


def what_views_read(message: Message) -> tuple[Any, ...]:
    return (message.seq, message.kind, message.raw, message.payload, message.params, message.meta)


def same_as_kept(records: list[Record]) -> list[Message]:
    """The analysis's messages, checked against the analysis that keeps every payload; the lean ones."""
    with nothing_let_go():
        kept = replay_records(records).analyzer.messages
    assert not any(isinstance(m, LeanMessage) for m in kept)
    lean = replay_records(records).analyzer.messages
    assert [what_views_read(m) for m in lean] == [what_views_read(m) for m in kept]
    return [m for m in lean if isinstance(m, LeanMessage)]


@pytest.mark.parametrize("path", FIXTURE_PATHS, ids=lambda p: p.stem)
def test_every_fixture_reads_the_same(path: Path) -> None:
    same_as_kept(list(read_capture(path).records))


def test_the_noise_corpus_reads_the_same() -> None:
    pool = fixture_lines(FIXTURES)
    lean = [m for seed in NOISE_SEEDS for m in same_as_kept(noise(seed, pool))]
    assert len(lean) > 1000  # most JSON lines are let go
    # ... but never a line whose payload is not its own JSON: glued after stray text, or the first
    # line of a message pretty-printed over several
    assert all(m.glued_prefix is None and orjson.loads(m.raw) == m.payload for m in lean)


def test_glued_and_pretty_printed_messages_keep_their_payload() -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    pretty = orjson.dumps(request, option=orjson.OPT_INDENT_2).split(b"\n")
    lines = [b"ready " + orjson.dumps(request), *pretty, orjson.dumps(request) + b"\r"]
    records: list[Record] = [
        LineRecord(seq, seq * 0.1, Stream.C2S, data, True) for seq, data in enumerate(lines, 1)
    ]
    lean = same_as_kept(records)
    assert [m.seq for m in lean] == [len(lines)]  # the line with \r\n is its own JSON; the others are not
    first_of_pretty = replay_records(records).analyzer.message(2)
    assert first_of_pretty is not None and first_of_pretty.payload == request


def test_a_payload_reads_the_same_in_every_thread() -> None:
    records: list[Record] = [
        LineRecord(
            seq, seq * 0.1, Stream.C2S, orjson.dumps({"jsonrpc": "2.0", "id": seq, "method": "ping"}), True
        )
        for seq in range(1, 2001)
    ]
    analyzer = Analyzer()
    seen: list[tuple[Any, ...]] = []
    done = threading.Event()

    def view() -> None:  # a viewer's thread reading the messages while the analysis lets them go
        while not done.is_set():
            for m in list(analyzer.messages[-50:]):
                seen.append((m.seq, m.payload, m.params, m.meta))

    reader = threading.Thread(target=view)
    reader.start()
    try:
        for record in records:
            analyzer.feed(record)
    finally:
        done.set()
        reader.join()
    assert seen and all(
        payload == {"jsonrpc": "2.0", "id": seq, "method": "ping"} for seq, payload, *_ in seen
    )
    message = analyzer.messages[0]
    assert isinstance(message, LeanMessage) and message.kind is Kind.REQUEST


def test_a_view_that_reads_every_payload_leaves_the_analysis_lean() -> None:
    """Read again, a payload is not kept: the collector's walks stay what the analysis left them."""
    analyzer = replay_records(list(read_capture(FIXTURES / "clean-modern.jsonl").records)).analyzer
    lean = [m for m in analyzer.messages if isinstance(m, LeanMessage)]
    assert lean
    gc.collect()
    tracked = len(gc.get_objects())
    read = [(m.payload, m.params, m.meta) for m in lean]
    assert all(payload for payload, _, _ in read)
    del read
    gc.collect()
    assert len(gc.get_objects()) <= tracked


lines = st.lists(
    st.tuples(
        st.sampled_from([Stream.C2S, Stream.S2C]),
        st.one_of(
            st.binary(max_size=60),
            json_messages.map(orjson.dumps),
            rpc.map(orjson.dumps),
            rpc.map(lambda value: b"x " + orjson.dumps(value)),
            rpc.map(lambda value: orjson.dumps(value, option=orjson.OPT_INDENT_2)),  # split into lines below
        ),
    ),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(lines)
def test_arbitrary_lines_read_the_same(items: list[tuple[Stream, bytes]]) -> None:
    records: list[Record] = []
    for stream, data in items:
        for part in data.split(b"\n"):
            records.append(LineRecord(len(records) + 1, len(records) * 0.01, stream, part, True))
    same_as_kept(records)
