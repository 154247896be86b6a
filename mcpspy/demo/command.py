"""`mcpspy demo`: the planted-bug helpdesk behind the real proxy, then its report or the TUI."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from mcpspy.demo.client import run_script


def _report(path: Path) -> int:
    """Print the report through the real `mcpspy report`, as a user would run it."""
    done = subprocess.run([sys.executable, "-m", "mcpspy", "report", str(path), "--fail-on", "never"])
    return done.returncode


def _open_tui(path: Path, client: threading.Thread) -> int | None:
    """Open the TUI on the live capture, if the TUI is there; None when it is not."""
    try:
        watch = importlib.import_module("mcpspy.tui.command").run_watch
    except (ImportError, AttributeError):
        return None
    path.touch()
    client.start()
    return int(watch(argparse.Namespace(session=str(path), home=None)))


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="mcpspy-demo-") as scratch:
        if args.home:
            Path(args.home).mkdir(parents=True, exist_ok=True)
            path = Path(tempfile.mkstemp(prefix="demo-", suffix=".jsonl", dir=args.home)[1])
        else:
            path = Path(scratch) / "demo.jsonl"
        where = ["--capture", str(path)]
        if not args.no_tui:
            client = threading.Thread(target=run_script, args=(where,), daemon=True)
            code = _open_tui(path, client)
            if code is not None:
                return code
            print("mcpspy demo: the TUI is not available; printing the report", file=sys.stderr)
        run_script(where)
        code = _report(path)
        if args.home:
            print(f"capture: {path}  (mcpspy view {path})", file=sys.stderr)
        return code
