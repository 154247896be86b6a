"""Stray text is found in one pass: glued prefixes and pretty-printed messages, checked against
the parse-from-every-brace functions they replaced (kept here as the oracle), and timed."""

from __future__ import annotations

import re
import time
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.analysis.analyzer import read_line
from mcpspy.analysis.brackets import BracketScanner, last_value_start
from mcpspy.analysis.model import Kind
from mcpspy.analysis.rules.framing import Group, _split_glued, classify_line
from mcpspy.capture.records import LineRecord, Stream

CONTENT_LENGTH = re.compile(rb"^\s*Content-(Length|Type)\s*:", re.IGNORECASE)


def old_split_glued(body: bytes) -> tuple[bytes, Any] | None:
    """The oracle: parse from each { in turn (quadratic in a line of braces)."""
    start = body.find(b"{")
    while start > 0:
        try:
            message = orjson.loads(body[start:])
        except orjson.JSONDecodeError:
            start = body.find(b"{", start + 1)
            continue
        if isinstance(message, dict) and "jsonrpc" in message:
            return body[:start], message
        return None
    return None


def old_joined(lines: list[bytes]) -> tuple[bytes | None, Any] | None:
    """The oracle of a multi-line group: its lines joined, read as one line (glued prefix, payload)."""
    body = b"\n".join(lines)
    body = body.removesuffix(b"\r")
    try:
        return None, orjson.loads(body)
    except orjson.JSONDecodeError:
        pass
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if CONTENT_LENGTH.match(body):
        return None
    return old_split_glued(body)


scalars = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
messages = st.dictionaries(st.sampled_from(["jsonrpc", "id", "method", "result", "x"]), values, max_size=4)
# Stray text made of what confuses a scanner: quotes, backslashes, brackets, colons, spaces.
junk = st.lists(
    st.sampled_from(["ready", " ", '"', "\\", "\\\\", "{", "}", "[", "]", ":", ",", "x", '{"a"', "é"]),
    max_size=12,
).map("".join)
json_texts = st.one_of(
    messages.map(lambda m: orjson.dumps(m).decode()),
    values.map(lambda v: orjson.dumps(v).decode()),
    messages.map(lambda m: orjson.dumps(m, option=orjson.OPT_INDENT_2).decode()),
)
lines = st.builds(
    lambda before, text, after, tail: (before + text + after).encode() + tail,
    junk,
    json_texts,
    st.one_of(st.just(""), junk, st.sampled_from([" ", "\t", "  \r"])),
    st.sampled_from([b"", b"\r", b"\xff"]),
)


@settings(max_examples=600, deadline=None)
@given(lines)
def test_glued_prefix_is_found_as_the_old_parse_from_every_brace_found_it(body: bytes) -> None:
    assert _split_glued(body) == old_split_glued(body)


def group_results(raws: list[bytes]) -> list[tuple[bytes | None, Any] | None]:
    """What a Group makes of the lines, after each line from the second on."""
    records = [LineRecord(seq, 0.0, Stream.S2C, raw) for seq, raw in enumerate(raws, start=1)]
    first, _ = read_line(records[0])
    group, out = Group(first), []
    for record in records[1:]:
        message, parsed = read_line(record)
        assert parsed is not None
        made = group.add(message, parsed)
        out.append(None if made is None else (made.glued_prefix, made.payload))
    return out


def cut_into_lines(body: bytes, cuts: list[tuple[int, bytes]]) -> list[bytes]:
    """``body`` with a line break ("\n" or "\r\n") put in at each cut (never before its first byte)."""
    for at, newline in sorted(cuts, reverse=True):
        at = 1 + at % len(body)
        body = body[:at] + newline + body[at:]
    return body.split(b"\n")


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from([b"{", b"[", b"  {", b"\t["]),
    json_texts,
    junk,
    st.integers(0, 10_000),
    st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from([b"\n", b"\r\n"])), max_size=6),
    st.sampled_from([b"", b"\xff", b"}", b"]", b"\\"]),
)
def test_a_group_of_lines_ends_where_joining_and_parsing_them_ended_it(
    opener: bytes, text: str, stray: str, where: int, cuts: list[tuple[int, bytes]], end: bytes
) -> None:
    """A value opened by the first line, pretty-printed or cut anywhere, with stray text in it."""
    value = text.encode()
    where %= len(value) + 1
    raws = cut_into_lines(opener + value[:where] + stray.encode() + value[where:] + end, cuts)
    if len(raws) < 2:
        raws.append(b"}")
    assert group_results(raws) == [old_joined(raws[:k]) for k in range(2, len(raws) + 1)]


def test_a_pretty_printed_message_with_a_glued_message_inside_its_group_is_still_found() -> None:
    raws = [b"[", b'{"jsonrpc": "2.0",', b'"id": 1, "result": {}}']
    assert group_results(raws) == [old_joined(raws[:2]), old_joined(raws)]
    assert group_results(raws)[-1] == (b"[\n", {"jsonrpc": "2.0", "id": 1, "result": {}})


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from([b"{", b"}", b"[", b"]", b'"', b"\\", b"a", b" "]), max_size=40).map(b"".join),
    st.lists(st.integers(0, 40), max_size=4),
)
def test_reading_forwards_in_pieces_and_backwards_find_the_same_opener(text: bytes, cuts: list[int]) -> None:
    scanner = BracketScanner()
    points = sorted({min(c, len(text)) for c in cuts})
    for a, b in zip([0, *points], [*points, len(text)], strict=True):
        scanner.feed(text[a:b])
    assert scanner.value_start() == last_value_start(text)


def seconds(line: bytes) -> float:
    start = time.perf_counter()
    classify_line(line, Stream.S2C)
    return time.perf_counter() - start


def test_a_megabyte_of_braces_is_classified_in_well_under_a_second() -> None:
    megabyte = 1024 * 1024
    assert seconds(b"x" + b"{" * megabyte) < 0.5
    assert seconds(b"x" + b"{" * megabyte + b"}") < 0.5
    assert seconds(b"x" + b"{}" * (megabyte // 2)) < 0.5
    printed = repr([{"id": i, "name": f"ticket {i}"} for i in range(50_000)]).encode()  # print(list)
    assert seconds(printed) < 0.5 and seconds(b"tickets: " + printed[1:-1]) < 0.5


def test_an_oversized_line_is_read_from_its_ends_whatever_the_order_of_its_members() -> None:
    big = "x" * (16 * 1024 * 1024)
    python_sdk = orjson.dumps({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"text": big}]}})
    typescript_sdk = orjson.dumps({"result": {"content": [{"text": big}]}, "jsonrpc": "2.0", "id": 7})
    notification = orjson.dumps({"method": "notifications/message", "params": {"data": big}})
    for line, kind, msg_id, method in (
        (python_sdk, Kind.RESPONSE, 7, None),
        (typescript_sdk, Kind.RESPONSE, 7, None),
        (notification, Kind.NOTIFICATION, None, "notifications/message"),
    ):
        parsed = classify_line(line, Stream.S2C)
        assert (parsed.kind, parsed.id, parsed.method, parsed.payload) == (kind, msg_id, method, None)
        assert [rule for rule, _ in parsed.problems] == ["stdout.oversized-line"]
    stray = classify_line(big.encode() + b"!", Stream.C2S)
    assert stray.kind is Kind.NOT_JSON
    assert [rule for rule, _ in stray.problems] == ["stdin.oversized-line", "stdin.not-json"]
