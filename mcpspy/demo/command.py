"""`mcpspy demo`: the planted-bug helpdesk behind the real proxy, then its report or the TUI.

The capture goes into the sessions directory (--home, else the default), so
`mcpspy watch`, `view` and `report` find it afterwards like any other session.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from mcpspy.capture.sessions import default_sessions_dir, ensure_private_dir, session_file_name
from mcpspy.demo.client import run_script


def capture_path(home: str | None) -> Path:
    directory = Path(home).expanduser() if home else default_sessions_dir()
    ensure_private_dir(directory)
    return directory / session_file_name(datetime.now(UTC), "helpdesk-demo", os.getpid())


def _report(path: Path) -> int:
    """Print the report through the real `mcpspy report`, as a user would run it."""
    done = subprocess.run([sys.executable, "-m", "mcpspy", "report", str(path), "--fail-on", "never"])
    return done.returncode


def _open_tui(path: Path, client: threading.Thread) -> int | None:
    """Follow the live capture in the TUI while the client plays; None when there is no TUI."""
    try:
        app_module = importlib.import_module("mcpspy.tui.app")
    except ImportError:
        return None
    app_class = getattr(app_module, "SpyApp", None) or getattr(app_module, "InspectorApp", None)
    if app_class is None:
        return None
    client.start()
    for _ in range(200):  # the proxy writes the capture's header as it starts
        if path.exists() and b"\n" in path.read_bytes()[:65536]:
            break
        time.sleep(0.05)
    app_class(path, live=True).run()
    return 0


def run(args: argparse.Namespace) -> int:
    path = capture_path(args.home)
    where = ["--capture", str(path)]
    if not args.no_tui:
        client = threading.Thread(target=run_script, args=(where,), kwargs={"quiet": True}, daemon=True)
        code = _open_tui(path, client)
        if code is not None:
            return code
        print("mcpspy demo: the TUI is not installed here; printing the report instead", file=sys.stderr)
    run_script(where)
    code = _report(path)
    print(f"capture: {path}  (open it with: mcpspy view {path})", file=sys.stderr)
    return code
