"""The exit policy's other timers, a client that stops reading, and fd 2 shared with the server."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Stream
from tests.conftest import MCPSPY, python_server, run_proxy


def lifecycle(capture_path: Path) -> list[LifecycleRecord]:
    return [r for r in read_capture(capture_path).records if isinstance(r, LifecycleRecord)]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_child_holding_the_servers_pipes_is_killed_after_the_drain(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    server = python_server(
        "import subprocess, sys\n"
        f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "sys.stdout.write('parent done\\n'); sys.stdout.flush()\n"
        "sys.exit(3)\n"
    )
    started = time.monotonic()
    run = run_proxy(tmp_path, server, stdin=b"", timeout=30)
    took = time.monotonic() - started
    assert (run.returncode, run.stdout) == (3, b"parent done\n")
    assert took < 20  # the drain (2 s), not the child's 60 s
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while not gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(child)
    exited = [
        r for r in run.capture.records if isinstance(r, LifecycleRecord) and r.event is Event.SERVER_EXITED
    ]
    assert exited[0].details == {"code": 3}


def test_a_signal_the_server_ignores_is_followed_by_a_kill(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    server = python_server(
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "sys.stdout.write('ready\\n'); sys.stdout.flush()\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(capture), "--exit-grace", "0.3", "--", *server],
        stdin=subprocess.PIPE,  # kept open: no grace watchdog, only the kill timer
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b"ready\n"
    signalled = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    assert proc.stdout.read() == b""
    assert proc.wait(timeout=20) == 128 + signal.SIGKILL
    assert time.monotonic() - signalled >= 0.3 + 2.0  # exit_grace + KILL_AFTER
    assert proc.stderr.read() == b""
    events = [r.event for r in lifecycle(capture)]
    assert events[events.index(Event.SIGNAL_FORWARDED) :] == [
        Event.SIGNAL_FORWARDED,
        Event.SERVER_KILLED,
        Event.SERVER_EXITED,
        Event.PROXY_STOPPED,
    ]


def test_a_client_that_stops_reading_stdout_leaves_the_server_recorded(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    server = python_server(
        "import sys, time\n"
        "sys.stdout.write('first\\n'); sys.stdout.flush()\n"
        "sys.stdin.readline()\n"  # the client has closed its end of our stdout by now
        "for i in range(3):\n"
        "    sys.stdout.write(f'unread {i}\\n'); sys.stdout.flush(); time.sleep(0.05)\n"
        "sys.exit(5)\n"
    )
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(capture), "--", *server],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    assert proc.stdout.readline() == b"first\n"
    proc.stdout.close()
    proc.stdin.write(b"go\n")
    proc.stdin.close()
    assert proc.wait(timeout=20) == 5
    assert proc.stderr is not None and proc.stderr.read() == b""
    records = read_capture(capture).records
    served = [r.data for r in records if isinstance(r, LineRecord) and r.stream is Stream.S2C]
    assert served == [b"first", b"unread 0", b"unread 1", b"unread 2"]
    gone_events = [r for r in records if isinstance(r, LifecycleRecord) and r.event is Event.CLIENT_GONE]
    assert len(gone_events) == 1 and gone_events[0].details["error"]


def test_our_log_lines_wait_for_the_end_of_a_server_stderr_line(tmp_path: Path) -> None:
    """A --log line due while the server is mid-line on stderr goes out after that line, never inside it."""
    server = python_server(
        "import sys, time\n"
        "for line in sys.stdin:\n"
        "    sys.stderr.write('Traceback: '); sys.stderr.flush()\n"
        "    sys.stdout.write(line); sys.stdout.flush()\n"  # --log writes a line for this meanwhile
        "    time.sleep(0.3)\n"
        "    sys.stderr.write('boom\\n'); sys.stderr.flush()\n"
        "sys.stderr.write('no newline at the end')\n"
    )
    request = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    run = run_proxy(tmp_path, server, stdin=request, options=["--log", "-"])
    assert run.returncode == 0 and run.stdout == request
    text = run.stderr.decode()
    assert text.count("Traceback: boom\n") == 1
    assert text.index("Traceback: boom\n") < text.index("← request")  # held, then written
    assert "no newline at the end\nmcpspy " in text  # at the end: after a newline of ours
