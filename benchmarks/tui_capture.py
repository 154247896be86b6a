"""Write a big capture for the TUI benchmarks: `python benchmarks/tui_capture.py OUT [MESSAGES]`.

A modern client calling tools on a server that answers them (one in 50 out of
order), with a progress notification and a stderr line now and then: the
shape of a long real session, made without running a proxy.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from mcpspy.capture.format import encode_header, encode_line
from mcpspy.capture.records import Header, Stream
from mcpspy.demo.client import META


def header(name: str = "bench") -> Header:
    return Header(
        format="1.0",
        session=f"20261203T000000.000Z-{name}-1",
        started="2026-12-03T00:00:00.000Z",
        command=("python", f"{name}.py"),
        name=name,
        cwd="/tmp",
        mcpspy="0.1.0",
        pid=1,
    )


def request(id_: int, progress: bool = False) -> bytes:
    meta = {**META, "progressToken": id_} if progress else META
    return orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": id_,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": f"message {id_}"}, "_meta": meta},
        }
    )


def reply(id_: int) -> bytes:
    return orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": id_,
            "result": {"resultType": "complete", "content": [{"type": "text", "text": f"message {id_}"}]},
        }
    )


def write_capture(path: Path, messages: int) -> None:
    """About ``messages`` line records (requests, replies, notifications, stderr)."""
    seq = 0
    t = 0.0
    out = [encode_header(header())]

    def line(stream: Stream, data: bytes) -> None:
        nonlocal seq, t
        seq += 1
        t += 0.0005
        out.append(encode_line(seq, t, stream, data, True))

    id_ = 0
    while seq < messages:
        id_ += 1
        if id_ % 50 == 0:  # two requests in flight, answered in reverse order
            line(Stream.C2S, request(id_))
            line(Stream.C2S, request(id_ + 1))
            line(Stream.S2C, reply(id_ + 1))
            line(Stream.S2C, reply(id_))
            id_ += 1
            continue
        line(Stream.C2S, request(id_, progress=id_ % 20 == 0))
        if id_ % 20 == 0:
            line(
                Stream.S2C,
                orjson.dumps(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {"progressToken": id_, "progress": 0.5},
                    }
                ),
            )
        if id_ % 100 == 0:
            line(Stream.ERR, f"echo: handled {id_} calls".encode())
        line(Stream.S2C, reply(id_))
    path.write_bytes(b"".join(out))


if __name__ == "__main__":
    write_capture(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 100_000)
