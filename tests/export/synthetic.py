"""Synthetic captures of known content, written in the capture format, for export tests and benchmarks.

Each exchange is a 2026-07-28 ``tools/call`` (with ``_meta``) answered after
``latency`` seconds; ``plan`` says per exchange how it ends: "ok", "tool"
(a result with ``isError: true``) or "rpc" (a JSON-RPC error -32603).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def header(session: str, name: str = "helpdesk", started: str = "2026-12-01T10:00:00.000Z") -> dict[str, Any]:
    return {
        "format": "1.0",
        "session": session,
        "started": started,
        "command": ["node", f"{name}/index.js"],
        "name": name,
        "cwd": "/srv",
        "mcpspy": "0.1.0",
        "pid": 4242,
    }


def call(id_: int, tool: str, extra_meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "tools/call",
        "params": {"name": tool, "arguments": {"q": f"query {id_}"}, "_meta": {**META, **(extra_meta or {})}},
    }


def reply(id_: int, how: str) -> dict[str, Any]:
    if how == "rpc":
        return {"jsonrpc": "2.0", "id": id_, "error": {"code": -32603, "message": "backend down"}}
    result = {
        "resultType": "complete",
        "content": [{"type": "text", "text": f"answer {id_}"}],
        "isError": how == "tool",
    }
    return {"jsonrpc": "2.0", "id": id_, "result": result}


class CaptureBuilder:
    """Lines of a capture, numbered and timed as the proxy would."""

    def __init__(
        self, session: str, name: str = "helpdesk", started: str = "2026-12-01T10:00:00.000Z"
    ) -> None:
        self.lines = [orjson.dumps(header(session, name, started))]
        self.seq = 0
        self.t = 0.0

    def line(self, stream: str, payload: object, dt: float = 0.001) -> None:
        self.seq += 1
        self.t += dt
        text = payload if isinstance(payload, str) else orjson.dumps(payload).decode()
        self.lines.append(
            orjson.dumps({"seq": self.seq, "t": round(self.t, 6), "stream": stream, "text": text})
        )

    def event(self, event: str, **details: object) -> None:
        self.seq += 1
        self.t += 0.001
        self.lines.append(orjson.dumps({"seq": self.seq, "t": round(self.t, 6), "event": event, **details}))

    def exchange(self, id_: int, tool: str, how: str = "ok", latency: float = 0.005) -> None:
        self.line("c2s", call(id_, tool))
        self.line("s2c", reply(id_, how), dt=latency)

    def write(self, path: Path) -> Path:
        path.write_bytes(b"\n".join(self.lines) + b"\n")
        return path


def write_calls(
    path: Path,
    session: str,
    plan: Sequence[tuple[str, str]],
    name: str = "helpdesk",
    extra: Iterable[str] = (),
) -> Path:
    """A capture of ``plan``: (tool, how) per exchange; ``extra`` lines go on stdout first (stray text)."""
    builder = CaptureBuilder(session, name)
    builder.event("server-started", pid=4243)
    for text in extra:
        builder.line("s2c", text)
    for i, (tool, how) in enumerate(plan, start=1):
        builder.exchange(i, tool, how)
    builder.event("stdin-closed")
    builder.event("server-exited", code=0)
    builder.event("proxy-stopped", code=0)
    return builder.write(path)


def big_capture(path: Path, messages: int) -> Path:
    """``messages`` lines: tools/call exchanges, every 50th a tool error, every 97th a JSON-RPC error."""
    plan = []
    for i in range(messages // 2):
        how = "rpc" if i % 97 == 0 else "tool" if i % 50 == 0 else "ok"
        plan.append((f"tool_{i % 7}", how))
    return write_calls(path, "big", plan)


def request(id_: int, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": {**params, "_meta": META}}


def result(id_: int, **fields: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": {"resultType": "complete", **fields}}


def mixed_capture(path: Path) -> Path:
    """Seven exchanges, each ending its own way, with stray text, stderr and a traceparent."""
    b = CaptureBuilder("mixed-session", name="helpdesk")
    b.event("server-started", pid=7)
    b.line("s2c", "server ready")  # stray stdout line: stdout.not-json
    b.line("err", "listening on stdio")
    b.line("c2s", request(1, "server/discover"))
    serverinfo = {"io.modelcontextprotocol/serverInfo": {"name": "helpdesk-srv", "version": "2.1"}}
    b.line(
        "s2c",
        result(
            1,
            supportedVersions=["2026-07-28"],
            capabilities={"tools": {}, "prompts": {}, "resources": {}},
            ttlMs=0,
            cacheScope="public",
            _meta=serverinfo,
        ),
    )
    b.exchange(2, "search")
    b.exchange(3, "search", how="tool")
    b.exchange(4, "lookup", how="rpc")
    b.line("c2s", call(5, "search", extra_meta={"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"}))
    b.line("s2c", result(5, content=[], isError=False))
    b.line("c2s", request(6, "prompts/get", name="triage"))
    b.line("s2c", result(6, messages=[]))
    b.line("c2s", request(7, "resources/read", uri="file:///kb/faq.md"))
    b.line("s2c", result(7, contents=[], ttlMs=0, cacheScope="private"))
    b.line("c2s", request(8, "tools/call", name="slow", arguments={}))  # never answered
    b.event("stdin-closed")
    b.event("server-exited", code=0)
    b.event("proxy-stopped", code=0)
    return b.write(path)
