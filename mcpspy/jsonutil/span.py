"""Where a value lies in raw JSON text: the one scanner, for bytes (a line) and for str (a config).

Parsing gives the values; editing a file or a line byte for byte needs their
offsets. ``value_end`` skips one value at C speed (a regex over strings and
brackets), ``members`` and ``items`` walk one object or array, and
``member_span`` finds the value of a key as a parser that keeps the last
duplicate sees it. Malformed input gives None (or -1), never an exception.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import AnyStr, Generic

import orjson


@dataclass(frozen=True, slots=True)
class _Grammar(Generic[AnyStr]):
    whitespace: AnyStr
    token: re.Pattern[AnyStr]  # a string, or one structural character: enough to skip any value
    string: re.Pattern[AnyStr]
    scalar_end: re.Pattern[AnyStr]
    open_object: AnyStr
    close_object: AnyStr
    open_array: AnyStr
    close_array: AnyStr
    quote: AnyStr
    colon: AnyStr
    comma: AnyStr


_BYTES = _Grammar(
    b" \t\r\n",
    re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]]', re.DOTALL),
    re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL),
    re.compile(rb"[,}\]\s]"),
    b"{",
    b"}",
    b"[",
    b"]",
    b'"',
    b":",
    b",",
)
_TEXT = _Grammar(
    " \t\r\n",
    re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]', re.DOTALL),
    re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL),
    re.compile(r"[,}\]\s]"),
    "{",
    "}",
    "[",
    "]",
    '"',
    ":",
    ",",
)


@dataclass(frozen=True, slots=True)
class Member:
    """One ``"key": value`` of an object, as offsets into the text."""

    key: str
    key_start: int
    key_end: int
    value_start: int
    value_end: int


def _grammar(raw: AnyStr) -> _Grammar[AnyStr]:
    return _BYTES if isinstance(raw, bytes) else _TEXT


def skip_whitespace(raw: AnyStr, i: int) -> int:
    whitespace = _grammar(raw).whitespace
    while i < len(raw) and raw[i : i + 1] in whitespace:
        i += 1
    return i


def value_end(raw: AnyStr, i: int) -> int:
    """Where the JSON value starting at ``i`` ends; -1 when it does not."""
    if i >= len(raw):
        return -1
    g = _grammar(raw)
    first = raw[i : i + 1]
    if first == g.quote:
        string = g.string.match(raw, i)
        return -1 if string is None else string.end()
    if first in (g.open_object, g.open_array):
        depth = 0
        for token in g.token.finditer(raw, i):
            t = token.group()
            if t in (g.open_object, g.open_array):
                depth += 1
            elif t in (g.close_object, g.close_array):
                depth -= 1
                if depth == 0:
                    return token.end()
        return -1
    end = g.scalar_end.search(raw, i)
    return len(raw) if end is None else end.start()


def _key(token: AnyStr) -> str | None:
    try:
        key = orjson.loads(token)
    except orjson.JSONDecodeError:
        try:  # a lone surrogate escape: the standard library reads it, orjson does not
            key = json.loads(token)
        except ValueError:
            return None
    return key if isinstance(key, str) else None


def members(raw: AnyStr, start: int) -> list[Member] | None:
    """The members of the object whose ``{`` is at ``start`` (after whitespace); None when malformed."""
    g = _grammar(raw)
    i = skip_whitespace(raw, start)
    if raw[i : i + 1] != g.open_object:
        return None
    i = skip_whitespace(raw, i + 1)
    out: list[Member] = []
    while raw[i : i + 1] != g.close_object:
        name = g.string.match(raw, i)
        key = None if name is None else _key(name.group())
        if name is None or key is None:
            return None
        colon = skip_whitespace(raw, name.end())
        if raw[colon : colon + 1] != g.colon:
            return None
        value_start = skip_whitespace(raw, colon + 1)
        end = value_end(raw, value_start)
        if end <= value_start:
            return None
        out.append(Member(key, i, name.end(), value_start, end))
        i = skip_whitespace(raw, end)
        if raw[i : i + 1] == g.comma:
            i = skip_whitespace(raw, i + 1)
        elif raw[i : i + 1] != g.close_object:
            return None
    return out


def items(raw: AnyStr, start: int) -> list[tuple[int, int]] | None:
    """The (start, end) spans of the elements of the array at ``start``; None when malformed."""
    g = _grammar(raw)
    i = skip_whitespace(raw, start)
    if raw[i : i + 1] != g.open_array:
        return None
    i = skip_whitespace(raw, i + 1)
    out: list[tuple[int, int]] = []
    while raw[i : i + 1] != g.close_array:
        end = value_end(raw, i)
        if end <= i:
            return None
        out.append((i, end))
        i = skip_whitespace(raw, end)
        if raw[i : i + 1] == g.comma:
            i = skip_whitespace(raw, i + 1)
        elif raw[i : i + 1] != g.close_array:
            return None
    return out


def member_span(raw: AnyStr, key: str, start: int = 0) -> tuple[int, int] | None:
    """The span of the value of ``key`` in the object at ``start`` (its last occurrence, as a parser
    that keeps the last duplicate sees it); None when there is no such member or the text is malformed."""
    found = members(raw, start)
    spans = [(m.value_start, m.value_end) for m in found or () if m.key == key]
    return spans[-1] if spans else None
