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
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.header_format import epoch_of
from mcpspy.capture.reader import Capture, CaptureReader, read_capture
from mcpspy.capture.sessions import SessionInfo, find_session, list_sessions, read_session, search_dirs
from mcpspy.model.summary import Summary, build_summary
from mcpspy.replay_policy import replay_records
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


def replayed(info: SessionInfo, clock: Callable[[], float] = time.time) -> tuple[Capture, Analyzer]:
    """The capture and its analysis, as ``report`` reads a finished one and the TUI a live one.

    Live: a last line still being written is left for later (not a torn end), and
    requests are judged slow by the clock, as the TUI's live view judges them.
    """
    if not info.live:
        capture = read_capture(info.path)
        return capture, replay_records(capture.records).analyzer
    with CaptureReader(info.path) as reader:
        records = reader.poll()
        if reader.header is None:
            raise CaptureFormatError(f"{info.path}: no header line yet")
        replay = replay_records(records, conclude=False)
        started = epoch_of(reader.header.started)
        if started is not None:
            replay.tick(clock() - started)
        return Capture(reader.header, records, list(reader.problems)), replay.analyzer


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
            capture, analyzer = replayed(info)
        except OSError as exc:
            raise ToolInputError(f"The capture {info.path} cannot be read: {exc.strerror or exc}.") from None
        except CaptureFormatError:
            raise ToolInputError(f"The file {info.path} is not a capture this mcpspy can read.") from None
        summary = build_summary(capture, info.path, analyzer)
        if not info.live:
            with self._lock:
                self._kept[key] = summary
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
        return summary
