"""Which session an agent means, and its analysis, read as every view reads a capture.

A session is named by its id, its name (the newest of that name) or its
capture's path, as ``report`` names it; no name means the newest session. A
capture still being written is replayed without being concluded (its requests
may yet be answered), as the TUI does; a finished one is concluded, and its
analysis kept while the file is unchanged (agents ask several questions of one
session in a row).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.sessions import SessionInfo, find_session, list_sessions, read_session, search_dirs
from mcpspy.model.summary import Summary, build_summary
from mcpspy.replay_policy import open_capture
from mcpspy.terminal import visible_line

KEPT = 8  # finished sessions whose analysis is kept


class ToolInputError(Exception):
    """Bad input from the agent: the one sentence its tool error says."""


@dataclass(frozen=True)
class Opened:
    info: SessionInfo
    summary: Summary


def shown_ref(ref: str) -> str:
    """The agent's own words, quoted back in an error: one line, at most 80 characters."""
    ref = visible_line(ref)
    return repr(ref if len(ref) <= 80 else ref[:79] + "…")


class SessionStore:
    """The sessions directory (``--home``, else the defaults) and the analyses read from it."""

    def __init__(self, home: str | None) -> None:
        self.home = home
        self._kept: OrderedDict[tuple[Path, int, int], Summary] = OrderedDict()
        self._lock = threading.Lock()  # tools run on worker threads, several at once

    def dirs(self) -> list[Path]:
        return search_dirs(self.home)

    def all(self) -> list[SessionInfo]:
        """Every session, oldest first."""
        return list_sessions(self.dirs())

    def find(self, ref: str | None) -> SessionInfo:
        """The session ``ref`` names, or the newest; ToolInputError when there is none."""
        if ref is None or ref == "":
            sessions = self.all()
            if not sessions:
                raise ToolInputError("There are no sessions yet in the sessions directory.")
            return sessions[-1]
        path = Path(ref).expanduser()
        if os.sep in ref or path.suffix == ".jsonl":
            if not path.is_file():
                raise ToolInputError(f"No capture file exists at {shown_ref(ref)}.")
            info = read_session(path)
            if info is None:
                raise ToolInputError(f"The file {shown_ref(ref)} is not an mcpspy capture.")
            return info
        info = find_session(ref, self.dirs())
        if info is None:
            raise ToolInputError(f"No session has the id or name {shown_ref(ref)}; list_sessions lists them.")
        return info

    def open(self, ref: str | None) -> Opened:
        info = self.find(ref)
        return Opened(info, self.summary(info))

    def summary(self, info: SessionInfo) -> Summary:
        """The session's analysis; a live one afresh each time, a finished one kept while unchanged."""
        try:
            stat = info.path.stat()
        except OSError as exc:
            raise ToolInputError(f"The capture {info.path} cannot be read: {exc.strerror or exc}.") from None
        key = (info.path, stat.st_size, stat.st_mtime_ns)
        with self._lock:
            if not info.live and key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        try:
            opened = open_capture(info.path)
        except OSError as exc:
            raise ToolInputError(f"The capture {info.path} cannot be read: {exc.strerror or exc}.") from None
        except CaptureFormatError:
            raise ToolInputError(f"The file {info.path} is not a capture this mcpspy can read.") from None
        summary = build_summary(opened.capture, info.path, opened.analyzer)
        if not opened.live:
            with self._lock:
                self._kept[key] = summary
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
        return summary
