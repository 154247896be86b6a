"""What `mcpspy sessions` and the TUI's session picker say about each session. No Textual here.

Message and finding counts come from replaying the capture through the
Analyzer, as every view does (nothing derived is stored in a capture).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from mcpspy.analysis.model import Severity
from mcpspy.capture.cache import CaptureCache, is_count, is_counts
from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.sessions import SessionInfo
from mcpspy.model.exchanges import server_info
from mcpspy.replay_policy import open_capture
from mcpspy.terminal import visible_line

COMMAND_WIDTH = 48


@dataclass(frozen=True)
class SessionCounts:
    info: SessionInfo
    messages: int | None = None  # None: not counted (yet), or unreadable
    findings: Counter[Severity] = field(default_factory=Counter)
    server: str | None = None  # the name the server gave itself (serverInfo), once it has

    @property
    def name(self) -> str:
        """The server's own name once seen (with the session's, when that differs), else the session's."""
        own = self.info.header.name
        return own if self.server in (None, own) else f"{self.server} ({own})"


def count_session(info: SessionInfo) -> SessionCounts:
    """Count the session's messages and findings as `report` does (``open_capture``)."""
    try:
        analyzer = open_capture(info.path).analyzer
    except (OSError, CaptureFormatError):
        return SessionCounts(info)
    named = server_info(analyzer).get("name")
    server = named if isinstance(named, str) and named.strip() else None
    return SessionCounts(info, len(analyzer.messages), Counter(f.severity for f in analyzer.findings), server)


def count_sessions(infos: list[SessionInfo], sessions_dir: Path | None) -> list[SessionCounts]:
    """``count_session`` for each, a finished session's counts cached by its file's size and mtime.

    A live session is counted afresh each time: it grows, and it is concluded once it ends.
    """
    out: list[SessionCounts] = []
    with CaptureCache.open("sessions", sessions_dir, version=2) as cache:  # 2: the server's own name
        for info in infos:
            if info.live:
                out.append(count_session(info))
                continue
            value: Any = cache.get(info.path, partial(_counts_json, info), _valid_counts)
            if not isinstance(value, dict):
                out.append(SessionCounts(info))
                continue
            findings = Counter({sev: int(value["findings"].get(sev.label, 0)) for sev in Severity})
            server = value.get("server")
            out.append(
                SessionCounts(
                    info, int(value["messages"]), +findings, server if isinstance(server, str) else None
                )
            )
    return out


def _valid_counts(value: Any) -> bool:
    """Whether a cached value is what ``_counts_json`` gives."""
    if value is None:
        return True
    if not isinstance(value, dict) or not is_count(value.get("messages")):
        return False
    server = value.get("server")
    return is_counts(value.get("findings")) and (server is None or isinstance(server, str))


def _counts_json(info: SessionInfo, path: Path) -> dict[str, Any] | None:
    s = count_session(info)
    if s.messages is None:
        return None
    return {
        "messages": s.messages,
        "findings": {sev.label: s.findings[sev] for sev in Severity},
        "server": s.server,
    }


def started_text(started: str) -> str:
    try:
        return datetime.fromisoformat(started.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return started


def counts_text(s: SessionCounts) -> str:
    """`   42 msgs  ✖ 1 ▲ 0 · 3`, or dots while not counted."""
    if s.messages is None:
        return f"{'…':>6} msgs  {'':10}"
    by = s.findings
    marks = " ".join(f"{sev.mark}{by[sev]:>2}" for sev in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    return f"{s.messages:>6} msgs  {marks}"


def session_line(s: SessionCounts, command_below: bool = False) -> str:
    """Started, live or ended, counts, name, command: one line, or two (for 80 columns).

    The name and command come from the capture: controls in them are made visible.
    """
    header = s.info.header
    name = visible_line(s.name)
    command = visible_line(" ".join(header.command))
    head = f"{started_text(header.started)}  {'live ' if s.info.live else 'ended'}  {counts_text(s)}  "
    if command_below:  # 80 columns: the server's own name on top, the session's beside its command
        if s.server not in (None, header.name):
            name, command = visible_line(s.server or ""), f"{visible_line(header.name)}: {command}"
        return f"{head}{name}\n    {command}"
    if len(command) > COMMAND_WIDTH:
        command = command[: COMMAND_WIDTH - 1] + "…"
    return f"{head}{name:<16} {command:<{COMMAND_WIDTH}}"


def session_json(s: SessionCounts) -> dict[str, object]:
    header = s.info.header
    return {
        "session": s.info.session,
        "name": header.name,
        "server": s.server,
        "command": list(header.command),
        "started": header.started,
        "live": s.info.live,
        "path": str(s.info.path),
        "messages": s.messages,
        "findings": {sev.label: s.findings[sev] for sev in Severity},
    }
