"""Forwarding never waits on the capture's disk or on --log's stderr: the real proxy, real pipes.

A FIFO the test opens and does not read stands for a hung disk (an NFS or
FUSE mount); a stderr pipe nobody reads, for a client that ignores stderr.
100,000 lines go through ``cat`` byte for byte meanwhile; what the capture or
the log could not take is dropped and said, never waited for.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord
from tests.conftest import MCPSPY

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFO and pipe sizes")

LINES = 100_000
# 300 bytes a line, recorded twice (stdin and stdout): 60 MB, well past the 32 MiB buffer.
PAYLOAD = b"".join(
    b'{"jsonrpc":"2.0","method":"n","params":{"i":%06d,"pad":"%s"}}\n' % (i, b"x" * 240) for i in range(LINES)
)


def feed_and_read(proc: subprocess.Popen[bytes]) -> bytes:
    """Write every line to the proxy's stdin while reading its stdout; stdin stays open."""
    assert proc.stdin is not None and proc.stdout is not None
    writer = threading.Thread(target=proc.stdin.write, args=(PAYLOAD,))
    writer.start()
    got = bytearray()
    while len(got) < len(PAYLOAD):
        chunk = os.read(proc.stdout.fileno(), 1 << 16)
        if not chunk:
            break
        got += chunk
    writer.join(60)
    return bytes(got)


def test_a_capture_nobody_reads_never_stalls_forwarding_and_gets_a_gap(tmp_path: Path) -> None:
    fifo = tmp_path / "capture.fifo"
    os.mkfifo(fifo, 0o600)
    stalled = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader that opened and then hangs
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(fifo), "--", "cat"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert feed_and_read(proc) == PAYLOAD  # all of it, byte for byte, while nothing is written
        os.set_blocking(stalled, True)
        drained = bytearray()
        reader = threading.Thread(target=lambda: drained.extend(b"".join(iter_read(stalled))))
        reader.start()  # the disk comes back
        _, stderr = proc.communicate(timeout=120)  # closes stdin: the session ends
        reader.join(60)
    finally:
        proc.kill()
        os.close(stalled)
    assert proc.returncode == 0, stderr
    copy = tmp_path / "capture.jsonl"
    copy.write_bytes(bytes(drained))
    capture = read_capture(copy)
    assert capture.problems == []
    lines = [r for r in capture.records if isinstance(r, LineRecord)]
    gaps = [r for r in capture.records if isinstance(r, LifecycleRecord) and r.event is Event.CAPTURE_GAP]
    assert gaps and len(lines) + sum(int(g.details["lines"]) for g in gaps) == 2 * LINES
    for gap in gaps:  # each says which seqs it lost: none of them is in the capture
        lost = set(range(int(gap.details["first"]), int(gap.details["last"]) + 1))
        assert not lost & {r.seq for r in lines}
    last = capture.records[-1]
    assert isinstance(last, LifecycleRecord) and last.event is Event.PROXY_STOPPED
    assert stderr.count(b"capture-gap") == 1  # one warning, not one a drop


def iter_read(fd: int) -> list[bytes]:
    out = []
    while chunk := os.read(fd, 1 << 20):
        out.append(chunk)
    return out


def test_log_to_a_stderr_nobody_reads_never_stalls_forwarding(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(capture), "--log", "-", "--", "cat"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,  # never read until the end
    )
    try:
        assert feed_and_read(proc) == PAYLOAD
        _, stderr = proc.communicate(timeout=120)  # closes stdin: the session ends
    finally:
        proc.kill()
    assert proc.returncode == 0
    assert b"mcpspy warning: --log skipped " in stderr and b"records: it fell behind the traffic" in stderr
    records = read_capture(capture).records  # the capture itself is whole: the disk kept up
    assert sum(isinstance(r, LineRecord) for r in records) == 2 * LINES
    assert not any(isinstance(r, LifecycleRecord) and r.event is Event.CAPTURE_GAP for r in records)


def test_a_stderr_nobody_reads_never_holds_the_exit(tmp_path: Path) -> None:
    """The client closes stdin and waits, never reading stderr: mcpspy still exits, with the server's code."""
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(tmp_path / "c.jsonl"), "--log", "-", "--", "cat"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,  # never read
    )
    try:
        assert feed_and_read(proc) == PAYLOAD
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0  # a --log line stuck in fd 2 is left behind, not waited for
    finally:
        proc.kill()
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        proc.stderr.close()
    records = read_capture(tmp_path / "c.jsonl").records
    assert isinstance(records[-1], LifecycleRecord) and records[-1].event is Event.PROXY_STOPPED
