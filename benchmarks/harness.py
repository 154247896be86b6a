"""The benchmark client: drives one shim (or a server directly) over real pipes.

Every measurement starts the command fresh, waits until it answers once (so
start-up is never timed), then times only the traffic. Reads go through
select with a deadline, so a peer that hangs is reported, not waited on.
"""

from __future__ import annotations

import os
import select
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

READ_SIZE = 1 << 20
INITIALIZE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    b'"capabilities":{},"clientInfo":{"name":"mcpspy-bench","version":"1"}}}\n'
)
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
PING = b'{"jsonrpc":"2.0","method":"bench/echo","params":{"ping":1}}\n'


class BenchError(RuntimeError):
    """The command under test misbehaved (hung, closed early, answered wrong)."""


def request(i: int) -> bytes:
    """A small tools/call request, about 100 bytes on the wire."""
    return (
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"n":%d}}}\n'
        % (i, i)
    )


def proc_kib(path: str, key: bytes) -> int:
    """The ``key:`` line of a /proc file given in kB, in bytes (0 once the process is gone)."""
    try:
        with open(path, "rb") as lines:
            for line in lines:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def rss_bytes(pid: int) -> int:
    """Resident set size of a process, from /proc (0 once it is gone)."""
    return proc_kib(f"/proc/{pid}/status", b"VmRSS:")


def pss_bytes(pid: int) -> int:
    """Proportional set size: the process's own pages, and its share of pages it shares (0 once gone).

    RSS counts a page shared with another process (a fork's untouched heap, the
    interpreter's code) in each; PSS splits it, so a tree's PSS is what it takes.
    """
    return proc_kib(f"/proc/{pid}/smaps_rollup", b"Pss:")


class Session:
    """One running command with its stdin and stdout as raw pipes."""

    def __init__(self, command: Sequence[str], env: dict[str, str], cwd: Path, timeout: float) -> None:
        self.timeout = timeout
        self.stderr_path = cwd / f"stderr-{os.getpid()}-{time.monotonic_ns()}.txt"
        self._stderr = self.stderr_path.open("wb")
        self.proc = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            bufsize=0, env=env, cwd=cwd,
        )  # fmt: skip
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin_fd = self.proc.stdin.fileno()
        self.stdout_fd = self.proc.stdout.fileno()
        self._buffer = bytearray()

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.stdin_fd, view) :]

    def write_many(self, blocks: list[bytes], every: float = 0.0) -> None:
        """The blocks in turn; with ``every``, one each ``every`` seconds on a fixed schedule."""
        due = time.perf_counter()
        for block in blocks:
            if every and (wait := due - time.perf_counter()) > 0:
                time.sleep(wait)
            self.write(block)
            due += every

    def background_writer(self, blocks: list[bytes], every: float = 0.0) -> threading.Thread:
        """A thread, not yet started, that writes the blocks (``write_many``); a command that dies
        early is reported by the reading side, not by a traceback from this thread."""

        def write() -> None:
            try:
                self.write_many(blocks, every)
            except OSError:
                pass

        return threading.Thread(target=write, daemon=True)

    def _fill(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self.stdout_fd], [], [], left)[0]:
            raise BenchError(f"no answer within {self.timeout:g} s{self.stderr_tail()}")
        chunk = os.read(self.stdout_fd, READ_SIZE)
        if not chunk:
            raise BenchError(f"stdout closed early (exit {self.proc.poll()}){self.stderr_tail()}")
        self._buffer += chunk

    def read_line(self) -> bytes:
        deadline = time.monotonic() + self.timeout
        while (end := self._buffer.find(b"\n")) < 0:
            self._fill(deadline)
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        return line

    def count_lines(self, wanted: int, progress: list[int] | None = None) -> int:
        """Read until ``wanted`` newlines have arrived; return the bytes read."""
        deadline = time.monotonic() + self.timeout
        seen = self._buffer.count(b"\n")
        total = len(self._buffer)
        self._buffer.clear()
        while seen < wanted:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.stdout_fd], [], [], left)[0]:
                raise BenchError(f"{seen}/{wanted} lines within {self.timeout:g} s{self.stderr_tail()}")
            chunk = os.read(self.stdout_fd, READ_SIZE)
            if not chunk:
                raise BenchError(f"stdout closed after {seen}/{wanted} lines{self.stderr_tail()}")
            seen += chunk.count(b"\n")
            total += len(chunk)
            if progress is not None:
                progress[0] = seen
        return total

    def handshake(self) -> None:
        """initialize, its answer, then notifications/initialized: the server is up."""
        self.write(INITIALIZE)
        if b'"id":0' not in self.read_line():
            raise BenchError("initialize was not answered")
        self.write(INITIALIZED)

    def stderr_tail(self) -> str:
        """The command's last stderr lines, each cut short (a crash may echo a 64 MiB line)."""
        self._stderr.flush()
        with self.stderr_path.open("rb") as err:
            err.seek(max(0, err.seek(0, os.SEEK_END) - (1 << 20)))
            lines = err.read().decode(errors="replace").strip().splitlines()[-4:]
        text = " | ".join(line[:160] + ("..." if len(line) > 160 else "") for line in lines)
        return f"; stderr: {text}" if text else ""

    def close(self) -> int | None:
        """Close stdin, let the command exit; kill it if it will not."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.proc.stdout.close()
        self._stderr.close()
        self.stderr_path.unlink(missing_ok=True)
        return code


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of an already sorted sequence."""
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


