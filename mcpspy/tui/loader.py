"""The TUI's reading side: follow a capture and analyse it, off the UI thread.

``CaptureFeed`` owns the reader and the Analyzer; only the worker thread
calls it. Each ``step`` reads what has landed (a bounded slice) and returns a
``Batch``: plain data the UI thread takes over, with a snapshot of what the UI
may not read from the analyzer while the worker mutates it (pending requests,
recent exchanges). No Textual here.

A backlog is listed before it is analysed: each line record goes to the list
at once as a message whose line is read when it is first asked for (a row
drawn: ``listed.py``) or analysed, and the analysis (pairing, the rules)
follows a slice a step once the reader has reached the end of the file (the
step that lists a backlog's last slice returns at once: the whole list goes
up before the analysis begins). A 100,000-message capture is on screen in the
time it takes to read its records; its latencies and findings fill in after.
Live traffic is listed and analysed in the same step.

A finished capture of more than a slice is analysed in a child process
(analysis_child.py) while this one lists it; what the child says is put on the
listed messages a frame at a time, and the batches carry it as they would
the worker's own analysis.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.context_cost import ContextMeter
from mcpspy.analysis.model import (
    AnalysisEvent,
    Era,
    Exchange,
    ExchangeUpdated,
    Finding,
    FindingRaised,
    Message,
)
from mcpspy.capture.header_format import epoch_of
from mcpspy.capture.reader import CaptureReader
from mcpspy.capture.records import LifecycleRecord, LineRecord, Record, Stream
from mcpspy.replay_policy import DEFAULT_SLOW_AFTER, Replay
from mcpspy.tui.analysis_child import CHILD_AFTER, AnalysisChild, ChildFailed, Mirror
from mcpspy.tui.listed import READ_TOGETHER, ListedMessage, read_for_analysis

READ_SLICE = 1 << 20  # bytes read per step: ~5,000 small messages
ANALYSE_SLICE = 5_000  # listed records analysed per step, once the reader is at the end of the file
ERR = Stream.ERR
PENDING_SHOWN = 200  # the oldest in-flight requests: the ones that matter
CHILD_WAIT = 0.05  # seconds a step waits for the child's next frame, once everything is listed
TIMELINE_SHOWN = 200  # the newest exchanges


@dataclass
class Snapshot:
    """The analyzer's state after a batch, copied for the UI thread."""

    era: Era = Era.UNKNOWN
    protocol_version: str | None = None
    pending_count: int = 0
    pending: list[Exchange] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    slow_after: float = 30.0
    started_epoch: float | None = None  # the session's start by the wall clock, for ticking ages
    name: str = ""  # the server's short name, from the capture's header
    context_tokens: int | None = None  # the latest tools/list's estimated tokens (analysis/context_cost.py)


@dataclass
class Batch:
    messages: list[Message] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    changed: set[int] = field(default_factory=set)  # seqs of rows whose cells changed
    stderr: list[str] = field(default_factory=list)
    snapshot: Snapshot = field(default_factory=Snapshot)
    ended: bool = False  # the capture was read to its end (or its proxy stopped) and concluded
    unanalysed: int = 0  # messages listed but not analysed yet (a backlog being worked through)
    reading: bool = False  # the reader is not at the end of the file yet: a backlog is being listed
    progressed: bool = False  # unanalysed or reading changed since the last batch
    problems: list[str] = field(default_factory=list)
    opened: bool = False  # the header was just read: the UI learns the session's name and start

    def __bool__(self) -> bool:
        """News, or analysis still to do (no pause before the next step)."""
        news = self.messages or self.findings or self.changed or self.problems
        return bool(news) or self.ended or self.opened or self.progressed or self.unanalysed > 0

    def merge(self, later: Batch) -> None:
        """Take in a later batch; an empty one carries no snapshot."""
        if not later:
            return
        self.messages.extend(later.messages)
        self.findings.extend(later.findings)
        self.changed.update(later.changed)
        self.stderr.extend(later.stderr)
        self.problems.extend(later.problems)
        self.snapshot = later.snapshot
        self.unanalysed, self.reading = later.unanalysed, later.reading
        self.ended = self.ended or later.ended
        self.opened = self.opened or later.opened
        self.progressed = self.progressed or later.progressed


