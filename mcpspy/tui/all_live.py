"""`mcpspy watch --all`: every live session at once, read by one worker. No Textual here.

Each session keeps its own ``CaptureFeed`` (its own Replay: pairing and
findings stay per session, an id of one server never meets another's). One
worker thread steps them all in turn, so 20 sessions cost one thread polling,
not 20. Sessions join as their captures appear live in the sessions
directories (a restarted server is a new session of the same name), and are
marked ended when their proxy stops or dies.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mcpspy.analysis.model import Severity
from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.sessions import SessionInfo, read_session
from mcpspy.terminal import visible_line
from mcpspy.tui.loader import Batch, CaptureFeed, Snapshot, session_now
from mcpspy.tui.restarts import captures_in
from mcpspy.tui.rows import Bar, PendingRow, bars_of, pending_rows

LOOK_EVERY = 0.25  # seconds between looks for new sessions
LIVENESS_EVERY = 1.0  # seconds between checks that each session's proxy still runs


@dataclass
class Joined:
    """A session that joined the view, under ``origin`` (its index, in order of joining)."""

    origin: int
    info: SessionInfo


@dataclass
class Step:
    """What one pass over every session brought: who joined, each session's batch, who ended, problems."""

    joined: list[Joined] = field(default_factory=list)
    batches: list[tuple[int, Batch]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.joined or self.batches or self.problems)


class LiveSessions:
    """The live sessions of ``dirs``, each read by its own feed; ``step`` is called by one worker."""

    def __init__(self, dirs: list[Path], slow_after: float, clock: Callable[[], float] = time.time) -> None:
        self.dirs = dirs
        self.slow_after = slow_after
        self.clock = clock
        self.feeds: dict[int, CaptureFeed] = {}  # origin -> its feed, while it is read
        self.sessions: list[SessionInfo] = []  # by origin
        self._seen: set[Path] = set()  # captures looked at: a finished one is never read
        self._looked = self._checked = float("-inf")

    def close(self) -> None:
        for feed in self.feeds.values():
            feed.close()
        self.feeds.clear()

    def look(self, step: Step) -> None:
        """Open each capture that appeared live since the last look."""
        for path in sorted(captures_in(self.dirs) - self._seen):
            info = read_session(path)
            if info is None:
                continue  # no header yet: look again
            self._seen.add(path)
            if not info.live:
                continue
            try:
                feed = CaptureFeed(path, True, self.slow_after, self.clock)
            except OSError as exc:
                step.problems.append(f"cannot open {path}: {exc.strerror}")
                continue
            origin = len(self.sessions)
            self.sessions.append(info)
            self.feeds[origin] = feed
            step.joined.append(Joined(origin, info))

    def step(self, now: float) -> Step:
        """One pass: new sessions, a slice of each feed, and the end of those whose proxy died."""
        step = Step()
        if now - self._looked >= LOOK_EVERY:
            self._looked = now
            self.look(step)
        check = now - self._checked >= LIVENESS_EVERY
        if check:
            self._checked = now
        for origin, feed in list(self.feeds.items()):
            if check and feed.live:  # a killed proxy never writes proxy-stopped: read on to the end
                info = read_session(self.sessions[origin].path)
                feed.live = info is not None and info.live
            try:
                batch = feed.step()
            except CaptureFormatError as exc:
                step.problems.append(f"{self.sessions[origin].path.name}: {exc}")
                feed.close()
                del self.feeds[origin]
                continue
            if batch:
                step.batches.append((origin, batch))
            if feed.done:
                feed.close()
                del self.feeds[origin]
        return step


@dataclass
class Shown:
    """One session as the app shows it (under `watch --all`, one per origin; else just origin 0)."""

    path: Path
    name: str  # the server's short name, from the capture's header (hostile: shown through visible_line)
    snapshot: Snapshot
    messages: int = 0
    by_severity: Counter[Severity] = field(default_factory=Counter)
    last_t: float = 0.0
    ended: bool = False
    unanalysed: int = 0  # listed, not analysed yet
    reading: bool = False  # a backlog is still being listed

    def take(self, batch: Batch) -> None:
        self.unanalysed, self.reading = batch.unanalysed, batch.reading
        self.snapshot = batch.snapshot
        self.name = self.name or batch.snapshot.name
        self.messages += len(batch.messages)
        self.by_severity.update(f.severity for f in batch.findings if not f.injected)
        if batch.messages:
            self.last_t = batch.messages[-1].t
        self.ended = self.ended or batch.ended


SERVER_NAME_SHOWN = 16  # a longer server name is cut in the header's line of servers


def servers_line(shown: Iterable[Shown], width: int) -> str:
    """`alpha 12 ✖0 ▲1 ·0  beta ↻1 40 ...  gamma 5 ended`: per server, its sessions taken together.

    A restarted server (↻N: N sessions after the first) counts its sessions' messages; it is
    ended when none of its sessions is live. Plain text, every name made visible.
    """
    by_name: dict[str, list[Shown]] = {}
    for session in shown:
        by_name.setdefault(visible_line(session.name) or "?", []).append(session)
    parts = []
    for name, sessions in by_name.items():
        name = name if len(name) <= SERVER_NAME_SHOWN else name[: SERVER_NAME_SHOWN - 1] + "…"
        by: Counter[Severity] = Counter()
        for session in sessions:
            by.update(session.by_severity)
        restarts = f" ↻{len(sessions) - 1}" if len(sessions) > 1 else ""
        counts = f"{sum(s.messages for s in sessions)} ✖{by[Severity.ERROR]} ▲{by[Severity.WARNING]}"
        ended = " ended" if all(s.ended for s in sessions) else ""
        parts.append(f"{name}{restarts} {counts}{ended}")
    line = "  ".join(parts) or "no live session yet: waiting for one to start"
    return line if len(line) <= width - 2 else line[: max(width - 3, 8)] + "…"


def now_in(session: Shown, live: bool, clock: Callable[[], float]) -> float:
    """Seconds since ``session`` began: by the clock while it is live, else its last line's time."""
    return session_now(live and not session.ended, session.snapshot.started_epoch, session.last_t, clock)


def pending_of_all(shown: Iterable[Shown], live: bool, clock: Callable[[], float]) -> list[PendingRow]:
    """Every session's in-flight requests, each named by its server, the oldest (by the clock) first."""
    rows: list[tuple[float, PendingRow]] = []
    for session in shown:
        snapshot = session.snapshot
        began = snapshot.started_epoch or 0.0
        now = now_in(session, live, clock)
        rows += [
            (began + row.exchange.sent_t, row)
            for row in pending_rows(snapshot.pending, now, snapshot.slow_after, session.name)
        ]
    rows.sort(key=lambda pair: pair[0])
    return [row for _, row in rows]


def bars_of_all(shown: Iterable[Shown]) -> list[Bar]:
    """Every session's newest exchanges on one clock (the wall clock's), each named by its server."""
    bars = [
        bar
        for session in shown
        for bar in bars_of(session.snapshot.exchanges, session.snapshot.started_epoch or 0.0, session.name)
    ]
    bars.sort(key=lambda bar: bar.sent)
    return bars
