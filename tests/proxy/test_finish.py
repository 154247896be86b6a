"""The capture is complete at exit: a writer still busy with a huge last line is waited for."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MCPSPY

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/zero and head -c")

SIZE = 512 * 1024 * 1024
ESCAPED_NUL = b"\\u0000"


def check_huge_line(line: bytes) -> None:
    """The 512 MiB line, checked without loading 1 GiB of JSON: its frame, and nothing but NULs inside."""
    head, _, rest = line.partition(b'"text":"')
    assert json.loads(head + b'"text":""}')["stream"] == "s2c"
    body, _, tail = rest.rpartition(b'",')
    assert json.loads(b'{"text":"",' + tail) == {"text": "", "unterminated": True}
    assert len(body) == SIZE * len(ESCAPED_NUL)
    assert body.count(ESCAPED_NUL) == SIZE


def test_a_server_that_writes_512_mib_and_exits_leaves_a_finished_capture(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    run = subprocess.run(
        # stdin is at EOF from the start: the grace is long, so that a slow machine is not told to stop it
        [
            *MCPSPY,
            "--capture",
            str(capture),
            "--exit-grace",
            "200",
            "--",
            "sh",
            "-c",
            f"head -c {SIZE} /dev/zero; sleep 1",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=240,
    )
    assert run.returncode == 0, run.stderr
    events = []
    with capture.open("rb") as f:
        for line in f:
            assert line.endswith(b"\n")  # every record on a line of its own
            if len(line) > 1 << 20:
                check_huge_line(line[:-1])
                events.append("huge")
            else:
                record = json.loads(line)
                events.append(record.get("event", "line" if "seq" in record else "header"))
    assert events[-3:] == ["huge", "server-exited", "proxy-stopped"]
