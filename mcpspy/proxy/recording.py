"""The recording side of the proxy: pumps hand in what they saw; one writer thread writes.

A pump stamps a chunk (its ticket in the record order, and its time) the
moment the chunk is read, forwards it, then hands it in here. Lifecycle
events come in the same way, from whichever thread saw them. A hand-in only
touches memory, under one lock:

1. the ``Recorder`` takes it and releases what is now due: records in ticket
   order, held back only while an earlier ticket is out;
2. what is released is encoded to capture bytes there and then, short lines
   and the parts of streamed lines alike (CPU only, after the pump's forward,
   while its peer works; a part's data is let go once encoded);
3. the buffer (``capture.admission``, bounded by bytes) lets the released
   records in, or drops and counts them when the writer is that far behind;
4. the writer thread is woken if it sleeps.

So a pump never waits on the disk, on ``--log``'s stderr, or on an export:
only on its own peer. The writer thread, once woken, lets ``COALESCE`` pass,
takes everything queued at once, writes it (the capture writer hands the
same bytes to the sink process's feed, ``--log`` and the live export, which
never blocks it: ``sink_process``), and, once the buffer has drained to half after a drop, records the
``capture-gap`` owed and says once on stderr that records were dropped, and why: a disk that made
no progress (a write blocked ``STALLED_AFTER`` or more), or a burst larger than the buffer. Why
the encoding is the pumps' and a batch spans 50 ms: the writer thread's turns
with the GIL are what a round trip waits for; encoding, it held it about
0.14 ms a batch, and woken each millisecond it landed in one round trip in
five (p99 +60-115 us); now its turn is one ``writev`` in fewer than one round
trip in a hundred (BENCHMARKS.md, issue 15).

At the end, ``finish`` releases what is held (a stream's unterminated last
line), the gap owed, then the end record, so the end records come after every
line record. It waits for the writer to drain the buffer while it makes
progress, up to ``FINISH_DEADLINE``; giving up, the writer drops what is left
at the next record boundary and ends the capture with a ``capture-gap`` that
counts it (a writer stuck inside one write for good leaves the capture torn:
readers say so, ``capture-torn``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from mcpspy.capture.admission import LIMIT, RECORD_COST, Admission
from mcpspy.capture.recorder import Recorder
from mcpspy.capture.records import Event, LinePart, Recorded, Stream
from mcpspy.capture.writer import CaptureWriter
from mcpspy.proxy.heap import release_freed

#: At the end, how long the writer may take to drain the buffer (at most 64 MiB, the last
#: lines held: under a second on a disk, BENCHMARKS.md) while it makes progress...
FINISH_DEADLINE = 20.0
#: ...and how long it may make none (a disk that hangs) before it is given up on.
FINISH_STALL = 5.0
FINISH_POLL = 0.005
#: How long the writer, woken from idle, lets the traffic go first: a batch a 50 ms, so that its
#: wake-up lands in fewer than 1 in 100 round trips (p99 as before the writer thread; BENCHMARKS.md).
#: ``finish`` cuts it short.
COALESCE = 0.05
WAKE_EARLY = 1 << 20  # queued bytes that cut the coalescing short (the buffer holds 64 MiB)
WRITE_SLICE = 256  # records written between looks at whether the drain was given up on...
#: ...or parts of streamed lines, by their bytes; the buffer is told of each such slice written, so a
#: big line's parts make room as they are written, not once the writer has taken everything queued
#: (a 64 MiB line echoed peaked at 53-63 of the buffer's 64 MiB, and dropped parts).
WRITE_SLICE_PARTS = 4 << 20
#: No progress this long (a capture gap's ``longest_stall``: no write completed) says the disk stalled;
#: a healthy disk takes milliseconds for the at most 1 MiB a write holds, even on a loaded machine.
STALLED_AFTER = 1.0


def _slice_end(records: list[Recorded]) -> tuple[int, int]:
    """Where the next slice to write ends (``WRITE_SLICE``, ``WRITE_SLICE_PARTS``), and its parts' bytes."""
    parts_size = 0
    for i, item in enumerate(records[:WRITE_SLICE]):
        if type(item) is LinePart:
            parts_size += (
                len(item.data) if item.encoded is None else sum(map(len, item.encoded))
            ) + RECORD_COST
            if parts_size >= WRITE_SLICE_PARTS:
                return i + 1, parts_size
    return min(len(records), WRITE_SLICE), parts_size