def start_child(
    path: Path, live: bool, slow_after: float, wanted: bool | None = None
) -> AnalysisChild | None:
    """The child that analyses ``path`` (analysis_child.py), if it should (``wanted``; by default a
    capture that is not live and bigger than one slice) and can be forked."""
    if live or wanted is False:
        return None
    if wanted is None:
        try:
            if path.stat().st_size <= CHILD_AFTER:
                return None
        except OSError:
            return None  # the reader says why
    return AnalysisChild.start(path, slow_after)


def session_now(live: bool, started_epoch: float | None, last_t: float, clock: Callable[[], float]) -> float:
    """Seconds since the session started: by ``clock`` (the epoch's) while live, else the last line's time."""
    if live and started_epoch is not None:
        return max(last_t, clock() - started_epoch)
    return last_t


Listed = LifecycleRecord | tuple[ListedMessage, LineRecord]  # what waits for the analysis


class CaptureFeed:
    """Reader + Analyzer for one capture. Raises OSError / CaptureFormatError from the reader."""

    def __init__(
        self,
        path: Path,
        live: bool,
        slow_after: float = DEFAULT_SLOW_AFTER,
        clock: Callable[[], float] = time.time,
        in_child: bool | None = None,
        child: AnalysisChild | None = None,
    ) -> None:
        """``in_child``: analyse in a child process (only a capture that is not live; by default, one
        bigger than ``CHILD_AFTER``: ``start_child``), where this system can fork one. ``child``: the
        one already started for this capture (the app starts it before Textual does)."""
        self.live = live
        self.clock = clock  # the app's: one "now" for the ages it shows and the slowness judged here
        self.reader = CaptureReader(path)
        self.replay = Replay(slow_after)
        self.started_epoch: float | None = None
        self.last_t = 0.0
        self._unanalysed: deque[Listed] = deque()
        self._progress = (0, False)  # (unanalysed, reading) as the last batch said
        self._problems_said = 0
        self.context = ContextMeter()  # fed each tools/list exchange as it changes: its cost, once answered
        self.opened = False
        self.done = False
        self._child = child if child is not None else start_child(path, live, slow_after, in_child)
        self._mirror = Mirror()
        self.mirrored = self._child is not None  # the analysis is the child's (analysis_child.py)

    def close(self) -> None:
        self.reader.close()
        self.close_child()

    def close_child(self) -> None:
        """Stop the analysis child, if it runs, and reap it."""
        if self._child is not None:
            self._child.close()
            self._child = None

    @property
    def caught_up(self) -> bool:
        """Everything the file held is listed and analysed."""
        if self.mirrored:
            return self.done
        return self.reader.at_end and not self._unanalysed

    def step(self) -> Batch:
        """Read, list and analyse one slice; an empty Batch means nothing new (sleep before the next)."""
        batch = Batch()
        backlog = not self.reader.at_end  # more than this slice may be waiting: list it before analysing
        records = self.reader.poll_slice(READ_SLICE)
        if not self.opened and self.reader.header is not None:
            self.started_epoch = epoch_of(self.reader.header.started)
            batch.opened = self.opened = True
        self._list(records, batch)
        if self._child is not None:
            self._from_child(batch, wait=not records and self.reader.at_end)
        if self.mirrored:
            if self._child is None and not self.done and self.reader.at_end:  # it failed: the list is whole
                self._child_done(batch)
            running = self._child is not None
            unanalysed = max(0, len(self._mirror.lines) - self._mirror.analysed) if running else 0
        else:
            if self.reader.at_end and not (backlog and records):  # a backlog's last slice goes up alone
                self._analyse(ANALYSE_SLICE, batch)
                if not self._unanalysed:
                    self._conclude(batch)
            unanalysed = len(self._unanalysed)
        progress = (unanalysed, not self.reader.at_end)
        batch.unanalysed, batch.reading = progress
        batch.progressed, self._progress = progress != self._progress, progress
        batch.problems.extend(self.reader.problems[self._problems_said :])
        self._problems_said = len(self.reader.problems)
        if batch:
            batch.snapshot = self.snapshot()
        return batch

    def _list(self, records: list[Record], batch: Batch) -> None:
        """Every line into the list at once, and into the queue for the analysis."""
        queue, messages, listed = self._unanalysed, batch.messages, ListedMessage.of
        first = len(messages)
        for record in records:
            if isinstance(record, LifecycleRecord):
                queue.append(record)
                continue
            message = listed(record)
            messages.append(message)
            if record.stream is ERR:
                batch.stderr.append(record.data.decode("utf-8", "replace"))
            queue.append((message, record))
        if records:
            self.last_t = records[-1].t
        if self.mirrored:
            self._mirror.lines += messages[first:]  # by index, as the child names them

    def _from_child(self, batch: Batch, wait: bool) -> None:
        """What the child has said since the last step, on the listed messages; its end, this capture's."""
        child, mirror = self._child, self._mirror
        assert child is not None
        try:
            frames = child.frames(CHILD_WAIT if wait else 0.0)
        except ChildFailed as exc:
            self.close_child()
            if mirror.analysed or mirror.exchanges or mirror.findings:  # it said part: that stands
                batch.problems.append(str(exc))  # and the rest is listed, unanalysed
                self._unanalysed.clear()
            else:  # nothing was said: the worker analyses it all (its queue is whole)
                self.mirrored = False
            return
        ended = child.done and self.reader.at_end
        for taken in mirror.take_listed(frames, everything=ended):
            batch.findings += taken.findings
            batch.changed |= taken.changed
        if ended:
            self.close_child()
            self._unanalysed.clear()
            self._child_done(batch)

    def _child_done(self, batch: Batch) -> None:
        if self.reader.torn_bytes:
            batch.problems.append(f"the last line ({self.reader.torn_bytes} bytes) is truncated")
        batch.ended = self.done = True

    @property
    def analyzer(self) -> Analyzer:
        """Read by the worker thread only (the UI thread gets Snapshots)."""
        return self.replay.analyzer

    def _analyse(self, limit: int, batch: Batch) -> None:
        queue, replay = self._unanalysed, self.replay
        left = min(limit, len(queue))
        while left:
            items = [queue.popleft() for _ in range(min(left, READ_TOGETHER))]
            left -= len(items)
            said = iter(read_for_analysis([item for item in items if type(item) is tuple]))
            for item in items:
                if isinstance(item, LifecycleRecord):
                    self._take(replay.feed(item), batch)
                else:
                    self._take(replay.feed_read(item[0], next(said)), batch)

    def _conclude(self, batch: Batch) -> None:
        """All analysed: while live, the clock goes on; else the session ends (the replay policy's)."""
        if self.live and not self.replay.stopped:  # the policy says when a capture is over
            self._take(self.replay.tick(self.session_now()), batch)
        elif not self.done:  # the proxy is gone, or a finished capture was read to its end
            if self.reader.torn_bytes:
                batch.problems.append(f"the last line ({self.reader.torn_bytes} bytes) is truncated")
            for record in self.reader.ending():  # a torn end, as the analysis' capture.torn-line
                self._take(self.replay.feed(record), batch)
            self._take(self.replay.conclude(), batch)
            batch.ended = self.done = True

    def session_now(self) -> float:
        return session_now(self.live, self.started_epoch, self.last_t, self.clock)

    def snapshot(self) -> Snapshot:
        name = self.reader.header.name if self.reader.header is not None else ""
        if self.mirrored:
            m = self._mirror
            return Snapshot(
                m.era,
                m.protocol_version,
                m.pending_count,
                m.pending,
                m.newest,
                self.replay.analyzer.slow_after,
                self.started_epoch,
                name,
                m.context_tokens,
            )
        a = self.analyzer
        pending = a.pending
        return Snapshot(
            a.era,
            a.protocol_version,
            len(pending),
            pending[:PENDING_SHOWN],
            a.exchanges[-TIMELINE_SHOWN:],
            a.slow_after,
            self.started_epoch,
            name,
            self.context.cost.tools.tokens if self.context.cost.tools.seen else None,
        )

    def _take(self, events: list[AnalysisEvent], batch: Batch) -> None:
        """What the analysis changed; its messages are in the list already."""
        changed = batch.changed
        for ev in events:
            if type(ev) is ExchangeUpdated:
                exchange = ev.exchange
                if exchange.method == "tools/list":  # the one cost the header shows (Snapshot)
                    self.context.exchange(exchange, self.analyzer.message)
                if exchange.request_seq:
                    changed.add(exchange.request_seq)
                if exchange.reply_seq:
                    changed.add(exchange.reply_seq)
            elif type(ev) is FindingRaised:
                batch.findings.append(ev.finding)
                changed.add(ev.finding.seq)
