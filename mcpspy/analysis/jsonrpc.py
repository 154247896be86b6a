"""What one line is, read on its own: the vocabulary shared by the reading and the rules.

rules/framing.py reads a line (``classify_line``) and rules/envelope.py reads
the message it carries (``classify_message``); both fill in a ``Parsed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpspy.analysis.model import Kind
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.jsonutil.quote import json_text as json_text  # the one quoting, as the rules import it
from mcpspy.jsonutil.quote import shown as shown

PREVIEW = 40  # characters of stray text quoted in a sentence
ID_TYPES = (str, int)


@dataclass(slots=True)
class Parsed:
    """A line's kind and JSON-RPC fields, and the rules it breaks on its own, in the order found.

    Made for every line: its fields are passed by position (keywords cost 2,000 instructions a
    line more, in the dict the interpreter builds for them: analysis/__init__.py). But a message
    that breaks no rule on its own, as ``analyzer.read_line`` reads it, is told by the one Parsed
    of its kind (``CLEAN``), which says only that: its Message holds its fields.
    """

    kind: Kind
    problems: list[tuple[RuleId, str]]  # (rule, sentence)
    payload: Any = None
    id: Any = None
    has_id: bool = False
    method: str | None = None
    glued_prefix: bytes | None = None


NO_PROBLEMS: list[tuple[RuleId, str]] = []  # never written to
# What read_line says of a request, notification or result that breaks no rule on its own.
CLEAN = {kind: Parsed(kind, NO_PROBLEMS) for kind in (Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE)}


def preview(data: bytes | str, limit: int = PREVIEW) -> str:
    """A short quoted excerpt of untrusted text, for a finding's sentence; reads only its start."""
    # A character takes at most 4 bytes: the first limit + 1 characters are in these bytes.
    text = data[: 4 * limit + 4].decode("utf-8", "replace") if isinstance(data, bytes) else data
    return repr(text if len(text) <= limit else text[:limit] + "…")


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
