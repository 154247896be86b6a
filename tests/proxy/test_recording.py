"""Recording: any thread hands in what it read; the capture comes out in ticket order, complete."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.capture.admission import LIMIT
from mcpspy.capture.format import encode_line
from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import (
    Event,
    Header,
    LifecycleRecord,
    LineBatch,
    LineRecord,
    Record,
    Recorded,
    Stream,
)
from mcpspy.capture.writer import CaptureWriter
from mcpspy.proxy import recording as recording_module
from mcpspy.proxy.log import LogSink
from mcpspy.proxy.recording import Recording
from mcpspy.proxy.sink_thread import SinkThread
from mcpspy.wire.splitter import PART_AT
from tests.conftest import replay

HEADER = Header("1.0", "s", "2026-12-03T00:00:00.000Z", ("srv",), "srv", "/", "0", 1)


def open_recording(path: Path, limit: int = LIMIT) -> Recording:
    capture = CaptureWriter(path, on_failure=lambda message: None)
    capture.open(HEADER, private_dir=False)
    return Recording(capture, time.monotonic(), limit=limit)


def test_threads_handing_in_out_of_order_give_the_read_order(tmp_path: Path) -> None:
    """Each thread stamps, then hands in after a random delay: seqs follow the stamps."""
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    per_thread = 300

    def pump(stream: Stream, name: bytes) -> None:
        for i in range(per_thread):
            ticket, t = recording.stamp()
            if i % 7 == 0:
                time.sleep(0.0005)  # another thread's later ticket gets in first
            recording.chunk(ticket, stream, t, b"%s %d %d\n" % (name, ticket, i))

    def signals() -> None:  # the trio thread's lifecycle events, meanwhile
        for i in range(per_thread // 10):
            recording.event(Event.SIGNAL_FORWARDED, signal=f"S{i}")
            time.sleep(0.0002)

    threads = [threading.Thread(target=pump, args=(s, s.value.encode())) for s in Stream]
    threads.append(threading.Thread(target=signals))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    recording.event(Event.PROXY_STOPPED, code=0)
    recording.finish()
    records = read_capture(path).records
    lines = [r for r in records if isinstance(r, LineRecord)]
    assert len(lines) == 3 * per_thread
    assert [r.seq for r in records] == list(range(1, len(records) + 1))
    tickets = [int(r.data.split()[1]) for r in lines]
    assert tickets == sorted(tickets)  # seq order is stamp order
    times = [r.t for r in records]
    assert times == sorted(times)  # lines and events alike
    forwarded = [
        r.details["signal"]
        for r in records
        if isinstance(r, LifecycleRecord) and r.event is Event.SIGNAL_FORWARDED
    ]
    assert forwarded == [f"S{i}" for i in range(per_thread // 10)]
    for stream in Stream:  # and every stream's own lines stay in their order
        mine = [int(r.data.split()[2]) for r in lines if r.stream is stream]
        assert mine == list(range(per_thread))
    assert isinstance(records[-1], LifecycleRecord) and records[-1].event is Event.PROXY_STOPPED


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Liveness, not timing: whether ``condition`` came true before a generous bound."""
    until = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > until:
            return False
        time.sleep(0.002)
    return True


def test_a_chunk_is_written_without_waiting_for_another_hand_in(tmp_path: Path) -> None:
    """What a follower sees: the writer thread writes what is due within its coalescing, with no other
    hand-in needed."""
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    ticket, t = recording.stamp()
    recording.chunk(ticket, Stream.C2S, t, b'{"id":1}\n{"id":')
    assert wait_for(lambda: path.read_bytes().count(b"\n") == 2)  # the header and the complete line
    late, t_late = recording.stamp()
    early, t_early = recording.stamp()
    recording.chunk(early, Stream.S2C, t_early, b"reply\n")
    recording.chunk(late, Stream.C2S, t_late, b"2}\n")
    assert wait_for(lambda: path.read_bytes().count(b"\n") == 4)
    recording.finish()
    assert capture_lines(path) == [b'{"id":1}', b'{"id":2}', b"reply"]


def hold_first_write(
    recording: Recording, monkeypatch: pytest.MonkeyPatch
) -> tuple[threading.Event, threading.Event]:
    """The first write blocks until released: (it has started, release it)."""
    started, release = threading.Event(), threading.Event()
    real_write = recording.capture.write_recorded

    def write(recorded: Sequence[Recorded]) -> None:
        if not started.is_set():
            started.set()
            assert release.wait(20)
        real_write(recorded)

    monkeypatch.setattr(recording.capture, "write_recorded", write)
    return started, release


