"""A dual-era stdio MCP server, conforming by default, with faults to plant one at a time.

    python faulty_server.py [--fault NAME]...

Stdlib only, so it starts in a few tens of milliseconds. It reads stdin in raw
chunks and splits lines itself, so that the framing faults are exactly the
bytes written.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from typing import Any

FAULTS = {
    "banner": "a 'Server ready' line on stdout before anything else",
    "glued": "'ready ' written with no newline, glued to the first reply",
    "pretty": "the first reply pretty-printed over several lines",
    "content-length": "an LSP Content-Length header before each reply",
    "crlf": "replies end in \\r\\n",
    "latin1": "the first reply holds a byte that is not UTF-8",
    "control-banner": "a banner with terminal escape sequences on stdout",
    "accepts-no-meta": "serves 2026-07-28 requests that have no _meta",
    "accepts-null-caps": "serves requests whose clientCapabilities is null",
    "wrong-version-code": "answers an unsupported version with -32602",
    "no-version-data": "answers an unsupported version with -32022 but no data",
    "wrong-unknown-code": "answers an unknown method with -32600",
    "answers-notifications": "answers every notification with an error that has a null id",
    "dies-on-malformed": "exits on a line that is not JSON",
    "silent-on-malformed": "ignores a line that is not JSON",
    "line-limit": "stops on a line longer than 64 KiB, as a default Go bufio.Scanner does",
    "stuck-at-long-line": "on a line longer than 64 KiB, stops reading stdin and hangs",
    "dies-on-odd-id": "crashes on a request whose id is not a string or integer",
    "drops-pipelined": "handles at most four lines of each chunk it reads, and drops the rest",
    "mispairs": "answers the requests of a pipelined chunk (three or more) with each other's ids",
    "no-exit-on-eof": "keeps running after stdin closes",
    "bye-on-eof": "prints 'bye' on stdout when stdin closes",
    "ping-modern": "answers a 2026-07-28 ping with a result",
    "no-discover": "speaks only the legacy era: server/discover gets -32601",
    "modern-only": "speaks only 2026-07-28: initialize gets -32601, naming no versions",
    "no-cache": "list results carry no ttlMs or cacheScope",
    "bad-schema": "its tool's inputSchema is not a usable JSON Schema",
    "no-server-info": "the initialize result has no serverInfo",
    "call-no-content": "a tools/call result without content",
    "pings-client": "(legal) pings the client after notifications/initialized, in the legacy era",
    "coerces-string-ids": "echoes a string id that reads as a number as that number",
    "discover-missing": "serves 2026-07-28 requests, but server/discover gets -32601",
    "unlisted-version": "serves 2026-07-28, but server/discover lists only 2025-11-25",
    "serves-batch": "serves a JSON array line as a batch (answered -32600 otherwise)",
    "accepts-bad-log-level": "takes a log level that is none (-32602 otherwise), in _meta or logging/setLevel",
    "bad-structured-content": "add declares an outputSchema, and its structuredContent does not fit it",
}
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
SUM_SCHEMA = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}
VERSION = "2026-07-28"
MISPAIRED_AT = 3  # replies held from one read before mispairs swaps their ids
LEGACY = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
TOOL = {
    "name": "add",
    "description": "Add two numbers.",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
}
BAD_TOOL = {"name": "add", "inputSchema": {"type": "array", "properties": ["a", "b"], "required": "a"}}
CACHE = {"ttlMs": 60000, "cacheScope": "public"}


class Server:
    def __init__(self, faults: set[str]) -> None:
        self.faults = faults
        self.legacy = False
        self.first = True
        self.prefix = b"ready " if "glued" in faults else b""
        self.held: list[dict[str, Any]] = []  # mispairs: the replies to one chunk's lines
        self.batching = False

    # --- writing

    def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, indent=2 if self.first and "pretty" in self.faults else None).encode()
        if self.first and "latin1" in self.faults:
            data = data[:-1] + b', "note": "caf\xe9"}'  # a Latin-1 e-acute: not UTF-8
        end = b"\r\n" if "crlf" in self.faults else b"\n"
        header = (
            f"Content-Length: {len(data) + 1}\r\n\r\n".encode() if "content-length" in self.faults else b""
        )
        os.write(1, header + self.prefix + data + end)
        self.prefix, self.first = b"", False

    def reply(self, request_id: Any, result: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def fail(self, request_id: Any, code: int, message: str, data: Any = None) -> None:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.send({"jsonrpc": "2.0", "id": request_id, "error": error})

    # --- reading

    def line(self, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            message = json.loads(raw)
        except ValueError:
            if "dies-on-malformed" in self.faults:
                sys.exit("faulty: not JSON, giving up")
            if "silent-on-malformed" not in self.faults:
                self.fail(None, -32700, "Parse error")
            return
        if isinstance(message, dict):
            self.handle(message)
        elif isinstance(message, list) and "serves-batch" in self.faults:
            for item in message:
                if isinstance(item, dict):
                    self.handle(item)
        else:
            self.fail(None, -32600, "Invalid Request: a batch (removed in 2025-06-18)")

    def handle(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params") or {}
        if "id" not in message:
            if "answers-notifications" in self.faults:
                self.fail(None, -32601, f"Method not found: {method}")
            if method == "notifications/initialized" and "pings-client" in self.faults:
                self.send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
            return
        if "method" not in message:  # the client's answer to our ping
            print(f"faulty: the client answered {message.get('id')!r}", file=sys.stderr, flush=True)
            return
        request_id = message["id"]
        if "coerces-string-ids" in self.faults and isinstance(request_id, str) and request_id.isdigit():
            request_id = int(request_id)
        if type(request_id) not in (str, int):
            if "dies-on-odd-id" in self.faults:
                raise SystemExit(f"faulty: cannot use id {request_id!r}")
            self.fail(None, -32600, "Invalid Request: the id must be a string or an integer")
            return
        if method == "initialize":
            self.initialize(request_id, params)
        elif self.legacy:
            self.legacy_request(request_id, method, params)
        else:
            self.modern_request(request_id, method, params)

    def initialize(self, request_id: Any, params: dict[str, Any]) -> None:
        if "modern-only" in self.faults:
            self.fail(request_id, -32601, "Method not found: initialize")
            return
        self.legacy = True
        asked = params.get("protocolVersion")
        result: dict[str, Any] = {
            "protocolVersion": asked if asked in LEGACY else LEGACY[0],
            "capabilities": {"tools": {}, "logging": {}},
        }
        if "no-server-info" not in self.faults:
            result["serverInfo"] = {"name": "faulty", "version": "1.0"}
        self.reply(request_id, result)

    def legacy_request(self, request_id: Any, method: Any, params: dict[str, Any]) -> None:
        if method == "ping":
            self.answer(request_id, {})
        elif method == "tools/list":
            self.answer(request_id, {"tools": [self.tool()]})
        elif method == "tools/call":
            self.call(request_id, params, {})
        elif method == "logging/setLevel":
            if params.get("level") in LEVELS or "accepts-bad-log-level" in self.faults:
                self.answer(request_id, {})
            else:
                self.fail(request_id, -32602, "Invalid params: no such log level")
        else:
            self.unknown(request_id, method)

    def modern_request(self, request_id: Any, method: Any, params: dict[str, Any]) -> None:
        if "no-discover" in self.faults or (
            "discover-missing" in self.faults and method == "server/discover"
        ):
            self.fail(request_id, -32601, f"Method not found: {method}")
            return
        meta = params.get("_meta") if isinstance(params, dict) else None
        meta = meta if isinstance(meta, dict) else {}
        version = meta.get("io.modelcontextprotocol/protocolVersion")
        capabilities = meta.get("io.modelcontextprotocol/clientCapabilities")
        if not isinstance(version, str):
            if "accepts-no-meta" not in self.faults:
                self.fail(request_id, -32602, "Invalid params: _meta needs protocolVersion")
                return
            version = VERSION  # the fault: served as if the connection remembered it
        elif not isinstance(capabilities, dict) and "accepts-null-caps" not in self.faults:
            self.fail(request_id, -32602, "Invalid params: clientCapabilities must be an object")
            return
        if version != VERSION:
            if "wrong-version-code" in self.faults:
                self.fail(request_id, -32602, "Invalid params: unsupported version")
            elif "no-version-data" in self.faults:
                self.fail(request_id, -32022, "Unsupported protocol version")
            else:
                self.fail(
                    request_id,
                    -32022,
                    "Unsupported protocol version",
                    {"supported": [VERSION], "requested": version},
                )
            return
        level = meta.get("io.modelcontextprotocol/logLevel", "info")
        if level not in LEVELS and "accepts-bad-log-level" not in self.faults:
            self.fail(request_id, -32602, "Invalid params: no such log level")
            return
        done = {"resultType": "complete"}
        if method == "server/discover":
            self.answer(
                request_id,
                done
                | {
                    "supportedVersions": [LEGACY[0]] if "unlisted-version" in self.faults else [VERSION],
                    "capabilities": {"tools": {}, "logging": {}},
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "faulty", "version": "1.0"}},
                }
                | CACHE,
            )
        elif method == "tools/list":
            tools = {"tools": [self.tool()]}
            self.answer(request_id, done | tools | ({} if "no-cache" in self.faults else CACHE))
        elif method == "tools/call":
            self.call(request_id, params, done)
        elif method == "ping" and "ping-modern" in self.faults:
            self.answer(request_id, {})
        else:
            self.unknown(request_id, method)

    def call(self, request_id: Any, params: dict[str, Any], done: dict[str, Any]) -> None:
        """The one tool, add; every call is logged on stderr, so a test can see whether it ran."""
        print(f"faulty: tools/call {params.get('name')!r}", file=sys.stderr, flush=True)
        if params.get("name") != "add":
            self.fail(request_id, -32602, f"Unknown tool: {params.get('name')!r}")
            return
        arguments = params.get("arguments") or {}
        total = arguments.get("a", 0) + arguments.get("b", 0)
        if "call-no-content" in self.faults:
            self.answer(request_id, done | {"sum": total})
        elif "bad-structured-content" in self.faults:
            text = {"content": [{"type": "text", "text": str(total)}]}
            self.answer(request_id, done | text | {"structuredContent": {"sum": str(total)}})
        else:
            self.answer(request_id, done | {"content": [{"type": "text", "text": str(total)}]})

    def tool(self) -> dict[str, Any]:
        if "bad-schema" in self.faults:
            return BAD_TOOL
        return TOOL | {"outputSchema": SUM_SCHEMA} if "bad-structured-content" in self.faults else TOOL

    def unknown(self, request_id: Any, method: Any) -> None:
        code = -32600 if "wrong-unknown-code" in self.faults else -32601
        self.held_or_send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "error": {"code": code, "message": f"Method not found: {method}"},
            }
        )

    def answer(self, request_id: Any, result: dict[str, Any]) -> None:
        self.held_or_send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def held_or_send(self, message: dict[str, Any]) -> None:
        if "mispairs" in self.faults and self.batching:
            self.held.append(message)
        else:
            self.send(message)

    def chunk(self, lines: list[bytes]) -> None:
        """The lines of one read; with mispairs, their replies leave with the ids in reverse order."""
        self.batching = True
        for raw in lines:
            self.line(raw)
        self.batching = False
        # Two requests may share a read by chance on a loaded machine; a pipeline is what is mispaired.
        ids = [m["id"] for m in (reversed(self.held) if len(self.held) >= MISPAIRED_AT else self.held)]
        for message, request_id in zip(self.held, ids, strict=True):
            self.send(message | {"id": request_id})
        self.held = []


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", action="append", default=[], choices=sorted(FAULTS))
    server = Server(set(parser.parse_args().fault))
    print("faulty: listening on stdin", file=sys.stderr, flush=True)
    if "banner" in server.faults:
        os.write(1, b"Server ready\n")
    if "control-banner" in server.faults:
        os.write(1, b"\x1b[31mready\x1b[0m \x1b]0;pwned\x07\n")
    held = b""
    while chunk := os.read(0, 1 << 16):
        lines = (held + chunk).split(b"\n")
        held = lines.pop()
        longest = max([len(held), *(len(x) for x in lines)])
        if "line-limit" in server.faults and longest > 65536:
            sys.exit("faulty: bufio.Scanner: token too long")
        if "stuck-at-long-line" in server.faults and longest > 65536:
            time.sleep(600)
        server.chunk(lines[:4] if "drops-pipelined" in server.faults else lines)
    if "bye-on-eof" in server.faults:
        os.write(1, b"bye\n")
    if "no-exit-on-eof" in server.faults:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        time.sleep(600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
