"""The one replay policy: how capture records become an analysis, for every view.

``report``, ``sessions``, the TUI, ``--log`` and every export turn records into
findings through ``Replay``, so one capture gives the same findings everywhere,
live or offline. The policy:

- **Time comes from the records.** Before each record is fed, requests still
  pending ``slow_after`` seconds before that record's time are flagged slow
  (``Analyzer.check_pending`` looks only at the oldest, so this costs O(1) a
  record). A live view may also ask at its clock's time (``tick``) between
  records; it finds no request that the next record would not.
- **The policy owns the end.** A finished capture is concluded: pending
  requests are checked at the last record's time, then the books are closed
  (unanswered requests, unfinished multi-line JSON). A capture still being
  written is not: its requests may yet be answered. It ends at its proxy's
  last record: once ``proxy-stopped`` has been fed, ``caught_up`` concludes
  (callers that follow a capture call it when they have fed what there is).
- **Liveness is decided once**, by ``open_capture``: from the file (its last
  record) and its proxy's pid, before the records are read, so a proxy that
  stops meanwhile leaves its ``proxy-stopped`` in what is read.
- **Big captures pause the cyclic GC** while they are fed, when the command
  asks for it (``collector_paused``): the process's collector is the
  command's to decide, never the analysis'.

This module reads files (``open_capture``, and through mcpspy/analysis_data.py the
result definitions it hands the analysis); the analysis package does not.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.jsonrpc import Parsed
from mcpspy.analysis.model import AnalysisEvent, ClientRules, Message
from mcpspy.analysis_data import result_schemas
from mcpspy.capture.header_format import epoch_of
from mcpspy.capture.reader import Capture, read_capture
from mcpspy.capture.records import Event, LifecycleRecord, Record
from mcpspy.capture.sessions import capture_is_live
from mcpspy.clients.profiles import chosen_rules

DEFAULT_SLOW_AFTER = 30.0  # seconds a request may wait before it is called slow
FREEZE_AFTER = 20_000  # records analysed in one go: worth keeping out of later garbage collections


class Replay:
    """An Analyzer fed by the policy above; views read ``analyzer`` for its state.

    ``stopped``: the proxy's last record (``proxy-stopped``) has been fed: the
    capture is over, whatever its file or its follower says.
    """

    def __init__(
        self,
        slow_after: float = DEFAULT_SLOW_AFTER,
        retain: bool = True,
        clients: Sequence[ClientRules] | None = None,
        events: bool = True,
        seen: bool = True,
    ) -> None:
        """``retain=False``: the lean analysis of the proxy's ``--log``, with no history (analyzer.py).

        ``clients``: the client profiles that judge the server; by default the ones this process
        chose with ``--clients`` (every profile unless it chose). ``events=False``: the caller
        reads ``analyzer``'s state only; each call returns an empty list (Analyzer's ``events``).
        ``seen=False``: no MessageSeen among them (Analyzer's ``seen``).
        """
        if clients is None:
            clients = chosen_rules()
        self.analyzer = Analyzer(slow_after, retain, result_schemas(), clients, events, seen)
        self.last_t = 0.0
        self.stopped = False
        self.concluded = False

    def feed(self, record: Record) -> list[AnalysisEvent]:
        events = self._advance(record.t)
        events += self.analyzer.feed(record)
        if type(record) is LifecycleRecord and record.event is Event.PROXY_STOPPED:
            self.stopped = True
        return events

    def feed_read(self, message: Message, parsed: Parsed | None) -> list[AnalysisEvent]:
        """A line a viewer has already read with ``read_line`` (it lists lines before analysing them)."""
        t, analyzer = message.t, self.analyzer
        if t > self.last_t:  # _advance, inline: every line of a viewer's backlog comes this way
            self.last_t = t
        slow = analyzer.check_pending(self.last_t)
        events = analyzer.feed_read(message, parsed)
        return slow + events if slow else events

    def tick(self, t: float) -> list[AnalysisEvent]:
        """A live view's clock: flag what has become slow since the last record."""
        return self._advance(t)

    def caught_up(self, now: float | None = None) -> list[AnalysisEvent]:
        """Every record written so far has been fed: a capture whose proxy stopped is concluded,
        one still being written only ticks to ``now`` (its follower's clock), when given."""
        if self.stopped:
            return self.conclude()
        return self.tick(now) if now is not None else []

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
    records: Iterable[Record],
    slow_after: float = DEFAULT_SLOW_AFTER,
    live: bool = False,
    now: float | None = None,
) -> Replay:
    """Feed ``records`` through the policy: concluded, unless ``live`` and its proxy has not stopped
    (then requests are judged slow at ``now``, the session's clock, when given)."""
    replay = Replay(slow_after, events=False)  # its callers read the analysis, not its events
    feed = replay.feed
    for record in records:
        feed(record)
    if live:
        replay.caught_up(now)
    else:
        replay.conclude()
    return replay


@dataclass(frozen=True, slots=True)
class OpenCapture:
    """A capture file read and replayed; ``live``: its proxy was still writing it."""

    path: Path
    capture: Capture
    replay: Replay
    live: bool

    @property
    def analyzer(self) -> Analyzer:
        return self.replay.analyzer


def open_capture(
    path: str | os.PathLike[str],
    slow_after: float = DEFAULT_SLOW_AFTER,
    clock: Callable[[], float] = time.time,
) -> OpenCapture:
    """Read a capture and replay it: the one place that decides whether a capture is over.

    A capture whose proxy is still writing it (``capture_is_live``) is read as it
    stands, a line still being written left for later, and not concluded: its
    requests may yet be answered, and are judged slow by ``clock``, as a live
    view judges them. Its ``proxy-stopped``, if it arrives while it is read,
    concludes it all the same. Raises OSError and CaptureFormatError.
    """
    live = capture_is_live(Path(path))
    capture = read_capture(path, growing=live)
    started = epoch_of(capture.header.started) if live else None
    now = clock() - started if started is not None else None
    with collector_paused() as resume_collector:
        replay = replay_records(capture.records, slow_after, live, now)
        resume_collector(len(capture.records))
    return OpenCapture(Path(path), capture, replay, live)


def pause_collector() -> Callable[[int], None]:
    """Stop cyclic garbage collection while a capture is analysed; the call that resumes it.

    A 100,000-message capture becomes hundreds of thousands of long-lived objects
    (messages, exchanges, the capture's records; the parsed payloads are let go once
    analysed: message_fields.LeanMessage), and each full collection would walk them all
    again: a tenth of the replay time, more on a viewer's UI thread. After a big
    capture they are frozen (kept out of later collections: they live as long as the
    analysis), else the first collection would walk them all once more. The collector
    is the process's: only a command, on its main thread, decides (``open_capture``
    for the commands that read a capture whole, the TUI's app for what it follows).
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

    return resume


@contextmanager
def collector_paused() -> Iterator[Callable[[int], None]]:
    """``pause_collector`` for a block: resumed (without a freeze) on leaving it, if not before."""
    resume = pause_collector()
    try:
        yield resume
    finally:
        resume(0)