def hand_in(recording: Recording, stream: Stream, data: bytes) -> None:
    ticket, t = recording.stamp()
    recording.chunk(ticket, stream, t, data)


def capture_lines(path: Path) -> list[bytes]:
    return [r.data for r in read_capture(path).records if isinstance(r, LineRecord)]


def gaps(path: Path) -> list[dict[str, int | str | float]]:
    return [
        r.details
        for r in read_capture(path).records
        if isinstance(r, LifecycleRecord) and r.event is Event.CAPTURE_GAP
    ]


def test_a_stuck_writer_never_holds_a_hand_in_and_a_full_buffer_drops_into_one_gap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk hangs: every hand-in returns, what does not fit is dropped, the gap says what and where."""
    path = tmp_path / "c.jsonl"
    recording = open_recording(path, limit=4096)
    started, release = hold_first_write(recording, monkeypatch)
    hand_in(recording, Stream.S2C, b"first\n")
    assert started.wait(10)
    handing = threading.Thread(
        target=lambda: [hand_in(recording, Stream.S2C, b"%03d " % i + b"x" * 95 + b"\n") for i in range(200)]
    )
    handing.start()
    handing.join(20)
    assert not handing.is_alive()  # never waited on the writer
    release.set()
    assert wait_for(lambda: bool(gaps(path)))  # told once the buffer drained, with no hand-in needed
    hand_in(recording, Stream.S2C, b"after\n")
    recording.finish(0)
    lines = capture_lines(path)
    (gap,) = gaps(path)
    kept = [line for line in lines if line not in (b"first", b"after")]
    assert len(kept) + int(gap["lines"]) == 200
    assert int(gap["bytes"]) == 100 * int(gap["lines"])
    records = read_capture(path).records
    seqs = {r.seq for r in records if isinstance(r, LineRecord)}
    lost = set(range(int(gap["first"]), int(gap["last"]) + 1))
    assert not seqs & lost and len(lost) == gap["lines"]
    assert lines[-1] == b"after" and kept == sorted(kept)  # what was kept, in order
    assert isinstance(records[-1], LifecycleRecord) and records[-1].event is Event.PROXY_STOPPED


def test_the_buffer_counts_the_capture_bytes_it_holds_encoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pump encodes what it hands in; a NUL is stored as six bytes, so the bound is on those too."""
    path = tmp_path / "c.jsonl"
    limit = 4096
    recording = open_recording(path, limit=limit)
    started, release = hold_first_write(recording, monkeypatch)
    hand_in(recording, Stream.S2C, b"first\n")
    assert started.wait(10)
    line = b"\x00" * 99 + b"\n"
    for _ in range(40):
        hand_in(recording, Stream.S2C, line)
    release.set()
    recording.finish(0)
    kept = [data for data in capture_lines(path) if data != b"first"]
    (gap,) = gaps(path)
    assert kept and len(kept) + int(gap["lines"]) == 40
    stored = len(encode_line(2, 0.0, Stream.S2C, line[:-1]))  # about 640 bytes for 99 on the wire
    assert len(kept) * (stored + len(line)) <= limit


