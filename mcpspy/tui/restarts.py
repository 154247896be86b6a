"""Following a server across restarts, as `tail -F` follows a log across rotations. No Textual.

Clients start a new server process on every reconnect, and each process is a
new session (a new capture). ``NextSession`` watches the sessions directories
for captures that appear after the followed one was opened, and once the
followed session has ended names the one to switch to: the newest of the same
server name, or, when none has come within ``OTHER_NAME_AFTER`` seconds of the
end, the newest of any name. A capture is read (its header) once, when it
appears; files that existed when the followed session was opened are never
candidates, so opening an old session does not jump to a newer one.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from mcpspy.capture.sessions import SessionInfo, read_session

OTHER_NAME_AFTER = 2.0  # seconds after the end to wait for the same server before taking another
POLL = 0.25  # seconds between looks at the directories


def captures_in(dirs: Iterable[Path]) -> set[Path]:
    """Every capture file in ``dirs`` (names only: nothing is read)."""
    found: set[Path] = set()
    for directory in dirs:
        try:
            found.update(path.resolve() for path in directory.glob("*.jsonl"))
        except OSError:
            continue
    return found


class NextSession:
    """What to follow once ``current`` ends; ``poll`` is called from a worker thread."""

    def __init__(self, dirs: list[Path], current: SessionInfo) -> None:
        self.dirs = dirs
        self.current = current
        self._seen = captures_in(dirs) | {current.path.resolve()}
        self._newer: list[SessionInfo] = []  # appeared since, and started after the current one
        self.ended_at: float | None = None

    def still_live(self) -> bool:
        """Whether the current session's proxy is still running (a killed one never says it stopped)."""
        info = read_session(self.current.path)
        return info is not None and info.live

    def look(self) -> None:
        """Read the header of each capture that appeared since the last look (once it has one)."""
        for path in sorted(captures_in(self.dirs) - self._seen):
            info = read_session(path)
            if info is None:
                continue  # its header is not written yet: look again next time
            self._seen.add(path)
            if info.header.started >= self.current.header.started:
                self._newer.append(info)

    def choose(self, now: float) -> SessionInfo | None:
        """Once the current session has ended (at ``ended_at``), the session to follow, if any yet."""
        if self.ended_at is None or not self._newer:
            return None
        newest_first = sorted(self._newer, key=lambda s: (s.header.started, s.path.name), reverse=True)
        same = [s for s in newest_first if s.header.name == self.current.header.name]
        if same:
            return same[0]
        return newest_first[0] if now - self.ended_at >= OTHER_NAME_AFTER else None

    def poll(self, ended: bool, now: float) -> SessionInfo | None:
        """One look; ``ended``: the app read the end of the current session (or it is no longer live)."""
        if ended and self.ended_at is None:
            self.ended_at = now
        self.look()
        return self.choose(now)
