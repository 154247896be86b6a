"""`mcpspy view` refusals and `mcpspy sessions`, through the real command line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from mcpspy.replay_policy import open_capture

SERVER = 'read l; echo "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"result\\":{}}"'
REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'


def make_capture(path: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "mcpspy", "--capture", str(path), "--", "sh", "-c", SERVER],
        input=REQUEST,
        capture_output=True,
        check=True,
        timeout=30,
    )
    return path


def mcpspy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcpspy", *args], capture_output=True, text=True, timeout=30)


def test_view_refuses_a_newer_format(tmp_path: Path) -> None:
    capture = make_capture(tmp_path / "a.jsonl")
    lines = capture.read_bytes().split(b"\n", 1)
    newer = tmp_path / "newer.jsonl"
    newer.write_bytes(re.sub(rb'"format":"[0-9.]+"', b'"format":"9.0"', lines[0]) + b"\n" + lines[1])
    result = mcpspy("view", str(newer))
    assert result.returncode == 2
    assert "newer than this mcpspy reads" in result.stderr
    assert result.stdout == ""


def test_sessions_lists_text_and_json(tmp_path: Path) -> None:
    home = tmp_path / "home"
    subprocess.run(
        [sys.executable, "-m", "mcpspy", "--home", str(home), "--", "cat"],
        input=b"abc\n",
        capture_output=True,
        check=True,
        timeout=30,
    )
    analysis = open_capture(next(home.glob("*.jsonl"))).analyzer
    by = Counter(f.severity.label for f in analysis.findings)
    text = mcpspy("sessions", "--home", str(home))
    assert text.returncode == 0 and "ended" in text.stdout and "cat" in text.stdout
    assert (
        f"{len(analysis.messages)} msgs  ✖{by['error']:>2} ▲{by['warning']:>2} ·{by['info']:>2}"
        in text.stdout
    )
    rows = json.loads(mcpspy("sessions", "--home", str(home), "--json").stdout)
    assert len(rows) == 1 and rows[0]["command"] == ["cat"] and rows[0]["live"] is False
    assert rows[0]["messages"] == len(analysis.messages) and rows[0]["findings"]["error"] == by["error"]
    empty = mcpspy("sessions", "--home", str(tmp_path / "none"))
    assert empty.stdout.startswith("no sessions")
