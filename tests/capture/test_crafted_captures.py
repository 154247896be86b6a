"""Crafted captures against every reader: a bad capture is a note about it, never a crash of a command.

Each case is a file written as an attacker would, read by the real executable.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from mcpspy.capture.reader import MAX_RECORD_LINE
from tests.conftest import MCPSPY

HEADER = {
    "format": "1.1",
    "session": "20261204T000000.000Z-good-1",
    "started": "2026-12-04T00:00:00.000Z",
    "command": ["good"],
    "name": "good",
    "cwd": "/",
    "mcpspy": "0.1.0",
    "pid": 0,  # no proxy alive: a capture without proxy-stopped is over (pid 1 would be live)
}
LIST = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
TOOLS = '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'


def capture_file(path: Path, header: dict[str, object], records: list[dict[str, object]]) -> Path:
    path.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in [header, *records]))
    path.chmod(0o600)
    return path


def mcpspy(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*MCPSPY, *args], capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)


def exchange(t_reply: float) -> list[dict[str, object]]:
    return [
        {"seq": 1, "t": 0.1, "stream": "c2s", "text": LIST},
        {"seq": 2, "t": t_reply, "stream": "s2c", "text": TOOLS},
        {"seq": 3, "t": 0.3, "event": "proxy-stopped", "code": 0},
    ]


@pytest.mark.parametrize("t", [1e308, -1e308, -1.0, "1.0"])
@pytest.mark.parametrize("form", ["har", "otlp", "html", "json", "text"])
def test_a_time_no_proxy_writes_is_a_note_in_every_export(tmp_path: Path, t: object, form: str) -> None:
    capture = capture_file(tmp_path / "c.jsonl", HEADER, exchange(t))  # type: ignore[arg-type]
    out = tmp_path / "out"
    proc = mcpspy("report", str(capture), "--format", form, "--out", str(out))
    assert proc.returncode in (0, 1), proc.stderr  # 1: findings (the request went unanswered)
    assert b"Traceback" not in proc.stderr and out.stat().st_size > 0
    if form == "text":
        assert b"line 3: unreadable capture record: t is" in out.read_bytes(), out.read_bytes()[:1500]


def test_a_format_of_a_digit_int_refuses_is_refused_in_one_line(tmp_path: Path) -> None:
    capture = capture_file(tmp_path / "c.jsonl", {**HEADER, "format": "\u00b2.0"}, [])
    proc = mcpspy("report", str(capture))
    assert proc.returncode == 2 and proc.stderr.count(b"\n") == 1 and b"format version" in proc.stderr


def test_one_bad_capture_in_the_sessions_dir_is_a_note_and_every_other_is_counted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    capture_file(home / "20261204T000000.000Z-good-1.jsonl", HEADER, exchange(0.2))
    capture_file(
        home / "20261204T000001.000Z-bad-1.jsonl",
        {**HEADER, "session": "20261204T000001.000Z-bad-1", "name": "bad", "format": "\u00b2.0"},
        [],
    )
    capture_file(
        home / "20261204T000002.000Z-far-1.jsonl",
        {**HEADER, "session": "20261204T000002.000Z-far-1", "name": "far"},
        exchange(1e308),
    )
    for command in (["stats"], ["stats", "--json"], ["sessions"], ["sessions", "--json"]):
        proc = mcpspy(*command, "--home", str(home))
        assert proc.returncode == 0, (command, proc.stderr)
        assert b"good" in proc.stdout and b"far" in proc.stdout, (command, proc.stdout)


def test_readers_refuse_what_is_not_a_capture_file(tmp_path: Path) -> None:
    """``/dev/zero`` read forever (MemoryError), a FIFO with no writer waited on forever: refused."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo, 0o600)
    link = tmp_path / "zero.jsonl"
    link.symlink_to("/dev/zero")
    for target in ("/dev/zero", str(link), str(fifo), str(tmp_path)):
        for command in (
            ["mock", target],
            ["replay", target, "--", "true"],
            ["report", target],
            ["diff", target, target],
        ):
            proc = mcpspy(*command)
            assert proc.returncode == 2, (command, proc.stderr)
            assert proc.stderr.count(b"\n") == 1 and b"Traceback" not in proc.stderr, (command, proc.stderr)


def test_a_record_line_past_the_bound_is_skipped_with_a_note_and_the_rest_is_read(tmp_path: Path) -> None:
    """A sparse file: a record line longer than any proxy writes, then a good record."""
    capture = tmp_path / "c.jsonl"
    with capture.open("wb") as f:
        f.write(json.dumps(HEADER).encode() + b"\n" + b'{"seq":1,"t":0.1,"stream":"c2s","text":"')
        f.seek(MAX_RECORD_LINE + 1, os.SEEK_CUR)
        f.write(b'"}\n')
        for record in exchange(0.2)[1:]:
            f.write(json.dumps({**record, "seq": record["seq"]}).encode() + b"\n")  # type: ignore[dict-item]
    proc = mcpspy("report", str(capture), "--json")
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    problems = report["session"]["problems"]
    assert any("longer than any mcpspy writes" in note for note in problems), problems
    assert report["counts"]["s2c"] == {"response": 1}  # the records after it were read


def streamed_parts_then(tail: list[dict[str, object]]) -> list[dict[str, object]]:
    parts = [{"part": i, "t": 0.2, "stream": "s2c", "text": "x" * 100} for i in (1, 2)]
    return [{"seq": 1, "t": 0.1, "stream": "c2s", "text": LIST}, *parts, *tail]


def findings_of(capture: Path) -> list[str]:
    proc = mcpspy("report", str(capture), "--json", "--fail-on", "never")
    assert proc.returncode == 0, proc.stderr
    return [finding["id"] for finding in json.loads(proc.stdout)["findings"]]


def test_a_streamed_line_whose_end_fell_in_a_capture_gap_is_a_gap_not_a_torn_line(tmp_path: Path) -> None:
    gap = {
        "seq": 2,
        "t": 0.3,
        "event": "capture-gap",
        "lines": 1,
        "bytes": 300,
        "first": 2,
        "last": 2,
        "parts": 1,
    }
    stopped = {"seq": 3, "t": 0.4, "event": "proxy-stopped", "code": 0}
    gapped = findings_of(capture_file(tmp_path / "gap.jsonl", HEADER, streamed_parts_then([gap, stopped])))
    assert "capture.gap" in gapped and "capture.torn-line" not in gapped
    killed = findings_of(capture_file(tmp_path / "killed.jsonl", HEADER, streamed_parts_then([])))
    assert "capture.torn-line" in killed  # no gap, no end: the proxy died inside the line
