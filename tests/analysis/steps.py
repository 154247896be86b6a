"""Steps of a scenario (the lines and events of a capture), their builders, and ``build``.

A step is (stream, value) for a line, ("event", name, details) for a lifecycle
event, or ("wait", seconds) to let time pass before the next record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from mcpspy.capture.format import FORMAT_VERSION, encode_header, encode_record
from mcpspy.capture.records import Event, Header, LifecycleRecord, LineRecord, Stream

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
V = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientInfo": {"name": "terminal", "version": "0.1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
SERVER_META = {"io.modelcontextprotocol/serverInfo": {"name": "helpdesk", "version": "0.1.0"}}
DISCOVER_RESULT = {
    "resultType": "complete",
    "supportedVersions": [V],
    "capabilities": {"tools": {}},
    "instructions": "The company's helpdesk.",
    "_meta": SERVER_META,
    "ttlMs": 3600000,
    "cacheScope": "public",
}
TOOLS_RESULT = {
    "resultType": "complete",
    "tools": [{"name": "get_ticket", "inputSchema": {"type": "object"}}],
    "ttlMs": 60000,
    "cacheScope": "public",
    "_meta": SERVER_META,
}
CALL_RESULT = {"resultType": "complete", "content": [{"type": "text", "text": "ticket 2318: open"}]}

Step = tuple[str, Any] | tuple[str, Any, dict[str, Any]]


def req(i: Any, method: str, meta: bool = True, **params: Any) -> dict[str, Any]:
    p = dict(params)
    if meta:
        p["_meta"] = META
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": p}


def res(i: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "result": result}


def err(i: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    e: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        e["data"] = data
    out: dict[str, Any] = {"jsonrpc": "2.0", "error": e}
    if i is not None:
        out = {"jsonrpc": "2.0", "id": i, "error": e}
    return out


def cancel(i: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": i, "reason": "user gave up"},
    }


def c2s(x: Any) -> Step:
    return ("c2s", x)


def s2c(x: Any) -> Step:
    return ("s2c", x)


def ev(name: str, **details: Any) -> Step:
    return ("event", name, details)


def wait(seconds: float) -> Step:
    """Time passing with nothing on the pipes: the next record comes ``seconds`` later."""
    return ("wait", seconds)


def discover(i: Any = 1) -> list[Step]:
    return [c2s(req(i, "server/discover")), s2c(res(i, DISCOVER_RESULT))]


def initialize(version: str = "2025-06-18", capabilities: dict[str, Any] | None = None, i: Any = 0) -> Step:
    return c2s(
        {
            "jsonrpc": "2.0",
            "id": i,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": capabilities or {},
                "clientInfo": {"name": "old", "version": "1"},
            },
        }
    )


def initialize_result(
    version: str = "2025-06-18", capabilities: dict[str, Any] | None = None, i: Any = 0
) -> Step:
    return s2c(
        res(
            i,
            {
                "protocolVersion": version,
                "capabilities": capabilities or {"tools": {}},
                "serverInfo": {"name": "helpdesk", "version": "0.1.0"},
            },
        )
    )


def notify(method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


INITIALIZED = c2s({"jsonrpc": "2.0", "method": "notifications/initialized"})


LEGACY_INIT = [initialize(capabilities={"roots": {}}), initialize_result(), INITIALIZED]
RICH_CAPABILITIES = {
    "tools": {"listChanged": True},
    "prompts": {},
    "resources": {"subscribe": True},
    "completions": {},
    "logging": {},
}
LIST_META = {"resultType": "complete", "ttlMs": 60000, "cacheScope": "public", "_meta": SERVER_META}
# A valid result for each method whose shape is checked; legacy results drop the 2026-07-28 fields.
RESULTS: dict[str, dict[str, Any]] = {
    "tools/list": {
        "tools": [
            {
                "name": "get_ticket",
                "title": "Get a ticket",
                "description": "One ticket.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}},
                    "required": ["id"],
                },
                "annotations": {"readOnlyHint": True},
            }
        ],
        "nextCursor": "page-2",
    },
    "tools/call": {
        "content": [
            {"type": "text", "text": "ticket 2318: open"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {
                "type": "resource",
                "resource": {"uri": "helpdesk://tickets/2318", "mimeType": "text/plain", "text": "open"},
            },
        ],
        "structuredContent": {"id": 2318, "status": "open"},
        "isError": False,
    },
    "prompts/list": {"prompts": [{"name": "triage", "arguments": [{"name": "ticket", "required": True}]}]},
    "prompts/get": {
        "description": "Triage",
        "messages": [{"role": "user", "content": {"type": "text", "text": "Triage ticket 2318"}}],
    },
    "resources/list": {
        "resources": [
            {
                "uri": "helpdesk://tickets/2318",
                "name": "ticket 2318",
                "mimeType": "application/json",
                "size": 120,
            }
        ]
    },
    "resources/templates/list": {
        "resourceTemplates": [{"uriTemplate": "helpdesk://tickets/{id}", "name": "ticket"}]
    },
    "resources/read": {"contents": [{"uri": "helpdesk://tickets/2318", "blob": "e30="}]},
    "completion/complete": {"completion": {"values": ["2318", "2319"], "total": 2, "hasMore": False}},
}


def modern_result(method: str) -> dict[str, Any]:
    extra = (
        LIST_META
        if method
        in ("tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read")
        else {"resultType": "complete"}
    )
    return {**RESULTS[method], **extra}


def every_method(make_request: Any, make_result: Any) -> list[Step]:
    steps: list[Step] = []
    for i, method in enumerate(RESULTS, start=10):
        steps += [c2s(make_request(i, method)), s2c(res(i, make_result(method)))]
    return steps


def progress(token: Any, value: float, **more: Any) -> Step:
    return s2c(notify("notifications/progress", progressToken=token, progress=value, **more))


def call_with_token(i: Any, token: Any) -> Step:
    return c2s(
        {
            **req(i, "tools/call", name="export"),
            "params": {"name": "export", "_meta": {**META, "progressToken": token}},
        }
    )


def build(steps: list[Step], name: str) -> bytes:
    """The capture file of a scenario: a header, then one record a step, 10 ms apart."""
    header = Header(
        FORMAT_VERSION,
        f"fixture-{name}",
        "2026-10-15T09:00:00.000Z",
        ("node", "handwritten/server.ts"),
        name,
        "/home/tom/helpdesk",
        "0.1.0",
        4242,
    )
    out = [encode_header(header)]
    seq, waited = 0, 0.0
    for step in steps:
        kind, value = step[0], step[1]
        if kind == "wait":
            waited += value
            continue
        seq += 1
        t = round(seq * 0.01 + waited, 6)
        if kind == "event":
            out.append(encode_record(LifecycleRecord(seq, t, Event(value), step[2])))  # type: ignore[misc]
            continue
        terminated = not kind.endswith("-unterminated")
        stream = Stream(kind.removesuffix("-unterminated"))
        data = (
            value
            if isinstance(value, bytes)
            else (value.encode() if isinstance(value, str) else orjson.dumps(value))
        )
        out.append(encode_record(LineRecord(seq, t, stream, data, terminated)))
    return b"".join(out)
