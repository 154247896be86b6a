"""`mcpspy mock` as a real process on real pipes: what reaches stdout and stderr, exit codes, timing."""

from __future__ import annotations

import os
import select
import subprocess
import time
from pathlib import Path

import orjson

from mcpspy.capture.records import Stream
from mcpspy.replay_policy import open_capture
from tests.conftest import MCPSPY
from tests.playback.captures import notification, request, result, write_capture

CALL_SLOW = request("a", "tools/call", {"name": "wait", "arguments": {"s": 1}})
CALL_QUICK = request("b", "tools/call", {"name": "wait", "arguments": {"s": 0}})


def recorded(tmp_path: Path) -> Path:
    return write_capture(
        tmp_path / "recorded.jsonl",
        [
            (0.01, "s2c", "ready"),
            (0.02, "err", "server starting"),
            (0.1, "c2s", CALL_SLOW),
            (0.1, "c2s", CALL_QUICK),
            (0.2, "s2c", result("b", {"content": [{"type": "text", "text": "quick"}]})),
            (0.9, "s2c", result("a", {"content": [{"type": "text", "text": "slow"}]})),
        ],
    )


def run_mock(capture: Path, stdin: bytes, *options: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*MCPSPY, "mock", str(capture), *options], input=stdin, capture_output=True, timeout=60
    )


def test_stdout_carries_the_recorded_lines_and_the_replies_only(tmp_path: Path) -> None:
    done = run_mock(
        recorded(tmp_path),
        (request(1, "tools/call", {"name": "wait", "arguments": {"s": 0}}) + "\n").encode(),
        "--timing",
        "fast",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        b"ready",
        b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"quick"}]}}',
    ]
    assert done.stderr == b"server starting\n"


def test_recorded_timing_sends_replies_out_of_order_as_recorded(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [*MCPSPY, "mock", str(recorded(tmp_path))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(
        b"\n".join([CALL_SLOW.encode().replace(b'"a"', b"1"), CALL_QUICK.encode().replace(b'"b"', b"2")])
        + b"\n"
    )
    proc.stdin.flush()
    sent = time.monotonic()
    arrivals: list[tuple[float, int]] = []
    buffer = b""
    while len(arrivals) < 2 and time.monotonic() - sent < 30:
        if select.select([proc.stdout], [], [], 1)[0]:
            buffer += os.read(proc.stdout.fileno(), 65536)
            *lines, buffer = buffer.split(b"\n")
            arrivals += [
                (time.monotonic() - sent, orjson.loads(x)["id"]) for x in lines if x.startswith(b"{")
            ]
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    assert [i for _, i in arrivals] == [2, 1]
    assert arrivals[1][0] >= 0.75  # the slow reply kept its 0.8 s (less the time it took to read both lines)


def test_an_unmatched_request_gets_method_not_found_and_the_mock_goes_on(tmp_path: Path) -> None:
    lines = [
        request(7, "tools/call", {"name": "other"}),
        notification("notifications/initialized"),
        request(8, "tools/call", {"name": "wait", "arguments": {"s": 0}}),
    ]
    done = run_mock(recorded(tmp_path), "\n".join(lines).encode() + b"\n", "--timing", "fast")
    assert done.returncode == 0
    replies = [orjson.loads(x) for x in done.stdout.splitlines()[1:]]
    assert [(r["id"], r.get("error", {}).get("code")) for r in replies] == [(7, -32601), (8, None)]


def test_strict_ends_at_the_first_unmatched_request_with_one_line(tmp_path: Path) -> None:
    lines = [
        request(7, "tools/call", {"name": "other", "arguments": {"x": "\x9b2J\u202egnp.exe"}}),
        request(8, "ping"),
    ]
    done = run_mock(recorded(tmp_path), "\n".join(lines).encode() + b"\n", "--timing", "fast", "--strict")
    assert done.returncode == 1
    assert done.stdout == b"ready\n"
    (line,) = done.stderr.decode().splitlines()[1:]  # after the recorded stderr line
    assert line.startswith("mcpspy mock: no recorded request matches tools/call")
    # JSON escapes C0 controls itself; C1 controls and bidi overrides are made visible
    assert "\x9b" not in line and "\u202e" not in line
    assert "\\x9b2J\\u202egnp.exe" in line


def test_it_exits_when_stdin_closes_even_mid_recording(tmp_path: Path) -> None:
    start = time.monotonic()
    done = run_mock(recorded(tmp_path), b"")
    assert done.returncode == 0
    assert time.monotonic() - start < 20


def test_an_unreadable_capture_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a capture\n")
    for path in (bad, tmp_path / "missing.jsonl"):
        done = run_mock(path, b"")
        assert done.returncode == 2
        assert len(done.stderr.decode().splitlines()) == 1 and done.stdout == b""


def test_a_mock_behind_the_proxy_is_recorded_like_any_server(tmp_path: Path) -> None:
    capture = tmp_path / "of-the-mock.jsonl"
    stdin = "\n".join([CALL_SLOW, CALL_QUICK]).encode() + b"\n"
    done = subprocess.run(
        [*MCPSPY, "--capture", str(capture), "--", *MCPSPY, "mock", str(recorded(tmp_path))],
        input=stdin,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    analyzer = open_capture(capture).analyzer
    exchanges = [x for x in analyzer.exchanges if x.stream is Stream.C2S]
    assert [(x.id, x.out_of_order) for x in exchanges] == [("a", False), ("b", True)]  # "b" overtook "a"
    assert exchanges[1].reply_seq is not None and exchanges[0].reply_seq is not None
    assert exchanges[1].reply_seq < exchanges[0].reply_seq