def latency(command: Sequence[str], env: dict[str, str], cwd: Path, count: int) -> dict[str, Any]:
    """Sequential round trips: write one request, wait for its answer, repeat."""
    session = Session(command, env, cwd, timeout=30)
    try:
        session.handshake()
        for i in range(1, 201):  # warm-up, untimed
            session.write(request(i))
            session.read_line()
        samples: list[float] = []
        clock = time.perf_counter_ns
        for i in range(1000, 1000 + count):
            message = request(i)
            start = clock()
            session.write(message)
            session.read_line()
            samples.append((clock() - start) / 1000)
    finally:
        session.close()
    samples.sort()
    return {
        "requests": count,
        "p50_us": percentile(samples, 0.50),
        "p99_us": percentile(samples, 0.99),
        "mean_us": sum(samples) / len(samples),
    }


@dataclass
class RssSampler:
    """Samples a process's RSS every few milliseconds, with how far the run had got."""

    pid: int
    progress: list[int]
    interval: float = 0.02
    samples: list[tuple[int, int]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            rss = rss_bytes(self.pid)
            if rss:
                self.samples.append((self.progress[0], rss))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def rss_by_tenth(samples: list[tuple[int, int]], count: int) -> list[float | None]:
    """The highest RSS seen (MiB) in each tenth of the run, to show whether memory climbs."""
    tenths = [0] * 10
    for done, rss in samples:
        slot = min(9, done * 10 // max(count, 1))
        tenths[slot] = max(tenths[slot], rss)
    return [round(r / 2**20, 1) if r else None for r in tenths]  # None: no sample in that tenth


def throughput(
    command: Sequence[str], env: dict[str, str], cwd: Path, count: int, sample_pid: int | None = None
) -> dict[str, Any]:
    """``count`` requests written as fast as the pipe takes them, all answers read back.

    The RSS of the shim (the process we start, unless ``sample_pid`` says
    otherwise) is sampled throughout, with the number of answers so far.
    """
    session = Session(command, env, cwd, timeout=120)
    progress = [0]
    sampler: RssSampler | None = None
    try:
        session.handshake()
        batch = 1000
        blocks = [
            b"".join(request(i) for i in range(s, min(s + batch, count + 1)))
            for s in range(1, count + 1, batch)
        ]
        sampler = RssSampler(sample_pid or session.proc.pid, progress)
        start_rss = rss_bytes(sample_pid or session.proc.pid)
        writer = session.background_writer(blocks)
        start = time.perf_counter()
        writer.start()
        received = session.count_lines(count, progress)
        elapsed = time.perf_counter() - start
        writer.join()
    finally:
        if sampler is not None:
            sampler.stop()
        session.close()
    rss = [r for _, r in sampler.samples] or [start_rss]
    early = [r for done, r in sampler.samples if done <= count // 10] or rss[:1]
    return {
        "messages": count,
        "seconds": elapsed,
        "messages_per_s": count / elapsed,
        "bytes_back": received,
        "rss_start_mib": start_rss / 2**20,
        "rss_at_10pct_mib": max(early) / 2**20,
        "rss_peak_mib": max(rss) / 2**20,
        "rss_samples": len(sampler.samples),
        "rss_by_tenth_mib": rss_by_tenth(sampler.samples, count),
    }


def flood_then_close(session: Session, requests: int, rate: float = 0) -> tuple[float, float, int]:
    """``requests`` written as fast as the pipe takes them (or ``rate`` a second, in blocks of 100 on a
    fixed schedule) and one line back each, then stdin closed.

    Returns the seconds to the last line back, to the command's exit, and its exit code.
    """
    size = 100 if rate else 1000
    blocks = [
        b"".join(request(i) for i in range(s, min(s + size, requests + 1)))
        for s in range(1, requests + 1, size)
    ]
    writer = session.background_writer(blocks, every=size / rate if rate else 0.0)
    start = time.perf_counter()
    writer.start()
    session.count_lines(requests)
    forward_s = time.perf_counter() - start
    writer.join()
    assert session.proc.stdin is not None
    session.proc.stdin.close()
    code = session.proc.wait(timeout=1800)
    return forward_s, time.perf_counter() - start, code


def big_line(command: Sequence[str], env: dict[str, str], cwd: Path, size: int) -> dict[str, Any]:
    """One JSON line of ``size`` bytes through a command that echoes it (cat, or a shim over cat).

    ``seconds``: from the first byte written to the last read. ``cpu_s``: the CPU time the command
    and its children (cat) spent from the line's start until they exited, a proxy's capture
    writer finishing included: less disturbed by a loaded machine than the wall clock.
    """
    head = b'{"jsonrpc":"2.0","method":"bench/echo","params":{"data":"'
    tail = b'"}}\n'
    line = head + b"x" * (size - len(head) - len(tail)) + tail
    session = Session(command, env, cwd, timeout=120)
    try:
        session.write(PING)  # answered by cat itself: the command is up
        session.read_line()
        cpu_before = process_cpu(session.proc.pid)
        writer = session.background_writer([line])
        start = time.perf_counter()
        writer.start()
        received = session.count_lines(1)
        elapsed = time.perf_counter() - start
        writer.join()
        cpu = exit_cpu(session) - cpu_before
    finally:
        session.close()
    if received != len(line):
        raise BenchError(f"sent {len(line)} bytes, got {received} back")
    return {"bytes": len(line), "seconds": elapsed, "mib_per_s": len(line) / 2**20 / elapsed, "cpu_s": cpu}


def process_cpu(pid: int) -> float:
    """A live process's CPU seconds so far (all its threads), from /proc (0 where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def exit_cpu(session: Session) -> float:
    """Close the command's stdin, reap it, and return the CPU seconds it and its children used."""
    assert session.proc.stdin is not None
    session.proc.stdin.close()
    _, status, usage = os.wait4(session.proc.pid, 0)
    session.proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime
