"""`mcpspy watch`, `mcpspy view` and `mcpspy sessions`."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import orjson

from mcpspy.capture.format import CaptureFormatError, decode_header
from mcpspy.capture.sessions import find_session, list_sessions, search_dirs
from mcpspy.tui.sessions import as_json, describe, summarize

WAIT_POLL = 0.2


def _error(message: str, prog: str) -> int:
    print(f"{prog}: {message}", file=sys.stderr)
    return 2


def _open(path: Path, live: bool) -> int:
    from mcpspy.tui.app import InspectorApp

    InspectorApp(path, live=live).run()
    return 0


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


def run_sessions(args: argparse.Namespace) -> int:
    """Each session: started, live or ended, messages and findings by severity, name, command, path."""
    if args.prune:
        from mcpspy.capture.retention import run_prune

        return run_prune(args)
    problems: list[str] = []
    summaries = [summarize(s) for s in list_sessions(search_dirs(args.home), problems)]
    for problem in problems:  # a file that is not a capture: one line each, the others still listed
        print(f"mcpspy sessions: skipped {problem}", file=sys.stderr)
    if args.json:
        sys.stdout.write(orjson.dumps([as_json(s) for s in summaries], option=orjson.OPT_INDENT_2).decode())
        sys.stdout.write("\n")
        return 0
    if not summaries:
        print(f"no sessions in {', '.join(map(str, search_dirs(args.home)))}")
        return 0
    for s in summaries:
        print(f"{describe(s)}  {s.info.path}")
    return 0