def test_finish_flushes_partial_lines_and_tickets_never_handed_in(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    recording.stamp()  # a pump that read, then blocked forever in its forward
    ticket, t = recording.stamp()
    recording.chunk(ticket, Stream.S2C, t, b"held behind\npartial")
    recording.finish(0)
    records = read_capture(path).records
    lines = [(r.data, r.terminated) for r in records if isinstance(r, LineRecord)]
    assert lines == [(b"held behind", True), (b"partial", False)]
    assert isinstance(records[-1], LifecycleRecord) and records[-1].event is Event.PROXY_STOPPED


def test_finish_waits_for_the_writer_then_writes_the_rest_and_nothing_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    started, release = hold_first_write(recording, monkeypatch)
    hand_in(recording, Stream.C2S, b"one\n")
    assert started.wait(10)
    hand_in(recording, Stream.S2C, b"two\npartial")
    finisher = threading.Thread(target=recording.finish, args=(0,))
    finisher.start()
    finisher.join(0.2)
    assert finisher.is_alive()  # the writer is still at work
    release.set()
    finisher.join(10)
    assert not finisher.is_alive()
    written = path.read_bytes()
    hand_in(recording, Stream.C2S, b"a pump still running after the end\n")
    assert path.read_bytes() == written
    assert capture_lines(path) == [b"one", b"two", b"partial"]
    last = read_capture(path).records[-1]
    assert isinstance(last, LifecycleRecord) and last.event is Event.PROXY_STOPPED


def test_finish_gives_up_on_a_stuck_writer_which_then_ends_the_capture_with_a_gap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No progress for FINISH_STALL: finish returns; if the write ever ends, the rest is a gap, not lines."""
    monkeypatch.setattr(recording_module, "FINISH_STALL", 0.1)
    monkeypatch.setattr(recording_module, "STALLED_AFTER", 0.1)
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    started, release = hold_first_write(recording, monkeypatch)
    hand_in(recording, Stream.C2S, b"slow\n")
    assert started.wait(10)
    hand_in(recording, Stream.S2C, b"queued\n")
    recording.finish(0)
    assert capture_lines(path) == []
    release.set()
    assert wait_for(lambda: bool(gaps(path)))
    assert capture_lines(path) == [b"slow"]
    events = [r.event for r in read_capture(path).records if isinstance(r, LifecycleRecord)]
    assert events == [Event.PROXY_STOPPED, Event.CAPTURE_GAP]
    (gap,) = gaps(path)  # the write stuck since before the end: a stalled disk
    assert gap.pop("cause") == "stalled-disk" and float(gap.pop("longest_stall")) >= 0.1
    assert gap == {"lines": 1, "bytes": 7, "first": 2, "last": 2, "at_exit": 1}


def test_finish_waits_past_the_stall_bound_for_a_writer_making_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long encode (CPU on the writer's thread, nothing on disk yet) is progress: finish waits for it."""
    monkeypatch.setattr(recording_module, "FINISH_STALL", 0.1)
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    started = threading.Event()
    real_write = recording.capture.write_recorded

    def write(recorded: Sequence[Recorded]) -> None:
        if not started.is_set():
            started.set()
            until = time.monotonic() + 1.0
            while time.monotonic() < until:  # busy, ten times the stall bound
                pass
        real_write(recorded)

    monkeypatch.setattr(recording.capture, "write_recorded", write)
    hand_in(recording, Stream.C2S, b"slow\n")
    assert started.wait(10)
    recording.finish(0)
    records = read_capture(path).records
    assert isinstance(records[-1], LifecycleRecord) and records[-1].event is Event.PROXY_STOPPED
    assert capture_lines(path) == [b"slow"]


def test_the_tee_gets_the_capture_byte_for_byte_even_when_the_file_fails(tmp_path: Path) -> None:
    """The sink process's feed is the capture as stored: header first, every record, in order."""
    path = tmp_path / "c.jsonl"
    teed: list[bytes] = []
    capture = CaptureWriter(path, lambda message: None, tee=lambda parts: teed.extend(map(bytes, parts)))
    capture.open(HEADER, private_dir=False)
    recording = Recording(capture, 0.0)
    for i in range(50):
        ticket, t = recording.stamp()
        recording.chunk(ticket, Stream.C2S, t, b"%d\n%d\n" % (i, i) + b"x" * (i * 40_000) + b"\n")
    hand_in(recording, Stream.S2C, b"\x00" * (17 << 20) + b"\n")  # streamed in parts (PART_AT)
    recording.finish(0)
    assert b"".join(teed) == path.read_bytes()
    unwritable = CaptureWriter(tmp_path / "no" / "such" / "dir.jsonl", on_failure=lambda message: None)
    teed.clear()
    unwritable.tee = lambda parts: teed.extend(map(bytes, parts))
    unwritable.open(HEADER, private_dir=False)
    recording = Recording(unwritable, 0.0)
    hand_in(recording, Stream.S2C, b"still fed\n")
    recording.finish(0)
    assert unwritable.failed and b'"text":"still fed"' in b"".join(teed)


def test_sink_thread_drops_past_its_bound_and_says_how_many_once_it_takes_again(tmp_path: Path) -> None:
    """--log to a stderr nobody reads: the capture's writer never waits on it."""
    release = threading.Event()
    seen: list[int] = []
    said: list[int] = []

    def stalled(records: list[Record]) -> None:
        release.wait(20)
        seen.extend(r.seq for r in records)

    sink = SinkThread(stalled, said.append, limit=2000)
    batches = [[LifecycleRecord(i, 0.0, Event.SIGNAL_FORWARDED, {})] for i in range(1, 101)]
    for batch in batches:
        sink(batch)  # returns at once, whatever the sink does
    assert sink.skipped_total > 0
    release.set()
    assert wait_for(lambda: sink._queued == 0)
    sink([LifecycleRecord(101, 0.0, Event.PROXY_STOPPED, {})])
    sink.close()
    assert len(seen) + sink.skipped_total == 101 and seen == sorted(seen) and seen[-1] == 101
    assert said == [sink.skipped_total]  # told once, before the batch after the gap


chunks = st.lists(
    st.tuples(st.sampled_from(list(Stream)), st.binary(max_size=40).map(lambda b: b.replace(b"x", b"\n"))),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(chunks)
def test_any_chunks_replay_to_their_bytes_whole_lines_or_not(
    tmp_path_factory: pytest.TempPathFactory, handed: list[tuple[Stream, bytes]]
) -> None:
    """A chunk that is one whole line takes the short way (no split, no batch); the capture is the same."""
    path = tmp_path_factory.mktemp("c") / "c.jsonl"
    recording = open_recording(path)
    for stream, data in handed:
        ticket, t = recording.stamp()
        recording.chunk(ticket, stream, t, data)
    recording.finish()
    capture = read_capture(path)
    assert capture.problems == []
    assert [r.seq for r in capture.records] == list(range(1, len(capture.records) + 1))
    for stream in Stream:
        assert replay(capture, stream) == b"".join(data for s, data in handed if s is stream)


def test_a_log_that_fell_behind_says_so_in_itself(tmp_path: Path) -> None:
    """--log to a file, traffic faster than its analysis: the file says how many records it skipped."""
    release = threading.Event()
    written: list[bytes] = []

    def slow_write(data: bytes) -> None:
        release.wait(20)
        written.append(data)

    log = LogSink(slow_write, lambda warning: None, show_stderr=True)
    sink = SinkThread(log, log.skipped, limit=2000)
    for i in range(1, 101):
        sink([LineBatch(i, i / 100, Stream.ERR, [b"line %d" % i])])
    release.set()
    assert wait_for(lambda: sink._queued == 0)
    sink([LineBatch(101, 1.01, Stream.ERR, [b"line 101"])])
    sink.close()
    text = b"".join(written).decode()
    told = f"mcpspy warning: --log skipped {sink.skipped_total:,} records: it fell behind the traffic"
    assert sink.skipped_total > 0 and text.count(told) == 1
    before, after = text.split(told)
    kept = 101 - sink.skipped_total - 1
    assert [int(n) for n in re.findall(r"line (\d+)", before)] == list(range(1, kept + 1))  # in its place
    assert re.findall(r"line (\d+)", after) == ["101"]
    assert text.count("line ") == 101 - sink.skipped_total


def test_a_log_still_behind_at_the_deadline_says_what_it_leaves() -> None:
    """At exit the sink gets its time; past it, what it never took in is counted and said, not lost quietly."""
    seen: list[int] = []
    said: list[int] = []

    def slow(records: list[Record]) -> None:
        time.sleep(0.05)
        seen.extend(r.seq for r in records)

    sink = SinkThread(slow, said.append)
    for i in range(1, 61):
        sink([LineBatch(i, i / 100, Stream.ERR, [b"line"])])
    sink.close(timeout=0.5)
    assert said and len(seen) + said[-1] == 60 and seen == list(range(1, len(seen) + 1))
    assert sink.skipped_total == said[-1]


def test_two_streams_letting_go_of_long_lines_at_once_fit_while_the_writer_is_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long line echoed: each stream holds 16 MiB (PART_AT), then lets it go as parts, both at once.

    The bound counts what the splitters hold, so letting it go costs no room: with the writer held
    up, both lines still get in whole, where a buffer counted beside the holds dropped them."""
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    started, release = hold_first_write(recording, monkeypatch)
    hand_in(recording, Stream.C2S, b"first\n")
    assert started.wait(10)
    piece = b"x" * 65536
    count = (PART_AT + (1 << 20)) // len(piece)
    for _ in range(count):
        hand_in(recording, Stream.C2S, piece)
        hand_in(recording, Stream.S2C, piece)
    hand_in(recording, Stream.C2S, b"\n")
    hand_in(recording, Stream.S2C, b"\n")
    release.set()
    recording.finish(0)
    assert gaps(path) == []
    stored: dict[str, list[bytes]] = {"c2s": [], "s2c": []}
    for raw in path.read_bytes().splitlines()[1:]:
        record = orjson.loads(raw)
        if record.get("stream") in stored and record.get("text") != "first":
            stored[record["stream"]].append(record["text"].encode())
    assert {stream: b"".join(pieces) for stream, pieces in stored.items()} == {
        "c2s": piece * count,
        "s2c": piece * count,
    }
