"""Headless Chromium (Debian's /usr/bin/chromium) for the HTML report's tests, benchmark and screenshot."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",  # as root, in CI
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def run_chromium(page: Path, *args: str, fragment: str = "", timeout: float = 120) -> str:
    """Open ``page`` (a file) with a fresh profile; what Chromium printed on stdout."""
    binary = chromium()
    assert binary is not None, "chromium is not installed (apt-get install chromium)"
    with tempfile.TemporaryDirectory(prefix="mcpspy-chromium-") as profile:
        done = subprocess.run(
            [binary, *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri() + fragment],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def dump_dom(page: Path, fragment: str = "") -> str:
    """The DOM after the page's scripts ran (``--dump-dom``)."""
    return run_chromium(page, "--dump-dom", fragment=fragment)


def screenshot(page: Path, out: Path, width: int = 1200, height: int = 900) -> Path:
    run_chromium(
        page, f"--screenshot={out.resolve()}", f"--window-size={width},{height}", "--hide-scrollbars"
    )
    return out
