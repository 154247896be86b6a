"""A stdlib-only stdio server whose behaviour the replay tests set with flags.

--description TEXT   the description of its one tool, `sum`
--off-by-one         sum answers one more than it should
--timestamp          every result carries _meta.timestamp (a clock: differs every run)
--one-at-a-time      replies after 0.3 s; a request that arrives before then is answered "overlapped"
--silent             never answers tools/call
--ask-roots          tools/call `roots` asks the client roots/list (a fresh id) and answers with its reply
"""

from __future__ import annotations

import argparse
import json
import os
import select
import sys
import time
from typing import Any

args = argparse.ArgumentParser()
args.add_argument("--description", default="Add numbers.")
args.add_argument("--off-by-one", action="store_true")
args.add_argument("--timestamp", action="store_true")
args.add_argument("--one-at-a-time", action="store_true")
args.add_argument("--silent", action="store_true")
args.add_argument("--ask-roots", action="store_true")
options = args.parse_args()


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(request: dict[str, Any], value: dict[str, Any]) -> None:
    if options.timestamp:
        value = {**value, "_meta": {"timestamp": time.time()}}
    send({"jsonrpc": "2.0", "id": request["id"], "result": value})


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}]}


def answer(request: dict[str, Any]) -> None:
    method = request.get("method")
    if method == "initialize":
        result(
            request,
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "scripted", "version": "1"},
            },
        )
    elif method == "tools/list":
        schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
        result(
            request, {"tools": [{"name": "sum", "description": options.description, "inputSchema": schema}]}
        )
    elif method == "tools/call":
        params = request.get("params", {})
        if options.silent:
            return
        if params.get("name") == "roots":
            asked = f"roots-{os.getpid()}"
            send({"jsonrpc": "2.0", "id": asked, "method": "roots/list"})
            reply = json.loads(stdin.readline())
            ok = reply.get("id") == asked
            result(
                request,
                text(
                    json.dumps(reply.get("result")) if ok else f"answered {reply.get('id')!r}, not {asked!r}"
                ),
            )
            return
        a, b = params.get("arguments", {}).get("a", 0), params.get("arguments", {}).get("b", 0)
        result(request, text(str(a + b + (1 if options.off_by_one else 0))))
    elif "id" in request and method is not None:
        send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no such method"}})


class Lines:
    """stdin read with os.read, so that what is waiting is known exactly (no hidden buffer)."""

    def __init__(self) -> None:
        self.buffer = b""

    def waiting(self, timeout: float) -> bool:
        return b"\n" in self.buffer or bool(select.select([0], [], [], timeout)[0])

    def readline(self) -> bytes:
        while b"\n" not in self.buffer:
            chunk = os.read(0, 65536)
            if not chunk:
                return b""
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line


stdin = Lines()
while line := stdin.readline():
    request = json.loads(line)
    if options.one_at_a_time and "method" in request and "id" in request and stdin.waiting(0.3):
        send({"jsonrpc": "2.0", "id": request["id"], "result": text("overlapped")})
        continue
    answer(request)
