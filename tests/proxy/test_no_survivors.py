"""No process outlives mcpspy: background children, setsid grandchildren, and a SIGKILLed mcpspy."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import MCPSPY, python_server, run_proxy

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and the subreaper")


def marker() -> str:
    """A sleep duration no other process has in its argv."""
    return f"{random.randint(1000, 9999)}.{random.randint(10**6, 10**7 - 1)}"


def with_marker(mark: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        if mark.encode() in cmdline.split(b"\0") and int(name) != os.getpid():
            try:  # a zombie has an empty cmdline; count only what runs
                state = Path(f"/proc/{name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state != b"Z":
                found.append(int(name))
    return found


def none_left(mark: str, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while with_marker(mark):
        if time.monotonic() > deadline:
            for pid in with_marker(mark):  # leave nothing behind for the next test either
                os.kill(pid, signal.SIGKILL)
            return False
        time.sleep(0.05)
    return True


def wait_for(path: Path, within: float = 15.0) -> None:
    deadline = time.monotonic() + within
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def test_a_background_child_in_the_servers_group_does_not_outlive_a_normal_exit(tmp_path: Path) -> None:
    mark = marker()
    server = ["sh", "-c", f"sleep {mark} >/dev/null 2>&1 </dev/null & echo started"]
    run = run_proxy(tmp_path, server, timeout=30)
    assert (run.returncode, run.stdout) == (0, b"started\n")
    assert none_left(mark)


def test_a_setsid_grandchild_does_not_outlive_a_normal_exit(tmp_path: Path) -> None:
    mark = marker()
    server = ["sh", "-c", f"setsid sleep {mark} >/dev/null 2>&1 </dev/null & sleep 0.3; echo started"]
    run = run_proxy(tmp_path, server, timeout=30)
    assert (run.returncode, run.stdout) == (0, b"started\n")
    assert none_left(mark)


def sigkill_mcpspy(tmp_path: Path, command: list[str], ready: Path) -> None:
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(tmp_path / "c.jsonl"), "--", *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(ready)
    finally:
        proc.kill()
        proc.wait(timeout=10)
        assert proc.stdin is not None
        proc.stdin.close()


def test_sigkill_of_mcpspy_leaves_no_server_that_ignores_sigterm(tmp_path: Path) -> None:
    mark = marker()
    ready = tmp_path / "ready"
    server = python_server(
        "import os, signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"open({str(ready)!r}, 'w').close()\n"
        f"os.execvp('sleep', ['sleep', {mark!r}])\n"
    )
    sigkill_mcpspy(tmp_path, server, ready)
    assert none_left(mark)


def test_sigkill_of_mcpspy_leaves_no_real_server_behind_sh_c(tmp_path: Path) -> None:
    mark = marker()
    ready = tmp_path / "ready"
    server = ["sh", "-c", f"trap '' TERM; touch {ready}; sleep {mark}; echo after"]
    sigkill_mcpspy(tmp_path, server, ready)
    assert none_left(mark)


def test_sigkill_of_mcpspy_leaves_no_setsid_grandchild_of_a_live_server(tmp_path: Path) -> None:
    mark = marker()
    ready = tmp_path / "ready"
    server = python_server(
        "import signal, subprocess, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"subprocess.Popen(['sleep', {mark!r}], start_new_session=True)\n"
        f"open({str(ready)!r}, 'w').close()\n"
        "time.sleep(60)\n"
    )
    sigkill_mcpspy(tmp_path, server, ready)
    assert none_left(mark)


def test_sigkill_of_mcpspy_leaves_no_setsid_grandchild_of_a_server_that_dies_on_sigterm(
    tmp_path: Path,
) -> None:
    """The server's tree is known to the watchdog before the server dies (it used to die first, 3 of 3)."""
    mark = marker()
    ready = tmp_path / "ready"
    server = python_server(
        "import subprocess, time\n"
        f"subprocess.Popen(['sleep', {mark!r}], start_new_session=True)\n"
        f"open({str(ready)!r}, 'w').close()\n"
        "time.sleep(60)\n"
    )
    sigkill_mcpspy(tmp_path, server, ready)
    assert none_left(mark)


def test_sigkill_of_mcpspy_leaves_no_orphan_re_parented_to_mcpspy(tmp_path: Path) -> None:
    """A setsid grandchild whose parent already exited is mcpspy's child (the subreaper's) when it dies."""
    mark = marker()
    ready = tmp_path / "ready"
    server = [
        "sh",
        "-c",
        f"sh -c 'setsid sleep {mark} >/dev/null 2>&1 </dev/null &'; sleep 1; touch {ready}; sleep 60",
    ]
    sigkill_mcpspy(tmp_path, server, ready)
    assert none_left(mark)
