"""Which recorded request an incoming request stands for.

The rules, in order:

1. **Same request**: the same method and the same ``params``, compared as
   JSON values (key order and spacing do not matter), leaving out the id and
   ``params._meta`` (progress tokens, the client's protocol version,
   capabilities and info, trace ids: what varies from run to run and from
   client to client).
2. **Same session method**: ``initialize``, ``server/discover`` and ``ping``
   describe the client rather than ask a question, so with no same request
   they match any recorded request of that method.
3. **Among several candidates**: the first one not used yet, in recorded
   order; once all are used, the last one again (a client that lists tools
   three times against a recording that listed them twice gets the second
   answer twice).

Nothing here raises on any input: a line that is not a request is classified,
not rejected.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import orjson

from mcpspy.jsonutil.structural import canonical

#: Methods whose params say who the client is, not what it asks: rule 2.
SESSION_METHODS = frozenset({"initialize", "server/discover", "ping"})


class Incoming(enum.Enum):
    REQUEST = "request"
    NOTIFICATION = "notification"
    RESPONSE = "response"  # the client answering a request the server sent
    INVALID = "invalid"  # JSON, but not a JSON-RPC message
    NOT_JSON = "not-json"
    BLANK = "blank"


@dataclass(slots=True)  # not frozen: one is made per line on the mock's hot path
class ClientLine:
    """One line from the client, read."""

    kind: Incoming
    id: Any = None
    method: str | None = None
    key: bytes | None = None  # requests: the params as matched (None: they cannot be keyed)
    params: Any = None


def request_key(params: Any) -> bytes | None:
    """The params as rule 1 compares them: without ``_meta``."""
    if isinstance(params, dict) and "_meta" in params:
        params = {k: v for k, v in params.items() if k != "_meta"}
    return canonical(params)


def valid_id(value: Any) -> bool:
    return type(value) in (str, int)


def read_client_line(line: bytes) -> ClientLine:
    """Classify one line the client wrote (without its newline)."""
    if not line.strip():
        return ClientLine(Incoming.BLANK)
    try:
        payload = orjson.loads(line)
    except orjson.JSONDecodeError:
        return ClientLine(Incoming.NOT_JSON)
    if not isinstance(payload, dict):
        return ClientLine(Incoming.INVALID)
    method = payload.get("method")
    has_id = "id" in payload
    message_id = payload.get("id")
    if isinstance(method, str):
        if not has_id:
            return ClientLine(Incoming.NOTIFICATION, method=method)
        if not valid_id(message_id):
            return ClientLine(Incoming.INVALID, id=None, method=method)
        params = payload.get("params")
        return ClientLine(Incoming.REQUEST, message_id, method, request_key(params), params)
    if has_id and ("result" in payload or "error" in payload) and method is None:
        return ClientLine(Incoming.RESPONSE, message_id)
    return ClientLine(Incoming.INVALID, message_id if valid_id(message_id) else None)


T = TypeVar("T")


@dataclass(slots=True)
class _Candidates:
    """Indexes of recorded requests in recorded order, and how far they are used up."""

    indexes: list[int] = field(default_factory=list)
    cursor: int = 0  # every index before it is used


class Matcher(Generic[T]):
    """Recorded requests by key and by method; ``match`` applies the rules above in O(1) amortised."""

    def __init__(self, recorded: Iterable[tuple[str, bytes | None, T]]) -> None:
        self._by_key: dict[tuple[str, bytes], _Candidates] = {}
        self._by_method: dict[str, _Candidates] = {}
        self._items: list[T] = []
        self._used: list[bool] = []
        for method, key, item in recorded:
            index = len(self._items)
            self._items.append(item)
            self._used.append(False)
            if key is not None:
                self._by_key.setdefault((method, key), _Candidates()).indexes.append(index)
            if method in SESSION_METHODS:
                self._by_method.setdefault(method, _Candidates()).indexes.append(index)

    def match(self, method: str, key: bytes | None) -> T | None:
        candidates = self._by_key.get((method, key)) if key is not None else None
        if candidates is None:
            candidates = self._by_method.get(method)
            if candidates is None:
                return None
        indexes, used = candidates.indexes, self._used
        while candidates.cursor < len(indexes) and used[indexes[candidates.cursor]]:
            candidates.cursor += 1
        chosen = indexes[candidates.cursor] if candidates.cursor < len(indexes) else indexes[-1]
        used[chosen] = True
        return self._items[chosen]
