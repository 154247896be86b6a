"""Which capture a command means: a path, a session id or name, or the newest session."""

from __future__ import annotations

from pathlib import Path

from mcpspy.capture.sessions import find_session, list_sessions, search_dirs


class CaptureNotFound(Exception):
    """The message is the one line the user sees."""


def locate_capture(ref: str | None, home: str | None) -> Path:
    dirs = search_dirs(home)
    if ref is None:
        sessions = list_sessions(dirs)
        if not sessions:
            raise CaptureNotFound(f"no sessions found in {', '.join(str(d) for d in dirs)}")
        return sessions[-1].path
    path = Path(ref).expanduser()
    if path.exists():
        if not path.is_file():
            raise CaptureNotFound(f"{ref}: not a file")
        return path
    info = find_session(ref, dirs)
    if info is None:
        raise CaptureNotFound(f"{ref}: no such file, and no session by that id or name")
    return info.path
