"""`mcpspy demo`: the planted-bug helpdesk behind the real proxy, then its report or the TUI.

The capture goes into the sessions directory (--home, else the default), so
`mcpspy watch`, `view` and `report` find it afterwards like any other session.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from mcpspy.capture.private import CaptureRefused
from mcpspy.capture.sessions import default_sessions_dir, ensure_private_dir, session_file_name
from mcpspy.demo.client import run_script
from mcpspy.exit_codes import EXIT_BUG, fail
from mcpspy.options import add_home_option
from mcpspy.terminal import visible_line
from mcpspy.tui.command import NOT_A_TERMINAL, on_a_terminal


def capture_path(home: str | None) -> Path:
    directory = Path(home).expanduser() if home else default_sessions_dir()
    ensure_private_dir(directory)
    return directory / session_file_name(datetime.now(UTC), "helpdesk-demo", os.getpid())


def _report(path: Path) -> int:
    """Print the report through the real `mcpspy report`, as a user would run it."""
    done = subprocess.run([sys.executable, "-m", "mcpspy", "report", str(path), "--fail-on", "never"])
    return done.returncode


def start_demo(path: Path) -> threading.Thread:
    """Play the scripted client in the background; return once the capture has its header."""
    client = threading.Thread(
        target=run_script, args=(["--capture", str(path)],), kwargs={"quiet": True}, daemon=True
    )
    client.start()
    for _ in range(200):  # the proxy writes the capture's header as it starts
        if path.exists() and b"\n" in path.read_bytes()[:65536]:
            break
        time.sleep(0.05)
    return client


def _open_tui(path: Path) -> int:
    """Follow the live capture in the TUI while the client plays."""
    from mcpspy.tui.app import InspectorApp

    start_demo(path)
    app = InspectorApp(path, live=True)
    app.run()
    if app.return_code:
        return EXIT_BUG  # Textual has shown the traceback
    print(closing_pointer(path), file=sys.stderr)
    return 0


def closing_pointer(path: Path) -> str:
    """The line left on the terminal once the TUI is gone: where the session is, and how to read it again."""
    shown = shlex.quote(visible_line(str(path)))
    return f"mcpspy demo: the session is saved in {shown}; its findings: mcpspy report {shown}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-tui", action="store_true", help="print the report instead of opening the TUI")
    add_home_option(parser)


def run(args: argparse.Namespace) -> int:
    if not args.no_tui and not on_a_terminal():
        return fail("mcpspy demo", f"{NOT_A_TERMINAL}; or `mcpspy demo --no-tui`")
    try:
        path = capture_path(args.home)
    except (CaptureRefused, OSError) as exc:
        return fail("mcpspy demo", str(exc))
    where = ["--capture", str(path)]
    if not args.no_tui:
        return _open_tui(path)
    run_script(where)
    code = _report(path)
    print(f"capture: {path}  (open it with: mcpspy view {path})", file=sys.stderr)
    return code
