"""The real proxy with --inject, against a scripted server and client: the bytes each side receives
are what the other wrote, with exactly the named change applied; the capture says what it did."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Stream
from mcpspy.inject.record import injection_of
from tests.conftest import replay, run_proxy

SERVER = r"""
import sys
log = open(sys.argv[1], "wb")
n = 0
for line in sys.stdin.buffer:
    log.write(line); log.flush()
    if b'"method"' in line and b'"id"' in line:
        n += 1
        i = line.split(b'"id":')[1].split(b",")[0]
        sys.stdout.buffer.write(b'{"jsonrpc":"2.0","id":%s,"result":{"n":%d,"s":"abc"}}\n' % (i, n))
        sys.stdout.flush()
"""


def request(i: int, method: str = "tools/call") -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":{}}\n' % (i, method.encode())


def reply(i: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":{"n":%d,"s":"abc"}}\n' % (i, i)


CLIENT = request(1, "tools/list") + request(2) + request(3)
PLAIN = reply(1) + reply(2) + reply(3)
R2 = reply(2)
PRETTY = b'{\n  "jsonrpc": "2.0",\n  "id": 2,\n  "result": {\n    "n": 2,\n    "s": "abc"\n  }\n}\n'

#: SPEC -> what the client must receive instead of PLAIN (the server wrote PLAIN).
S2C_CASES: dict[str, bytes] = {
    "stdout.not-json#2": reply(1) + b"ready\n" + R2 + reply(3),
    "stdout.not-json@tools/call:text=Listening on stdio": reply(1) + b"Listening on stdio\n" + R2 + reply(3),
    "stdout.glued-prefix@id=2": reply(1) + b"ready " + R2 + reply(3),
    "stdout.multiline-json#2": reply(1) + PRETTY + reply(3),
    "stdout.content-length#2": reply(1) + b"Content-Length: %d\r\n\r\n" % len(R2) + R2 + reply(3),
    "stdout.crlf#every": b"".join(reply(i)[:-1] + b"\r\n" for i in (1, 2, 3)),
    "stdout.invalid-utf8#2": reply(1) + R2.replace(b'"s":"', b'"s":"\xff') + reply(3),
    "stdout.blank-line#2": reply(1) + b"\n" + R2 + reply(3),
    "stdout.split#2:writes=5,gap=10ms": PLAIN,
    "stdout.coalesced#2:count=2": PLAIN,
    "stdout.drip#2:gap=0ms": PLAIN,
    "stdout.oversized-line#2:size=12": reply(1)
    + R2.replace(b'{"n"', b'{"mcpspyPadding":"xxxxxxxxxxxx","n"')
    + reply(3),
    "reply.delay#2:ms=50": PLAIN,
    "pairing.out-of-order#2": reply(1) + reply(3) + R2,
    "pairing.duplicate-response#2": reply(1) + R2 + R2 + reply(3),
    "pairing.unanswered#2": reply(1) + reply(3),
    "pairing.unknown-id#2": reply(1) + R2.replace(b'"id":2', b'"id":987654321') + R2 + reply(3),
    "reply.wrong-id-type#2": reply(1) + R2.replace(b'"id":2', b'"id":"2"') + reply(3),
    "server.ping#2": reply(1) + b'{"jsonrpc":"2.0","id":"mcpspy-1","method":"ping"}\n' + R2 + reply(3),
    "server.notification-flood#2:kind=list-changed,count=2": reply(1)
    + b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n' * 2
    + R2
    + reply(3),
    "stderr.flood#2:size=300": PLAIN,
    "stdout.unterminated#2": reply(1) + R2[: (len(R2) - 1) // 2],
}

#: SPEC -> what the server must read instead of CLIENT.
C2S_CASES: dict[str, bytes] = {
    "stdin.not-json@tools/call": request(1, "tools/list") + b"ready\n" + request(2) + request(3),
    "stdin.crlf@id=3": request(1, "tools/list") + request(2) + request(3)[:-1] + b"\r\n",
    "request.duplicate#2": request(1, "tools/list") + request(2) + request(2) + request(3),
    "stdin.split@tools/list": CLIENT,
}


def run(tmp_path: Path, specs: list[str], seed: int = 0) -> tuple[bytes, bytes, Path, bytes]:
    received = tmp_path / f"server-read-{len(list(tmp_path.glob('server-read-*')))}"
    result = run_proxy(
        tmp_path,
        [sys.executable, "-c", SERVER, str(received)],
        stdin=CLIENT,
        options=[*(a for s in specs for a in ("--inject", s)), "--seed", str(seed)],
    )
    assert result.returncode == 0, result.stderr
    return result.stdout, received.read_bytes(), result.capture_path, result.stderr


@pytest.mark.parametrize("spec", S2C_CASES)
def test_the_client_receives_the_servers_bytes_with_exactly_the_fault(tmp_path: Path, spec: str) -> None:
    stdout, server_read, capture_path, stderr = run(tmp_path, [spec])
    assert stdout == S2C_CASES[spec]
    assert server_read == CLIENT  # an s2c fault leaves the client's bytes alone
    capture = read_capture(capture_path)
    assert replay(capture, Stream.S2C) == stdout  # the capture holds what the client received
    marks = [i for r in capture.records if isinstance(r, LifecycleRecord) and (i := injection_of(r))]
    assert marks and all(m.matched for m in marks), marks
    fault = spec.split("#")[0].split("@")[0].split(":")[0]
    assert {m.fault for m in marks} == {fault}
    if spec.startswith("stderr.flood"):
        assert stderr.count(b"mcpspy: a stderr flood") == 3
    for mark in marks:  # the record names the lines it wrote, and they hold its bytes
        lines = [r for r in capture.records if isinstance(r, LineRecord) and r.seq in mark.seqs]
        assert len(lines) == len(mark.seqs)
        assert b"".join(r.wire for r in lines) == mark.after or fault == "stdout.split"


@pytest.mark.parametrize("spec", C2S_CASES)
def test_the_server_reads_the_clients_bytes_with_exactly_the_fault(tmp_path: Path, spec: str) -> None:
    _stdout, server_read, capture_path, _ = run(tmp_path, [spec])
    assert server_read == C2S_CASES[spec]
    assert replay(read_capture(capture_path), Stream.C2S) == server_read


def test_a_crash_in_flight_kills_the_server_as_the_request_reaches_it(tmp_path: Path) -> None:
    result = run_proxy(
        tmp_path,
        [sys.executable, "-c", SERVER, str(tmp_path / "read")],
        stdin=request(1, "tools/list"),
        options=["--inject", "lifecycle.crash-in-flight@tools/list"],
    )
    assert result.returncode == 128 + 9
    capture = read_capture(result.capture_path)
    events = [r.event for r in capture.records if isinstance(r, LifecycleRecord)]
    assert Event.INJECTED in events and events.index(Event.INJECTED) < events.index(Event.SERVER_EXITED)


def test_a_spec_that_never_matched_is_said_at_exit_and_recorded(tmp_path: Path) -> None:
    stdout, _, capture_path, stderr = run(tmp_path, ["stdout.crlf@resources/read"])
    assert stdout == PLAIN
    assert (
        stderr
        == b"mcpspy: --inject 'stdout.crlf@resources/read' never matched (it waited for a reply to resources/read)\n"
    )
    marks = [injection_of(r) for r in read_capture(capture_path).records if isinstance(r, LifecycleRecord)]
    assert [(m.spec, m.matched) for m in marks if m is not None] == [("stdout.crlf@resources/read", False)]


@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.sampled_from(
            [
                "stdout.not-json",
                "stdout.crlf",
                "pairing.duplicate-response",
                "stdout.blank-line",
                "reply.wrong-id-type",
            ]
        ),
        min_size=1,
        max_size=3,
    ),
    st.sampled_from(["~0.5", "#every", "#2"]),
    st.integers(0, 1000),
)
def test_marks_account_for_every_changed_byte_and_a_seed_repeats(
    tmp_path: Path, faults: list[str], occurrence: str, seed: int
) -> None:
    """Whatever the SPECs, the client got the server's bytes with each recorded change, and nothing
    else; run again with the same seed, the same bytes."""
    specs = [f + occurrence for f in faults]
    stdout, _, capture_path, _ = run(tmp_path, specs, seed)
    capture = read_capture(capture_path)
    assert replay(capture, Stream.S2C) == stdout
    marks = {
        m.altered: m
        for r in capture.records
        if isinstance(r, LifecycleRecord) and (m := injection_of(r)) is not None and m.altered is not None
    }
    rebuilt, skip = b"", set()
    for record in capture.records:
        if not isinstance(record, LineRecord) or record.stream is not Stream.S2C or record.seq in skip:
            continue
        mark = marks.get(record.seq)
        if mark is None:
            rebuilt += record.wire  # not written by an injection: the server's line, as it wrote it
        else:
            rebuilt += mark.before  # what the injection replaced (nothing, for an insertion)
            skip.update(mark.seqs)
    assert rebuilt == PLAIN
    again, _, _, _ = run(tmp_path, specs, seed)
    assert again == stdout


def test_orjson_is_what_the_pretty_print_uses() -> None:
    """The expected pretty reply above is orjson's indent-2 form of the reply (kept in sync)."""
    assert orjson.dumps(orjson.loads(R2), option=orjson.OPT_INDENT_2) + b"\n" == PRETTY
