"""Every analysis scenario, written out as the lines a capture would hold.

`python -m tests.analysis.scenarios` writes them to fixtures/*.jsonl (the
captures mcpspy ships and tests against); tests/analysis/expected.py says what
each must give.
"""

from __future__ import annotations

import sys

import orjson

from tests.analysis.scenarios_capture import CAPTURE_SCENARIOS
from tests.analysis.scenarios_digest import DIGEST_SCENARIOS
from tests.analysis.scenarios_exchange import EXCHANGE_SCENARIOS
from tests.analysis.scenarios_lines import LINE_SCENARIOS
from tests.analysis.scenarios_tool_schemas import TOOL_SCHEMAS_SCENARIOS
from tests.analysis.scenarios_verdicts import VERDICT_SCENARIOS
from tests.analysis.steps import (
    CALL_RESULT,
    DISCOVER_RESULT,
    FIXTURES,
    INITIALIZED,
    LEGACY_INIT,
    META,
    RESULTS,
    RICH_CAPABILITIES,
    TOOLS_RESULT,
    Step,
    V,
    build,
    c2s,
    call_with_token,
    cancel,
    discover,
    err,
    ev,
    every_method,
    initialize,
    initialize_result,
    modern_result,
    notify,
    progress,
    req,
    res,
    s2c,
    wait,
)

SCENARIOS: dict[str, list[Step]] = {
    **LINE_SCENARIOS,
    **TOOL_SCHEMAS_SCENARIOS,
    **DIGEST_SCENARIOS,
    **EXCHANGE_SCENARIOS,
    **CAPTURE_SCENARIOS,
    **VERDICT_SCENARIOS,
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
    # --- one per rule (those about lines alone: scenarios_lines.py)
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
    "pairing-slow": [
        c2s(req(1, "tools/call", name="get_ticket")),
        wait(31.0),
        s2c(res(1, CALL_RESULT)),
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


def main() -> int:
    FIXTURES.mkdir(exist_ok=True)
    for name, steps in SCENARIOS.items():
        (FIXTURES / f"{name}.jsonl").write_bytes(build(steps, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
