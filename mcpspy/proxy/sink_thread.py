"""A slow sink on a thread of its own, fed batches in order, bounded; what it cannot take is counted.

The sink process (``proxy.sink_child``) reads the proxy's feed on its main
thread and hands the records to each sink through one of these, so that a
slow sink (the ``--log`` analysis, a log nobody reads) never stops the
reading: the proxy's side then never fills up and drops.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

from mcpspy.capture.admission import RECORD_COST, size_of
from mcpspy.capture.records import LineBatch, LinePart, Record, Recorded, as_records

FINISH_WAIT = 5.0  # at the end, how long the sink gets to catch up

LOG_LIMIT = 16 << 20  # bytes of records waiting for --log: a few seconds of heavy traffic
STALLED_WAIT = 1.0  # at exit, how long --log may take in nothing (nobody reads it) before it is left
LAST_WORD_WAIT = 1.0  # at exit, past the deadline: how long --log gets to say what it could not take in


class SinkThread:
    """A slow sink (the --log analysis) on its own thread, fed the written batches in order.

    Bounded by bytes (``LOG_LIMIT``): the capture's writer hands batches in and
    never waits. Past the bound (``--log -`` to a stderr nobody reads, a log on
    a stalled disk, traffic faster than the analysis), batches are dropped and
    counted, and ``skipped`` is told how many at the place they were in the
    order (the log says so itself, and its analysis judges nothing across them).
    At exit, what it has not taken in by the deadline is counted and said the same way.
    """

    def __init__(
        self,
        sink: Callable[[list[Record]], None],
        skipped: Callable[[int], None] | None = None,
        limit: int = LOG_LIMIT,
    ) -> None:
        self._sink = sink
        self._tell_skipped = skipped
        self._limit = limit
        # Batches with their cost; an int where that many records were dropped; None: the end.
        self._queue: deque[tuple[Sequence[Recorded | Record], int] | int | None] = deque()
        self._queued = 0
        self._abandon = False  # the deadline passed: count what is left, say it, stop
        self.skipped_total = 0
        self.taken = 0  # batches the sink has taken in (how close tells a slow sink from a stuck one)
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="mcpspy-sink", daemon=True)
        self._thread.start()

    def __call__(self, recorded: Sequence[Recorded | Record]) -> None:
        cost = sum(size_of(item) for item in recorded) + RECORD_COST * len(recorded)
        with self._ready:
            if self._queued + cost > self._limit:
                self._gap(sum(_count(item) for item in recorded))
                return
            self._queue.append((recorded, cost))
            self._queued += cost
            self._ready.notify()

    def skip(self, count: int) -> None:
        """Records lost before they reached us (the proxy's feed dropped them): told at their place."""
        with self._ready:
            self._gap(count)

    def _gap(self, count: int) -> None:
        """Under the lock: ``count`` records missing here, in the order."""
        self.skipped_total += count
        queue = self._queue
        if queue and isinstance(queue[-1], int):
            queue[-1] += count  # one gap, however many batches it took
        else:
            queue.append(count)
            self._ready.notify()

    def close(self, timeout: float = FINISH_WAIT) -> None:
        """Let the sink take in everything queued, then stop its thread (soon, if its output is stalled)."""
        with self._ready:
            self._queue.append(None)
            self._ready.notify()
        until = time.monotonic() + timeout
        progress, since = self.taken, time.monotonic()
        while self._thread.is_alive() and time.monotonic() < until:
            self._thread.join(0.05)
            if self.taken != progress:
                progress, since = self.taken, time.monotonic()
            elif time.monotonic() - since > STALLED_WAIT:
                return  # stuck in a write nobody reads: its thread dies with the process
        if self._thread.is_alive():  # still busy at the deadline: it says what it leaves, and stops
            with self._ready:
                self._abandon = True
                self._ready.notify()
            self._thread.join(LAST_WORD_WAIT)

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._abandon:
                    self._ready.wait()
                if self._abandon:
                    left = self._leave_the_rest()
                    if left and self._tell_skipped is not None:
                        self._tell_skipped(left)
                    return
                item = self._queue.popleft()
            if isinstance(item, int):
                if self._tell_skipped is not None:
                    self._tell_skipped(item)
                continue
            if item is None:
                return
            recorded, cost = item
            try:
                self._sink(as_records(recorded))
            finally:
                with self._ready:
                    self._queued -= cost
                    self.taken += 1

    def _leave_the_rest(self) -> int:
        """Under the lock: drop what is queued; how many records that was, with the gaps not yet said."""
        left = 0
        for item in self._queue:
            if isinstance(item, int):
                left += item
            elif item is not None:
                dropped = sum(_count(recorded) for recorded in item[0])
                left += dropped
                self.skipped_total += dropped
        self._queue.clear()
        self._queued = 0
        return left


def _count(item: Recorded | Record) -> int:
    if isinstance(item, LineBatch):
        return len(item.lines)
    return 0 if isinstance(item, LinePart) else 1
