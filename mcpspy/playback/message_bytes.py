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

from mcpspy.jsonutil.span import member_span


@dataclass(frozen=True, slots=True)
class IdSplit:
    """A line cut around its top-level id value."""

    before: bytes
    after: bytes

    def with_id(self, new_id: Any) -> bytes:
        return self.before + orjson.dumps(new_id) + self.after


#: ``"id": <a number or a string>`` followed by the end of the member: the usual places to look first.
_ID_MEMBER = re.compile(
    rb'"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")(?=\s*[,}])', re.DOTALL
)
_PROBE = "mcpspy-probe-\u00e9"
_LIKELY = 8  # candidates tried by pattern before the full scan


def split_at_id(raw: bytes, payload: Any, message_start: int = 0) -> IdSplit | None:
    """Cut ``raw`` (a line whose message, parsed, is ``payload``) around its top-level id value.

    ``message_start`` skips stray text glued before the message. Candidates
    come first from a pattern (the first and the last ``"id":`` member: where
    serializers put it), then from a scan of the top-level object. A
    candidate is kept only when, with a probe id spliced in, the line parses
    to an object with as many members whose id is the probe: the span was
    one whole value, and the top-level id's.
    """
    if not isinstance(payload, dict) or "id" not in payload:
        return None
    found = [m.span(1) for m in _ID_MEMBER.finditer(raw, message_start)]
    likely = list(dict.fromkeys([*found[:1], *found[-1:], *found[1:-1]]))[:_LIKELY]
    for span in likely:
        split = _verified(raw, span, payload, message_start)
        if split is not None:
            return split
    scanned = member_span(raw, "id", message_start)
    return None if scanned is None else _verified(raw, scanned, payload, message_start)


def _verified(
    raw: bytes, span: tuple[int, int], payload: dict[str, Any], message_start: int
) -> IdSplit | None:
    split = IdSplit(raw[: span[0]], raw[span[1] :])
    try:
        spliced = orjson.loads(split.with_id(_PROBE)[message_start:])
    except orjson.JSONDecodeError:
        return None
    if isinstance(spliced, dict) and spliced.get("id") == _PROBE and len(spliced) == len(payload):
        return split
    return None
