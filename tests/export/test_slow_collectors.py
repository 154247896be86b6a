"""Slow and hostile collectors: a trickled answer holds no export, and no exit, past a deadline;
a flood of an answer is read up to a bound. Real sockets, the real executable."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import MCPSPY, REPO
from tests.export.collector import hostile_collector
from tests.export.synthetic import mixed_capture


def report_to(capture: Path, url: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MCPSPY, "report", str(capture), "--otlp-endpoint", url, "--out", str(tmp_path / "r.txt")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_report_to_a_collector_that_trickles_its_answer_ends_with_one_line(tmp_path: Path) -> None:
    capture = mixed_capture(tmp_path / "mixed.jsonl")
    with hostile_collector("trickle") as collector:
        done = report_to(capture, collector.url, tmp_path)  # before: forever (the timeout is per read)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "no answer within" in done.stderr, done.stderr


def test_report_reads_a_flooded_answer_only_up_to_a_bound(tmp_path: Path) -> None:
    capture = mixed_capture(tmp_path / "mixed.jsonl")
    with hostile_collector("flood") as collector:
        done = report_to(capture, collector.url, tmp_path)
        sent = collector.sent
    assert done.returncode in (0, 1), done.stderr  # sent (a 200); 1: the capture's own findings
    assert "OTLP export" not in done.stderr, done.stderr
    assert sent < 64 << 20, f"{sent:,} bytes of the answer were taken in"  # before: all 1.5 GB


def test_the_proxy_exits_promptly_in_front_of_a_trickling_collector(tmp_path: Path) -> None:
    """An export hangs on a trickled answer when the client leaves: mcpspy's exit is not held by it
    (before: the SDK's 30 s shutdown, so the client's EOF came 31 s late)."""
    echo = [sys.executable, str(REPO / "benchmarks" / "echo_server.py")]
    with hostile_collector("trickle") as collector:
        proc = subprocess.Popen(
            [*MCPSPY, "--capture", str(tmp_path / "c.jsonl"), "--otlp-endpoint", collector.url, "--", *echo],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n')
            proc.stdin.flush()
            assert b'"id":1' in proc.stdout.readline()
            deadline = time.monotonic() + 60
            while not collector.requests:  # the span's export is under way, and will never be answered
                assert time.monotonic() < deadline, "no export was attempted"
                time.sleep(0.05)
            proc.stdin.close()
            assert proc.wait(timeout=20) == 0
        finally:
            proc.kill()
            proc.wait()
    assert proc.stderr is not None
    ours = [line for line in proc.stderr.read().decode().splitlines() if line.startswith("mcpspy:")]
    assert len(ours) == 1 and "not sent (no answer within" in ours[0], ours
