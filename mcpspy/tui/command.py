"""Entry points for `mcpspy watch`, `mcpspy view` and `mcpspy sessions`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from mcpspy.capture.format import CaptureFormatError, decode_header
from mcpspy.capture.sessions import SessionInfo, find_session, list_sessions, search_dirs

WAIT_POLL = 0.2


def _check_capture(path: Path) -> str | None:
    """Why the file cannot be opened, or None."""
    try:
        with path.open("rb") as f:
            decode_header(f.readline(1 << 20))
    except OSError as exc:
        return str(exc)
    except CaptureFormatError as exc:
        return str(exc)
    return None


def run_view(args: argparse.Namespace) -> int:
    from mcpspy.tui.app import SpyApp

    path = Path(args.file)
    problem = _check_capture(path)
    if problem:
        print(f"mcpspy view: {path}: {problem}", file=sys.stderr)
        return 2
    SpyApp(path, live=False).run()
    return 0


def _newest_live(dirs: list[Path]) -> SessionInfo | None:
    live = [s for s in list_sessions(dirs) if s.live]
    return live[-1] if live else None


def run_watch(args: argparse.Namespace) -> int:
    from mcpspy.tui.app import SpyApp

    dirs = search_dirs(getattr(args, "home", None))
    if args.session:
        info = find_session(args.session, dirs)
        if info is None:
            print(f"mcpspy watch: no session matches {args.session!r}", file=sys.stderr)
            return 2
    else:
        info = _newest_live(dirs)
        if info is None:
            print("mcpspy watch: waiting for a session to start…", file=sys.stderr)
            while info is None:
                time.sleep(WAIT_POLL)
                info = _newest_live(dirs)
    SpyApp(info.path, live=info.live).run()
    return 0


def run_sessions(args: argparse.Namespace) -> int:
    sessions = list_sessions(search_dirs(getattr(args, "home", None)))
    if getattr(args, "json", False):
        rows = [{"session": s.session, "name": s.header.name, "started": s.header.started,
                 "command": list(s.header.command), "live": s.live, "path": str(s.path)} for s in sessions]
        print(json.dumps(rows, indent=2))
        return 0
    if not sessions:
        print("no sessions")
        return 0
    for s in sessions:
        state = "live " if s.live else "ended"
        print(f"{s.header.started}  {state}  {s.session}  {' '.join(s.header.command)}  {s.path}")
    return 0
