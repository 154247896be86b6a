"""What one proxy run records to: the capture, and the ``--log`` sink beside it."""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from mcpspy import __version__
from mcpspy.capture.admission import RECORD_COST, size_of
from mcpspy.capture.command_line import header_text
from mcpspy.capture.format import FORMAT_VERSION
from mcpspy.capture.records import Header, LifecycleRecord, LineBatch, Record, Recorded, as_records
from mcpspy.capture.redact import DEFAULT_POLICY, RedactionPolicy
from mcpspy.capture.retention import DEFAULT, RetentionPolicy, prune_at_start
from mcpspy.capture.sessions import default_sessions_dir, session_file_name, session_id
from mcpspy.capture.writer import CaptureWriter
from mcpspy.proxy.recording import FINISH_WAIT, Recording
from mcpspy.proxy.stderr import SharedStderr

if TYPE_CHECKING:
    from mcpspy.export.otlp_live import OtlpSink
    from mcpspy.proxy.log import LogSink


@dataclass(frozen=True)
class ProxyConfig:
    """What the command line asked of the proxy."""

    command: tuple[str, ...]
    capture: str | None = None
    capture_overwrite: bool = False
    home: str | None = None
    name: str | None = None
    exit_grace: float = 5.0
    log: str | None = None
    verbose: bool = False
    redaction: RedactionPolicy = DEFAULT_POLICY
    retention: RetentionPolicy = DEFAULT
    otlp_endpoint: str | None = None  # "": from OTEL_EXPORTER_OTLP_ENDPOINT


def capture_path(config: ProxyConfig, started: datetime, name: str) -> tuple[Path, bool]:
    """Where the capture goes, and whether that is our private sessions directory."""
    if config.capture:
        return Path(config.capture).expanduser(), False
    directory = Path(config.home).expanduser() if config.home else default_sessions_dir()
    return directory / session_file_name(started, name, os.getpid()), True


class Session:
    """Opened before the server starts, finished after it exits: every record goes through here.

    Raises CaptureRefused when the capture's place is unsafe (a symlink, an existing
    file, a sessions directory others can write): the server is then never started.
    """

    def __init__(self, config: ProxyConfig, stderr: SharedStderr) -> None:
        started = datetime.now(UTC)
        t0 = time.monotonic()
        text = header_text(config.command, current_dir(), config.name or None, config.redaction.enabled)
        path, private = capture_path(config, started, text.name)
        header = Header(
            format=FORMAT_VERSION,
            session=session_id(
                started, text.name, os.getpid()
            ),  # the same with --capture as in the sessions dir
            started=started.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            command=text.command,
            name=text.name,
            cwd=text.cwd,
            mcpspy=__version__,
            pid=os.getpid(),
            escaped=text.escaped,
        )
        self.header = header
        capture = CaptureWriter(path, on_failure=stderr.warn, redaction=config.redaction)
        capture.open(header, private_dir=private, overwrite=config.capture_overwrite)
        if private and not capture.failed and (pruned := prune_at_start(path.parent, config.retention)):
            stderr.say(pruned)
        self._stderr = stderr
        self.recording = Recording(capture, t0, warn=stderr.warn)
        self._log: SinkThread | None = None
        if config.log is not None:
            sink = _open_log(config.log, stderr)
            if sink is not None:
                self._log = SinkThread(sink, sink.skipped)
                self.recording.observe(self._log)
        self._otlp: OtlpSink | None = None
        if config.otlp_endpoint is not None:
            from mcpspy.export.otlp_live import open_otlp_sink  # OpenTelemetry: only when asked for

            self._otlp = open_otlp_sink(config.otlp_endpoint, header, stderr.warn)
            if self._otlp is not None:
                self.recording.observe(self._otlp)
        stderr.say(f"capture: {path}")

    def finish(self, code: int | None = None) -> None:
        """Write everything still held and close the capture; let the log and the export catch up.

        ``code``: mcpspy's exit status, for the ``proxy-stopped`` record (None: torn down).
        """
        self.recording.finish(code)
        if self._log is not None:
            self._log.close()
        if self._otlp is not None:
            self._stderr.say(f"otlp: {self._otlp.close()}")


def _open_log(target: str, stderr: SharedStderr) -> LogSink | None:
    from mcpspy.proxy.log import open_log_sink  # the analysis: imported only when asked for

    return open_log_sink(target, stderr.warn, stderr.write_own)


