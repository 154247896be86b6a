"""The scenarios of the rules about one line: framing (stdout.*, stdin.*) and the envelope (jsonrpc.*)."""

from __future__ import annotations

import orjson

from tests.analysis.steps import (
    DISCOVER_RESULT,
    TOOLS_RESULT,
    Step,
    c2s,
    cancel,
    discover,
    err,
    req,
    res,
    s2c,
)

LINE_SCENARIOS: dict[str, list[Step]] = {
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
    "stdin-glued-prefix": [
        c2s("hello " + orjson.dumps(req(1, "server/discover")).decode()),
        s2c(res(1, DISCOVER_RESULT)),
    ],
    "stdin-multiline-json": [
        *[
            c2s(line)
            for line in orjson.dumps(req(1, "server/discover"), option=orjson.OPT_INDENT_2).split(b"\n")
        ],
        s2c(res(1, DISCOVER_RESULT)),
    ],
    "stdin-content-length": [
        c2s("Content-Length: 120"),
        c2s(""),
        *discover(),
    ],
    "stdin-invalid-utf8": [c2s(b"\xff\xfeoops"), *discover()],
    "stdin-crlf": [c2s(orjson.dumps(req(1, "server/discover")) + b"\r"), s2c(res(1, DISCOVER_RESULT))],
    "stdin-unterminated": [*discover(), ("c2s-unterminated", cancel(1))],
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
}

# Lines over the 16 MiB that mcpspy parses whole: built when tested, never written to fixtures/.
OVERSIZED = 16 * 1024 * 1024 + 1
GENERATED_SCENARIOS: dict[str, list[Step]] = {
    "stdout-oversized-line": [
        c2s(req(1, "resources/read", uri="helpdesk://exports/all")),
        s2c(
            res(
                1,
                {
                    "resultType": "complete",
                    "contents": [{"uri": "helpdesk://exports/all", "text": "x" * OVERSIZED}],
                },
            )
        ),
    ],
    "stdin-oversized-line": [
        c2s(req(1, "tools/call", name="import_tickets", arguments={"csv": "x" * OVERSIZED})),
        s2c(res(1, {"resultType": "complete", "content": [{"type": "text", "text": "imported"}]})),
    ],
}
