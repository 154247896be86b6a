"""The scenarios of the digest rules, and the findings each must give ((rule id, seq), seqs from 1)."""

from __future__ import annotations

from typing import Any

from tests.analysis.steps import (
    CALL_RESULT,
    DISCOVER_RESULT,
    SERVER_META,
    Step,
    V,
    c2s,
    cancel,
    err,
    ev,
    initialize,
    initialize_result,
    notify,
    req,
    res,
    s2c,
    wait,
)
from tests.analysis.steps import INITIALIZED as INITIALIZED_STEP

SUB_ID = "io.modelcontextprotocol/subscriptionId"
CAPS = "io.modelcontextprotocol/clientCapabilities"
LOG_LEVEL = "io.modelcontextprotocol/logLevel"
URI = "helpdesk://tickets/2318"
LISTS = {"tools": {"listChanged": True}, "resources": {"listChanged": True, "subscribe": True}}
LOGS = {"tools": {}, "logging": {}}
LIST = {"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "public", "_meta": SERVER_META}
ELICIT = {
    "method": "elicitation/create",
    "params": {"mode": "form", "message": "Your GitHub login?", "requestedSchema": {"type": "object"}},
}
ELICITATION = {"elicitation": {}}


def discover_with(capabilities: dict[str, Any], i: int = 1) -> list[Step]:
    return [c2s(req(i, "server/discover")), s2c(res(i, {**DISCOVER_RESULT, "capabilities": capabilities}))]


def with_meta(request: dict[str, Any], **meta: Any) -> dict[str, Any]:
    """A request whose _meta has these fields changed (clientCapabilities, logLevel, ...)."""
    params = request["params"]
    return {**request, "params": {**params, "_meta": {**params["_meta"], **meta}}}


def call(i: int, name: str = "deploy", capabilities: Any = None, **params: Any) -> dict[str, Any]:
    request = req(i, "tools/call", name=name, **params)
    return request if capabilities is None else with_meta(request, **{CAPS: capabilities})


def input_required(i: int, **fields: Any) -> Step:
    return s2c(res(i, {"resultType": "input_required", **fields}))


def on_stream(method: str, sub: Any, **params: Any) -> Step:
    return s2c(notify(method, _meta={SUB_ID: sub}, **params))


def listen(i: int, **wanted: Any) -> Step:
    return c2s(req(i, "subscriptions/listen", notifications=wanted))


def ack(sub: Any, **granted: Any) -> Step:
    return on_stream("notifications/subscriptions/acknowledged", sub, notifications=granted)


def tools_list(i: int, **params: Any) -> Step:
    return c2s(req(i, "tools/list", **params))


def server_cancel(i: Any) -> Step:
    return s2c({**cancel(i), "params": {"requestId": i, "reason": "shutting down"}})


ANSWER = {"login": {"action": "accept", "content": {"name": "octocat"}}}

DIGEST_SCENARIOS: dict[str, list[Step]] = {
    # --- multi round-trip requests
    "mrtr-clean": [
        *discover_with({"tools": {}, "resources": {}}),
        c2s(call(2, capabilities=ELICITATION)),
        input_required(2, inputRequests={"login": ELICIT}, requestState="s1"),
        c2s(call(3, capabilities=ELICITATION, inputResponses=ANSWER, requestState="s1")),
        s2c(res(3, CALL_RESULT)),
        c2s(call(4, capabilities=ELICITATION)),  # asked again, then called afresh: not a retry
        input_required(4, requestState="s2"),
        c2s(call(5, capabilities=ELICITATION)),
        s2c(res(5, CALL_RESULT)),
    ],
    "mrtr-wrong-method": [*discover_with({"tools": {}}), tools_list(2), input_required(2, requestState="s")],
    "mrtr-empty": [c2s(call(1)), input_required(1)],
    "mrtr-invalid-input-request": [
        c2s(call(1)),
        input_required(1, inputRequests={"q": {"method": "tools/call", "params": {}}}),
    ],
    "mrtr-undeclared-capability": [
        c2s(call(1)),
        input_required(
            1, inputRequests={"q": {"method": "sampling/createMessage", "params": {"messages": []}}}
        ),
        c2s(call(3, capabilities=ELICITATION)),  # {} declares form mode only
        input_required(3, inputRequests={"q": {"method": "elicitation/create", "params": {"mode": "url"}}}),
    ],
    "mrtr-request-state": [
        c2s(call(1, "a", ELICITATION)),
        input_required(1, inputRequests={"login": ELICIT}, requestState="s1"),
        c2s(call(2, "a", ELICITATION, inputResponses=ANSWER, requestState="s2")),  # changed
        s2c(res(2, CALL_RESULT)),
        c2s(call(5, "b", ELICITATION)),
        input_required(5, inputRequests={"login": ELICIT}),
        c2s(call(6, "b", ELICITATION, inputResponses=ANSWER, requestState="x")),  # invented
        s2c(res(6, CALL_RESULT)),
        c2s(call(9, "c", ELICITATION)),
        input_required(9, inputRequests={"login": ELICIT}, requestState="s3"),
        c2s(call(10, "c", ELICITATION, inputResponses=ANSWER)),  # missing
        s2c(res(10, CALL_RESULT)),
    ],
    "mrtr-retry-same-id": [
        c2s(call(1)),
        input_required(1, requestState="s1"),
        c2s(call(1, requestState="s1")),
        s2c(res(1, CALL_RESULT)),
    ],
    "mrtr-input-responses-missing": [
        c2s(call(1, capabilities=ELICITATION)),
        input_required(1, inputRequests={"login": ELICIT, "repo": ELICIT}, requestState="s"),
        c2s(call(2, capabilities=ELICITATION, inputResponses=ANSWER, requestState="s")),
        s2c(res(2, CALL_RESULT)),
    ],
    # --- subscriptions
    "subscription-clean": [
        *discover_with(LISTS),
        listen(2, toolsListChanged=True, resourceSubscriptions=[URI]),
        ack(2, toolsListChanged=True, resourceSubscriptions=[URI]),
        on_stream("notifications/tools/list_changed", 2),
        on_stream("notifications/resources/updated", 2, uri=URI),
        listen("l2", resourcesListChanged=True),
        ack("l2"),  # the server honours none of it
        c2s(cancel("l2")),
        server_cancel("l2"),  # both sides ended it at once
        server_cancel(2),
        ev("stdin-closed"),
        ev("server-exited", code=0),
    ],
    "subscription-no-filter": [c2s(req(1, "subscriptions/listen"))],
    "subscription-before-ack": [
        listen(1, toolsListChanged=True),
        on_stream("notifications/tools/list_changed", 1),
        ack(1, toolsListChanged=True),
    ],
    "subscription-id-missing": [
        *discover_with(LISTS),
        listen(2, toolsListChanged=True),
        ack(2, toolsListChanged=True),
        s2c(notify("notifications/tools/list_changed")),
    ],
    "subscription-unknown-id": [
        listen(1, toolsListChanged=True),
        ack(1, toolsListChanged=True),
        on_stream("notifications/tools/list_changed", 7),
    ],
    "subscription-unrequested": [
        listen(1, toolsListChanged=True, resourceSubscriptions=[URI]),
        ack(1, toolsListChanged=True, resourceSubscriptions=[URI]),
        on_stream("notifications/prompts/list_changed", 1),
        on_stream("notifications/resources/updated", 1, uri="helpdesk://tickets/1"),
    ],
    "subscription-ack-superset": [
        listen(1, toolsListChanged=True),
        ack(1, toolsListChanged=True, promptsListChanged=True),
    ],
    "subscription-after-end": [
        listen(1, toolsListChanged=True),
        ack(1, toolsListChanged=True),
        c2s(cancel(1)),
        on_stream("notifications/tools/list_changed", 1),
    ],
    "subscription-server-cancel": [
        *discover_with({"tools": {}}),
        c2s(call(2)),
        server_cancel(2),
        s2c(res(2, CALL_RESULT)),
    ],
    # --- what 2026-07-28 removed, retired or deprecated
    "deprecated-removed-method": [
        c2s(req(1, "logging/setLevel", level="info")),
        s2c(err(1, -32601, "Method not found")),
        c2s(notify("notifications/roots/list_changed")),
        s2c(notify("notifications/elicitation/complete", elicitationId="e1")),
    ],
    "deprecated-feature": [
        c2s(call(1, capabilities={"roots": {}, "sampling": {}})),
        s2c(res(1, CALL_RESULT)),
        c2s(call(3, capabilities={"roots": {}, "sampling": {}})),  # once per feature and process
        s2c(res(3, CALL_RESULT)),
    ],
    "error-retired-code": [
        c2s(req(1, "resources/read", uri=URI)),
        s2c(err(1, -32002, "Resource not found")),
        c2s(call(3)),
        s2c(err(3, -32042, "URL elicitation required")),
    ],
    "error-undefined-code": [c2s(call(1)), s2c(err(1, -32050, "Quota exceeded"))],
    "error-missing-capability-data": [c2s(call(1)), s2c(err(1, -32021, "Needs sampling"))],
    "error-header-mismatch-on-stdio": [c2s(call(1)), s2c(err(1, -32020, "Header mismatch"))],
    "logging-no-log-level": [
        *discover_with(LOGS),
        c2s(call(2)),
        s2c(notify("notifications/message", level="info", data="deploying")),
        s2c(res(2, CALL_RESULT)),
        c2s(with_meta(call(5), **{LOG_LEVEL: "info"})),
        s2c(notify("notifications/message", level="info", data="deploying")),
        s2c(res(5, CALL_RESULT)),
    ],
    "logging-invalid-log-level": [
        *discover_with(LOGS),
        c2s(with_meta(call(2), **{LOG_LEVEL: "verbose"})),
        s2c(res(2, CALL_RESULT)),
    ],
    "logging-below-level": [
        *discover_with(LOGS),
        c2s(with_meta(call(2), **{LOG_LEVEL: "warning"})),
        s2c(notify("notifications/message", level="debug", data="step 1")),
        s2c(notify("notifications/message", level="error", data="step 2 failed")),
        s2c(res(2, CALL_RESULT)),
    ],
    "error-reserved-code": [c2s(call(1)), s2c(err(1, -32500, "Busy"))],
    "era-fallback-after-modern-reply": [
        *discover_with({"tools": {}}),
        initialize(),
        s2c(err(0, -32022, "Unsupported protocol version", {"supported": [V], "requested": "2025-06-18"})),
    ],
    "direction-client-notification": [
        tools_list(1),
        s2c(res(1, LIST)),
        c2s(notify("notifications/tools/list_changed")),
    ],
    "discover-not-implemented": [
        c2s(req(1, "server/discover")),
        s2c(err(1, -32601, "Method not found")),
        tools_list(2),
        s2c(res(2, LIST)),
    ],
    "error-unsupported-version-inconsistent": [
        c2s(req(1, "server/discover")),
        s2c(err(1, -32022, "Unsupported protocol version", {"supported": [V], "requested": "2025-01-01"})),
    ],
    "resource-empty-contents": [
        c2s(req(1, "resources/read", uri="helpdesk://tickets/404")),
        s2c(res(1, {"resultType": "complete", "contents": [], "ttlMs": 0, "cacheScope": "public"})),
    ],
    "logging-on-subscription": [
        *discover_with(LOGS),
        listen(2, toolsListChanged=True),
        ack(2),
        on_stream("notifications/message", 2, level="info", data="listening"),
    ],
    # --- caching
    "cache-pages-clean": [
        tools_list(1),
        s2c(res(1, {**LIST, "cacheScope": "private", "nextCursor": "p2"})),
        tools_list(3, cursor="p2"),
        s2c(res(3, {**LIST, "cacheScope": "private", "ttlMs": 300000})),
        wait(301.0),
        tools_list(5, cursor="p2"),  # asked again once its ttl ran out
        s2c(res(5, {**LIST, "cacheScope": "private"})),
    ],
    "cache-invalid-ttl": [
        tools_list(1),
        s2c(res(1, {**LIST, "ttlMs": -1})),
        tools_list(3),
        s2c(res(3, {**LIST, "ttlMs": 1.5})),
    ],
    "cache-invalid-scope": [tools_list(1), s2c(res(1, {**LIST, "cacheScope": "shared"}))],
    "cache-scope-changed": [
        tools_list(1),
        s2c(res(1, {**LIST, "cacheScope": "private", "nextCursor": "p2"})),
        tools_list(3, cursor="p2"),
        s2c(res(3, {**LIST, "cacheScope": "public"})),
    ],
    "cache-on-input-required": [
        c2s(req(1, "resources/read", uri=URI)),
        input_required(1, requestState="s", ttlMs=60000, cacheScope="public"),
    ],
    "cache-refetch-fresh": [
        tools_list(1),
        s2c(res(1, {**LIST, "ttlMs": 300000})),
        tools_list(3),
        s2c(res(3, {**LIST, "ttlMs": 300000})),
        wait(301.0),
        tools_list(5),
        s2c(res(5, LIST)),
    ],
    "cache-refetch-after-change": [
        *discover_with(LISTS),
        listen(2, toolsListChanged=True),
        ack(2, toolsListChanged=True),
        tools_list(3),
        s2c(res(3, {**LIST, "ttlMs": 300000})),
        on_stream("notifications/tools/list_changed", 2),
        tools_list(4),
        s2c(res(4, LIST)),
    ],
    # --- resultType, and the nulls that read as present
    "result-type-invalid": [c2s(call(1)), s2c(res(1, {**CALL_RESULT, "resultType": 1}))],
    "result-type-unknown": [
        c2s(call(1)),
        s2c(res(1, {**CALL_RESULT, "resultType": "done"})),
        *discover_with({"tools": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}, 3),
        c2s(call(4)),
        s2c(res(4, {"resultType": "task", "task": {"taskId": "t1"}})),  # an extension's result type
    ],
    "result-type-null": [
        c2s(call(1)),
        s2c(res(1, {**CALL_RESULT, "resultType": None})),
        tools_list(3),
        s2c(res(3, {**LIST, "resultType": None})),
    ],
    "meta-null-client-capabilities": [
        c2s(req(1, "server/discover")),
        s2c(res(1, DISCOVER_RESULT)),
        c2s(with_meta(call(2), **{CAPS: None})),
        s2c(res(2, CALL_RESULT)),
    ],
    # the envelope (digest rules 19, 22, 24)
    "jsonrpc-params-not-object": [
        initialize(),
        initialize_result(),
        INITIALIZED_STEP,
        c2s({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ["deploy", {"env": "prod"}]}),
        s2c(err(1, -32602, "Invalid params")),
        c2s({"jsonrpc": "2.0", "method": "notifications/roots/list_changed", "params": None}),
    ],
    "jsonrpc-result-not-object": [c2s(call(1)), s2c({"jsonrpc": "2.0", "id": 1, "result": "deployed"})],
    "jsonrpc-notification-with-id": [
        c2s(call(1)),
        s2c(res(1, CALL_RESULT)),
        c2s(req(2, "notifications/cancelled", requestId=1)),
        s2c(err(2, -32601, "Method not found")),
    ],
    # progress tokens (digest rules 72, 73, 78)
    "progress-token-invalid": [
        c2s(with_meta(call(1), progressToken={"n": 1})),
        s2c(res(1, CALL_RESULT)),
    ],
    "progress-token-duplicate": [
        c2s(with_meta(call(1), progressToken="p")),
        c2s(with_meta(call(2), progressToken="p")),
        s2c(res(1, CALL_RESULT)),
        s2c(res(2, CALL_RESULT)),
        c2s(with_meta(call(3), progressToken="p")),
        s2c(res(3, CALL_RESULT)),
    ],
    "progress-client-sent": [
        *discover_with({"tools": {}}),
        c2s(notify("notifications/progress", progressToken=1, progress=1)),
    ],
    # ping (digest rule 80): legacy only, either direction
    "ping-non-empty-result": [
        initialize(),
        initialize_result(),
        INITIALIZED_STEP,
        c2s({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        s2c(res(1, {"status": "ok"})),
        s2c({"jsonrpc": "2.0", "id": "s1", "method": "ping"}),
        c2s(res("s1", {"_meta": {"note": "empty otherwise"}})),
    ],
    # _meta key names (digest rule 56): 2025-06-18 and later; a legacy 2025-03-26 process is not held to it
    "meta-key-format": [
        *discover_with({"tools": {}}),
        c2s(with_meta(call(2), **{"com.acme/trace-id": "t1", "-trace": "t2", "acme./flag": True})),
        s2c(res(2, {**CALL_RESULT, "_meta": {"_private": 1, "com.acme/ok": 2}})),
    ],
    "meta-key-format-old-revision": [
        initialize("2025-03-26"),
        initialize_result("2025-03-26"),
        INITIALIZED_STEP,
        c2s({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"-x": 1}}}),
        s2c(res(1, {"tools": []})),
    ],
    # ids spent (digest rule 30): legacy only; 2026-07-28 frees an answered id
    "pairing-id-reused": [
        initialize(),
        initialize_result(),
        INITIALIZED_STEP,
        c2s(req(1, "tools/list", meta=False)),
        s2c(res(1, {"tools": []})),
        c2s(req(1, "tools/list", meta=False)),
        s2c(res(1, {"tools": []})),
    ],
    "pairing-id-reused-modern": [
        c2s(req(1, "tools/list")),
        s2c(res(1, LIST)),
        c2s(req(1, "tools/list")),
        s2c(res(1, LIST)),
    ],
}

DIGEST_EXPECTED: dict[str, list[tuple[str, int]]] = {
    "mrtr-clean": [],
    "mrtr-wrong-method": [("mrtr.wrong-method", 4)],
    "mrtr-empty": [("mrtr.empty", 2)],
    "mrtr-invalid-input-request": [("mrtr.invalid-input-request", 2)],
    "mrtr-undeclared-capability": [("mrtr.undeclared-capability", 2), ("mrtr.undeclared-capability", 4)],
    "mrtr-request-state": [("mrtr.request-state", 3), ("mrtr.request-state", 7), ("mrtr.request-state", 11)],
    "mrtr-retry-same-id": [("mrtr.retry-same-id", 3)],
    "mrtr-input-responses-missing": [("mrtr.input-responses-missing", 3)],
    "subscription-clean": [],
    "subscription-no-filter": [("subscription.no-filter", 1)],
    "subscription-before-ack": [("subscription.before-ack", 2)],
    "subscription-id-missing": [("subscription.id-missing", 5)],
    "subscription-unknown-id": [("subscription.unknown-id", 3)],
    "subscription-unrequested": [("subscription.unrequested", 3), ("subscription.unrequested", 4)],
    "subscription-ack-superset": [("subscription.ack-superset", 2)],
    "subscription-after-end": [("subscription.after-end", 4)],
    "subscription-server-cancel": [("subscription.server-cancel", 4)],
    "deprecated-removed-method": [
        ("deprecated.removed-method", 1),
        ("deprecated.removed-method", 3),
        ("deprecated.removed-method", 4),
    ],
    "deprecated-feature": [("deprecated.feature", 1), ("deprecated.feature", 1)],
    "error-retired-code": [("error.retired-code", 2), ("error.retired-code", 4)],
    "error-undefined-code": [("error.undefined-code", 2)],
    "error-missing-capability-data": [("error.missing-capability-data", 2)],
    "error-header-mismatch-on-stdio": [("error.header-mismatch-on-stdio", 2)],
    "logging-no-log-level": [("logging.no-log-level", 4), ("deprecated.feature", 4)],
    "logging-on-subscription": [("logging.on-subscription", 5), ("deprecated.feature", 5)],
    "logging-invalid-log-level": [("logging.invalid-log-level", 3)],
    "logging-below-level": [("logging.below-level", 4), ("deprecated.feature", 4)],
    "error-reserved-code": [("error.reserved-code", 2)],
    "direction-client-notification": [("direction.client-notification", 3)],
    "era-fallback-after-modern-reply": [
        ("era.fallback-after-modern-reply", 3),
        ("version.rejected-not-retried", 3),  # and the rejected fallback was never retried either
    ],
    "discover-not-implemented": [("discover.not-implemented", 4)],
    "error-unsupported-version-inconsistent": [("error.unsupported-version-inconsistent", 2)],
    "resource-empty-contents": [("resource.empty-contents", 2)],
    "cache-pages-clean": [],
    "cache-invalid-ttl": [("cache.invalid-ttl", 2), ("cache.invalid-ttl", 4)],
    "cache-invalid-scope": [("cache.invalid-scope", 2)],
    "cache-scope-changed": [("cache.scope-changed", 4)],
    "cache-on-input-required": [("cache.on-input-required", 2)],
    "cache-refetch-fresh": [("cache.refetch-fresh", 3)],
    "cache-refetch-after-change": [],
    "result-type-invalid": [("result.type-invalid", 2)],
    "result-type-unknown": [("result.type-unknown", 2)],
    "result-type-null": [("result.missing-result-type", 2), ("result.missing-result-type", 4)],
    "meta-null-client-capabilities": [("meta.missing", 3), ("meta.not-rejected", 4)],
    "jsonrpc-params-not-object": [("jsonrpc.params-not-object", 4), ("jsonrpc.params-not-object", 6)],
    "jsonrpc-result-not-object": [("jsonrpc.result-not-object", 2)],
    "jsonrpc-notification-with-id": [("jsonrpc.notification-with-id", 3)],
    "progress-token-invalid": [("progress.token-invalid", 1)],
    "progress-token-duplicate": [("progress.token-duplicate", 2)],
    "progress-client-sent": [("progress.client-sent", 3), ("progress.unknown-token", 3)],
    "ping-non-empty-result": [("ping.non-empty-result", 5)],
    "meta-key-format": [("meta.key-format", 3), ("meta.key-format", 4)],
    "meta-key-format-old-revision": [],
    "pairing-id-reused": [("pairing.id-reused", 6)],
    "pairing-id-reused-modern": [],
}
