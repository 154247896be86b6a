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
import time
from pathlib import Path

import pytest

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord
from mcpspy.proxy.recording import STALLED_AFTER
from mcpspy.replay_policy import open_capture
from tests.conftest import MCPSPY

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFO and pipe sizes")

LINES = 100_000
# 300 bytes a line, recorded twice (stdin and stdout), each held with its encoding and a record's
# overhead: 180 MB in the buffer's count, well past its 64 MiB.
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


def proxy_capturing_to(fifo: Path) -> subprocess.Popen[bytes]:
    """``mcpspy --capture FIFO -- cat`` on pipes."""
    return subprocess.Popen(
        [*MCPSPY, "--capture", str(fifo), "--", "cat"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_a_capture_nobody_reads_never_stalls_forwarding_and_gets_a_gap(tmp_path: Path) -> None:
    fifo = tmp_path / "capture.fifo"
    os.mkfifo(fifo, 0o600)
    stalled = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader that opened and then hangs
    proc = proxy_capturing_to(fifo)
    try:
        assert feed_and_read(proc) == PAYLOAD  # all of it, byte for byte, while nothing is written
        time.sleep(STALLED_AFTER + 0.5)  # the disk hangs on a while after the burst
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
    # The cause, told: the writer's one write hung for as long as the disk did.
    assert (
        gaps[0].details["cause"] == "stalled-disk" and float(gaps[0].details["longest_stall"]) > STALLED_AFTER
    )
    assert b"(a slow or stalled disk: a write made no progress for " in stderr
    finding = next(f for f in open_capture(copy).analyzer.findings if f.id == "capture.gap")
    assert "while the disk made no progress for " in finding.message


def test_a_burst_larger_than_the_buffer_on_a_disk_that_keeps_writing_is_told_as_a_burst(
    tmp_path: Path,
) -> None:
    """The capture is a FIFO read steadily, a little at a time: a disk that never stops but is slower
    than a burst. The buffer overflows; the gap and the warning blame the burst, not the disk."""
    fifo = tmp_path / "capture.fifo"
    os.mkfifo(fifo, 0o600)
    reading = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    os.set_blocking(reading, True)
    drained = bytearray()

    def read_steadily() -> None:
        while (chunk := os.read(reading, 1 << 16)) or not drained:  # no writer yet: the proxy is starting
            drained.extend(chunk)
            if len(drained) < 48 << 20:  # slowly until the gap is surely told (it is, at half the buffer)
                time.sleep(0.01)

    reader = threading.Thread(target=read_steadily, daemon=True)
    reader.start()
    proc = proxy_capturing_to(fifo)
    try:
        assert feed_and_read(proc) == PAYLOAD
        _, stderr = proc.communicate(timeout=180)
        reader.join(120)
    finally:
        proc.kill()
        os.close(reading)
    assert proc.returncode == 0, stderr
    copy = tmp_path / "capture.jsonl"
    copy.write_bytes(bytes(drained))
    records = read_capture(copy).records
    gaps = [r for r in records if isinstance(r, LifecycleRecord) and r.event is Event.CAPTURE_GAP]
    assert gaps and all(gap.details["cause"] == "burst" for gap in gaps), [gap.details for gap in gaps]
    assert all(float(gap.details["longest_stall"]) < STALLED_AFTER for gap in gaps)
    assert b"(a burst larger than its 64 MiB buffer, while the disk kept up (no write took 1 s))" in stderr
    assert b"a slow or stalled disk" not in stderr
    finding = next(f for f in open_capture(copy).analyzer.findings if f.id == "capture.gap")
    assert "during a burst larger than its buffer, while the disk kept up" in finding.message


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
