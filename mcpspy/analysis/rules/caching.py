"""Caching hints (cache.*, 2026-07-28): ttlMs and cacheScope, their values, pages, and freshness.

A missing hint is rules/modern.py's (cache.missing-ttl); this room checks the
values sent, that every page of one list keeps its scope, that an interim
input_required result carries none, and notes a client asking again for a
list it was told is still fresh. Freshness is measured on the records' own
times (record.t): no clock is read.
"""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.jsonrpc import shown
from mcpspy.analysis.message_fields import result_of, result_type_of
from mcpspy.analysis.model import Exchange, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.legacy import EraTracker

LISTS = frozenset({"tools/list", "prompts/list", "resources/list", "resources/templates/list"})
CACHEABLE = LISTS | {"server/discover", "resources/read"}
SCOPES = ("public", "private")
# What a server notification makes stale: the lists a list_changed names.
INVALIDATES = {
    "notifications/tools/list_changed": ("tools/list",),
    "notifications/prompts/list_changed": ("prompts/list",),
    "notifications/resources/list_changed": ("resources/list", "resources/templates/list"),
}
CacheKey = tuple[str, Any]  # (method, cursor): one page of one list


def cache_key(request: Exchange) -> CacheKey | None:
    """The page a list request asks for; None for other requests and for MRTR retries (never cached)."""
    held = request.held
    if request.method not in LISTS or held is None or held.retry:
        return None
    cursor = held.cursor
    return (request.method, cursor if isinstance(cursor, str) else None)


class Caching:
    def __init__(self, out: Reporter, era: EraTracker) -> None:
        self._out = out
        self._era = era
        self._fresh: dict[CacheKey, tuple[float, int]] = {}  # page -> (fresh until, reply seq)
        self._page_scope: dict[CacheKey, tuple[Any, int]] = {}  # next page -> (scope so far, seq)

    def request(self, message: Message) -> None:
        """A 2026-07-28 client request: a list asked again while its last answer is fresh?"""
        exchange = message.exchange
        if exchange is None or not self._era.modern_request(exchange):
            return
        key = cache_key(exchange)
        fresh = self._fresh.get(key) if key is not None else None
        if fresh is None:
            return
        until, reply_seq = fresh
        if message.t < until:
            self._out.find(
                RuleId.CACHE_REFETCH_FRESH,
                message.seq,
                message.stream,
                f"{message.method} was asked again {until - message.t:.3g}s before the ttlMs of its "
                f"last answer (seq {reply_seq}) ran out, with no list_changed in between",
                related_seq=reply_seq,
            )

    def server_notification(self, message: Message) -> None:
        """A 2026-07-28 server's list_changed: the lists it names are stale."""
        if not self._era.modern:
            return
        for method in INVALIDATES.get(message.method or "", ()):
            for key in [k for k in self._fresh if k[0] == method]:
                del self._fresh[key]

    def error(self, message: Message) -> None:
        """An error gives a client reason to think its lists changed: it may ask again."""
        if message.exchange is not None and self._era.modern_reply(message.exchange):
            self._fresh.clear()

    def result(self, message: Message) -> None:
        """A 2026-07-28 result to a client request."""
        exchange = message.exchange
        result = result_of(message)
        if (
            exchange is None
            or exchange.method not in CACHEABLE
            or not isinstance(result, dict)
            or not self._era.modern_reply(exchange)
        ):
            return
        result_type = result_type_of(result)
        if result_type == "input_required":
            hints = [k for k in ("ttlMs", "cacheScope") if k in result]
            if hints:
                self._out.find(
                    RuleId.CACHE_ON_INPUT_REQUIRED,
                    message.seq,
                    message.stream,
                    f"the input_required result to {exchange.method} carries {' and '.join(hints)}; "
                    "an interim result is not cacheable",
                )
            return
        if result_type != "complete":
            return
        ttl: Any = result.get("ttlMs")
        scope = result.get("cacheScope")
        ttl_ok = type(ttl) is int and ttl >= 0  # exact: a bool is no integer
        if "ttlMs" in result and not ttl_ok:
            self._out.find(
                RuleId.CACHE_INVALID_TTL,
                message.seq,
                message.stream,
                f"ttlMs is {shown(ttl)}; it must be an integer >= 0 (milliseconds)",
            )
        if "cacheScope" in result and scope not in SCOPES:
            self._out.find(
                RuleId.CACHE_INVALID_SCOPE,
                message.seq,
                message.stream,
                f'cacheScope is {shown(scope)}; it must be "public" or "private"',
            )
        key = cache_key(exchange)
        if key is None:
            return
        self._pages(key, message, scope, result.get("nextCursor"))
        if ttl_ok and ttl > 0:
            self._fresh[key] = (message.t + ttl / 1000, message.seq)

    def _pages(self, key: CacheKey, message: Message, scope: Any, next_cursor: Any) -> None:
        """Every page of one list keeps the first page's cacheScope."""
        before = self._page_scope.pop(key, None)
        if before is not None and scope in SCOPES and before[0] in SCOPES and scope != before[0]:
            self._out.find(
                RuleId.CACHE_SCOPE_CHANGED,
                message.seq,
                message.stream,
                f"this page of {key[0]} is {shown(scope)}, but an earlier page (seq {before[1]}) was "
                f"{shown(before[0])}; every page of a list keeps one cacheScope",
                related_seq=before[1],
            )
        if isinstance(next_cursor, str):
            first = before if before is not None and before[0] in SCOPES else (scope, message.seq)
            self._page_scope[(key[0], next_cursor)] = first
