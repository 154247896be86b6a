"""The envelope of a line too long to parse whole, read from its first and last bytes.

A JSON-RPC message puts its small members (jsonrpc, id, method) before or
after the one that makes it long (params, result or error): the Python SDK
writes {"jsonrpc", "id", "result"}, the TypeScript SDK {"result", "jsonrpc",
"id"}. So the members are read forwards from the start up to the first whose
value opens an object or an array, and backwards from the end down to the
first that is not a plain scalar. Strings with escapes are not read.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

EDGE_BYTES = 64 * 1024  # what is read of each end
SCALAR = rb'"[^"\\]*"|[-+.0-9eE]+|true|false|null'
OBJECT_START = re.compile(rb"\s*\{")
HEAD_MEMBER = re.compile(rb'\s*"([^"\\]*)"\s*:\s*(' + SCALAR + rb"|[{\[])\s*,?")
# Read backwards: in reversed text, a member is its value, a colon, its key and the comma before it.
OBJECT_END = re.compile(rb"\s*\}")
BACKWARD_SCALAR = SCALAR.replace(b"true|false|null", b"eurt|eslaf|llun")
TAIL_MEMBER = re.compile(rb"\s*(" + BACKWARD_SCALAR + rb')\s*:\s*"([^"\\]*)"\s*,')


def envelope_at_edges(line: bytes) -> dict[str, Any]:
    """The top-level members found at either end; a member whose value was not read is None."""
    members = _head_members(line[:EDGE_BYTES])
    for key, value in _tail_members(line[-EDGE_BYTES:]).items():
        members.setdefault(key, value)
    return members


def _head_members(head: bytes) -> dict[str, Any]:
    """The object's first members, up to the first whose value is an object or an array."""
    members: dict[str, Any] = {}
    opened = OBJECT_START.match(head)
    position = opened.end() if opened else len(head)
    while (member := HEAD_MEMBER.match(head, position)) is not None:
        key, value = member.group(1).decode("utf-8", "replace"), member.group(2)
        if value in (b"{", b"["):
            members[key] = None  # present; its value is what makes the line long
            break
        members[key] = _scalar(value)
        position = member.end()
    return members


def _tail_members(tail: bytes) -> dict[str, Any]:
    """The object's last members, back to the first whose value is not a plain scalar."""
    members: dict[str, Any] = {}
    backwards = tail[::-1]
    closed = OBJECT_END.match(backwards)
    position = closed.end() if closed else len(backwards)
    while (member := TAIL_MEMBER.match(backwards, position)) is not None:
        key = member.group(2)[::-1].decode("utf-8", "replace")
        members.setdefault(key, _scalar(member.group(1)[::-1]))
        position = member.end()
    return members


def _scalar(text: bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
