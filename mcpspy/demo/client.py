"""A scripted client: drives the demo server through the real proxy, planting each fault once."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import Any

import orjson

from mcpspy.demo.server import BUGS

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "mcpspy-demo", "version": "0.1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
WAIT = 10.0  # seconds to wait for one reply before giving up on it


def request(id_: int, method: str, params: dict[str, Any] | None = None, meta: bool = True) -> bytes:
    body: dict[str, Any] = dict(params or {})
    if meta:
        body["_meta"] = META
    return orjson.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": body})


def ticket(id_: int, ticket_id: str, meta: bool = True) -> bytes:
    return request(id_, "tools/call", {"name": "get_ticket", "arguments": {"ticket_id": ticket_id}}, meta)


# (line to send, how many reply lines it brings back). The faulty lines are the seed lesson's.
SCRIPT: list[tuple[bytes, int]] = [
    (request(1, "server/discover"), 1),
    # Tom's line: a notification-form server/discover, which nobody answers
    (orjson.dumps({"jsonrpc": "2.0", "method": "server/discover", "params": {"_meta": META}}), 0),
    (request(2, "tools/list"), 1),
    (ticket(3, "1001", meta=False), 1),  # request 8 of the lesson: no _meta, rejected with -32602
    (b"hello server", 1),  # not JSON: -32700 with no id
    (request(4, "tickets/get"), 1),  # unknown method: -32601
]


def proxy_command(where: Sequence[str], bugs: Sequence[str] = BUGS) -> list[str]:
    """The proxy in front of the demo server; ``where`` is ``["--capture", FILE]`` or ``["--home", DIR]``."""
    server = [sys.executable, "-m", "mcpspy.demo.server", "--bugs", ",".join(bugs)]
    return [sys.executable, "-m", "mcpspy", *where, "--name", "helpdesk-demo", "--", *server]


class Conversation:
    """The client's side of the pipes: send lines, collect reply lines on a reader thread."""

    def __init__(self, command: list[str], quiet: bool = False) -> None:
        stderr = subprocess.DEVNULL if quiet else None  # quiet: a TUI owns the terminal
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        self.replies: queue.Queue[bytes] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.replies.put(line)

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def expect(self, count: int) -> list[bytes]:
        got: list[bytes] = []
        for _ in range(count):
            try:
                got.append(self.replies.get(timeout=WAIT))
            except queue.Empty:
                break
        return got

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        self._reader.join(timeout=5)
        return code


def run_script(where: Sequence[str], bugs: Sequence[str] = BUGS, quiet: bool = False) -> int:
    """Play the whole script against the demo server behind the proxy; the server's exit code."""
    talk = Conversation(proxy_command(where, bugs), quiet)
    for line, replies in SCRIPT:
        talk.send(line)
        talk.expect(replies)
    # two lookups at once: the slow one (5) is overtaken by the fast one (6): out of order
    talk.send(ticket(5, "2318"))
    talk.send(ticket(6, "1002"))
    talk.expect(2)
    talk.send(ticket(7, "4242"))  # with wrong-id, answered as id 1007
    talk.expect(1)
    # a slow lookup, then a cancel for it: with reply-after-cancel the server answers anyway
    talk.send(ticket(8, "2319"))
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 8}}
    talk.send(orjson.dumps(cancel))
    talk.expect(1 if "reply-after-cancel" in bugs else 0)
    return talk.close()


if __name__ == "__main__":
    sys.exit(run_script(["--capture", sys.argv[1] if len(sys.argv) > 1 else "demo.jsonl"]))
