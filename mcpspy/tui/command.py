"""`mcpspy watch` and `mcpspy view`: find the capture, then open the TUI on it."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mcpspy.capture.format import CaptureFormatError, decode_header
from mcpspy.capture.sessions import find_session, list_sessions, search_dirs
from mcpspy.exit_codes import EXIT_BUG
from mcpspy.options import add_home_option

WAIT_POLL = 0.2


def _error(message: str, prog: str) -> int:
    print(f"{prog}: {message}", file=sys.stderr)
    return 2


def _open(path: Path, live: bool) -> int:
    from mcpspy.tui.app import InspectorApp

    app = InspectorApp(path, live=live)
    app.run()
    return EXIT_BUG if app.return_code else 0  # Textual has shown the traceback


def add_view_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a capture file (.jsonl)")


def run_view(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        with path.open("rb") as f:
            decode_header(f.readline(1 << 20))
    except OSError as exc:
        return _error(f"{path}: {exc.strerror}", "mcpspy view")
    except CaptureFormatError as exc:
        return _error(f"{path}: {exc}", "mcpspy view")
    return _open(path, live=False)


def add_watch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("session", nargs="?", help="session id, name or capture path (default: newest live)")
    add_home_option(parser)


def run_watch(args: argparse.Namespace) -> int:
    dirs = search_dirs(args.home)
    if args.session:
        found = find_session(args.session, dirs)
        if found is None:
            return _error(f"no session {args.session!r} in {', '.join(map(str, dirs))}", "mcpspy watch")
        return _open(found.path, live=found.live)
    live = [s for s in list_sessions(dirs) if s.live]
    if len(live) > 1:
        from mcpspy.tui.picker import SessionPicker

        chosen = SessionPicker(list(reversed(live))).run()
        return 0 if chosen is None else _open(chosen, live=True)
    if live:
        return _open(live[-1].path, live=True)
    known = {s.path for s in list_sessions(dirs)}
    print(
        f"mcpspy watch: waiting for a session in {', '.join(map(str, dirs))} (Ctrl+C to stop)",
        file=sys.stderr,
    )
    try:
        while True:
            time.sleep(WAIT_POLL)
            fresh = [s for s in list_sessions(dirs) if s.path not in known]
            if fresh:
                return _open(fresh[-1].path, live=True)
    except KeyboardInterrupt:
        return 130
