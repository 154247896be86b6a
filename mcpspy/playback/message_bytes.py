"""Find a JSON-RPC message's ``id`` in its raw bytes, so a recorded reply can get a new id
with every other byte kept.

The mock rewrites a reply's id by byte substitution: the recorded line is
split once, at load, into the bytes before the id's value and the bytes after
it; answering is ``before + orjson.dumps(new_id) + after``. Key order,
spacing, escapes, number spellings and any stray text glued before the
message all stay as the server wrote them. ``split_at_id`` checks its own
work (the spliced bytes must parse to the recorded message with only the id
changed) and returns None when it cannot split a line; the caller then
re-encodes the message with orjson instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from mcpspy.drift.structural import json_equal

_WHITESPACE = b" \t\r\n"
# A JSON string, or one structural character: enough to skip any value at C speed.
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]]', re.DOTALL)
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR_END = re.compile(rb"[,}\]\s]")


@dataclass(frozen=True, slots=True)
class IdSplit:
    """A line cut around its top-level id value."""

    before: bytes
    after: bytes

    def with_id(self, new_id: Any) -> bytes:
        return self.before + orjson.dumps(new_id) + self.after


def _skip_ws(raw: bytes, i: int) -> int:
    while i < len(raw) and raw[i] in _WHITESPACE:
        i += 1
    return i


def _value_end(raw: bytes, i: int) -> int:
    """Where the JSON value starting at ``i`` ends; -1 when it does not."""
    if i >= len(raw):
        return -1
    first = raw[i : i + 1]
    if first == b'"':
        string = _STRING.match(raw, i)
        return -1 if string is None else string.end()
    if first in (b"{", b"["):
        depth = 0
        for token in _TOKEN.finditer(raw, i):
            t = token.group()
            if t in (b"{", b"["):
                depth += 1
            elif t in (b"}", b"]"):
                depth -= 1
                if depth == 0:
                    return token.end()
        return -1
    end = _SCALAR_END.search(raw, i)
    return len(raw) if end is None else end.start()


def member_span(raw: bytes, key: str, start: int = 0) -> tuple[int, int] | None:
    """The byte span of the value of ``key`` in the JSON object at ``start`` (its last occurrence,
    as a parser that keeps the last duplicate sees it); None when there is no such member or the
    bytes are not an object this scanner can walk."""
    i = _skip_ws(raw, start)
    if raw[i : i + 1] != b"{":
        return None
    i += 1
    found: tuple[int, int] | None = None
    while True:
        i = _skip_ws(raw, i)
        if raw[i : i + 1] == b"}":
            return found
        name = _STRING.match(raw, i)
        if name is None:
            return None
        try:
            decoded = orjson.loads(name.group())
        except orjson.JSONDecodeError:
            return None
        i = _skip_ws(raw, name.end())
        if raw[i : i + 1] != b":":
            return None
        i = _skip_ws(raw, i + 1)
        end = _value_end(raw, i)
        if end <= i:
            return None
        if decoded == key:
            found = (i, end)
        i = _skip_ws(raw, end)
        if raw[i : i + 1] == b",":
            i += 1
        elif raw[i : i + 1] != b"}":
            return None


def split_at_id(raw: bytes, payload: Any, message_start: int = 0) -> IdSplit | None:
    """Cut ``raw`` (a line whose message, parsed, is ``payload``) around its id value.

    ``message_start`` skips stray text glued before the message. The split is
    verified: with a probe id spliced in, the line must parse to ``payload``
    with only the id changed.
    """
    if not isinstance(payload, dict) or "id" not in payload:
        return None
    try:
        span = member_span(raw, "id", message_start)
    except RecursionError:  # pragma: no cover - the scanner is iterative; belt and braces
        return None
    if span is None:
        return None
    split = IdSplit(raw[: span[0]], raw[span[1] :])
    probe = "mcpspy-probe-\u00e9"
    try:
        spliced = orjson.loads(split.with_id(probe)[message_start:])
    except orjson.JSONDecodeError:
        return None
    expected = dict(payload)
    expected["id"] = probe
    return split if json_equal(spliced, expected) else None
