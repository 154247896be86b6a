"""What one line is, read on its own: the vocabulary shared by the reading and the rules.

rules/framing.py reads a line (``classify_line``) and rules/envelope.py reads
the message it carries (``classify_message``); both fill in a ``Parsed``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcpspy.analysis.model import Kind
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.jsonutil.quote import json_text as json_text  # the one quoting, as the rules import it
from mcpspy.jsonutil.quote import shown as shown

PREVIEW = 40  # characters of stray text quoted in a sentence
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


def valid_id(value: Any) -> bool:
    """A string or an integer (not a bool); values come from orjson, so exact types suffice."""
    return type(value) in ID_TYPES


def valid_error_code(code: Any) -> bool:
    """An integer, and not a bool."""
    return isinstance(code, int) and not isinstance(code, bool)
