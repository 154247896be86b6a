"""JSON as the views show it: indented, or None when it cannot be re-encoded.

orjson reads JSON nested 1,024 deep but writes only 254 levels: a message
that is valid JSON may still be too deep to pretty-print. Every view then
shows the line as it travelled instead, and says why; none may crash on it.
"""

from __future__ import annotations

import re

import orjson

TOO_DEEP = "nested too deep to pretty-print (over 254 levels): the line is shown as it travelled"


def pretty_json(payload: object) -> str | None:
    """``payload`` indented by two spaces, or None when it is too deep to re-encode."""
    try:
        return orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONEncodeError:
        return None


#: What a terminal acts on or reorders inside a JSON string printed raw: C1 controls (U+009B is
#: CSI, an escape sequence's start on many terminals) and the bidirectional and line controls.
_UNSAFE_IN_TERMINAL = re.compile("[\u0080-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_safe_json(text: str) -> str:
    """JSON text with those characters written as ``\\u`` escapes: the same JSON, safe to print."""
    return _UNSAFE_IN_TERMINAL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
