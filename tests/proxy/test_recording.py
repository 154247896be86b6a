"""Recording: any thread hands in what it read; the capture comes out in ticket order, complete."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Event, Header, LifecycleRecord, LineRecord, Recorded, Stream
from mcpspy.capture.writer import CaptureWriter
from mcpspy.proxy import recording as recording_module
from mcpspy.proxy.recording import Recording
from mcpspy.proxy.session import SinkThread
from tests.conftest import replay

HEADER = Header("1.0", "s", "2026-12-03T00:00:00.000Z", ("srv",), "srv", "/", "0", 1)


def open_recording(path: Path) -> Recording:
    capture = CaptureWriter(path, on_failure=lambda message: None)
    capture.open(HEADER, private_dir=False)
    return Recording(capture, time.monotonic())


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


def test_a_chunk_is_in_the_file_when_chunk_returns(tmp_path: Path) -> None:
    """What a follower sees: no batching delay once every earlier ticket is in."""
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    ticket, t = recording.stamp()
    recording.chunk(ticket, Stream.C2S, t, b'{"id":1}\n{"id":')
    assert path.read_bytes().count(b"\n") == 2  # the header and the complete line
    late, t_late = recording.stamp()
    early, t_early = recording.stamp()
    recording.chunk(early, Stream.S2C, t_early, b"reply\n")
    assert path.read_bytes().count(b"\n") == 2  # held: the ticket before it is not in yet
    recording.chunk(late, Stream.C2S, t_late, b"2}\n")
    assert path.read_bytes().count(b"\n") == 4
    recording.finish()


def test_a_hand_in_while_another_thread_writes_is_written_by_that_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    writing, release = threading.Event(), threading.Event()
    real_write = recording.capture._write_all

    def slow_write(data: bytes | memoryview) -> None:
        writing.set()
        release.wait(5)
        real_write(data)

    monkeypatch.setattr(recording.capture, "_write_all", slow_write)
    first = recording.stamp()
    writer = threading.Thread(target=recording.chunk, args=(first[0], Stream.C2S, first[1], b"one\n"))
    writer.start()
    assert writing.wait(5)
    second = recording.stamp()
    started = time.monotonic()
    recording.chunk(second[0], Stream.S2C, second[1], b"two\n")  # returns at once: not its turn
    assert time.monotonic() - started < 1.0
    release.set()
    writer.join(5)
    recording.finish()
    assert [r.data for r in read_capture(path).records if isinstance(r, LineRecord)] == [b"one", b"two"]


def test_past_the_backlog_a_hand_in_waits_for_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recording_module, "BACKLOG", 3)
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    release = threading.Event()
    real_write = recording.capture._write_all
    calls: list[int] = []

    def slow_write(data: bytes | memoryview) -> None:
        calls.append(len(data))
        if len(calls) == 1:
            release.wait(5)
        real_write(data)

    monkeypatch.setattr(recording.capture, "_write_all", slow_write)
    ticket, t = recording.stamp()
    threading.Thread(target=recording.chunk, args=(ticket, Stream.C2S, t, b"0\n")).start()
    while not calls:
        time.sleep(0.001)
    for i in range(1, 4):  # queued behind the writer, within the backlog
        ticket, t = recording.stamp()
        recording.chunk(ticket, Stream.C2S, t, b"%d\n" % i)
    ticket, t = recording.stamp()
    blocked = threading.Thread(target=recording.chunk, args=(ticket, Stream.C2S, t, b"4\n"))
    blocked.start()
    blocked.join(0.2)
    assert blocked.is_alive()  # over the backlog: it waits
    release.set()
    blocked.join(5)
    assert not blocked.is_alive()
    recording.finish()
    lines = [r.data for r in read_capture(path).records if isinstance(r, LineRecord)]
    assert lines == [b"0", b"1", b"2", b"3", b"4"]


def test_finish_flushes_partial_lines_and_tickets_never_handed_in(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    recording.stamp()  # a pump that read, then blocked forever in its forward
    ticket, t = recording.stamp()
    recording.chunk(ticket, Stream.S2C, t, b"held behind\npartial")
    assert path.read_bytes().count(b"\n") == 1
    recording.finish()
    lines = [(r.data, r.terminated) for r in read_capture(path).records if isinstance(r, LineRecord)]
    assert lines == [(b"held behind", True), (b"partial", False)]


def hold_first_write(
    recording: Recording, monkeypatch: pytest.MonkeyPatch
) -> tuple[threading.Event, threading.Event]:
    """The first write blocks until released: (it has started, release it)."""
    started, release = threading.Event(), threading.Event()
    real_write = recording.capture.write_recorded

    def write(recorded: Sequence[Recorded]) -> None:
        if not started.is_set():
            started.set()
            assert release.wait(10)
        real_write(recorded)

    monkeypatch.setattr(recording.capture, "write_recorded", write)
    return started, release


def hand_in(recording: Recording, stream: Stream, data: bytes) -> None:
    ticket, t = recording.stamp()
    recording.chunk(ticket, stream, t, data)


def capture_lines(path: Path) -> list[bytes]:
    return [r.data for r in read_capture(path).records if isinstance(r, LineRecord)]


def test_a_writer_that_fails_leaves_what_was_queued_to_the_next_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    started, release = threading.Event(), threading.Event()
    real_write = recording.capture.write_recorded

    def failing_once(recorded: Sequence[Recorded]) -> None:
        if not started.is_set():
            started.set()
            assert release.wait(10)
            raise RuntimeError("an observer or a write gave up")
        real_write(recorded)

    monkeypatch.setattr(recording.capture, "write_recorded", failing_once)
    failures: list[BaseException] = []

    def first() -> None:
        try:
            hand_in(recording, Stream.C2S, b"lost with the failed write\n")
        except RuntimeError as exc:
            failures.append(exc)

    writer = threading.Thread(target=first)
    writer.start()
    assert started.wait(10)
    hand_in(recording, Stream.S2C, b"queued 1\n")  # left to the writer
    hand_in(recording, Stream.S2C, b"queued 2\n")
    release.set()
    writer.join(10)
    assert len(failures) == 1
    hand_in(recording, Stream.C2S, b"after\n")  # nobody writes: this thread writes, oldest first
    assert capture_lines(path) == [b"queued 1", b"queued 2", b"after"]
    recording.finish()


def test_finish_waits_for_the_writer_then_writes_the_rest_and_nothing_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    started, release = hold_first_write(recording, monkeypatch)
    writer = threading.Thread(target=hand_in, args=(recording, Stream.C2S, b"one\n"))
    writer.start()
    assert started.wait(10)
    hand_in(recording, Stream.S2C, b"two\npartial")
    finisher = threading.Thread(target=recording.finish)
    finisher.start()
    finisher.join(0.2)
    assert finisher.is_alive()  # the writer is still at work
    release.set()
    finisher.join(10)
    writer.join(10)
    assert not finisher.is_alive() and not writer.is_alive()
    written = path.read_bytes()
    hand_in(recording, Stream.C2S, b"a pump still running after the end\n")
    assert path.read_bytes() == written
    assert capture_lines(path) == [b"one", b"two", b"partial"]


def test_finish_leaves_a_stuck_writer_the_capture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer with no progress for FINISH_STALL is given up on, not written beside nor closed under."""
    monkeypatch.setattr(recording_module, "FINISH_STALL", 0.1)
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    started, release = hold_first_write(recording, monkeypatch)
    writer = threading.Thread(target=hand_in, args=(recording, Stream.C2S, b"slow\n"))
    writer.start()
    assert started.wait(10)
    hand_in(recording, Stream.S2C, b"queued\n")
    begun = time.monotonic()
    recording.finish()
    assert 0.1 <= time.monotonic() - begun < 5
    assert capture_lines(path) == []
    release.set()
    writer.join(10)
    assert capture_lines(path) == [b"slow", b"queued"]  # still its to write, and the file still open


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
    writer = threading.Thread(target=hand_in, args=(recording, Stream.C2S, b"slow\n"))
    writer.start()
    assert started.wait(10)
    recording.event(Event.PROXY_STOPPED, code=0)
    recording.finish()
    writer.join(10)
    records = read_capture(path).records
    assert isinstance(records[-1], LifecycleRecord) and records[-1].event is Event.PROXY_STOPPED
    assert capture_lines(path) == [b"slow"]


def test_sink_thread_gets_records_in_order_and_drains_on_close(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    recording = open_recording(path)
    seen: list[int] = []
    sink = SinkThread(lambda records: seen.extend(r.seq for r in records))
    recording.observe(sink)
    for i in range(50):
        ticket, t = recording.stamp()
        recording.chunk(ticket, Stream.C2S, t, b"%d\n%d\n" % (i, i))
    recording.finish()
    sink.close()
    assert seen == list(range(1, 101))


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
