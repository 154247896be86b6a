"""The filter language on messages the real Analyzer classified."""

from __future__ import annotations

import re

import pytest

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import Message
from mcpspy.capture.records import LineRecord, Stream
from mcpspy.filters import FilterError, parse_filter


def messages() -> list[Message]:
    a = Analyzer()
    lines = [
        (0.0, Stream.C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'),
        (0.1, Stream.C2S, b'{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"x"}}'),
        (0.7, Stream.S2C, b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'),
        (0.8, Stream.S2C, b'{"jsonrpc":"2.0","method":"notifications/message","params":{}}'),
        (0.9, Stream.ERR, b"booting widget"),
        (1.0, Stream.S2C, b"not json at all"),
    ]
    for seq, (t, stream, data) in enumerate(lines, 1):
        a.feed(LineRecord(seq, t, stream, data))
    return a.messages


def seqs(text: str) -> list[int]:
    f = parse_filter(text)
    return [m.seq for m in messages() if f(m)]


def test_fields() -> None:
    assert seqs("method:tools/*") == [1, 3]
    assert seqs("id:2") == [2]
    assert seqs("dir:err") == [5]
    assert seqs("kind:notification") == [4]
    assert seqs("is:pending") == [2]
    assert seqs("latency:>500ms") == [1, 3]
    assert seqs("latency:<0.5s") == []


def test_is_error_picks_a_request_and_its_error_response() -> None:
    a = Analyzer()
    lines = [
        (Stream.C2S, b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}'),
        (Stream.S2C, b'{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no such tool"}}'),
        (Stream.C2S, b'{"jsonrpc":"2.0","id":4,"method":"tools/list"}'),
        (Stream.S2C, b'{"jsonrpc":"2.0","id":4,"result":{"tools":[]}}'),
    ]
    for seq, (stream, data) in enumerate(lines, 1):
        a.feed(LineRecord(seq, seq * 0.1, stream, data))
    failed = parse_filter("is:error")
    assert [m.seq for m in a.messages if failed(m)] == [1, 2]


def test_and_negation_and_free_text() -> None:
    assert seqs("dir:s2c -kind:notification method:tools/*") == [3]
    assert seqs("widget") == [5]
    assert seqs("-dir:c2s -dir:s2c") == [5]
    assert 6 in seqs("is:flagged")
    assert seqs("") == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("dir:up", "dir:up"),
        ("colour:red", "unknown field"),
        ("latency:fast", "latency:"),
        ("id:", "needs a value"),
    ],
)
def test_errors_say_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(FilterError, match=says):
        parse_filter(text)


def test_or_binds_looser_than_and() -> None:
    assert seqs("id:1 OR id:2") == [1, 2, 3]
    assert seqs("id:1 | kind:notification") == [1, 3, 4]
    assert seqs("dir:s2c id:1 OR dir:err") == [3, 5]  # (dir:s2c id:1) OR dir:err
    assert seqs("dir:s2c (id:1 OR kind:notification)") == [3, 4]
    assert seqs("-(dir:c2s OR dir:s2c)") == [5]
    assert seqs("!dir:c2s NOT dir:s2c") == [5]
    assert seqs("dir:c2s AND id:2") == [2]
    assert seqs("id:1 or id:2") == seqs("id:1 Or id:2") == [1, 2, 3]  # as people type it
    assert seqs("not dir:c2s and not dir:s2c") == [5]


def test_quoted_phrases_and_values() -> None:
    assert seqs('"not json at"') == [6]
    assert seqs('"NOT JSON"') == [6]  # any case
    assert seqs('method:"tools/list"') == [1, 3]
    assert seqs('-"json at all" dir:s2c') == [3, 4]
    assert seqs(r'"say \"hi\""') == []


@pytest.mark.parametrize(
    ("text", "says", "column"),
    [
        ('"open', "a quote is not closed", 1),
        ("dir:s2c (id:1", "a ( is not closed", 9),
        ("id:1 )", "a ) with no ( before it", 6),
        ("id:1 OR", "OR needs a term after it", 6),
        ("OR id:1", "a term is missing", 1),
        ("dir:c2s !", "! needs a term after it", 9),
        ("()", "empty ( )", 1),
        ("id:1 dir:up", "dir:up: expected one of c2s, err, s2c", 6),
    ],
)
def test_errors_name_the_column(text: str, says: str, column: int) -> None:
    with pytest.raises(FilterError, match=re.escape(says)) as raised:
        parse_filter(text)
    assert raised.value.column == column