LOG_LIMIT = 16 << 20  # bytes of records waiting for --log: a few seconds of heavy traffic
STALLED_WAIT = 1.0  # at exit, how long --log may take in nothing (nobody reads it) before it is left
LAST_WORD_WAIT = 1.0  # at exit, past the deadline: how long --log gets to say what it could not take in


class SinkThread:
    """A slow sink (the --log analysis) on its own thread, fed the written batches in order.

    Bounded by bytes (``LOG_LIMIT``): the capture's writer hands batches in and
    never waits. Past the bound (``--log -`` to a stderr nobody reads, a log on
    a stalled disk, traffic faster than the analysis), batches are dropped and
    counted, and ``skipped`` is told how many at the place they were in the
    order (the log says so itself, and its analysis judges nothing across them).
    At exit, what it has not taken in by the deadline is counted and said the same way.
    """

    def __init__(
        self,
        sink: Callable[[list[Record]], None],
        skipped: Callable[[int], None] | None = None,
        limit: int = LOG_LIMIT,
    ) -> None:
        self._sink = sink
        self._tell_skipped = skipped
        self._limit = limit
        # Batches with their cost; an int where that many records were dropped; None: the end.
        self._queue: deque[tuple[Sequence[Recorded], int] | int | None] = deque()
        self._queued = 0
        self._abandon = False  # the deadline passed: count what is left, say it, stop
        self.skipped_total = 0
        self.taken = 0  # batches the sink has taken in (how close tells a slow sink from a stuck one)
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="mcpspy-sink", daemon=True)
        self._thread.start()

    def __call__(self, recorded: Sequence[Recorded]) -> None:
        cost = sum(size_of(item) for item in recorded) + RECORD_COST * len(recorded)
        with self._ready:
            if self._queued + cost > self._limit:
                dropped = sum(_count(item) for item in recorded)
                self.skipped_total += dropped
                queue = self._queue
                if queue and isinstance(queue[-1], int):
                    queue[-1] += dropped  # one gap, however many batches it took
                else:
                    queue.append(dropped)
                    self._ready.notify()
                return
            self._queue.append((recorded, cost))
            self._queued += cost
            self._ready.notify()

    def close(self, timeout: float = FINISH_WAIT) -> None:
        """Let the sink take in everything queued, then stop its thread (soon, if its output is stalled)."""
        with self._ready:
            self._queue.append(None)
            self._ready.notify()
        until = time.monotonic() + timeout
        progress, since = self.taken, time.monotonic()
        while self._thread.is_alive() and time.monotonic() < until:
            self._thread.join(0.05)
            if self.taken != progress:
                progress, since = self.taken, time.monotonic()
            elif time.monotonic() - since > STALLED_WAIT:
                return  # stuck in a write nobody reads: its thread dies with the process
        if self._thread.is_alive():  # still busy at the deadline: it says what it leaves, and stops
            with self._ready:
                self._abandon = True
                self._ready.notify()
            self._thread.join(LAST_WORD_WAIT)

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._abandon:
                    self._ready.wait()
                if self._abandon:
                    left = self._leave_the_rest()
                    if left and self._tell_skipped is not None:
                        self._tell_skipped(left)
                    return
                item = self._queue.popleft()
            if isinstance(item, int):
                if self._tell_skipped is not None:
                    self._tell_skipped(item)
                continue
            if item is None:
                return
            recorded, cost = item
            try:
                self._sink(as_records(recorded))
            finally:
                with self._ready:
                    self._queued -= cost
                    self.taken += 1

    def _leave_the_rest(self) -> int:
        """Under the lock: drop what is queued; how many records that was, with the gaps not yet said."""
        left = 0
        for item in self._queue:
            if isinstance(item, int):
                left += item
            elif item is not None:
                dropped = sum(_count(recorded) for recorded in item[0])
                left += dropped
                self.skipped_total += dropped
        self._queue.clear()
        self._queued = 0
        return left


def _count(item: Recorded) -> int:
    if isinstance(item, LineBatch):
        return len(item.lines)
    return 1 if isinstance(item, LifecycleRecord) else 0


def current_dir() -> str | None:
    """The working directory, or None when it has been deleted from under us (the server starts anyway)."""
    try:
        return os.getcwd()
    except OSError:
        return None
