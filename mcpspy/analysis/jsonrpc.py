"""What one line is, read on its own: the vocabulary shared by the reading and the rules.

rules/framing.py reads a line (``classify_line``) and rules/envelope.py reads
the message it carries (``classify_message``); both fill in a ``Parsed``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from mcpspy.analysis.model import Kind
from mcpspy.analysis.rule_ids import RuleId

PREVIEW = 40  # characters of stray text quoted in a sentence
SHOWN = 100  # characters of a JSON value quoted in a sentence
TOO_DEEP = "(a value nested too deep to show)"
ID_TYPES = (str, int)


@dataclass(slots=True)
class Parsed:
    """A line's kind and JSON-RPC fields, and the rules it breaks on its own, in the order found."""

    kind: Kind
    payload: Any = None
    id: Any = None
    has_id: bool = False
    method: str | None = None
    glued_prefix: bytes | None = None
    problems: list[tuple[RuleId, str]] = field(default_factory=list)  # (rule, sentence)


def preview(data: bytes | str, limit: int = PREVIEW) -> str:
    """A short quoted excerpt of untrusted text, for a finding's sentence; reads only its start."""
    # A character takes at most 4 bytes: the first limit + 1 characters are in these bytes.
    text = data[: 4 * limit + 4].decode("utf-8", "replace") if isinstance(data, bytes) else data
    return repr(text if len(text) <= limit else text[:limit] + "…")


def shown(value: Any) -> str:
    """An untrusted JSON value as Python shows it (repr), cut short, for a finding's sentence.

    Never raises: JSON that orjson reads may be nested 1024 deep, past what repr can walk.
    """
    try:
        text = repr(value)
    except RecursionError:
        return TOO_DEEP
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"


def json_text(value: Any) -> str:
    """An untrusted JSON value as JSON, cut short, for a finding's sentence.

    Never raises: orjson reads JSON nested up to 1024 deep but writes only 254 levels.
    """
    try:
        text = orjson.dumps(value).decode()
    except orjson.JSONEncodeError:  # too deep, or an integer past 64 bits
        return shown(value)
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"


def integer_value(value: Any) -> int | None:
    """A JSON number whose value is an integer, else None: 2, 2.0 and 2e0 alike (JSON Schema's integer).

    A bool is no number; values come from orjson, so exact types suffice.
    """
    kind = type(value)
    if kind is int:
        return value  # type: ignore[no-any-return]
    if kind is float and value.is_integer():
        return int(value)
    return None


def valid_id(value: Any) -> bool:
    """A string or an integer by value (``2.0`` and ``1e3`` are integers); not a bool."""
    kind = type(value)
    return kind in ID_TYPES or (kind is float and value.is_integer())


def valid_error_code(code: Any) -> bool:
    """An integer by value, and not a bool."""
    return integer_value(code) is not None
