"""The scripted client reads leniently (so the script goes on) and the shapes it asks for are judged."""

from __future__ import annotations

from typing import Any

import pytest

from mcpspy.analysis.model import Severity
from mcpspy.check.client import LineAssembler, id_key
from mcpspy.check.shapes import cache_problems, page_problems, schema_problems


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


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ({"ttlMs": 0, "cacheScope": "private"}, []),
        ({}, ["error: the x result has no ttlMs", "error: the x result has no cacheScope"]),
        ({"ttlMs": -1, "cacheScope": "public"}, ["error: the x result's ttlMs is -1, not an integer >= 0"]),
        ({"ttlMs": 1.5, "cacheScope": "shared"}, [
            "error: the x result's ttlMs is 1.5, not an integer >= 0",
            "error: the x result's cacheScope is 'shared', not public or private",
        ]),
        ({"ttlMs": True, "cacheScope": "public"}, ["error: the x result's ttlMs is True, not an integer >= 0"]),
    ],
)  # fmt: skip
def test_cache_hints(result: dict[str, Any], expected: list[str]) -> None:
    assert severities(cache_problems(result, "x")) == expected


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
    problems, items = page_problems("tools", page, modern=False)
    assert len(items) == 2
    assert severities(problems) == [
        "error: item 1 has no name",
        "error: item 1's inputSchema has type 'array', not \"object\"",
    ]
    modern, _ = page_problems("tools", page, modern=True)
    assert "error: the tools/list result has no resultType" in severities(modern)
    missing, _ = page_problems(
        "prompts", {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}, True
    )
    assert severities(missing) == ["error: the prompts/list result has no prompts array"]
