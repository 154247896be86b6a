"""mcpspy forwards every byte unchanged, both ways, and its capture replays to the same bytes."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpspy.capture.records import LineRecord, Stream
from tests.conftest import MCPSPY, REPO, replay

SPEW = REPO / "tests" / "proxy" / "servers" / "spew.py"

# Streams full of what breaks naive proxies: invalid UTF-8, \r, NUL, empty lines.
pieces = st.one_of(
    st.binary(max_size=300),
    st.sampled_from([b"\n", b"\r\n", b"\x00", b"\xff\xfe", b"\xc3", b"\n\n", b'{"jsonrpc":"2.0"}\n']),
    st.text(max_size=50).map(lambda s: s.encode("utf-8")),
)
streams = st.lists(pieces, max_size=40).map(b"".join)
chunkings = st.lists(st.integers(min_value=1, max_value=4096), min_size=1, max_size=8)


def through_proxy(
    client_bytes: bytes,
    server_bytes: bytes,
    client_chunks: list[int],
    server_chunks: list[int],
    workdir: Path,
) -> tuple[bytes, bytes, Path, int]:
    source = workdir / "server-out"
    source.write_bytes(server_bytes)
    stdin_copy = workdir / "server-in"
    capture = workdir / "capture.jsonl"
    proc = subprocess.Popen(
        [
            *MCPSPY,
            "--capture",
            str(capture),
            "--",
            sys.executable,
            str(SPEW),
            str(stdin_copy),
            str(source),
            *map(str, server_chunks),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    pos, i = 0, 0
    while pos < len(client_bytes):
        size = client_chunks[i % len(client_chunks)]
        proc.stdin.write(client_bytes[pos : pos + size])
        proc.stdin.flush()
        pos += size
        i += 1
    proc.stdin.close()
    assert proc.stdout is not None
    out = proc.stdout.read()
    proc.wait(timeout=60)
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert err == b"", err
    return out, stdin_copy.read_bytes(), capture, proc.returncode


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams, streams, chunkings, chunkings)
def test_random_streams_pass_byte_exact_both_ways(
    client_bytes: bytes, server_bytes: bytes, client_chunks: list[int], server_chunks: list[int]
) -> None:
    from mcpspy.capture.reader import read_capture

    with tempfile.TemporaryDirectory() as tmp:
        out, got_in, capture_path, code = through_proxy(
            client_bytes, server_bytes, client_chunks, server_chunks, Path(tmp)
        )
        assert code == 0
        assert out == server_bytes
        assert got_in == client_bytes
        capture = read_capture(capture_path)
        assert capture.problems == []
        assert replay(capture, Stream.S2C) == server_bytes
        assert replay(capture, Stream.C2S) == client_bytes


def test_lines_of_several_mib_with_invalid_utf8_and_no_final_newline(tmp_path: Path) -> None:
    from mcpspy.capture.reader import read_capture

    server_bytes = b"\xff" * 3 + b"a" * (5 << 20) + b"\r\n" + b"\x00\n\n" + b"b" * (3 << 20)
    client_bytes = b'{"jsonrpc":"2.0","id":1}\n' + b"\xfe" + b"c" * (4 << 20)
    out, got_in, capture_path, code = through_proxy(
        client_bytes, server_bytes, [65536 * 3, 7], [1 << 20, 13], tmp_path
    )
    assert (code, out, got_in) == (0, server_bytes, client_bytes)
    capture = read_capture(capture_path)
    assert replay(capture, Stream.S2C) == server_bytes
    assert replay(capture, Stream.C2S) == client_bytes
    last = [r for r in capture.records if isinstance(r, LineRecord) and r.stream is Stream.S2C][-1]
    assert not last.terminated and len(last.data) == 3 << 20


def test_a_reply_is_never_recorded_before_its_request(tmp_path: Path) -> None:
    """cat answers each line at once; under load the capture must still order them right."""
    from mcpspy.capture.reader import read_capture

    lines = [f'{{"jsonrpc":"2.0","id":{i},"method":"ping"}}\n'.encode() for i in range(3000)]
    capture_path = tmp_path / "c.jsonl"
    proc = subprocess.run(
        [*MCPSPY, "--capture", str(capture_path), "--", "cat"],
        input=b"".join(lines),
        capture_output=True,
        timeout=60,
    )
    assert proc.stdout == b"".join(lines)
    first_seen: dict[tuple[Stream, bytes], int] = {}
    for r in read_capture(capture_path).records:
        if isinstance(r, LineRecord):
            first_seen.setdefault((r.stream, r.data), r.seq)
    for line in lines:
        data = line.rstrip(b"\n")
        assert first_seen[(Stream.C2S, data)] < first_seen[(Stream.S2C, data)]


def test_the_capture_holds_each_message_while_the_session_goes_on(tmp_path: Path) -> None:
    """A live follower sees a request and its reply as soon as they pass, not at exit."""
    from mcpspy.capture.reader import CaptureReader

    capture_path = tmp_path / "c.jsonl"
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(capture_path), "--", "cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for i in range(3):
            line = b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i
            proc.stdin.write(line)
            proc.stdin.flush()
            assert proc.stdout.readline() == line
            deadline = time.monotonic() + 2.0
            with CaptureReader(capture_path) as reader:
                seen: list[LineRecord] = []
                while len(seen) < 2 * (i + 1) and time.monotonic() < deadline:
                    seen += [r for r in reader.poll() if isinstance(r, LineRecord)]
                    time.sleep(0.001)
            assert [(r.stream, r.data) for r in seen[-2:]] == [
                (Stream.C2S, line[:-1]),
                (Stream.S2C, line[:-1]),
            ]
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
