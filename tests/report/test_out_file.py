"""``--out FILE`` of report and check: 0600 whatever the umask, never through a symlink."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.conftest import MCPSPY


def capture(tmp_path: Path) -> Path:
    path = tmp_path / "c.jsonl"
    header = {"format": "1.1", "session": "20261204T000000.000Z-x-1", "command": ["x"]}
    path.write_text(json.dumps(header) + "\n")
    return path


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*MCPSPY, *args],
        capture_output=True,
        timeout=120,
        preexec_fn=lambda: os.umask(0),
        stdin=subprocess.DEVNULL,
    )


def test_report_out_is_private_and_replaces_a_file_of_the_users(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    proc = run("report", str(capture(tmp_path)), "--format", "html", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and out.read_bytes().startswith(b"<!DOCTYPE html>")
    out.write_text("old")
    out.chmod(0o644)
    assert run("report", str(capture(tmp_path)), "--out", str(out)).returncode == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and out.read_text() != "old"


def test_report_out_never_writes_through_a_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    link = tmp_path / "report.txt"
    link.symlink_to(victim)
    proc = run("report", str(capture(tmp_path)), "--out", str(link))
    assert proc.returncode == 2 and proc.stderr.count(b"\n") == 1 and b"symlink" in proc.stderr
    assert victim.read_text() == "precious" and link.is_symlink()


def test_report_out_to_a_device_writes_to_it(tmp_path: Path) -> None:
    proc = run("report", str(capture(tmp_path)), "--out", os.devnull)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)  # still the device


def test_check_out_never_writes_through_a_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    link = tmp_path / "check.json"
    link.symlink_to(victim)
    server = [sys.executable, "-c", "pass"]
    proc = run(
        "check",
        "--era",
        "modern",
        "--timeout",
        "0.5",
        "--format",
        "json",
        "--out",
        str(link),
        "--home",
        str(tmp_path),
        "--",
        *server,
    )
    assert proc.returncode == 2 and b"symlink" in proc.stderr
    assert victim.read_text() == "precious"
