"""read_line's one-pass reading of a clean message is the full reading: classify_line, then fields_of.

The one pass says of a message that breaks no rule on its own only that (``jsonrpc.CLEAN``).
"""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.analysis.analyzer import read_line
from mcpspy.analysis.jsonrpc import CLEAN, Parsed
from mcpspy.analysis.message_fields import NO_FIELDS, fields_of
from mcpspy.analysis.model import Kind, Message
from mcpspy.analysis.rules.framing import MAX_LINE_BYTES, classify_line
from mcpspy.capture.records import LineRecord, Stream

# Values of the wrong type for a member (one strategy: drawn as often as one right value).
ODD = st.sampled_from([None, True, False, 1.5, 2.0, [], "x", -3])
# An object as params or result, with or without a _meta, which may be no object.
OBJECT = st.fixed_dictionaries(
    {}, optional={"_meta": st.one_of(st.dictionaries(st.just("k"), st.integers(0, 3)), ODD)}
)
OBJECT_OR_NOT = st.one_of(OBJECT, OBJECT, ODD)
METHODS = st.sampled_from(["tools/call", "notifications/progress", "notifications/", "ping", ""])
IDS = st.one_of(st.integers(-(2**63), 2**63 - 1), st.text(max_size=4))
# The messages a capture carries most (a request, a notification, a result, an error), and their near misses.
NEAR_CLEAN = st.one_of(
    st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0"), "id": IDS, "method": METHODS}, optional={"params": OBJECT_OR_NOT}
    ),
    st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "method": METHODS}, optional={"params": OBJECT_OR_NOT}),
    st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0"), "id": IDS, "result": OBJECT_OR_NOT},
        optional={"params": OBJECT_OR_NOT, "method": st.none()},
    ),
    st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0"), "id": IDS, "error": st.fixed_dictionaries({"code": IDS, "message": IDS})}
    ),
)
MEMBERS = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "_meta", "extra"])
# What breaks one: a member set to an odd value (an object's _meta: in params and result), or taken out.
CHANGES = st.lists(st.tuples(MEMBERS, st.one_of(ODD, OBJECT, st.just(None), st.just("absent"))), max_size=2)


def changed(message: dict[str, Any], changes: list[tuple[str, Any]]) -> dict[str, Any]:
    for member, value in changes:
        if member == "_meta":
            for holder in ("params", "result"):
                if isinstance(message.get(holder), dict):
                    message[holder]["_meta"] = value
        elif value == "absent":
            message.pop(member, None)
        else:
            message[member] = value
    return message


ENVELOPE = st.builds(changed, NEAR_CLEAN, CHANGES)


def spelled(payload: dict[str, Any], how: str) -> bytes:
    """A message's line as a sender may write it: compact, spaced, with a \\r, glued after text."""
    line = orjson.dumps(payload)
    return {"compact": line, "spaced": b" " + line + b" \t", "crlf": line + b"\r", "glued": b"ok " + line}[
        how
    ]


LINES = st.one_of(
    st.builds(orjson.dumps, st.lists(ENVELOPE, max_size=2)),  # a batch
    st.binary(max_size=40),
    st.sampled_from([b"", b"  ", b"\r", b"null", b"2", b'"2.0"', b"{", b"\xff{}"]),
)


def full_reading(record: LineRecord) -> tuple[Message, Parsed | None]:
    """Every line read as read_line reads what its one pass does not: the reading the rules are written as."""
    if record.stream is Stream.ERR:
        kind = Kind.STDERR
        fields = (None, None, None, None, NO_FIELDS, NO_FIELDS)
        return Message(
            record.seq, record.t, record.stream, kind, record.data, record.terminated, *fields
        ), None
    parsed = classify_line(record.data, record.stream)
    params, meta = fields_of(parsed.kind, parsed.payload)
    fields = (parsed.payload, parsed.id, parsed.method, parsed.glued_prefix, params, meta)
    return Message(
        record.seq, record.t, record.stream, parsed.kind, record.data, record.terminated, *fields
    ), parsed


@settings(max_examples=1000)
@given(ENVELOPE, st.sampled_from(["compact", "spaced", "crlf", "glued"]), st.sampled_from(list(Stream)))
def test_a_message_is_read_as_classify_line_and_fields_of_read_it(
    payload: dict[str, Any], how: str, stream: Stream
) -> None:
    assert_read_as_in_full(LineRecord(5, 0.25, stream, spelled(payload, how), how != "spaced"))


@given(LINES, st.sampled_from(list(Stream)), st.booleans())
def test_any_line_is_read_as_classify_line_and_fields_of_read_it(
    data: bytes, stream: Stream, terminated: bool
) -> None:
    assert_read_as_in_full(LineRecord(5, 0.25, stream, data, terminated))


def assert_read_as_in_full(record: LineRecord) -> None:
    message, parsed = read_line(record)
    expected, expected_parsed = full_reading(record)
    assert message == expected
    assert type(message) is Message and message.kind is expected.kind
    if parsed is not None and parsed is CLEAN.get(parsed.kind):  # read in one pass: it broke no rule
        assert expected_parsed is not None and expected_parsed.problems == []
        assert (expected_parsed.kind, expected_parsed.glued_prefix) == (parsed.kind, None)
        assert parsed.problems == [] and parsed.payload is None  # the shared one, never written to
    else:
        assert parsed == expected_parsed
    # An absent object reads as the one NO_FIELDS, as fields_of gives it.
    assert (message.params is NO_FIELDS, message.meta is NO_FIELDS) == (
        expected.params is NO_FIELDS,
        expected.meta is NO_FIELDS,
    )


def test_the_lines_a_capture_carries_most_are_read_in_one_pass_as_the_full_reading() -> None:
    """The shapes the one pass takes (a tools/call, its result, a progress notification) and their near misses."""
    lines = [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","_meta":{"a":1}}}',
        b'{"jsonrpc":"2.0","id":"a","result":{"content":[],"_meta":{"b":2}}}',
        b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
        b'{"jsonrpc":"2.0","id":true,"method":"tools/call"}',
        b'{"jsonrpc":"2.0","id":2,"method":"notifications/progress"}',
        b'{"jsonrpc":"2.0","id":null,"result":{}}',
        b'{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"m"}}',
        b'{"jsonrpc":"2.0","id":3,"method":null,"result":{}}',
        b'{"jsonrpc":"2.0","id":3,"result":[]}',
        b'{"jsonrpc":"2.0","id":3,"result":{},"params":[]}',
        b'{"jsonrpc":"2.0","id":3,"result":{"_meta":[]}}',
        b'{"jsonrpc":"2.0","method":"m","params":null}',
        b'{"jsonrpc":"2.0","id":1,"method":"m"}\r',
        b'{"jsonrpc":"1.0","id":1,"method":"m"}',
    ]
    padding = b"x" * (MAX_LINE_BYTES - 54)  # a clean request one byte longer than what is parsed whole
    oversized = b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"p":"%b"}}' % padding
    assert len(oversized) == MAX_LINE_BYTES + 1
    for data in [*lines, oversized]:
        assert_read_as_in_full(LineRecord(1, 0.0, Stream.S2C, data))
    one_pass = [read_line(LineRecord(1, 0.0, Stream.S2C, data))[1] for data in lines[:3]]
    assert one_pass == [CLEAN[Kind.REQUEST], CLEAN[Kind.RESPONSE], CLEAN[Kind.NOTIFICATION]]
    assert read_line(LineRecord(1, 0.0, Stream.S2C, oversized))[0].payload is None  # read from its ends
