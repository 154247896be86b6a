"""EOF, crashes, stubborn servers, signals, missing commands, unwritable captures.

In every case mcpspy's stdout must be the server's stdout, byte for byte.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Event, LifecycleRecord, Stream
from tests.conftest import MCPSPY, python_server, replay, run_proxy


def events(run_capture: object) -> list[Event]:
    return [r.event for r in run_capture.records if isinstance(r, LifecycleRecord)]  # type: ignore[attr-defined]


def test_client_eof_closes_the_server_stdin_and_exit_code_passes_through(tmp_path: Path) -> None:
    server = python_server(
        "import sys\n"
        "for line in sys.stdin: sys.stdout.write('got ' + line)\n"
        "sys.stdout.write('bye')\n"
        "sys.exit(7)\n"
    )
    run = run_proxy(tmp_path, server, stdin=b"a\nb\n")
    assert run.returncode == 7
    assert run.stdout == b"got a\ngot b\nbye"
    assert run.stderr == b""
    capture = run.capture
    assert replay(capture, Stream.S2C) == run.stdout
    assert events(capture) == [
        Event.SERVER_STARTED,
        Event.STDIN_CLOSED,
        Event.SERVER_EXITED,
        Event.PROXY_STOPPED,
    ]


def test_server_that_crashes_mid_request(tmp_path: Path) -> None:
    server = python_server(
        "import sys, os\n"
        "sys.stdin.readline()\n"
        'sys.stdout.write(\'{"jsonrpc":"2.0","id":1,"result":{}}\\n\'); sys.stdout.flush()\n'
        "sys.stdin.readline()\n"
        "sys.stderr.write('Traceback: boom\\n')\n"
        "os.abort()\n"
    )
    request = b'{"jsonrpc":"2.0","id":1,"method":"a"}\n{"jsonrpc":"2.0","id":2,"method":"b"}\n'
    run = run_proxy(tmp_path, server, stdin=request)
    assert run.returncode == 128 + signal.SIGABRT
    assert run.stdout == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
    assert run.stderr == b"Traceback: boom\n"  # the server's stderr, and nothing of mcpspy's
    exited = [
        r for r in run.capture.records if isinstance(r, LifecycleRecord) and r.event is Event.SERVER_EXITED
    ]
    assert exited[0].details == {"signal": "SIGABRT"}


def test_server_that_ignores_eof_is_terminated_after_the_grace(tmp_path: Path) -> None:
    server = python_server(
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "sys.stdout.write('up\\n'); sys.stdout.flush()\n"
        "time.sleep(60)\n"
    )
    capture = tmp_path / "c.jsonl"
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(capture), "--exit-grace", "0.3", "--", *server],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline() == b"up\n"  # SIGTERM is ignored from here on: now close its stdin
    proc.stdin.close()
    assert proc.wait(timeout=30) == 128 + signal.SIGKILL
    assert proc.stdout.read() == b""
    assert events(read_capture(capture)) == [
        Event.SERVER_STARTED,
        Event.STDIN_CLOSED,
        Event.GRACE_EXPIRED,
        Event.SERVER_TERMINATED,
        Event.SERVER_KILLED,
        Event.SERVER_EXITED,
        Event.PROXY_STOPPED,
    ]


def test_sigterm_to_mcpspy_is_passed_on(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    server = python_server(
        "import signal, sys, time\n"
        "def bye(*_):\n"
        "    sys.stdout.write('bye\\n'); sys.stdout.flush(); sys.exit(0)\n"
        "signal.signal(signal.SIGTERM, bye)\n"
        "sys.stdout.write('ready\\n'); sys.stdout.flush()\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(capture), "--", *server],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=20)
    assert (proc.returncode, out, err) == (0, b"bye\n", b"")
    from mcpspy.capture.reader import read_capture

    forwarded = [
        r
        for r in read_capture(capture).records
        if isinstance(r, LifecycleRecord) and r.event is Event.SIGNAL_FORWARDED
    ]
    assert forwarded[0].details == {"signal": "SIGTERM"}


def test_no_server_outlives_a_killed_mcpspy(tmp_path: Path) -> None:
    server = python_server("import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(60)\n")
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(tmp_path / "c.jsonl"), "--", *server],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None
    pid = int(proc.stdout.readline())
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    raise AssertionError(f"server {pid} outlived mcpspy")


def test_missing_command_is_one_clear_line_and_127(tmp_path: Path) -> None:
    run = run_proxy(tmp_path, ["mcpspy-no-such-server", "--flag"], stdin=b"x\n")
    assert run.returncode == 127
    assert run.stdout == b""
    assert run.stderr.count(b"\n") == 1
    assert b"mcpspy-no-such-server" in run.stderr and b"No such file" in run.stderr


def test_unwritable_capture_never_stops_forwarding(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    proc = subprocess.run(
        [*MCPSPY, "--home", str(blocker / "sessions"), "--", "cat"],
        input=b"one\ntwo\n",
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 0
    assert proc.stdout == b"one\ntwo\n"
    assert proc.stderr.count(b"\n") == 1 and b"cannot write the capture" in proc.stderr


def test_server_gets_our_environment_cwd_and_path_lookup(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "my-server"
    tool.write_text(f"#!{sys.executable}\nimport os\nprint(os.environ['MARKER'], os.getcwd())\n")
    tool.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "MARKER": "m-42"}
    proc = subprocess.run(
        [*MCPSPY, "--home", str(tmp_path / "s"), "--", "my-server"],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=30,
    )
    assert proc.stdout == f"m-42 {tmp_path}\n".encode()
    assert proc.returncode == 0


def test_home_flag_writes_a_private_session_file(tmp_path: Path) -> None:
    home = tmp_path / "sessions"
    proc = subprocess.run(
        [*MCPSPY, "--home", str(home), "--", "cat"], input=b"hi\n", capture_output=True, timeout=30
    )
    assert proc.stdout == b"hi\n"
    (session,) = home.glob("*.jsonl")
    assert "-cat-" in session.name
    assert home.stat().st_mode & 0o777 == 0o700
    assert session.stat().st_mode & 0o777 == 0o600


def test_verbose_speaks_on_stderr_only(tmp_path: Path) -> None:
    run = run_proxy(tmp_path, ["cat"], stdin=b"x\n", options=["--verbose"])
    assert run.stdout == b"x\n"
    assert b"mcpspy: " in run.stderr


def test_cli_errors_help_and_version() -> None:
    bad = subprocess.run([*MCPSPY, "--bogus", "--", "cat"], capture_output=True)
    assert bad.returncode == 2 and b"unknown option --bogus" in bad.stderr and bad.stdout == b""
    none = subprocess.run([*MCPSPY], capture_output=True)
    assert none.returncode == 2 and b"no server command" in none.stderr
    version = subprocess.run([*MCPSPY, "--version"], capture_output=True)
    assert version.returncode == 0 and version.stdout.startswith(b"mcpspy ")
    helptext = subprocess.run([*MCPSPY, "--help"], capture_output=True)
    assert helptext.returncode == 0 and b"-- CMD" in helptext.stdout
    after = subprocess.run(
        [*MCPSPY, "--", sys.executable, "-c", "import sys; print(sys.argv[1:])", "--bogus", "--capture"],
        capture_output=True,
    )
    assert after.stdout == b"['--bogus', '--capture']\n"


def test_a_full_disk_warns_once_and_forwarding_goes_on(tmp_path: Path) -> None:
    # A file size limit makes writes past 4 KiB fail (EFBIG; Python ignores SIGXFSZ), as a full
    # disk would. (/dev/full is refused now: --capture never writes into an existing file.)
    lines = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i for i in range(2000))
    proc = subprocess.run(
        [*MCPSPY, "--capture", str(tmp_path / "c.jsonl"), "--", "cat"],
        input=lines,
        capture_output=True,
        timeout=60,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096)),
    )
    assert (proc.returncode, proc.stdout) == (0, lines)
    assert proc.stderr.count(b"\n") == 1 and b"cannot write the capture" in proc.stderr
