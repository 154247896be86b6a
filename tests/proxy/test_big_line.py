"""A line of many MiB through the real proxy: forwarded byte for byte, in the capture whole, pipes widened."""

from __future__ import annotations

import base64
import errno
import fcntl
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpspy.proxy.fdio import BULK_READ, READ_SIZE, tee_then_read, widen_pipe
from mcpspy.proxy.pump import BULK_AFTER
from mcpspy.wire.splitter import PART_AT, PART_SIZE
from tests.conftest import MCPSPY, python_server, run_proxy
from tests.proxy.test_stalls import iter_read

CAT = ["cat"]

# What a line's bytes may be: JSON's specials, controls, invalid and cut UTF-8; no newline.
patterns = st.lists(
    st.one_of(
        st.binary(min_size=1, max_size=64).map(lambda b: b.replace(b"\n", b"")),
        st.sampled_from(
            [b'"', b"\\", b"\x00", b"\r", b"\x1f", b"\xff", b"\xc3", b"\xe2\x82\xac", b"x" * 4096]
        ),
    ),
    min_size=1,
    max_size=12,
).map(b"".join)


def stored_streams(capture: Path) -> dict[str, bytes]:
    """Each stream's bytes as the capture file holds them: parts joined to their lines, newlines put back."""
    out: dict[str, list[bytes]] = {}
    with capture.open("rb") as f:
        next(f)  # the header
        for raw in f:
            record = orjson.loads(raw)
            assert record.get("event") != "capture-gap", record
            if "stream" not in record:
                continue
            data = record["text"].encode() if "text" in record else base64.b64decode(record["b64"])
            if "part" in record:
                assert len(data) <= PART_SIZE
            elif not record.get("unterminated"):
                data += b"\n"
            out.setdefault(record["stream"], []).append(data)
    return {stream: b"".join(pieces) for stream, pieces in out.items()}


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(patterns, st.integers(min_value=PART_AT + 1, max_value=PART_AT + (6 << 20)), st.booleans())
def test_a_line_over_the_held_size_echoed_by_cat_is_forwarded_and_stored_whole(
    pattern: bytes, size: int, terminated: bool
) -> None:
    """Over ``PART_AT`` a line streams in parts, read in bulk: every byte forwarded and stored, both ways.

    At most 22 MiB: every part of both streams, encoded (at most 4/3 of its bytes, as base64), fits
    the 64 MiB buffer, so nothing may be dropped however slow the machine.
    """
    line = (pattern * (size // len(pattern) + 1))[:size] + (b"\n" if terminated else b"")
    with tempfile.TemporaryDirectory() as tmp:
        run = run_proxy(Path(tmp), CAT, stdin=line, timeout=120)
        assert run.returncode == 0, run.stderr
        assert run.stdout == line
        assert stored_streams(run.capture_path) == {"c2s": line, "s2c": line}


PIPE_SIZES = (
    "import fcntl, json, sys\n"
    "for line in sys.stdin.buffer:\n"
    "    sizes = [fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) for fd in (0, 1)]\n"
    "    sys.stdout.write(json.dumps({'length': len(line), 'pipes': sizes}) + '\\n')\n"
    "    sys.stdout.flush()\n"
)


@pytest.mark.parametrize(
    "options", [[], ["--inject", "stdout.crlf@resources/read"]], ids=["plain", "injecting"]
)
def test_a_big_line_widens_the_server_pipes_and_small_lines_do_not(
    tmp_path: Path, options: list[str]
) -> None:
    """The server's stdin pipe stays as it was for small lines, many at once too; a big line widens it.

    A line of 1 MiB leaves it too: ``mcpspy check`` tells a server stuck inside one by its own
    write blocking (tests/check/test_faults.py). With ``--inject`` (a SPEC that waits for a reply
    never asked for) the injecting pumps read a big line in bulk just the same.
    """
    small = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    big = b'{"data":"' + b"y" * (BULK_AFTER + (4 << 20)) + b'"}\n'
    capture = tmp_path / "capture.jsonl"
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(capture), *options, "--", *python_server(PIPE_SIZES)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    pipelined = small * 2000  # full reads, but of many lines: not a big line
    replies = []
    one_mib = b'{"data":"' + b"m" * (1 << 20) + b'"}\n'
    for write, lines in ((small, 1), (pipelined, 2000), (one_mib, 1), (big, 1), (small, 1)):
        proc.stdin.write(write)
        proc.stdin.flush()
        replies += [json.loads(proc.stdout.readline()) for _ in range(lines)]
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    assert [r["length"] for r in replies] == [len(small)] * 2001 + [len(one_mib), len(big), len(small)]
    assert {tuple(r["pipes"]) for r in replies[:2002]} == {(READ_SIZE, READ_SIZE)}
    assert [r["pipes"][0] for r in replies[2002:]] == [BULK_READ] * 2  # widened by the client's pump
    assert stored_streams(capture)["c2s"] == small + pipelined + one_mib + big + small


def test_widen_pipe_grows_a_pipe_never_shrinks_one_and_leaves_other_files(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    try:
        assert widen_pipe(write_end) == BULK_READ
        assert fcntl.fcntl(read_end, fcntl.F_GETPIPE_SZ) == BULK_READ  # one pipe, either end
        assert widen_pipe(read_end, READ_SIZE) == BULK_READ  # not shrunk
    finally:
        os.close(read_end)
        os.close(write_end)
    with (tmp_path / "file").open("wb") as f:
        assert widen_pipe(f.fileno()) == 0
    assert widen_pipe(sys.maxsize >> 40) == 0  # no such fd


def vm_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(field)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the heap's thresholds are glibc's")
def test_the_memory_a_big_line_took_goes_back_once_it_is_written(tmp_path: Path) -> None:
    """The proxy keeps a big line's freed MiBs while it streams, and lets them go after (``proxy.heap``)."""
    line = b'{"data":"' + b"z" * (24 << 20) + b'"}\n'
    small = b'{"jsonrpc":"2.0","method":"ping"}\n'
    capture = tmp_path / "capture.jsonl"
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(capture), "--", *CAT], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    writer = threading.Thread(target=proc.stdin.write, args=(line,))
    writer.start()
    assert proc.stdout.readline() == line
    writer.join()
    peak = vm_kib(proc.pid, "VmHWM")
    rss = []
    for _ in range(100):  # each small line frees a block in the pumps' heaps: they shrink then
        proc.stdin.write(small)
        proc.stdin.flush()
        assert proc.stdout.readline() == small
        rss.append(vm_kib(proc.pid, "VmRSS"))
        if rss[-1] < peak - (16 << 10):
            break
        time.sleep(0.05)
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    assert rss[-1] < peak - (16 << 10), (peak, rss)
    assert stored_streams(capture) == {"c2s": line + small * len(rss), "s2c": line + small * len(rss)}


def test_a_64_mib_line_each_way_at_once_through_cat_is_stored_whole_without_a_gap(tmp_path: Path) -> None:
    """The benchmark's line: echoed by ``cat`` it streams both ways at once, 128 MiB of parts.

    The pumps encode the parts as they hand them in and let their data go, so the writer only
    writes and the buffer holds each part once: nothing is dropped (``stored_streams`` fails on a
    capture-gap).
    """
    line = b'{"jsonrpc":"2.0","method":"bench/echo","params":{"data":"' + b"x" * (64 << 20) + b'"}}\n'
    run = run_proxy(tmp_path, CAT, stdin=line, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == line
    assert stored_streams(run.capture_path) == {"c2s": line, "s2c": line}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a FIFO, and /proc for the proxy's memory")
def test_a_line_far_larger_than_the_buffer_on_a_stalled_disk_is_a_counted_gap_not_memory(
    tmp_path: Path,
) -> None:
    """256 MiB echoed by ``cat`` while the capture (a FIFO nobody reads) takes nothing: forwarded
    whole, the proxy's memory bounded by its buffer, and the line in a capture-gap, counted."""
    line = b'{"data":"' + b"h" * (256 << 20) + b'"}\n'
    fifo = tmp_path / "capture.fifo"
    os.mkfifo(fifo, 0o600)
    stalled = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # opened, never read until the line is through
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(fifo), "--", *CAT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        writer = threading.Thread(target=proc.stdin.write, args=(line,))
        writer.start()
        assert proc.stdout.readline() == line
        writer.join()
        peak_kib = vm_kib(proc.pid, "VmHWM")
        os.set_blocking(stalled, True)
        drained = bytearray()
        reader = threading.Thread(target=lambda: drained.extend(b"".join(iter_read(stalled))))
        reader.start()  # the disk comes back
        _, stderr = proc.communicate(timeout=120)
        reader.join(60)
    finally:
        proc.kill()
        os.close(stalled)
    assert proc.returncode == 0, stderr
    assert peak_kib < 192 << 10, peak_kib  # the buffer (96 MiB for parts) and the interpreter, not the line
    records = [orjson.loads(raw) for raw in bytes(drained).splitlines()[1:]]
    gaps = [r for r in records if r.get("event") == "capture-gap"]
    stored = sum(len(r["text"]) for r in records if "part" in r or r.get("stream") in ("c2s", "s2c"))
    lost_parts = sum(int(g.get("parts", 0)) for g in gaps)
    assert gaps and lost_parts and sum(int(g["lines"]) for g in gaps) >= 1
    assert stored + sum(int(g["bytes"]) for g in gaps) == 2 * len(line)  # every byte stored or counted


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tee(2)")
@settings(max_examples=20, deadline=None)
@given(st.binary(min_size=1, max_size=1 << 16), st.integers(min_value=1, max_value=1 << 17))
def test_tee_then_read_forwards_and_reads_the_same_bytes_and_leaves_the_rest(data: bytes, size: int) -> None:
    """The bytes linked into the sink are the bytes read out, in order; what was not asked for stays."""
    source_r, source_w = os.pipe()
    sink_r, sink_w = os.pipe()
    try:
        widen_pipe(source_w, 1 << 17)
        widen_pipe(sink_w, 1 << 17)
        os.write(source_w, data)
        got = tee_then_read(source_r, sink_w, size)
        assert got == data[:size]
        assert os.read(sink_r, 1 << 17) == got
        os.write(source_w, b"!")
        assert os.read(source_r, 1 << 17) == data[size:] + b"!"
        os.close(source_w)
        assert tee_then_read(source_r, sink_w, size) == b""  # the source's end
    finally:
        for fd in (source_r, sink_r, sink_w):
            os.close(fd)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tee(2)")
def test_tee_then_read_refuses_a_file_and_consumes_nothing(tmp_path: Path) -> None:
    source_r, source_w = os.pipe()
    try:
        os.write(source_w, b"abc")
        with (tmp_path / "out").open("wb") as out, pytest.raises(OSError) as refused:
            tee_then_read(source_r, out.fileno(), 3)
        assert refused.value.errno == errno.EINVAL
        assert os.read(source_r, 10) == b"abc"
    finally:
        os.close(source_r)
        os.close(source_w)


@pytest.mark.parametrize("stdout", ["file", "pipe-closed-early"])
def test_a_big_line_to_a_client_that_is_not_a_pipe_or_is_gone_is_forwarded_or_recorded(
    tmp_path: Path, stdout: str
) -> None:
    """Inside a big line the pumps forward by tee(2): where the client's stdout is a file they write
    instead, byte for byte; where the client is gone the line is still recorded whole."""
    line = b'{"data":"' + b"f" * (BULK_AFTER + (3 << 20)) + b'"}\n'
    capture = tmp_path / "capture.jsonl"
    out_path = tmp_path / "out"
    with out_path.open("wb") as out:
        proc = subprocess.Popen(
            [*MCPSPY, "--capture", str(capture), "--", *CAT],
            stdin=subprocess.PIPE,
            stdout=out if stdout == "file" else subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdin is not None
        if proc.stdout is not None:
            proc.stdout.close()  # the client stops reading before the line comes back
        _, stderr = proc.communicate(line, timeout=120)
    assert proc.returncode in (0, 1), stderr
    if stdout == "file":
        assert proc.returncode == 0, stderr
        assert out_path.read_bytes() == line
    assert stored_streams(capture) == {"c2s": line, "s2c": line}
