"""Small captures written line by line, for tests that need exact times and bytes."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson

HEADER = {
    "format": "1.0",
    "session": "test-playback",
    "started": "2026-12-01T10:00:00.000Z",
    "command": ["recorded-server"],
    "name": "recorded-server",
    "cwd": "/tmp",
    "mcpspy": "0.1.0",
    "pid": 4242,
}


def message(value: dict[str, Any]) -> str:
    return orjson.dumps(value).decode()


def request(id_: Any, method: str, params: Any = None) -> str:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        body["params"] = params
    return message(body)


def result(id_: Any, value: Any) -> str:
    return message({"jsonrpc": "2.0", "id": id_, "result": value})


def notification(method: str, params: Any = None) -> str:
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        body["params"] = params
    return message(body)


def write_capture(
    path: Path, lines: list[tuple[float, str, str | bytes]], unterminated_last: bool = False
) -> Path:
    """``lines``: (t, stream, text or raw bytes); a server-started event comes first, at t=0."""
    out = [orjson.dumps(HEADER), b'{"seq":1,"t":0.0,"event":"server-started","pid":4243}']
    for seq, (t, stream, data) in enumerate(lines, start=2):
        record: dict[str, Any] = {"seq": seq, "t": t, "stream": stream}
        if isinstance(data, bytes):
            record["b64"] = base64.b64encode(data).decode()
        else:
            record["text"] = data
        if unterminated_last and seq == len(lines) + 1:
            record["unterminated"] = True
        out.append(orjson.dumps(record))
    path.write_bytes(b"\n".join(out) + b"\n")
    return path
