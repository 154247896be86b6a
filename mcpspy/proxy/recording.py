"""The recording side of the proxy: any thread hands in what it read, and records it.

A pump stamps a chunk (its ticket in the record order and its time) the
moment the chunk is read, forwards it, then hands it in here and does the
recording itself, on its own thread, while the peer is busy with what was
just forwarded: nothing is woken, no event loop is involved, and the capture
is written as soon as every earlier ticket has come in, so a follower sees a
message within a write.

Writes are made by one thread at a time, in order. A thread that finds
another one writing leaves its records to it and goes back to forwarding, so
a pump waits on the disk only while it is the one writing, and on nothing
else unless the writer has fallen ``BACKLOG`` batches behind (then it waits:
memory stays flat and nothing goes unrecorded; the same holds for the --log
analysis, on its own thread). The trio thread hands in lifecycle events the
same way.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

from mcpspy.capture.recorder import Recorder
from mcpspy.capture.records import Event, LineBatch, Record, Recorded, Stream, as_records
from mcpspy.capture.writer import CaptureWriter

BACKLOG = 256  # drained batches waiting for the writer, past which a hand-in waits
FINISH_WAIT = 5.0  # at the end, how long to wait for a thread still writing

Observer = Callable[[Sequence[Recorded]], None]


class Recording:
    """Thread-safe: stamps, hand-ins, and the capture's writes, in ticket order."""

    def __init__(self, capture: CaptureWriter, t0: float) -> None:
        self.capture = capture
        self._t0 = t0
        self._recorder = Recorder()
        self._order = threading.Lock()  # a ticket and its time, taken together
        self._lock = threading.Lock()  # the recorder, what is due, and who writes it
        self._room = threading.Condition(self._lock)  # for a hand-in over the backlog, and finish
        self._waiters = 0  # threads waiting on _room: notify only when there are some
        self._due: list[Recorded] = []
        self._writing = False
        self._observers: list[Observer] = []

    def observe(self, observer: Observer) -> None:
        """Also give every written batch to ``observer`` (on the writing thread: keep it quick)."""
        self._observers.append(observer)

    def stamp(self) -> tuple[int, float]:
        """A place in the record order and the time, taken together (any thread)."""
        self._order.acquire()  # not `with`: this is before the forward, and `with` costs 0.3 us more
        try:
            return self._recorder.ticket(), time.monotonic() - self._t0
        finally:
            self._order.release()

    def chunk(self, ticket: int, stream: Stream, t: float, data: bytes) -> None:
        """Hand in a stamped chunk (b"" at end of stream), and write what is due."""
        with self._lock:
            seq = 0 if self._writing or self._due else self._recorder.hand_in_line(ticket, stream, data)
            if seq:
                self._writing = True  # the common case: one whole line in its turn, nobody writing
            else:
                due = self._recorder.hand_in(ticket, stream, t, data)
                if not self._my_turn(due):
                    return
        if seq:
            self._write_line(seq, t, stream, data[:-1])
        else:
            self._write(due)

    def _write_line(self, seq: int, t: float, stream: Stream, line: bytes) -> None:
        """``_write`` for one line, with no batch made unless an observer wants one."""
        try:
            self.capture.write_line(seq, t, stream, line)
            if self._observers:
                batch = (LineBatch(seq, t, stream, (line,)),)
                for observer in self._observers:
                    observer(batch)
        except BaseException:
            self._stop_writing()
            raise
        self._write(self._take_queued())

    def event(self, event: Event, **details: int | str | float) -> None:
        ticket, t = self.stamp()
        with self._lock:
            self._recorder.event(ticket, t, event, **details)
            due = self._recorder.drain()
            if not self._my_turn(due):
                return
        self._write(due)

    def finish(self) -> None:
        """The end of the session: write everything still held, then close the capture."""
        _, t = self.stamp()
        deadline = time.monotonic() + FINISH_WAIT
        with self._lock:
            self._waiters += 1
            while self._writing and self._room.wait(deadline - time.monotonic()):
                pass
            self._waiters -= 1
            due = self._due + self._recorder.finish(t)
            self._due = []
            self._writing = True
        self._write(due)
        self.capture.close()

    def _my_turn(self, due: list[Recorded]) -> bool:
        """Under the lock: True when this thread is to write ``due`` (and what was queued)."""
        if self._writing:
            self._due += due
            if len(self._due) > BACKLOG:  # the writer is behind: wait until it takes them
                self._waiters += 1
                while self._writing and len(self._due) > BACKLOG:
                    self._room.wait()
                self._waiters -= 1
            return False
        if not due:
            return False
        self._writing = True
        return True

    def _write(self, due: list[Recorded]) -> None:
        """Write ``due``, then whatever others queued meanwhile; one thread at a time is here."""
        try:
            while due:
                self.capture.write_recorded(due)
                for observer in self._observers:
                    observer(due)
                due = self._take_queued()
        except BaseException:
            self._stop_writing()
            raise

    def _take_queued(self) -> list[Recorded]:
        """After a write: what others queued meanwhile, for this thread to write next; else stop writing."""
        with self._lock:
            due, self._due = self._due, []
            self._writing = bool(due)
            if self._waiters:
                self._room.notify_all()
        return due

    def _stop_writing(self) -> None:
        with self._lock:
            self._writing = False
            if self._waiters:
                self._room.notify_all()


class SinkThread:
    """A slow sink (the --log analysis) on its own thread, fed the written batches in order."""

    def __init__(self, sink: Callable[[list[Record]], None], limit: int = BACKLOG) -> None:
        self._sink = sink
        self._limit = limit
        self._queue: deque[Sequence[Recorded] | None] = deque()
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="mcpspy-sink", daemon=True)
        self._thread.start()

    def __call__(self, recorded: Sequence[Recorded]) -> None:
        with self._ready:
            while len(self._queue) > self._limit and self._thread.is_alive():
                self._ready.wait(0.1)
            self._queue.append(recorded)
            self._ready.notify_all()

    def close(self, timeout: float = FINISH_WAIT) -> None:
        """Let the sink take in everything queued, then stop its thread."""
        with self._ready:
            self._queue.append(None)
            self._ready.notify_all()
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue:
                    self._ready.wait()
                item = self._queue.popleft()
                self._ready.notify_all()
            if item is None:
                return
            self._sink(as_records(item))
