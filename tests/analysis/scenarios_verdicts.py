"""Exact verdicts (issue 27): legal things the analysis once called errors, and rules once raised per line.

Each scenario here gave a wrong verdict before: an id ``2.0`` or ``1e3`` (an
integer by value), a ``ttlMs`` of ``6e4``, a request that declares 2025-11-25
in its _meta held to 2026-07-28's rules, the complete answer to an MRTR retry
asked for cache hints, and a rule that fires on every line raised once a line.
"""

from __future__ import annotations

from typing import Any

import orjson

from tests.analysis.steps import (
    CALL_RESULT,
    DISCOVER_RESULT,
    META,
    SERVER_META,
    TOOLS_RESULT,
    Step,
    c2s,
    discover,
    req,
    res,
    s2c,
)

URI = "helpdesk://tickets/2318"
EARLIER = {**META, "io.modelcontextprotocol/protocolVersion": "2025-11-25"}
READ = {"resultType": "complete", "contents": [{"uri": URI, "text": "open"}], "_meta": SERVER_META}
BARE_LIST = {"resultType": "complete", "tools": [], "_meta": SERVER_META}


def raw(template: dict[str, Any], id_text: str) -> bytes:
    """A message whose id is spelled ``id_text`` exactly (orjson would write 1e3 as 1000.0)."""
    return orjson.dumps({**template, "id": "ID"}).replace(b'"id":"ID"', b'"id":' + id_text.encode())


def declaring(i: int, method: str, meta: dict[str, Any], **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": {**params, "_meta": meta}}


def crlf(value: Any) -> bytes:
    return orjson.dumps(value) + b"\r"


VERDICT_SCENARIOS: dict[str, list[Step]] = {
    "verdict-integral-ids": [
        *discover(),
        c2s(raw(req(0, "tools/call", name="get_ticket"), "2.0")),
        s2c(raw(res(0, CALL_RESULT), "2.0")),
        c2s(raw(req(0, "tools/list"), "1e3")),
        s2c(raw(res(0, TOOLS_RESULT), "1e3")),
    ],
    "verdict-integral-ttl": [
        *discover(),
        c2s(req(2, "tools/list")),
        s2c(orjson.dumps(res(2, {**TOOLS_RESULT, "ttlMs": "TTL"})).replace(b'"TTL"', b"60000.0")),
        c2s(req(3, "tools/list", cursor="b")),
        s2c(orjson.dumps(res(3, {**TOOLS_RESULT, "ttlMs": "TTL"})).replace(b'"TTL"', b"6e4")),
    ],
    "verdict-declared-earlier-revision": [
        c2s(declaring(1, "tools/list", EARLIER)),
        s2c(res(1, {"tools": [{"name": "get_ticket", "inputSchema": {"type": "object"}}]})),
        c2s(declaring(2, "tools/call", {"io.modelcontextprotocol/protocolVersion": "2025-11-25"}, name="x")),
        s2c(res(2, {"content": [{"type": "text", "text": "ok"}]})),
    ],
    "verdict-mrtr-retry-no-cache": [
        c2s(req(1, "server/discover")),
        s2c(res(1, {**DISCOVER_RESULT, "capabilities": {"resources": {}}})),
        c2s(req(2, "resources/read", uri=URI)),
        s2c(res(2, {"resultType": "input_required", "requestState": "s1"})),
        c2s(req(3, "resources/read", uri=URI, requestState="s1")),
        s2c(res(3, READ)),
    ],
    "verdict-crlf-every-line": [
        c2s(req(1, "server/discover")),
        s2c(crlf(res(1, DISCOVER_RESULT))),
        c2s(req(2, "tools/list")),
        s2c(crlf(res(2, TOOLS_RESULT))),
        c2s(req(3, "tools/call", name="get_ticket")),
        s2c(crlf(res(3, CALL_RESULT))),
    ],
    "verdict-cache-missing-every-list": [
        *discover(),
        c2s(req(2, "tools/list")),
        s2c(res(2, BARE_LIST)),
        c2s(req(3, "tools/list", cursor="b")),
        s2c(res(3, BARE_LIST)),
        c2s(req(4, "tools/list", cursor="c")),
        s2c(res(4, BARE_LIST)),
    ],
}

VERDICT_EXPECTED: dict[str, list[tuple[str, int]]] = {
    "verdict-integral-ids": [],
    "verdict-integral-ttl": [],
    "verdict-declared-earlier-revision": [],
    "verdict-mrtr-retry-no-cache": [],
    "verdict-crlf-every-line": [("stdout.crlf", 2)],
    "verdict-cache-missing-every-list": [("cache.missing-ttl", 4)],
}
