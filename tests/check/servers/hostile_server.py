"""A stdio server that attacks the check's client: it floods, or never answers.

    python hostile_server.py MODE [BYTES]

Stdlib only. Modes:

- ``flood``: notifications/message lines as fast as stdout takes them (BYTES of them, or forever),
  answering nothing;
- ``braces``: ``{`` lines (BYTES of them, or forever): each could start a pretty-printed message;
- ``endless-line``: one line that never ends (``x`` forever, or BYTES of them then silence);
- ``silent``: reads stdin and never writes a byte;
- ``flood-after-discover``: a conforming answer to the first request, then the flood once the
  second comes (a server that floods in the middle of a check);
- ``answers-once``: that answer to the first request, then silence (a check that runs out of time).

After a finite flood it reads stdin to its end and exits, so that only the flood is judged.
"""

from __future__ import annotations

import json
import os
import sys
import threading

CHUNK = 1 << 16


def notification_block() -> bytes:
    line = json.dumps(
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "flood"}},
        separators=(",", ":"),
    ).encode()
    return (line + b"\n") * (CHUNK // (len(line) + 1))


def pour(block: bytes, limit: int | None) -> None:
    """Write ``block`` again and again: ``limit`` bytes of it, or until stdout is gone."""
    written = 0
    try:
        while limit is None or written < limit:
            data = block if limit is None else block[: limit - written]
            os.write(1, data)
            written += len(data)
    except OSError:
        os._exit(0)


def drain_stdin() -> None:
    while os.read(0, CHUNK):
        pass


def first_line() -> bytes:
    held = b""
    while b"\n" not in held:
        chunk = os.read(0, CHUNK)
        if not chunk:
            os._exit(0)
        held += chunk
    return held.split(b"\n", 1)[0]


def answer_discover(line: bytes) -> None:
    request = json.loads(line)
    result = {
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {},
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "hostile", "version": "1"}},
    }
    os.write(1, json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode() + b"\n")


def main() -> None:
    mode = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else None
    if mode == "silent":
        drain_stdin()
        return
    if mode in ("flood-after-discover", "answers-once"):
        answer_discover(first_line())
        if mode == "answers-once":
            drain_stdin()
            return
        first_line()
        mode = "flood"
    reader = threading.Thread(target=drain_stdin, daemon=True)  # never block the check's writes
    reader.start()
    blocks = {"flood": notification_block(), "braces": b"{\n" * (CHUNK // 2), "endless-line": b"x" * CHUNK}
    pour(blocks[mode], limit)
    reader.join()  # a finite flood poured: silence until stdin ends


if __name__ == "__main__":
    main()
