"""The capture is complete at exit: a writer still busy with a huge last line is waited for."""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import MCPSPY

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/zero and head -c")

SIZE = 512 * 1024 * 1024


def test_a_server_that_writes_512_mib_and_exits_leaves_a_finished_capture(tmp_path: Path) -> None:
    """Complete or gap-marked, never torn: every byte of the line is stored or counted in a capture-gap."""
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
    events: list[str] = []
    stored = lost = parts = 0
    with capture.open("rb") as f:
        for line in f:
            assert line.endswith(b"\n")  # every record on a line of its own: nothing torn
            record = orjson.loads(line)
            if "part" in record:
                assert record["stream"] == "s2c" and record["part"] == parts + 1
                parts += 1
                data = base64.b64decode(record["b64"])  # zeros: shorter as base64 than as JSON escapes
                stored += len(data)
                assert data == b"\0" * len(data)
            elif "event" in record:
                events.append(record["event"])
                if record["event"] == "capture-gap":
                    lost += record["bytes"]
            elif "seq" in record:
                assert record["unterminated"] and record["parts"] == parts  # the line's end
                stored += len(record["text"])
                events.append("end")
    assert stored + lost == SIZE
    assert events[-1] == "proxy-stopped" and "server-exited" in events[-3:]
    assert ("end" in events) == (stored == SIZE)  # stored whole, or its loss told before the end record
    if lost:
        assert "mcpspy: the capture" in run.stderr.decode() and "capture-gap" in run.stderr.decode()
