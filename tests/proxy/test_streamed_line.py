"""A line with no newline, too long to hold, goes to the capture in parts as it arrives: the real proxy."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import orjson

from mcpspy.capture.pieces import KEEP
from mcpspy.capture.records import LineRecord, Stream
from mcpspy.replay_policy import open_capture
from tests.conftest import run_proxy

HEAD = b'{"jsonrpc":"2.0","id":7,"result":{"data":"'
TAIL = b'"}}'
BODY = 24 << 20  # over the 16 MiB held whole; under 16 MiB + the 32 MiB buffer, so nothing can be dropped
SERVER = (
    "import sys\n"
    "w = sys.stdout.buffer\n"
    f"w.write({HEAD!r})\n"
    f"for i in range({BODY // 65536}):\n"
    "    w.write(bytes([97 + i % 26]) * 65536)\n"
    f"w.write({TAIL!r})\n"
    "w.flush()\n"
)
LINE = HEAD + b"".join(bytes([97 + i % 26]) * 65536 for i in range(BODY // 65536)) + TAIL


def test_a_24_mib_line_with_no_newline_is_stored_in_parts_and_read_back_as_its_edges(tmp_path: Path) -> None:
    run = run_proxy(tmp_path, [sys.executable, "-c", SERVER], timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == LINE  # forwarded whole
    stored, parts, end = [], 0, None
    with run.capture_path.open("rb") as f:
        next(f)
        for raw in f:
            record = orjson.loads(raw)
            if record.get("stream") != "s2c":
                continue
            data = record["text"].encode() if "text" in record else base64.b64decode(record["b64"])
            stored.append(data)
            if "part" in record:
                parts += 1
                assert record["part"] == parts and len(data) <= 1 << 20
            else:
                end = record
    assert b"".join(stored) == LINE  # every byte, in parts of at most 1 MiB, then the end
    assert parts >= 24 and end is not None and end["parts"] == parts and end["unterminated"] is True
    opened = open_capture(run.capture_path)
    capture, analyzer = opened.capture, opened.analyzer
    (line,) = [r for r in capture.records if isinstance(r, LineRecord) and r.stream is Stream.S2C]
    assert line.data == LINE[: KEEP // 2] + LINE[-(KEEP - KEEP // 2) :]  # the reader keeps head and tail
    assert not line.terminated
    assert {f.id for f in analyzer.findings} >= {"stdout.oversized-line", "stdout.unterminated"}
    (message,) = [m for m in analyzer.messages if m.stream is Stream.S2C]
    assert message.id == 7 and message.kind.value == "response"  # classified from its edges
