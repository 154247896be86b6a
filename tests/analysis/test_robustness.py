"""Bad input is data: nothing a pipe can carry crashes the analysis."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis_data import result_schemas
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Stream

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
keys = st.sampled_from(
    [
        "jsonrpc",
        "id",
        "method",
        "params",
        "result",
        "error",
        "_meta",
        "code",
        "requestId",
        "resultType",
        "x",
        "progressToken",
        "progress",
        "task",
        "capabilities",
        "protocolVersion",
        "content",
        "tools",
        "type",
        "text",
    ]
)
messages = st.dictionaries(keys, json_values, max_size=6).map(lambda d: {"jsonrpc": "2.0", **d})
methods = st.sampled_from(
    [
        "initialize",
        "server/discover",
        "tools/list",
        "notifications/cancelled",
        "ping",
        "subscriptions/listen",
        "notifications/initialized",
        "tools/call",
        "prompts/get",
        "resources/read",
        "completion/complete",
        "resources/subscribe",
        "roots/list",
        "sampling/createMessage",
        "elicitation/create",
        "notifications/progress",
        "notifications/message",
        "notifications/tools/list_changed",
    ]
)
# Openings that put the analysis in each era, so that the era's rules (schemas, gating) see the noise.
OPENINGS: list[list[tuple[Stream, Any]]] = [
    [],
    [
        (
            Stream.C2S,
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "c", "version": "1"},
                },
            },
        ),
        (
            Stream.S2C,
            {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "serverInfo": {"name": "s", "version": "1"},
                },
            },
        ),
    ],
    [
        (
            Stream.C2S,
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "server/discover",
                "params": {
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {},
                    }
                },
            },
        ),
        (
            Stream.S2C,
            {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {"resultType": "complete", "capabilities": {}, "supportedVersions": ["2026-07-28"]},
            },
        ),
    ],
]
rpc = st.builds(
    lambda kind, i, m, body: (
        {"jsonrpc": "2.0", "id": i, "method": m, "params": body}
        if kind == 0
        else {"jsonrpc": "2.0", "method": m, "params": body}
        if kind == 1
        else {"jsonrpc": "2.0", "id": i, "result": body}
        if kind == 2
        else {"jsonrpc": "2.0", "id": i, "error": body}
    ),
    st.integers(0, 3),
    st.one_of(st.integers(0, 3), st.sampled_from(["1", None, 1.5])),
    methods,
    json_values,
)


def line(value: Any) -> bytes:
    return value if isinstance(value, bytes) else orjson.dumps(value)


records = st.lists(
    st.tuples(st.sampled_from(list(Stream)), st.one_of(st.binary(max_size=80), messages, rpc), st.booleans()),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(OPENINGS), records, st.sampled_from(list(Event)))
def test_arbitrary_records_never_crash(
    opening: list[tuple[Stream, Any]], items: list[tuple[Stream, Any, bool]], event: Event
) -> None:
    analyzer = Analyzer(slow_after=0.1, schemas=result_schemas())
    items = [(stream, value, True) for stream, value in opening] + items
    for seq, (stream, value, terminated) in enumerate(items, start=1):
        data = line(value).replace(b"\n", b"")
        analyzer.feed(LineRecord(seq, seq * 0.05, stream, data, terminated))
        if seq % 7 == 0:
            analyzer.feed(LifecycleRecord(seq, seq * 0.05, event, {"code": 1}))
        analyzer.check_pending(seq * 0.05)
    analyzer.finish()
    assert len(analyzer.messages) == len(items)


def nested(depth: int, shape: int) -> str:
    """JSON nested ``depth`` deep: valid up to orjson's 1024 levels, though orjson writes only 254."""
    if shape == 0:
        return "[" * depth + "]" * depth
    if shape == 1:
        return '{"a":' * depth + "1" + "}" * depth
    return '[{"a":' * (depth // 2) + "null" + "}]" * (depth // 2)


deep_json = st.builds(nested, st.integers(250, 1100), st.integers(0, 2))
# Where untrusted values end up in a finding's sentence or a schema check.
DEEP_MESSAGES = [
    '{"jsonrpc":%s,"id":1,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":%s,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":%s,"result":{}}',
    '{"jsonrpc":"2.0","id":1,"result":%s}',
    '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":%s}],"resultType":%s}}',
    '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":%s}]}}',
    '{"jsonrpc":"2.0","id":1,"error":{"code":%s,"message":"x"}}',
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%s}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":%s}}',
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%s,"capabilities":%s}}',
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":%s,"task":%s}}',
]


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(OPENINGS),
    st.lists(
        st.tuples(
            st.sampled_from([Stream.C2S, Stream.S2C]),
            st.one_of(st.binary(max_size=200), st.tuples(st.sampled_from(DEEP_MESSAGES), deep_json)),
        ),
        min_size=1,
        max_size=12,
    ),
)
def test_arbitrary_bytes_and_arbitrarily_deep_json_never_crash(
    opening: list[tuple[Stream, Any]], items: list[tuple[Stream, bytes | tuple[str, str]]]
) -> None:
    analyzer = Analyzer(schemas=result_schemas())
    lines = [(stream, orjson.dumps(value)) for stream, value in opening]
    for stream, item in items:
        if isinstance(item, tuple):
            template, value = item
            item = template.replace("%s", value).encode()
        lines.append((stream, item.replace(b"\n", b"")))
    for seq, (stream, data) in enumerate(lines, start=1):
        analyzer.feed(LineRecord(seq, seq * 0.05, stream, data))
    analyzer.finish()
    assert len(analyzer.messages) == len(lines)


def test_the_analysis_imports_neither_trio_nor_textual() -> None:
    code = (
        "import sys, mcpspy.analysis.analyzer, mcpspy.replay_policy, mcpspy.wire.splitter, "
        "mcpspy.capture.recorder; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('trio', 'textual')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
