"""Write a 100k-message capture shaped like the benchmark's, to time the analysis alone.

    python -m tests.analysis.bench_capture OUT.jsonl [--valid-results]
    python benchmarks/offline.py analysis OUT.jsonl

The same traffic as benchmarks/echo_server.py behind mcpspy: a 2025-06-18
handshake, then tools/call requests each answered with {"echo": params}, which
is no CallToolResult (so each reply is a schema.result-shape finding). With
--valid-results each reply is a one-block CallToolResult instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from mcpspy.capture.format import FORMAT_VERSION, encode_header, encode_record
from mcpspy.capture.records import Header, LineRecord, Stream

MESSAGES = 100_000
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZE_RESULT = {"jsonrpc": "2.0", "id": 0, "result": {
    "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
    "serverInfo": {"name": "bench-echo", "version": "1.0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def build(valid_results: bool, messages: int = MESSAGES) -> bytes:
    header = Header(FORMAT_VERSION, "bench", "2026-10-15T09:00:00.000Z", ("python", "echo_server.py"),
                    "bench", "/tmp", "0.1.0", 1)
    lines = [(Stream.C2S, INITIALIZE), (Stream.S2C, INITIALIZE_RESULT), (Stream.C2S, INITIALIZED)]
    for i in range(1000, 1000 + (messages - len(lines)) // 2):
        params = {"name": "echo", "arguments": {"n": i}}
        result = {"content": [{"type": "text", "text": str(i)}]} if valid_results else {"echo": params}
        lines += [(Stream.C2S, {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}),
                  (Stream.S2C, {"jsonrpc": "2.0", "id": i, "result": result})]
    out = [encode_header(header)]
    for seq, (stream, message) in enumerate(lines, start=1):
        out.append(encode_record(LineRecord(seq, seq * 1e-5, stream, orjson.dumps(message), True)))
    return b"".join(out)


def main(argv: list[str]) -> int:
    Path(argv[0]).write_bytes(build(valid_results="--valid-results" in argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
