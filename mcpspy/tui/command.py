"""`mcpspy watch` and `mcpspy view`: find the capture, then open the TUI on it."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mcpspy.capture.format import CaptureFormatError, decode_header
from mcpspy.capture.locate import CaptureNotFound, locate_capture
from mcpspy.capture.sessions import SessionInfo, find_session, list_sessions, read_session, search_dirs
from mcpspy.exit_codes import EXIT_BUG, fail
from mcpspy.options import add_home_option

WAIT_POLL = 0.2


def on_a_terminal() -> bool:
    return sys.stdout.isatty() and sys.stdin.isatty()


NOT_A_TERMINAL = "the TUI needs a terminal; on a pipe or in CI use `mcpspy report` (text, --json, --markdown)"


def _open(
    path: Path, live: bool, dirs: list[Path], follow_restarts: bool = False, all_live: bool = False
) -> int:
    from mcpspy.tui.app import InspectorApp

    app = InspectorApp(path, live=live, session_dirs=dirs, follow_restarts=follow_restarts, all_live=all_live)
    app.run()
    return EXIT_BUG if app.return_code else 0  # Textual has shown the traceback


def add_view_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", help="a capture file, session id or name (default: newest)")
    add_home_option(parser)


def run_view(args: argparse.Namespace) -> int:
    try:
        path = locate_capture(args.file, args.home)
        with path.open("rb") as f:
            decode_header(f.readline(1 << 20))
    except CaptureNotFound as exc:
        return fail("mcpspy view", str(exc))
    except OSError as exc:
        return fail("mcpspy view", f"{exc.filename or args.file}: {exc.strerror}")
    except CaptureFormatError as exc:
        return fail("mcpspy view", f"{path}: {exc}")
    if not on_a_terminal():
        return fail("mcpspy view", NOT_A_TERMINAL)
    return _open(path, live=False, dirs=search_dirs(args.home))


def add_watch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("session", nargs="?", help="session id, name or capture path (default: newest live)")
    parser.add_argument(
        "--all",
        action="store_true",
        help="every live session at once, merged as lines arrive, with a server column; new ones join",
    )
    add_home_option(parser)


def run_watch(args: argparse.Namespace) -> int:
    """The newest live session (a picker when several are); when none is live, the finished ones.

    The TUI then follows the server across restarts: when the session ends and a
    new one starts, it shows the new one.
    """
    if not on_a_terminal():
        return fail("mcpspy watch", NOT_A_TERMINAL)
    dirs = search_dirs(args.home)
    if getattr(args, "all", False):  # a caller of run_watch may build args without it
        if args.session:
            return fail("mcpspy watch", "--all shows every live session: name none")
        return _open(dirs[0], True, dirs, all_live=True)
    if args.session:
        found = find_session(args.session, dirs)
        if found is None:
            return fail("mcpspy watch", f"no session {args.session!r} in {', '.join(map(str, dirs))}")
        return _open(found.path, found.live, dirs, follow_restarts=True)
    sessions = list_sessions(dirs)
    live = [s for s in sessions if s.live]
    if len(live) == 1:
        return _open(live[0].path, True, dirs, follow_restarts=True)
    if live or sessions:
        return _pick(live or sessions, dirs, none_live=not live)
    print(
        f"mcpspy watch: waiting for a session in {', '.join(map(str, dirs))} (Ctrl+C to stop)",
        file=sys.stderr,
    )
    known = {s.path for s in sessions}
    try:
        while True:
            time.sleep(WAIT_POLL)
            fresh = [s for s in list_sessions(dirs) if s.path not in known]
            if fresh:
                return _open(fresh[-1].path, fresh[-1].live, dirs, follow_restarts=True)
    except KeyboardInterrupt:
        return 130


def _pick(sessions: list[SessionInfo], dirs: list[Path], none_live: bool) -> int:
    """Several live sessions: pick one. None live: pick a finished one, or wait for a new one."""
    from mcpspy.tui.picker import SessionPicker

    if none_live:
        title = f"no session is live; {len(sessions)} finished: pick one (enter), or wait here for a new one"
        picker = SessionPicker(list(reversed(sessions)), title=title, wait_in=dirs)
    else:
        picker = SessionPicker(list(reversed(sessions)))
    chosen = picker.run()
    if chosen is None:
        return 0
    info = read_session(chosen)
    return _open(chosen, info is not None and info.live, dirs, follow_restarts=True)
