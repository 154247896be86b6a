"""What an INSERT or REPLACE fault writes, from the line it strikes at. Pure.

Each transform takes the line (without its newline) and returns the bytes
written: with newlines where lines end. They change the text, never re-encode
it, except the pretty-printed one (which is re-encoding by definition): so
every byte the fault does not name stays as the peer wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson

from mcpspy.inject.spec import Spec

INVALID_UTF8 = b"\xff"
PADDING_KEY = b"mcpspyPadding"
UNKNOWN_ID_INT = 987654321
_STRING_VALUE = re.compile(rb":\s*\"")


def _id_span(line: bytes) -> tuple[int, int] | None:
    """Where the top-level "id" member's value is in the line (a number or a string), if any."""
    spans = top_level_values(line)
    return spans.get(b"id")


def top_level_values(line: bytes) -> dict[bytes, tuple[int, int]]:
    """The byte span of each member value of a top-level JSON object: one pass, no parse.

    Only the spans are trusted; the caller parsed the line already. Keys are the raw key bytes.
    """
    spans: dict[bytes, tuple[int, int]] = {}
    n = len(line)
    i = line.find(b"{")
    if i < 0:
        return spans
    i += 1
    while i < n:
        while i < n and line[i] in b" \t\r\n,":
            i += 1
        if i >= n or line[i] != 0x22:  # '"'
            return spans
        key_end = _string_end(line, i)
        key = line[i + 1 : key_end - 1]
        i = line.find(b":", key_end)
        if i < 0:
            return spans
        i += 1
        while i < n and line[i] in b" \t\r\n":
            i += 1
        start = i
        i = _value_end(line, i)
        spans[key] = (start, i)
    return spans


def _string_end(line: bytes, i: int) -> int:
    """Past the closing quote of the string opening at ``i``."""
    i += 1
    while True:
        j = line.find(b'"', i)
        if j < 0:
            return len(line)
        k = j
        while k > i and line[k - 1] == 0x5C:  # backslashes before the quote
            k -= 1
        if (j - k) % 2 == 0:
            return j + 1
        i = j + 1


def _value_end(line: bytes, i: int) -> int:
    n = len(line)
    depth = 0
    while i < n:
        c = line[i]
        if c == 0x22:
            i = _string_end(line, i)
            if depth == 0:
                return i
            continue
        if c in b"{[":
            depth += 1
        elif c in b"}]":
            if depth == 0:
                return i
            depth -= 1
            if depth == 0:
                return i + 1
        elif c == 0x2C and depth == 0:  # ','
            return i
        i += 1
    return i


def stray_line(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    return spec.text_param("text").encode() + b"\n"


def glued_prefix(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    return spec.text_param("text").encode() + line + b"\n"


def pretty(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    return orjson.dumps(message, option=orjson.OPT_INDENT_2) + b"\n"


def content_length(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(line) + 1)


def crlf(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    return line + b"\r\n"


def invalid_utf8(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    """A \\xff byte at the start of the result's first string; a string member holding one if it has none."""
    span = top_level_values(line).get(b"result") or top_level_values(line).get(b"params")
    if span is not None:
        m = _STRING_VALUE.search(line, span[0], span[1])
        if m is not None:
            return line[: m.end()] + INVALID_UTF8 + line[m.end() :] + b"\n"
    return _pad(line, b'"mcpspy":"' + INVALID_UTF8 + b'"') + b"\n"


def blank_line(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    return b"\n"


def duplicate(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    return line + b"\n" + line + b"\n"


def drop(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    return b""


def oversized(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    """The result object padded with one string member of ``size`` bytes (still a valid result)."""
    return _pad(line, b'"' + PADDING_KEY + b'":"' + b"x" * spec.number("size") + b'"') + b"\n"


def _pad(line: bytes, member: bytes) -> bytes:
    """``member`` first in the result (or params) object; else last in the message."""
    values = top_level_values(line)
    span = values.get(b"result") or values.get(b"params")
    if span is None or line[span[0] : span[0] + 1] != b"{":
        return _add_member(line, member)
    inner = span[0] + 1
    empty = line[inner : span[1]].strip() == b"}"
    return line[:inner] + member + (b"" if empty else b",") + line[inner:]


def _add_member(line: bytes, member: bytes) -> bytes:
    end = line.rstrip().rfind(b"}")
    if end < 0:
        return line + member
    empty = line[:end].rstrip().endswith(b"{")
    return line[:end] + (b"" if empty else b",") + member + line[end:]


def _with_id(line: bytes, new_id: bytes) -> bytes:
    span = _id_span(line)
    if span is None:
        return line
    return line[: span[0]] + new_id + line[span[1] :]


def wrong_id_type(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    """1 becomes "1"; "7" becomes 7; any other string becomes its length as a number."""
    value = message.get("id") if isinstance(message, dict) else None
    if isinstance(value, int) and not isinstance(value, bool):
        new = orjson.dumps(str(value))
    elif isinstance(value, str) and re.fullmatch(r"-?\d{1,15}", value):
        new = value.encode()
    else:
        new = b"%d" % len(str(value))
    return _with_id(line, new) + b"\n"


def unknown_id(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    """A copy of the reply with an id nobody sent, before the real one."""
    value = message.get("id") if isinstance(message, dict) else None
    new = b"%d" % UNKNOWN_ID_INT if isinstance(value, int) else b'"mcpspy-unknown"'
    return _with_id(line, new) + b"\n"


SERVER_REQUEST_PARAMS: dict[str, dict[str, Any] | None] = {
    "roots/list": None,
    "ping": None,
    "sampling/createMessage": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "mcpspy: a test request"}}],
        "maxTokens": 16,
    },
    "elicitation/create": {
        "message": "mcpspy: a test request",
        "requestedSchema": {"type": "object", "properties": {}},
    },
}


def server_request(method: str, request_id: str) -> bytes:
    """A request of the server's own to the client (its reply is kept from the server)."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    params = SERVER_REQUEST_PARAMS[method]
    if params is not None:
        message["params"] = params
    return orjson.dumps(message) + b"\n"


def flood(line: bytes, spec: Spec, message: Any, request: Any) -> bytes:
    """``count`` notifications of ``kind``; progress uses the request's token when it has one."""
    count, kind = spec.number("count"), spec.text_param("kind")
    if kind == "list-changed":
        one = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
        return one * count
    if kind == "log":
        return b"".join(
            b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info",'
            b'"logger":"mcpspy","data":"flood %d of %d"}}\n' % (i, count)
            for i in range(1, count + 1)
        )
    token = progress_token(request)
    return b"".join(
        b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%b,'
        b'"progress":%d,"total":%d}}\n' % (token, i, count)
        for i in range(1, count + 1)
    )


def progress_token(request: Any) -> bytes:
    if isinstance(request, dict):
        params = request.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        if isinstance(token, str | int) and not isinstance(token, bool):
            return orjson.dumps(token)
    return b'"mcpspy"'


Transform = Callable[[bytes, Spec, Any, Any], bytes]

TRANSFORMS: dict[str, Transform] = {
    "stray-line": stray_line,
    "glued-prefix": glued_prefix,
    "pretty": pretty,
    "content-length": content_length,
    "crlf": crlf,
    "invalid-utf8": invalid_utf8,
    "blank-line": blank_line,
    "duplicate": duplicate,
    "drop": drop,
    "oversized": oversized,
    "wrong-id-type": wrong_id_type,
    "unknown-id": unknown_id,
    "flood": flood,
}
