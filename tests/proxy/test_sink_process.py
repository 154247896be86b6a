"""--log and the live OTLP export run in a child process of the proxy: it exists, it is stopped with
mcpspy (even a SIGKILLed one), and what it cannot take is counted, never waited for."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import LineRecord
from tests.conftest import MCPSPY
from tests.export.collector import running_collector

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")

CHILD = b"mcpspy.proxy.sink_child"
MESSAGE_LINE = re.compile(r"^mcpspy +\d+\.\d+s [→←] ", re.M)
SKIPPED = re.compile(r"--log skipped ([\d,]+) records")


def sink_children(parent: int) -> list[int]:
    """The live sink processes whose parent is ``parent``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes().rsplit(b")", 1)[1].split()
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError):
            continue
        if int(stat[1]) == parent and stat[0] != b"Z" and CHILD in cmdline:
            found.append(int(name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != b"Z"


def eventually(condition: Callable[[], object], within: float = 20.0) -> bool:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@contextmanager
def proxy(tmp_path: Path, options: list[str], server: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [*MCPSPY, "--capture", str(tmp_path / "c.jsonl"), *options, "--", *server],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()


def echo(proc: subprocess.Popen[bytes], line: bytes) -> None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(line)
    proc.stdin.flush()
    assert proc.stdout.readline() == line


@pytest.mark.parametrize("sink", ["log", "otlp"])
def test_the_sinks_run_in_a_child_of_mcpspy_that_ends_with_it(tmp_path: Path, sink: str) -> None:
    log = tmp_path / "log.txt"
    with running_collector() as collector:
        options = ["--log", str(log)] if sink == "log" else ["--otlp-endpoint", collector.url]
        with proxy(tmp_path, options, ["cat"]) as proc:
            echo(proc, b'{"jsonrpc":"2.0","method":"notifications/ping"}\n')
            assert eventually(lambda: sink_children(proc.pid))
            [child] = sink_children(proc.pid)
            assert proc.stdin is not None
            proc.stdin.close()
            assert proc.wait(timeout=30) == 0
        assert not alive(child)
        if sink == "log":
            assert "notifications/ping" in log.read_text()
        else:
            assert collector.received.span_dicts(), "the session span"


def test_no_child_when_no_sink_is_asked(tmp_path: Path) -> None:
    with proxy(tmp_path, [], ["cat"]) as proc:
        echo(proc, b"hello\n")
        time.sleep(0.5)
        assert sink_children(proc.pid) == []


def test_a_sigkilled_mcpspy_leaves_no_sink_process(tmp_path: Path) -> None:
    with proxy(tmp_path, ["--log", str(tmp_path / "log.txt")], ["cat"]) as proc:
        echo(proc, b"before the kill\n")
        assert eventually(lambda: sink_children(proc.pid))
        [child] = sink_children(proc.pid)
        proc.kill()
        proc.wait(timeout=10)
        assert eventually(lambda: not alive(child)), "the sink process outlived a SIGKILLed mcpspy"


def test_a_stopped_sink_process_costs_records_counted_in_the_log_never_forwarding(tmp_path: Path) -> None:
    """The child stops reading (SIGSTOP): the proxy forwards everything, drops what the feed cannot
    hold, and the log says how many at their place; logged and skipped add up to what was recorded."""
    log = tmp_path / "log.txt"
    lines = [b'{"jsonrpc":"2.0","method":"notifications/n","params":{"i":%d,"pad":"%s"}}\n' % (i, b"x" * 900)
             for i in range(30_000)]  # fmt: skip
    with proxy(tmp_path, ["--log", str(log)], ["cat"]) as proc:
        echo(proc, lines[0])
        assert eventually(lambda: sink_children(proc.pid))
        [child] = sink_children(proc.pid)
        os.kill(child, signal.SIGSTOP)
        try:
            assert proc.stdin is not None and proc.stdout is not None
            flood = b"".join(lines[1:])  # ~60 MiB of records, beyond the pipe and what the proxy holds
            writer = threading.Thread(target=proc.stdin.write, args=(flood,), daemon=True)
            writer.start()
            assert proc.stdout.read(len(flood)) == flood  # all forwarded while the sink is stopped
            writer.join()
        finally:
            os.kill(child, signal.SIGCONT)

        def caught_up() -> bool:  # a line handed on once the feed has room again is logged
            echo(proc, b'{"jsonrpc":"2.0","method":"notifications/after"}\n')
            time.sleep(0.1)
            return "notifications/after" in log.read_text()

        assert eventually(caught_up, within=60)
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    text = log.read_text()
    skipped = sum(int(n.replace(",", "")) for n in SKIPPED.findall(text))
    recorded = sum(isinstance(r, LineRecord) for r in read_capture(tmp_path / "c.jsonl").records)
    assert skipped > 0
    assert len(MESSAGE_LINE.findall(text)) + skipped == recorded
