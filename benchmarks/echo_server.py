"""A tiny stdio MCP server for the benchmarks: answers every request, stdlib only.

It must cost as little as possible so that the figures measure the shim in
front of it, not the server: it reads whatever the pipe holds, answers every
complete line, and writes all the answers of one read in one write.

- ``initialize`` gets a minimal legacy-era result (some shims wait for one);
- any other request gets a valid tools/call result whose text is its params
  (clean traffic: the analysis figures measure a session with no findings);
- notifications and lines that are not JSON get nothing back, except the
  notification ``bench/echo``, whose params come back as a notification (the
  big-line benchmark uses it, so a 64 MiB line goes through and back).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

READ_SIZE = 1 << 20
INIT_RESULT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "bench-echo", "version": "1.0"},
}


def answer(line: bytes) -> bytes | None:
    """The reply to one line, or None when the line wants no reply."""
    try:
        message: Any = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict):
        return None
    method = message.get("method")
    if "id" not in message:
        if method == "bench/echo":
            return line + b"\n"
        return None
    if method is None:
        return None  # a response to something we never asked
    if method == "initialize":
        result: Any = INIT_RESULT
    else:
        result = {"content": [{"type": "text", "text": json.dumps(message.get("params"))}]}
    reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
    return json.dumps(reply, separators=(",", ":")).encode() + b"\n"


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def serve(stdin: int = 0, stdout: int = 1) -> None:
    pending = bytearray()
    while True:
        chunk = os.read(stdin, READ_SIZE)
        if not chunk:
            return
        pending += chunk
        if b"\n" not in chunk:
            continue
        *lines, rest = bytes(pending).split(b"\n")
        pending = bytearray(rest)
        replies = [r for r in map(answer, lines) if r is not None]
        if replies:
            write_all(stdout, b"".join(replies))


if __name__ == "__main__":
    try:
        serve()
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(0)
