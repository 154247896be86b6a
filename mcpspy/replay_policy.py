"""The one replay policy: how capture records become an analysis, for every view.

``report``, ``sessions``, the TUI, ``--log`` and every export turn records into
findings through ``Replay``, so one capture gives the same findings everywhere,
live or offline. The policy:

- **Time comes from the records.** Before each record is fed, requests still
  pending ``slow_after`` seconds before that record's time are flagged slow
  (``Analyzer.check_pending`` looks only at the oldest, so this costs O(1) a
  record). A live view may also ask at its clock's time (``tick``) between
  records; it finds no request that the next record would not.
- **A finished capture is concluded**: pending requests are checked at the last
  record's time, then the books are closed (unanswered requests, unfinished
  multi-line JSON). A live capture is concluded when its proxy's last record
  (``proxy-stopped``) has been fed, or when the reader knows the file ended.
- **Big captures pause the cyclic GC** while they are fed (``collector_paused``).

This module reads files (``analyze_capture``, and through mcpspy/analysis_data.py the
result definitions it hands the analysis); the analysis package does not.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.jsonrpc import Parsed
from mcpspy.analysis.model import AnalysisEvent, Message
from mcpspy.analysis_data import result_schemas
from mcpspy.capture.reader import Capture, read_capture
from mcpspy.capture.records import Record

DEFAULT_SLOW_AFTER = 30.0  # seconds a request may wait before it is called slow
FREEZE_AFTER = 20_000  # records analysed in one go: worth keeping out of later garbage collections


class Replay:
    """An Analyzer fed by the policy above; views read ``analyzer`` for its state."""

    def __init__(self, slow_after: float = DEFAULT_SLOW_AFTER, retain: bool = True) -> None:
        """``retain=False``: the lean analysis of the proxy's ``--log``, with no history (analyzer.py)."""
        self.analyzer = Analyzer(slow_after=slow_after, retain=retain, schemas=result_schemas())
        self.last_t = 0.0
        self.concluded = False

    def feed(self, record: Record) -> list[AnalysisEvent]:
        events = self._advance(record.t)
        events += self.analyzer.feed(record)
        return events

    def feed_read(self, message: Message, parsed: Parsed | None) -> list[AnalysisEvent]:
        """A line a viewer has already read with ``read_line`` (it lists lines before analysing them)."""
        events = self._advance(message.t)
        events += self.analyzer.feed_read(message, parsed)
        return events

    def tick(self, t: float) -> list[AnalysisEvent]:
        """A live view's clock: flag what has become slow since the last record."""
        return self._advance(t)

    def conclude(self) -> list[AnalysisEvent]:
        """The capture has ended: last look for slow requests, then close the books (once)."""
        if self.concluded:
            return []
        self.concluded = True
        events = self.analyzer.check_pending(self.last_t)
        events += self.analyzer.finish()
        return events

    def _advance(self, t: float) -> list[AnalysisEvent]:
        if t > self.last_t:
            self.last_t = t
        return self.analyzer.check_pending(self.last_t)


def replay_records(
    records: Iterable[Record], slow_after: float = DEFAULT_SLOW_AFTER, conclude: bool = True
) -> Replay:
    """Feed ``records`` through the policy; ``conclude=False`` for a live capture."""
    replay = Replay(slow_after)
    feed = replay.feed
    count = 0
    with collector_paused() as resume_collector:
        for record in records:
            feed(record)
            count += 1
        if conclude:
            replay.conclude()
        resume_collector(count)
    return replay


def analyze_capture(
    path: str | os.PathLike[str], slow_after: float = DEFAULT_SLOW_AFTER, conclude: bool = True
) -> tuple[Capture, Analyzer]:
    """Read a capture file and replay it; ``conclude=False`` for a live one (its requests may be answered)."""
    capture = read_capture(path)
    return capture, replay_records(capture.records, slow_after, conclude).analyzer


@contextmanager
def collector_paused() -> Iterator[Callable[[int], None]]:
    """No cyclic garbage collection while a capture is analysed; yields the call that resumes it.

    A 100,000-message capture becomes millions of long-lived objects (messages, parsed
    payloads), and each full collection would walk them all again: a third of the
    replay time, and pauses of half a second on a viewer's UI thread. After a big
    capture they are frozen (kept out of later collections: they live as long as the
    analysis), else the first collection would walk them all once more.
    """
    paused = gc.isenabled()
    gc.disable()

    def resume(messages: int) -> None:
        nonlocal paused
        if paused:
            if messages >= FREEZE_AFTER:
                gc.freeze()
            gc.enable()
            paused = False

    try:
        yield resume
    finally:
        resume(0)
