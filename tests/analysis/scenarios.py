"""Every analysis scenario, written out as the lines a capture would hold.

`python -m tests.analysis.scenarios` writes them to fixtures/*.jsonl (the
captures mcpspy ships and tests against); EXPECTED says what each must give.
"""

from __future__ import annotations

import sys
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


SCENARIOS: dict[str, list[Step]] = {
    # --- the seed lesson
    "lesson-discover": [*discover(), ev("stdin-closed"), ev("server-exited", code=0)],
    "lesson-notification-typed": [
        c2s({"jsonrpc": "2.0", "method": "server/discover", "params": {"_meta": META}}),
        *discover(1),
    ],
    "lesson-method-not-found": [
        c2s(req(2, "tickets/get")),
        s2c(err(2, -32601, "Method not found: tickets/get")),
    ],
    "lesson-unsupported-version": [
        c2s(
            {
                **req(3, "server/discover"),
                "params": {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "1900-01-01"}},
            }
        ),
        s2c(err(3, -32022, "Unsupported protocol version", {"supported": [V], "requested": "1900-01-01"})),
    ],
    "lesson-missing-meta": [
        c2s(req(2, "tickets/get")),
        s2c(err(2, -32601, "Method not found")),
        c2s(req(8, "tools/call", meta=False, name="get_ticket", arguments={"ticket_id": "2318"})),
        s2c(err(8, -32602, "Invalid params: _meta needs protocolVersion and clientCapabilities")),
    ],
    "lesson-parse-error": [c2s("hello server"), s2c(err(None, -32700, "Parse error"))],
    "lesson-ready-glued": [
        c2s(req(1, "server/discover")),
        s2c("ready " + orjson.dumps(res(1, DISCOVER_RESULT)).decode()),
    ],
    "lesson-ready-line": [s2c("ready"), *discover()],
    "lesson-out-of-order": [
        c2s(req(2, "tools/call", name="get_ticket", arguments={"ticket_id": "slow"})),
        c2s(req(3, "tools/call", name="get_ticket", arguments={"ticket_id": "2318"})),
        s2c(res(3, CALL_RESULT)),
        s2c(res(2, CALL_RESULT)),
    ],
    "lesson-cancelled": [
        c2s(req(4, "tools/call", name="get_ticket", arguments={"ticket_id": "slow"})),
        c2s(cancel(4)),
        s2c(res(4, CALL_RESULT)),
    ],
    "cancel-clean": [
        c2s(req(4, "tools/call", name="get_ticket", arguments={"ticket_id": "slow"})),
        c2s(cancel(4)),
        *discover(5),
    ],
    # --- clean sessions of both eras
    "clean-modern": [
        *discover(),
        c2s(req(2, "tools/list")),
        s2c(res(2, TOOLS_RESULT)),
        c2s(req(3, "tools/call", name="get_ticket")),
        s2c(res(3, CALL_RESULT)),
        ("err", "helpdesk: listening on stdin"),
        ev("stdin-closed"),
        ev("server-exited", code=0),
    ],
    "clean-legacy": [
        *LEGACY_INIT,
        c2s(req(1, "tools/list", meta=False)),
        s2c(res(1, {"tools": []})),
        c2s(req(2, "ping", meta=False)),
        s2c(res(2, {})),
        s2c({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
        c2s(res(0, {"roots": []})),
    ],
    "claude-code-dual-opening-modern": [
        c2s(req("server-discover-probe-1", "server/discover")),
        LEGACY_INIT[0],
        s2c(res("server-discover-probe-1", DISCOVER_RESULT)),
        s2c(err(0, -32022, "Unsupported protocol version", {"supported": [V], "requested": "2025-06-18"})),
        c2s(req(1, "tools/list")),
        s2c(res(1, TOOLS_RESULT)),
    ],
    "claude-code-dual-opening-legacy": [
        c2s(req("server-discover-probe-1", "server/discover")),
        LEGACY_INIT[0],
        s2c(err("server-discover-probe-1", -32601, "Method not found")),
        LEGACY_INIT[1],
        LEGACY_INIT[2],
        c2s(req(1, "tools/list", meta=False)),
        s2c(res(1, {"tools": []})),
    ],
    "clean-shapes-legacy": [
        initialize(capabilities={"roots": {}, "sampling": {}}),
        initialize_result(capabilities=RICH_CAPABILITIES),
        INITIALIZED,
        *every_method(lambda i, m: req(i, m, meta=False), RESULTS.__getitem__),
        s2c(notify("notifications/message", level="info", data="indexed 3 tickets")),
        s2c(notify("notifications/tools/list_changed")),
        s2c({"jsonrpc": "2.0", "id": "s1", "method": "roots/list"}),
        c2s(res("s1", {"roots": [{"uri": "file:///home/tom/helpdesk", "name": "helpdesk"}]})),
        s2c(
            {
                "jsonrpc": "2.0",
                "id": "s2",
                "method": "sampling/createMessage",
                "params": {"messages": [], "maxTokens": 10},
            }
        ),
        c2s(
            res(
                "s2",
                {
                    "role": "assistant",
                    "content": {"type": "text", "text": "hi"},
                    "model": "m-1",
                    "stopReason": "endTurn",
                },
            )
        ),
    ],
    "clean-shapes-modern": [
        c2s(req(1, "server/discover")),
        s2c(res(1, {**DISCOVER_RESULT, "capabilities": RICH_CAPABILITIES})),
        *every_method(req, modern_result),
    ],
    "clean-progress": [
        call_with_token(1, "export-1"),
        progress("export-1", 1, total=3),
        progress("export-1", 2.5, total=3, message="almost"),
        s2c(res(1, CALL_RESULT)),
    ],
    "subscription-open-for-life": [
        c2s(req(1, "subscriptions/listen", notifications={"toolsListChanged": True})),
        *discover(2),
        ev("stdin-closed"),
        ev("server-exited", code=0),
    ],
    # --- one per rule
    "stdout-multiline-json": [
        c2s(req(1, "server/discover")),
        *[
            s2c(line)
            for line in orjson.dumps(res(1, DISCOVER_RESULT), option=orjson.OPT_INDENT_2).decode().split("\n")
        ],
    ],
    "stdout-content-length": [
        c2s(req(1, "server/discover")),
        s2c("Content-Length: 120"),
        s2c(""),
        s2c(res(1, DISCOVER_RESULT)),
    ],
    "stdout-invalid-utf8": [s2c(b"\xff\xfeoops"), *discover()],
    "stdout-crlf": [c2s(req(1, "server/discover")), s2c(orjson.dumps(res(1, DISCOVER_RESULT)) + b"\r")],
    "stdout-unterminated": [c2s(req(1, "server/discover")), ("s2c-unterminated", res(1, DISCOVER_RESULT))],
    "stdin-not-json": [c2s("tools/list please"), *discover()],
    "jsonrpc-version": [c2s({**req(1, "server/discover"), "jsonrpc": "1.0"}), s2c(res(1, DISCOVER_RESULT))],
    "jsonrpc-batch": [c2s([req(1, "server/discover")]), s2c(err(None, -32600, "Invalid Request"))],
    "jsonrpc-invalid": [s2c({"jsonrpc": "2.0", "hello": "world"}), *discover()],
    "jsonrpc-null-id": [c2s(req(None, "tools/list")), s2c(res(None, TOOLS_RESULT))],
    "jsonrpc-id-type": [c2s(req(1.5, "tools/list")), s2c(res(1.5, TOOLS_RESULT))],
    "jsonrpc-result-and-error": [
        c2s(req(1, "server/discover")),
        s2c({**res(1, DISCOVER_RESULT), "error": {"code": -32603, "message": "x"}}),
    ],
    "jsonrpc-error-shape": [
        c2s(req(1, "server/discover")),
        s2c({"jsonrpc": "2.0", "id": 1, "error": "boom"}),
    ],
    "jsonrpc-deprecated-error-code": [
        c2s(req(1, "tools/call", name="x")),
        s2c(err(1, -32001, "Tool failed")),
    ],
    "pairing-unknown-id": [c2s(req(1, "server/discover")), s2c(res(7, DISCOVER_RESULT))],
    "pairing-string-id-is-not-int": [c2s(req(1, "server/discover")), s2c(res("1", DISCOVER_RESULT))],
    "pairing-duplicate-response": [*discover(), s2c(res(1, DISCOVER_RESULT))],
    "pairing-duplicate-id": [
        c2s(req(1, "tools/list")),
        c2s(req(1, "server/discover")),
        s2c(res(1, TOOLS_RESULT)),
    ],
    "pairing-unanswered": [
        c2s(req(1, "tools/call", name="get_ticket")),
        ev("stdin-closed"),
        ev("server-exited", code=0),
    ],
    "cancel-unknown-request": [c2s(cancel(99)), *discover()],
    "version-unlisted": [
        *discover(),
        c2s(
            {
                **req(2, "tools/list"),
                "params": {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "2027-01-01"}},
            }
        ),
        s2c(res(2, TOOLS_RESULT)),
    ],
    "result-missing-result-type": [
        c2s(req(1, "tools/call", name="x")),
        s2c(res(1, {"content": [{"type": "text", "text": "hi"}]})),
    ],
    "cache-missing-ttl": [c2s(req(1, "tools/list")), s2c(res(1, {"resultType": "complete", "tools": []}))],
    "direction-server-request": [*discover(), s2c({"jsonrpc": "2.0", "id": 0, "method": "roots/list"})],
    "direction-client-response": [*discover(), c2s(res(5, {"roots": []}))],
    "ping-modern": [*discover(), c2s(req(2, "ping")), s2c(err(2, -32601, "Method not found"))],
    "legacy-initialized-missing": [
        *LEGACY_INIT[:2],
        c2s(req(1, "tools/list", meta=False)),
        s2c(res(1, {"tools": []})),
    ],
    "lifecycle-no-exit-on-eof": [
        *discover(),
        ev("stdin-closed"),
        ev("grace-expired", grace=5.0),
        ev("server-terminated"),
        ev("server-exited", signal="SIGTERM"),
    ],
    "lifecycle-crash-in-flight": [
        c2s(req(1, "tools/call", name="get_ticket")),
        ("err", "Traceback (most recent call last):"),
        ev("server-exited", code=1),
    ],
    "meta-not-rejected": [
        *discover(),
        c2s(req(8, "tools/call", meta=False, name="get_ticket")),
        s2c(res(8, CALL_RESULT)),
    ],
    "error-unsupported-version-data": [
        c2s(req(3, "server/discover")),
        s2c(err(3, -32022, "Unsupported protocol version")),
    ],
    # --- the legacy handshake
    "legacy-early-request": [
        initialize(),
        c2s(req(1, "tools/list", meta=False)),
        initialize_result(),
        INITIALIZED,
        s2c(res(1, {"tools": []})),
    ],
    "legacy-initialized-early": [initialize(), INITIALIZED, initialize_result()],
    "legacy-server-early-request": [
        initialize(capabilities={"roots": {}}),
        initialize_result(),
        s2c({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
        c2s(res(0, {"roots": []})),
        INITIALIZED,
    ],
    "legacy-reinitialize": [*LEGACY_INIT, initialize(i=5), initialize_result(i=5)],
    "legacy-version-unknown": [initialize(), initialize_result("1.0"), INITIALIZED],
    "legacy-version-changed": [initialize("2025-11-25"), initialize_result("2025-06-18"), INITIALIZED],
    # --- capabilities
    "capability-server-undeclared": [
        *LEGACY_INIT,
        c2s(req(1, "prompts/list", meta=False)),
        s2c(err(1, -32601, "Method not found")),
        c2s(req(2, "resources/subscribe", meta=False, uri="helpdesk://tickets/2318")),
        s2c(err(2, -32601, "Method not found")),
    ],
    "capability-server-undeclared-modern": [
        *discover(),
        c2s(req(2, "resources/read", uri="helpdesk://tickets/2318")),
        s2c(err(2, -32601, "Method not found")),
    ],
    "capability-client-undeclared": [
        initialize(),
        initialize_result(),
        INITIALIZED,
        s2c(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "sampling/createMessage",
                "params": {"messages": [], "maxTokens": 10},
            }
        ),
        c2s(err(0, -32601, "Method not found")),
    ],
    "capability-client-unnegotiated": [
        initialize("2025-03-26"),
        initialize_result("2025-03-26"),
        INITIALIZED,
        s2c({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
        c2s(err(0, -32601, "Method not found")),
    ],
    "capability-list-changed-undeclared": [*LEGACY_INIT, s2c(notify("notifications/tools/list_changed"))],
    "capability-logging-undeclared": [
        *LEGACY_INIT,
        s2c(notify("notifications/message", level="info", data="indexed 3 tickets")),
    ],
    # --- progress
    "progress-unknown-token": [*discover(), progress("nobody-asked", 1)],
    "progress-after-completion": [
        call_with_token(1, 7),
        progress(7, 1),
        s2c(res(1, CALL_RESULT)),
        progress(7, 2),
    ],
    "progress-not-increasing": [
        call_with_token(1, "export-1"),
        progress("export-1", 50),
        progress("export-1", 40),
        s2c(res(1, CALL_RESULT)),
    ],
    "progress-invalid": [
        call_with_token(1, "export-1"),
        progress("export-1", "50%"),
        s2c(notify("notifications/progress", progress=60)),
        s2c(res(1, CALL_RESULT)),
    ],
    "cancel-initialize": [initialize(), c2s(cancel(0)), initialize_result()],
    "logging-invalid-message": [
        initialize(),
        initialize_result(capabilities={"logging": {}}),
        INITIALIZED,
        s2c(notify("notifications/message", level="verbose", data="x")),
        s2c(notify("notifications/message", level="info")),
    ],
    # --- result shapes
    "schema-tool-without-input-schema": [
        c2s(req(1, "tools/list")),
        s2c(res(1, {**TOOLS_RESULT, "tools": [{"name": "get_ticket"}]})),
    ],
    "schema-content-block": [
        *LEGACY_INIT,
        c2s(req(1, "tools/call", meta=False, name="get_ticket")),
        s2c(res(1, {"content": [{"type": "text", "text": "ok"}, {"type": "text"}]})),
        c2s(req(2, "tools/call", meta=False, name="get_ticket")),
        s2c(res(2, {"content": [{"type": "markdown", "text": "*ok*"}]})),
    ],
    "schema-initialize-result": [
        initialize(),
        s2c(res(0, {"protocolVersion": "2025-06-18", "capabilities": {}})),
        INITIALIZED,
    ],
    "schema-discover-result": [
        c2s(req(1, "server/discover")),
        s2c(res(1, {**DISCOVER_RESULT, "supportedVersions": "2026-07-28"})),
    ],
}

# The expected findings of each scenario: (rule id, seq). Seqs count from 1.
EXPECTED: dict[str, list[tuple[str, int]]] = {
    "lesson-discover": [],
    "lesson-notification-typed": [],
    "lesson-method-not-found": [],
    "lesson-unsupported-version": [],
    "lesson-missing-meta": [("meta.missing", 3)],
    "lesson-parse-error": [("stdin.not-json", 1)],
    "lesson-ready-glued": [("stdout.glued-prefix", 2)],
    "lesson-ready-line": [("stdout.not-json", 1)],
    "lesson-out-of-order": [("pairing.out-of-order", 3)],
    "lesson-cancelled": [("pairing.reply-after-cancel", 3)],
    "cancel-clean": [],
    "clean-modern": [],
    "clean-legacy": [],
    "claude-code-dual-opening-modern": [],
    "claude-code-dual-opening-legacy": [],
    "subscription-open-for-life": [],
    "clean-shapes-legacy": [],
    "clean-shapes-modern": [],
    "clean-progress": [],
    "stdout-multiline-json": [("stdout.multiline-json", 2)],
    "stdout-content-length": [("stdout.content-length", 2), ("stdout.blank-line", 3)],
    "stdout-invalid-utf8": [("stdout.invalid-utf8", 1)],
    "stdout-crlf": [("stdout.crlf", 2)],
    "stdout-unterminated": [("stdout.unterminated", 2)],
    "stdin-not-json": [("stdin.not-json", 1)],
    "jsonrpc-version": [("jsonrpc.version", 1)],
    "jsonrpc-batch": [("jsonrpc.batch", 1)],
    "jsonrpc-invalid": [("jsonrpc.invalid", 1)],
    "jsonrpc-null-id": [("jsonrpc.null-id", 1), ("jsonrpc.null-id", 2)],
    "jsonrpc-id-type": [("jsonrpc.id-type", 1), ("jsonrpc.id-type", 2)],
    "jsonrpc-result-and-error": [("jsonrpc.result-and-error", 2)],
    "jsonrpc-error-shape": [("jsonrpc.error-shape", 2)],
    "jsonrpc-deprecated-error-code": [("jsonrpc.deprecated-error-code", 2)],
    "pairing-unknown-id": [("pairing.unknown-id", 2), ("pairing.unanswered", 1)],
    "pairing-string-id-is-not-int": [("pairing.unknown-id", 2), ("pairing.unanswered", 1)],
    "pairing-duplicate-response": [("pairing.duplicate-response", 3)],
    "pairing-duplicate-id": [("pairing.duplicate-id", 2)],
    "pairing-unanswered": [("pairing.unanswered", 1)],
    "cancel-unknown-request": [("cancel.unknown-request", 1)],
    "version-unlisted": [("version.unlisted", 4)],
    "result-missing-result-type": [("result.missing-result-type", 2)],
    "cache-missing-ttl": [("cache.missing-ttl", 2)],
    "direction-server-request": [("direction.server-request", 3), ("pairing.unanswered", 3)],
    "direction-client-response": [("direction.client-response", 3), ("pairing.unknown-id", 3)],
    "ping-modern": [("ping.modern", 3)],
    "legacy-initialized-missing": [("legacy.initialized-missing", 3)],
    "lifecycle-no-exit-on-eof": [("lifecycle.no-exit-on-eof", 4)],
    "lifecycle-crash-in-flight": [("lifecycle.crash-in-flight", 3)],
    "meta-not-rejected": [("meta.missing", 3), ("meta.not-rejected", 4)],
    "error-unsupported-version-data": [("error.unsupported-version-data", 2)],
    "legacy-early-request": [("legacy.early-request", 2)],
    "legacy-initialized-early": [("legacy.initialized-early", 2)],
    "legacy-server-early-request": [("legacy.server-early-request", 3)],
    "legacy-reinitialize": [("legacy.reinitialize", 4)],
    "legacy-version-unknown": [("legacy.version-unknown", 2)],
    "legacy-version-changed": [("legacy.version-changed", 2)],
    "capability-server-undeclared": [
        ("capability.server-undeclared", 4),
        ("capability.server-undeclared", 6),
    ],
    "capability-server-undeclared-modern": [("capability.server-undeclared", 3)],
    "capability-client-undeclared": [("capability.client-undeclared", 4)],
    "capability-client-unnegotiated": [("capability.client-unnegotiated", 4)],
    "capability-list-changed-undeclared": [("capability.list-changed-undeclared", 4)],
    "capability-logging-undeclared": [("capability.logging-undeclared", 4)],
    "progress-unknown-token": [("progress.unknown-token", 3)],
    "progress-after-completion": [("progress.after-completion", 4)],
    "progress-not-increasing": [("progress.not-increasing", 3)],
    "progress-invalid": [("progress.invalid", 2), ("progress.invalid", 3)],
    "cancel-initialize": [("cancel.initialize", 2), ("pairing.reply-after-cancel", 3)],
    "logging-invalid-message": [("logging.invalid-message", 4), ("logging.invalid-message", 5)],
    "schema-tool-without-input-schema": [("schema.result-shape", 2)],
    "schema-content-block": [("schema.result-shape", 5), ("schema.result-shape", 7)],
    "schema-initialize-result": [("schema.result-shape", 2)],
    "schema-discover-result": [("schema.result-shape", 2)],
}


def build(steps: list[Step], name: str) -> bytes:
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
    for seq, step in enumerate(steps, start=1):
        t = round(seq * 0.01, 6)
        kind, value = step[0], step[1]
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


def main() -> int:
    FIXTURES.mkdir(exist_ok=True)
    for name, steps in SCENARIOS.items():
        (FIXTURES / f"{name}.jsonl").write_bytes(build(steps, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