class Recording:
    """Thread-safe: stamps and hand-ins from any thread; the capture written by its own thread."""

    def __init__(
        self,
        capture: CaptureWriter,
        t0: float,
        warn: Callable[[str], None] | None = None,
        limit: int = LIMIT,
    ) -> None:
        self.capture = capture
        self._t0 = t0
        self._warn = warn
        self._stamping = threading.Lock()  # a ticket and its time, taken together
        self._next_ticket = 0
        self._lock = threading.Lock()  # the recorder and the buffer
        self._recorder = Recorder()
        self._released = 0  # the bytes that left the recorder's splitters, already charged to the buffer
        self._buffer = Admission(limit)
        self._wake = threading.Condition(self._lock)
        self._idle = False  # the writer sleeps on ``_wake``
        self._closing = False  # finish: write what is queued, then stop
        self._give_up = False  # finish gave up waiting: drop what is left
        self._dropped = False  # a capture-gap was recorded
        self._first_cause = ""  # what made the first one, in words (said once on stderr)
        self._warned = False
        self._warning: threading.Thread | None = None
        self._parts_written = False  # parts of streamed lines written since memory was last given back
        self._writer = threading.Thread(target=self._run, name="mcpspy-capture", daemon=True)
        self._writer.start()

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
        """Hand in a stamped chunk (b"" at end of stream). Never waits on the writer."""
        with self._lock:
            if self._closing:
                return  # after the end (a client pump still running): nothing more is recorded
            if not self._buffer.calm and self._buffer.gap_due():
                self._tell_gap(t)
            self._recorder.hand_in(ticket, stream, t, data)
            self._admit()

    def event(self, event: Event, **details: int | str | float) -> None:
        """Stamp and hand in a lifecycle event (any thread)."""
        ticket, t = self.stamp()
        with self._lock:
            if self._closing:
                return
            self._recorder.event(ticket, t, event, **details)
            self._admit()

    def injected(
        self, stream: Stream, lines: int, details: dict[str, int | str | float], skip: int = 0
    ) -> None:
        """Stamp and hand in an injection (``--inject``), before the bytes it wrote are handed in."""
        ticket, t = self.stamp()
        with self._lock:
            if self._closing:
                return
            self._recorder.mark(ticket, t, stream, lines, details, skip)
            self._admit()

    def _admit(self) -> None:
        """Under the lock: what the recorder released goes to the buffer; the writer is woken."""
        recorder = self._recorder
        due = recorder.take_due()
        if not due:
            return
        encoded = self.capture.encode_ahead(due)
        released = recorder.released - recorder.held  # what left the splitters: lines and parts
        cost = released - self._released + RECORD_COST * len(due) + encoded
        self._released = released
        buffer = self._buffer
        buffer.admit(due, cost, recorder.held)
        if self._idle or buffer.queued > WAKE_EARLY:  # a heavy stream does not wait out the coalescing
            self._wake.notify()

    def finish(self, code: int | None = None) -> None:
        """The end of the session: what is held, the gap owed, ``proxy-stopped`` (with ``code``), drained.

        ``code`` None: torn down by an error, no ``proxy-stopped`` is recorded.
        """
        _, t = self.stamp()
        with self._lock:
            self._closing = True
            self._recorder.finish(t)
            self._admit()
            if self._buffer.gap:
                self._tell_gap(t)
            if code is not None:
                self._recorder.note(t, Event.PROXY_STOPPED, code=code)
            self._admit()
            self._wake.notify()
        if not self._wait_for_writer():
            with self._lock:
                self._give_up = True  # the writer drops the rest at its next record boundary, then ends
            self._writer.join(1.0)
        self._say_dropped()
        if self._warning is not None:
            self._warning.join(1.0)  # a stderr nobody reads does not hold the exit for long

    def _wait_for_writer(self) -> bool:
        """Whether the writer drained the buffer and closed the capture within the bounds."""
        started = stalled_since = time.monotonic()
        last = self._progress()
        while True:
            self._writer.join(FINISH_POLL)
            if not self._writer.is_alive():
                return True
            now = time.monotonic()
            progress = self._progress()
            if progress != last:
                last, stalled_since = progress, now
            if now - stalled_since > FINISH_STALL or now - started > FINISH_DEADLINE:
                return False

    def _progress(self) -> tuple[int, int]:
        """The writer thread's CPU time (ns) and the capture's size: what a working writer moves."""
        try:
            ident = self._writer.ident
            cpu = -1 if ident is None else time.clock_gettime_ns(time.pthread_getcpuclockid(ident))
        except (OSError, AttributeError, OverflowError):
            cpu = -1  # no per-thread clock here (or the thread is gone): the size alone tells
        try:
            size = os.stat(self.capture.path).st_size
        except OSError:
            size = -1
        return cpu, size

    def _run(self) -> None:
        """The writer thread: take everything queued, write it, hand it on; until finished."""
        try:
            while self._write_next():
                pass
        finally:
            self.capture.close()

    def _write_next(self) -> bool:
        with self._lock:
            woken = False
            while not self._buffer.queue and not self._closing:
                self.capture.longest_stall = 0.0  # caught up: a later gap has a cause of its own
                self._idle = woken = True
                self._wake.wait()
                self._idle = False
            if woken and not self._closing:
                # Woken from idle by a hand-in: let the traffic go first and gather (hand-ins do not
                # wake a writer that is not idle; finish does). A round trip whose pump waits for
                # this thread's GIL is what the p99 is made of (BENCHMARKS.md, issue 15).
                self._wake.wait(COALESCE)
        with self._lock:
            if not self._buffer.queue:
                return not self._closing  # closing, and everything is written
            taken = self._buffer.take()
        while taken:
            if self._give_up:
                self._drop_the_rest(taken)
                return False
            end, parts_size = _slice_end(taken)
            self._write_slice(taken[:end])
            del taken[:end]  # what is written is let go at once: a big line's parts are MiBs each
            if parts_size:
                self._parts_written = True
                if taken:
                    with self._lock:
                        self._buffer.written(parts_size)
        with self._lock:
            self._buffer.written()
            if self._buffer.gap_due():
                self._tell_gap(time.monotonic() - self._t0)
                self._admit()
            # Not inside a streamed line (whose parts may hold nothing back between two reads): a
            # writer that keeps up would hand its memory back a part, and the pumps fault it in again.
            lines_done = self._parts_written and not self._buffer.queue and not self._recorder.lines_open
        if lines_done:  # streamed lines are written, none is open and nothing waits: memory goes back
            self._parts_written = False
            release_freed()
        self._say_dropped()
        return True

    def _write_slice(self, records: list[Recorded]) -> None:
        """Write, timing how long the disk makes no progress (``CaptureWriter.longest_stall``)."""
        capture = self.capture
        capture.writing_since = time.monotonic()
        capture.write_recorded(records)
        since, capture.writing_since = capture.writing_since, None
        capture.longest_stall = max(capture.longest_stall, time.monotonic() - since)

    def _tell_gap(self, t: float, **more: int) -> None:
        """Under the lock: the gap owed becomes a record, numbered after what is released, with its
        cause: a disk that made no progress for ``STALLED_AFTER`` or more (one write took that long),
        else a burst larger than the buffer while the disk kept up."""
        capture = self.capture
        stalled = capture.longest_stall
        if (since := capture.writing_since) is not None:  # a write under way
            stalled = max(stalled, time.monotonic() - since)
        capture.longest_stall = 0.0
        cause = "stalled-disk" if stalled >= STALLED_AFTER else "burst"
        self._recorder.note(
            t,
            Event.CAPTURE_GAP,
            **self._buffer.take_gap(),
            cause=cause,
            longest_stall=round(stalled, 1),
            **more,
        )
        if not self._dropped:
            self._first_cause = (
                f"a slow or stalled disk: a write made no progress for {stalled:.1f} s"
                if cause == "stalled-disk"
                else f"a burst larger than its {self._buffer.limit >> 20} MiB buffer, "
                f"while the disk kept up (no write took {STALLED_AFTER:g} s)"
            )
        self._dropped = True

    def _drop_the_rest(self, rest: list[Recorded]) -> None:
        """The drain was given up on: the lines left are dropped and counted; the gap ends the capture."""
        with self._lock:
            self._buffer.written()
            self._buffer.queue[:0] = rest
            kept = self._buffer.abandon()
            if self._buffer.gap:
                self._tell_gap(time.monotonic() - self._t0, at_exit=1)
                kept += self._recorder.take_due()
        self.capture.write_recorded(kept)
        self._say_dropped()

    def _say_dropped(self) -> None:
        """Once a session: records were dropped (said on a thread of its own: stderr may be stalled too)."""
        with self._lock:
            if not self._dropped or self._warned or self._warn is None:
                return
            self._warned = True
        message = (
            f"mcpspy: the capture {self.capture.path} fell behind ({self._first_cause}); "
            "records were dropped to keep forwarding, and the capture says where (capture-gap)"
        )
        self._warning = threading.Thread(target=self._warn, args=(message,), name="mcpspy-warn", daemon=True)
        self._warning.start()
