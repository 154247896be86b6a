"""The scenarios of the exchange rules, and the findings each must give ((rule id, seq), seqs from 1)."""

from __future__ import annotations

import orjson

from tests.analysis.steps import (
    CALL_RESULT,
    DISCOVER_RESULT,
    LEGACY_INIT,
    META,
    Step,
    V,
    c2s,
    call_with_token,
    cancel,
    discover,
    err,
    ev,
    initialize,
    progress,
    req,
    res,
    s2c,
    wait,
)

COMMAND = "node handwritten/server.ts"


def asking(i: int, version: str) -> Step:
    """server/discover asking for ``version``."""
    return c2s(
        {
            **req(i, "server/discover"),
            "params": {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": version}},
        }
    )


def rejected(i: int, version: str) -> Step:
    return s2c(err(i, -32022, "Unsupported protocol version", {"supported": [V], "requested": version}))


EXCHANGE_SCENARIOS: dict[str, list[Step]] = {
    # A flood of requests the server never answers. The full analysis keeps them all; the lean one (--log,
    # the live OpenTelemetry export) keeps LEAN_BOUND pending a direction here (10,000 in use), sets the
    # oldest aside as unknown (a reply to one is no stray), and says how many at the end (LEAN_EXPECTED).
    "pairing-pending-limit": [
        *discover(1),
        *[c2s(req(i, "tools/call", name="lookup", arguments={"n": i})) for i in range(2, 7)],
        s2c(res(2, CALL_RESULT)),
        ev("stdin-closed"),
        ev("server-exited", code=0),
    ],
    # a call with no progressToken: the server's progress names a token nobody sent; the client times out
    "request-no-progress-token": [
        c2s(req(1, "tools/call", name="export")),
        progress("export-1", 1, total=3),
        wait(60.0),
        c2s(cancel(1)),
    ],
    "request-progress-token-long": [
        call_with_token(1, "export-1"),
        progress("export-1", 1, total=3),
        wait(61.0),
        s2c(res(1, CALL_RESULT)),
    ],
    "pairing-server-request-unanswered": [
        *LEGACY_INIT,
        s2c({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
        c2s(req(1, "tools/list", meta=False)),
        c2s(req(2, "tools/call", meta=False, name="get_ticket")),
        ev("stdin-closed"),
        ev("server-exited", code=0),
    ],
    "lifecycle-failed-to-connect": [
        ev("server-started", pid=4243, command=COMMAND),
        initialize(),
        ("err", "node:internal/modules/cjs/loader:1228"),
        ("err", "Error: Cannot find module 'zod'"),
        ("err", "  code: 'MODULE_NOT_FOUND' \x1b[31m"),
        ("err", "Node.js v22.11.0"),
        ev("server-exited", code=1),
    ],
    "lifecycle-never-started": [
        ev("server-exited", code=127, error="No such file or directory", command="no-such-cmd --stdio"),
        ev("proxy-stopped", code=127),
    ],
    "lifecycle-client-asked-nothing": [
        ev("server-started", pid=4243, command=COMMAND),
        ev("stdin-closed"),
        ev("server-exited", code=0),
    ],
    "lifecycle-crash-in-flight-after-reply": [
        ev("server-started", pid=4243, command=COMMAND),
        *discover(),
        c2s(req(2, "tools/call", name="get_ticket")),
        ("err", "Traceback (most recent call last):"),
        ev("server-exited", code=1),
    ],
    "version-rejected-not-retried": [asking(1, "2025-01-01"), rejected(1, "2025-01-01")],
    "version-retried-unlisted": [
        asking(1, "2025-01-01"),
        rejected(1, "2025-01-01"),
        asking(2, "2025-02-02"),
        rejected(2, "2025-02-02"),
    ],
    "version-retried-listed": [asking(1, "2025-01-01"), rejected(1, "2025-01-01"), *discover(2)],
    "version-rejected-legacy-initialize": [
        initialize("2025-06-18"),
        s2c(
            err(
                0,
                -32602,
                "Unsupported protocol version",
                {"supported": ["2024-11-05"], "requested": "2025-06-18"},
            )
        ),
    ],
    "request-sent-as-notification": [
        c2s({"jsonrpc": "2.0", "method": "tools/list", "params": {"_meta": META}}),
        *discover(),
        s2c({"jsonrpc": "2.0", "method": "roots/list"}),
    ],
    # the reply is glued to stray text: lost to the client, which cancels; then a parseable reply is seen
    "pairing-lost-reply-cancelled": [
        c2s(req(1, "server/discover")),
        s2c("ready " + orjson.dumps(res(1, DISCOVER_RESULT)).decode()),
        c2s(cancel(1)),
    ],
    "pairing-lost-reply-sent-again": [
        c2s(req(1, "server/discover")),
        s2c("ready " + orjson.dumps(res(1, DISCOVER_RESULT)).decode()),
        s2c(res(1, DISCOVER_RESULT)),
    ],
}

EXCHANGE_EXPECTED: dict[str, list[tuple[str, int]]] = {
    "pairing-pending-limit": [("pairing.unanswered", seq) for seq in (4, 5, 6, 7)],
    "request-no-progress-token": [
        ("progress.unknown-token", 2),
        ("pairing.slow", 1),
        ("request.no-progress-token", 1),
    ],
    "request-progress-token-long": [("pairing.slow", 1)],
    "pairing-server-request-unanswered": [
        ("pairing.server-request-unanswered", 4),
        ("pairing.unanswered", 5),
        ("pairing.unanswered", 6),
    ],
    "lifecycle-failed-to-connect": [("lifecycle.failed-to-connect", 7)],
    "lifecycle-never-started": [("lifecycle.failed-to-connect", 1)],
    "lifecycle-client-asked-nothing": [],
    "lifecycle-crash-in-flight-after-reply": [("lifecycle.crash-in-flight", 6)],
    "version-rejected-not-retried": [("version.rejected-not-retried", 1)],
    "version-retried-unlisted": [("version.rejected-not-retried", 3)],
    "version-retried-listed": [],
    "version-rejected-legacy-initialize": [("version.rejected-not-retried", 1)],
    "request-sent-as-notification": [
        ("request.sent-as-notification", 1),
        ("request.sent-as-notification", 4),
    ],
    "pairing-lost-reply-cancelled": [("stdout.glued-prefix", 2)],
    "pairing-lost-reply-sent-again": [("stdout.glued-prefix", 2)],
}

# Lean mode, with at most LEAN_BOUND requests pending a direction (tests/analysis/test_lean.py).
LEAN_BOUND = 3
LEAN_EXPECTED: dict[str, list[tuple[str, int]]] = {
    "pairing-pending-limit": [
        ("pairing.unanswered", 5),
        ("pairing.unanswered", 6),
        ("pairing.unanswered", 7),
        ("pairing.pending-limit", 3),
    ],
}
