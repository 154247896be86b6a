"""Untrusted JSON values quoted in a sentence or on a line: the one place, and it never raises.

orjson reads JSON nested 1,024 deep, but writes only 254 levels, and ``repr``
gives up near the interpreter's recursion limit: a hostile value must still
be quotable. Every quote is cut at ``limit`` characters (plus an ellipsis).
"""

from __future__ import annotations

from typing import Any

import orjson

from mcpspy.jsonutil.structural import MISSING
from mcpspy.terminal import visible_line

SHOWN = 100  # characters of a value quoted in a finding's sentence
TOO_DEEP = "(a value nested too deep to show)"
NOT_WRITABLE = "<nested too deep to show>"  # stands for a value in a JSON document that cannot hold it


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def shown(value: Any, limit: int = SHOWN) -> str:
    """``value`` as Python shows it (repr), cut short."""
    try:
        text = repr(value)
    except RecursionError:
        return TOO_DEEP
    return cut(text, limit)


def json_text(value: Any, limit: int = SHOWN) -> str:
    """``value`` as JSON, cut short; as ``shown`` when orjson cannot write it (too deep, past 64 bits)."""
    try:
        text = orjson.dumps(value).decode()
    except (orjson.JSONEncodeError, TypeError):
        return shown(value, limit)
    return cut(text, limit)


def show_value(value: Any, limit: int) -> str:
    """``value`` as JSON on one line, cut short, safe for a terminal."""
    return visible_line(json_text(value, limit))


def json_safe(value: Any) -> Any:
    """``value`` if orjson can write it into a JSON document, else a string saying why not (MISSING: null)."""
    if value is MISSING:
        return None
    try:
        orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        return NOT_WRITABLE
    return value
