"""The recording side of the proxy: any thread hands in what it saw; one at a time writes.

A pump stamps a chunk (its ticket in the record order, and its time) the
moment the chunk is read, forwards it, then hands it in here on its own
thread. Lifecycle events come in the same way, from whichever thread saw
them (the trio thread, or a pump). Every hand-in takes one path:

1. Under the lock, the ``Recorder`` takes it and releases what is now due:
   records in ticket order, held back only while an earlier ticket is out.
2. The writer rule, under the same lock: **if no thread is writing, this one
   becomes the writer and writes what is due, then what was released
   meanwhile, until nothing is; if a thread is writing, this one leaves its
   records to that writer and goes back to forwarding** (after waiting, while
   more than ``BACKLOG`` records are due, for the writer to take them: memory
   stays bounded and nothing goes unrecorded).

Only the writer takes what is due, and it writes each take before the next,
so the capture is in release order, which is ticket order. A writer that
fails gives the role up and leaves what is due to the next hand-in; at the
end, ``finish`` becomes the last writer and keeps the role. A record is
written as soon as every earlier ticket is in, by a thread already awake: a
follower sees a message within a write, with no timer and nothing woken for
it. A pump waits on the disk only while it is the writer.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence

from mcpspy.capture.recorder import Recorder
from mcpspy.capture.records import Event, Recorded, Stream
from mcpspy.capture.writer import CaptureWriter

BACKLOG = 256  # records due past which a hand-in waits for the writer to take them
FINISH_WAIT = 5.0  # at the end, how long the log and the export get to catch up
FINISH_STALL = 10.0  # at the end, how long a writer may make no progress before it is given up on
FINISH_POLL = 0.001

Observer = Callable[[Sequence[Recorded]], None]


class Recording:
    """Thread-safe: stamps, hand-ins, and the capture's writes, in ticket order."""

    def __init__(self, capture: CaptureWriter, t0: float) -> None:
        self.capture = capture
        self._t0 = t0
        self._stamping = threading.Lock()  # a ticket and its time, taken together
        self._next_ticket = 0
        self._lock = threading.Lock()  # the recorder, and who writes
        self._recorder = Recorder()
        self._writing = False  # a thread is the writer (see the module's docstring)
        self._writer = 0  # which thread, while one is (``finish`` watches its progress)
        self._room = threading.Condition(self._lock)  # where a hand-in past the backlog waits
        self._observers: list[Observer] = []

    def observe(self, observer: Observer) -> None:
        """Also give every written batch to ``observer`` (on the writing thread: keep it quick)."""
        self._observers.append(observer)

    def stamp(self) -> tuple[int, float]:
        """A place in the record order and the time, taken together (any thread)."""
        self._stamping.acquire()  # not `with`: this is before the forward, and `with` costs 0.3 us more
        try:
            ticket = self._next_ticket
            self._next_ticket = ticket + 1
            return ticket, time.monotonic() - self._t0
        finally:
            self._stamping.release()

    def chunk(self, ticket: int, stream: Stream, t: float, data: bytes) -> None:
        """Hand in a stamped chunk (b"" at end of stream); write, if this thread is to."""
        with self._lock:
            self._recorder.hand_in(ticket, stream, t, data)
            due = self._claim_due()
        if due:
            self._write(due)

    def event(self, event: Event, **details: int | str | float) -> None:
        """Stamp and hand in a lifecycle event (any thread); write, if this thread is to."""
        ticket, t = self.stamp()
        with self._lock:
            self._recorder.event(ticket, t, event, **details)
            due = self._claim_due()
        if due:
            self._write(due)

    def finish(self) -> None:
        """The end of the session: release everything held, write it, close the capture.

        This thread becomes the last writer and never hands the role back, so
        a pump still running (one blocked on a client that never closes
        stdin) writes nothing after the close. It waits for a thread still
        writing for as long as that writer makes progress (CPU time on its
        thread, or bytes added to the capture): a server's 512 MiB last line
        takes seconds to encode and write, and cutting it off would leave the
        end records out or inside it. Only a writer that made no progress for
        ``FINISH_STALL`` seconds (a disk that hangs) is given up on: then the
        capture is left to the process's exit, without end records (so a
        reader sees it unfinished) rather than written by two threads.
        """
        _, t = self.stamp()
        last: tuple[int, int] | None = None
        stalled_since = time.monotonic()
        while True:
            with self._lock:
                if not self._writing:
                    self._writing = True
                    self._recorder.finish(t)
                    due = self._recorder.take_due()
                    break
                writer = self._writer
            progress = self._progress(writer)
            now = time.monotonic()
            if progress != last:
                last, stalled_since = progress, now
            elif now - stalled_since > FINISH_STALL:
                return
            time.sleep(FINISH_POLL)  # once a session: a condition would cost every writer a notify
        try:
            self.capture.write_recorded(due)
            for observer in self._observers:
                observer(due)
        finally:
            self.capture.close()

    def _progress(self, writer: int) -> tuple[int, int]:
        """The writer thread's CPU time (ns) and the capture's size: what a working writer moves."""
        try:
            cpu = time.clock_gettime_ns(time.pthread_getcpuclockid(writer))
        except (OSError, AttributeError, OverflowError):
            cpu = -1  # no per-thread clock here (or the thread is gone): the size alone tells
        try:
            size = os.stat(self.capture.path).st_size
        except OSError:
            size = -1
        return cpu, size

    def _claim_due(self) -> list[Recorded]:
        """Under the lock, after a hand-in: the writer rule. What this thread is to write, if anything."""
        while self._writing:
            if self._recorder.due_count <= BACKLOG:
                return []  # the writer takes these next
            self._room.wait()
        due = self._recorder.take_due()
        if due:
            self._writing = True
            self._writer = threading.get_ident()
        return due

    def _write(self, due: list[Recorded]) -> None:
        """As the writer: write ``due``, then what was released meanwhile, until nothing is due."""
        try:
            while due:
                self.capture.write_recorded(due)
                for observer in self._observers:
                    observer(due)
                with self._lock:
                    due = self._recorder.take_due()
                    if len(due) > BACKLOG:  # only a take this big can leave a hand-in waiting for room
                        self._room.notify_all()
                    self._writing = bool(due)
        except BaseException:
            with self._lock:
                self._writing = False
                self._room.notify_all()
            raise
