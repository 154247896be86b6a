"""The scripted client reads leniently (so the script goes on) and the shapes it asks for are judged."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from mcpspy.analysis.model import Severity
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.capture.records import LineRecord, Stream
from mcpspy.check.client import LineAssembler, id_key
from mcpspy.check.shapes import page_problems, schema_problems
from mcpspy.replay_policy import replay_records


def read(*lines: bytes) -> list[tuple[int, Any, bytes]]:
    assembler = LineAssembler()
    out = []
    for n, line in enumerate(lines):
        out += assembler.line(n, line)
    return out + assembler.close()


def test_one_message_a_line() -> None:
    assert read(b'{"id":1,"result":{}}', b'{"id":2,"result":{}}') == [
        (0, {"id": 1, "result": {}}, b'{"id":1,"result":{}}'),
        (1, {"id": 2, "result": {}}, b'{"id":2,"result":{}}'),
    ]


def test_a_glued_prefix_still_gives_the_message() -> None:
    [(ordinal, payload, raw)] = read(b'ready {"id":1,"result":{}}')
    assert (ordinal, payload, raw) == (0, {"id": 1, "result": {}}, b'ready {"id":1,"result":{}}')


def test_a_pretty_printed_message_is_joined_even_when_a_fragment_parses_alone() -> None:
    lines = [b"{", b'  "id": 7,', b'  "result": {"n":', b"    3", b"  }", b"}", b'{"id":8,"result":{}}']
    assert [(o, p) for o, p, _ in read(*lines)] == [
        (0, {"id": 7, "result": {"n": 3}}),
        (6, {"id": 8, "result": {}}),
    ]


def test_a_broken_group_becomes_stray_lines_and_the_next_message_is_read() -> None:
    got = read(b"{ not json", b'{"id":1,"result":{}}', b"banner")
    assert [(o, p) for o, p, _ in got] == [(0, None), (1, {"id": 1, "result": {}}), (2, None)]


def test_crlf_and_invalid_utf8_are_read() -> None:
    [(_, crlf, _)] = read(b'{"id":1,"result":{}}\r')
    assert crlf == {"id": 1, "result": {}}
    [(_, latin1, _)] = read(b'{"id":1,"result":{"note":"caf\xe9"}}')
    assert latin1 == {"id": 1, "result": {"note": "caf\ufffd"}}


def test_an_unterminated_group_at_the_end_is_stray_text() -> None:
    assert [(o, p) for o, p, _ in read(b'{"id": 1,', b'"result"')] == [(0, None), (1, None)]


def test_ids_of_any_json_type_are_keys() -> None:
    assert id_key({"b": 1, "a": 2}) == id_key({"a": 2, "b": 1})
    assert id_key(1) != id_key("1")


def severities(problems: list[tuple[Severity, str]]) -> list[str]:
    return [f"{severity.label}: {text}" for severity, text in problems]


META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


@pytest.mark.parametrize(
    ("hints", "expected"),
    [
        ({"ttlMs": 0, "cacheScope": "private"}, set()),
        ({}, {RuleId.CACHE_MISSING_TTL}),
        ({"ttlMs": -1, "cacheScope": "public"}, {RuleId.CACHE_INVALID_TTL}),
        ({"ttlMs": 1.5, "cacheScope": "shared"}, {RuleId.CACHE_INVALID_TTL, RuleId.CACHE_INVALID_SCOPE}),
        ({"ttlMs": True, "cacheScope": "public"}, {RuleId.CACHE_INVALID_TTL}),
        ({"resultType": None, "ttlMs": 0, "cacheScope": "public"}, {RuleId.RESULT_MISSING_RESULT_TYPE}),
        ({"resultType": 1, "ttlMs": 0, "cacheScope": "public"}, {RuleId.RESULT_TYPE_INVALID}),
    ],
)  # fmt: skip
def test_a_results_shape_is_the_analysis_rules(hints: dict[str, Any], expected: set[RuleId]) -> None:
    """What check once judged itself (resultType, ttlMs, cacheScope): the analysis's rules, whose
    findings judge.py routes to the check that made the request (check/shapes.py)."""
    result = {"resultType": "complete", "tools": [], **hints}
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    records = [
        LineRecord(1, 0.1, Stream.C2S, orjson.dumps(request)),
        LineRecord(2, 0.2, Stream.S2C, orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": result})),
    ]
    found = {f.id for f in replay_records(records).analyzer.findings if f.seq == 2}
    assert found & SHAPE_RULES == expected


SHAPE_RULES = {
    RuleId.CACHE_MISSING_TTL,
    RuleId.CACHE_INVALID_TTL,
    RuleId.CACHE_INVALID_SCOPE,
    RuleId.RESULT_MISSING_RESULT_TYPE,
    RuleId.RESULT_TYPE_INVALID,
    RuleId.RESULT_TYPE_UNKNOWN,
}


def test_a_tool_schema_must_be_usable() -> None:
    good = {"type": "object", "properties": {"a": {"type": "integer"}, "b": True}, "required": ["a"]}
    assert schema_problems(good, "s") == []
    assert severities(schema_problems({"type": "object", "properties": {"a": 3}}, "s")) == [
        "error: s.a is not a schema (an object or a boolean)"
    ]
    assert severities(schema_problems({"type": "objet"}, "s")) == [
        "error: s has type 'objet', which is no JSON Schema type"
    ]
    assert severities(schema_problems({"type": "object", "properties": {}, "required": ["x"]}, "s")) == [
        "warning: s requires x, which it does not define"
    ]
    nested = {"type": "object", "properties": {"a": {"type": "object", "properties": []}}}
    assert severities(schema_problems(nested, "s")) == ["error: s.a's properties is not an object"]


def test_a_page_of_tools() -> None:
    page = {"tools": [{"name": "add", "inputSchema": {"type": "object"}}, {"inputSchema": {"type": "array"}}]}
    problems, items = page_problems("tools", page)
    assert len(items) == 2
    assert severities(problems) == [
        "error: item 1 has no name",
        "error: item 1's inputSchema has type 'array', not \"object\"",
    ]
    missing, _ = page_problems("prompts", {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"})
    assert severities(missing) == ["error: the prompts/list result has no prompts array"]
