"""The demo helpdesk MCP server of the seed lesson, with bugs that can be switched on.

Stdlib and orjson only. It reads stdin line by line and answers on stdout; the
slow database path runs on a thread, so a later fast reply overtakes it.

    python -m mcpspy.demo.server --bugs stray-ready,glued-ready,wrong-id,reply-after-cancel

or MCPSPY_DEMO_BUGS=... in the environment. The bugs:

    stray-ready          a "ready" line on stdout before anything else (not JSON)
    glued-ready          "ready " with no newline, glued to the first reply
    wrong-id             the reply to get_ticket "4242" carries an id nobody sent
    reply-after-cancel   a cancelled slow request is answered anyway
    killer-schema        tools/list carries a tool whose inputSchema has a top-level anyOf:
                         legal JSON Schema, but Claude Code (the Anthropic API) then drops
                         the server's tools or fails every request, and nobody says why
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from typing import Any

import orjson

BUGS = ("stray-ready", "glued-ready", "wrong-id", "reply-after-cancel", "killer-schema")
SERVER_INFO = {"name": "helpdesk", "version": "0.1.0"}
SUPPORTED_VERSIONS = ["2026-07-28"]
LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"]
INSTRUCTIONS = "The company's helpdesk: read support tickets and customer records."
SLOW_TICKETS = {"2318": 0.4, "2319": 0.5}  # tickets that need the slow database query
WRONG_ID_TICKET = "4242"
TICKET_TOOL = {
    "name": "get_ticket",
    "description": "Read one support ticket by its id.",
    "inputSchema": {
        "type": "object",
        "properties": {"ticket_id": {"type": "string"}},
        "required": ["ticket_id"],
    },
}

# Find a ticket by its id or by the customer's email: "one of the two" written as a top-level anyOf.
SEARCH_TOOL = {
    "name": "search_tickets",
    "description": "Find tickets by ticket id or by the customer's email.",
    "inputSchema": {
        "type": "object",
        "properties": {"ticket_id": {"type": "string"}, "email": {"type": "string"}},
        "anyOf": [{"required": ["ticket_id"]}, {"required": ["email"]}],
    },
}


class Helpdesk:
    """One server process: its bug switches, its stdout, and the requests it is working on."""

    def __init__(self, bugs: set[str]) -> None:
        self.bugs = bugs
        self.legacy = False
        self._lock = threading.Lock()
        self._prefix = b"ready " if "glued-ready" in bugs else b""
        self._cancelled: set[Any] = set()
        self._threads: list[threading.Thread] = []

    def send(self, message: dict[str, Any], cancellable_id: Any = None) -> None:
        with self._lock:
            cancelled = cancellable_id is not None and cancellable_id in self._cancelled
            if cancelled and "reply-after-cancel" not in self.bugs:
                return  # the spec: no further messages for a cancelled request
            sys.stdout.buffer.write(self._prefix + orjson.dumps(message) + b"\n")
            sys.stdout.buffer.flush()
            self._prefix = b""

    def result(self, id_: Any, result: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": id_, "result": result})

    def fail(self, id_: Any, code: int, message: str, data: Any = None) -> None:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.send({"jsonrpc": "2.0", "id": id_, "error": error})

    def line(self, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            message = orjson.loads(raw)
        except orjson.JSONDecodeError:
            self.send({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}})
            return
        if isinstance(message, dict):
            self.handle(message)

    def handle(self, message: dict[str, Any]) -> None:
        id_, method, params = message.get("id"), message.get("method"), message.get("params") or {}
        if id_ is None:
            if method == "notifications/cancelled":
                with self._lock:
                    self._cancelled.add(params.get("requestId"))
            return  # a notification: the receiver never answers
        if method == "initialize":
            self.legacy = True
            asked = params.get("protocolVersion")
            version = asked if asked in LEGACY_VERSIONS else LEGACY_VERSIONS[0]
            self.result(
                id_,
                {
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": SERVER_INFO,
                    "instructions": INSTRUCTIONS,
                },
            )
            return
        if not self.legacy:
            meta = params.get("_meta") if isinstance(params, dict) else None
            meta = meta if isinstance(meta, dict) else {}
            version = meta.get("io.modelcontextprotocol/protocolVersion")
            if not version or "io.modelcontextprotocol/clientCapabilities" not in meta:
                msg = "Invalid params: _meta needs protocolVersion and clientCapabilities"
                self.fail(id_, -32602, msg)
                return
            if version not in SUPPORTED_VERSIONS:
                data = {"supported": SUPPORTED_VERSIONS, "requested": version}
                self.fail(id_, -32022, "Unsupported protocol version", data)
                return
        if method == "server/discover":
            self.result(
                id_,
                {
                    "resultType": "complete",
                    "supportedVersions": SUPPORTED_VERSIONS,
                    "capabilities": {"tools": {}},
                    "instructions": INSTRUCTIONS,
                    "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
                    "ttlMs": 3600000,
                    "cacheScope": "public",
                },
            )
        elif method == "tools/list":
            tools = [TICKET_TOOL, SEARCH_TOOL] if "killer-schema" in self.bugs else [TICKET_TOOL]
            listing: dict[str, Any] = {"tools": tools}
            if not self.legacy:
                listing |= {"resultType": "complete", "ttlMs": 3600000, "cacheScope": "public"}
            self.result(id_, listing)
        elif method == "tools/call" and params.get("name") == "get_ticket":
            ticket = str((params.get("arguments") or {}).get("ticket_id", ""))
            worker = threading.Thread(target=self.get_ticket, args=(id_, ticket), daemon=True)
            self._threads.append(worker)
            worker.start()
        elif self.legacy and method == "ping":
            self.result(id_, {})
        else:
            self.fail(id_, -32601, f"Method not found: {method}")

    def get_ticket(self, id_: Any, ticket: str) -> None:
        """The database lookup; some tickets take the slow path, so replies come back out of order."""
        time.sleep(SLOW_TICKETS.get(ticket, 0.0))
        if ticket == WRONG_ID_TICKET and "wrong-id" in self.bugs:
            id_ = id_ + 1000 if isinstance(id_, int) else f"{id_}-x"
        text = f"Ticket {ticket}: customer cannot book a class; status open."
        result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
        if not self.legacy:
            result["resultType"] = "complete"
        self.send({"jsonrpc": "2.0", "id": id_, "result": result}, cancellable_id=id_)

    def finish(self) -> None:
        """Let in-flight lookups answer before exiting on EOF."""
        for worker in self._threads:
            worker.join()


def parse_bugs(text: str) -> set[str]:
    wanted = {b.strip() for b in text.split(",") if b.strip()}
    if "all" in wanted:
        return set(BUGS)
    unknown = wanted - set(BUGS)
    if unknown:
        raise SystemExit(f"helpdesk: unknown bug {sorted(unknown)[0]!r}; known: {', '.join(BUGS)}")
    return wanted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mcpspy.demo.server", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--bugs", default=os.environ.get("MCPSPY_DEMO_BUGS", ""), help="comma-separated, or all"
    )
    bugs = parse_bugs(parser.parse_args(argv).bugs)
    server = Helpdesk(bugs)
    print("helpdesk: listening on stdin", file=sys.stderr, flush=True)
    if "stray-ready" in bugs:
        sys.stdout.buffer.write(b"ready\n")
        sys.stdout.buffer.flush()
    for raw in sys.stdin.buffer:
        server.line(raw)
    server.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
