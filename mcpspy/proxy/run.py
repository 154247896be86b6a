"""The proxy's one nursery tree: three pumps, a capture writer, a signal relay.

    client stdin  --c2s-->  server stdin
    client stdout <--s2c--  server stdout
    own stderr    <--err--  server stderr

Each pump is a blocking loop on a worker thread that the nursery owns. It
takes the chunk's time and place in the record order the moment the chunk is
read, forwards it, yields the CPU to the peer the forward woke, and only then
records it, itself, while the peer is busy with what was just forwarded
(``recording.Recording``). Trio owns everything
else: the server process, signals, the exit grace; it is not woken by the
traffic.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import trio

from mcpspy import __version__
from mcpspy.capture.format import FORMAT_VERSION
from mcpspy.capture.private import CaptureRefused
from mcpspy.capture.records import Event, Header, Record, Stream
from mcpspy.capture.redact import DEFAULT_POLICY, RedactionPolicy
from mcpspy.capture.retention import DEFAULT, RetentionPolicy, prune_at_start
from mcpspy.capture.sessions import default_sessions_dir, server_name, session_file_name
from mcpspy.capture.writer import CaptureWriter
from mcpspy.proxy.fdio import close_quietly, ensure_std_fds, read_chunk, write_all, write_quietly, writer_to
from mcpspy.proxy.process import exit_status, signal_group, signal_name, start_server
from mcpspy.proxy.recording import Recording, SinkThread

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
KILL_AFTER = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_AFTER_EXIT = 2.0  # how long a server's children may hold its pipes open after it exits
EXIT_CANNOT_START = 127
EXIT_REFUSED = 2  # the capture's place is unsafe: refused before the server starts


@dataclass(frozen=True)
class ProxyConfig:
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


def run(config: ProxyConfig) -> int:
    """Run the proxy until the server has exited; return the server's exit status."""
    ensure_std_fds()
    return trio.run(Proxy(config).main)


def capture_path(config: ProxyConfig, started: datetime, name: str) -> tuple[Path, bool]:
    """Where the capture goes, and whether that is our private sessions directory."""
    if config.capture:
        return Path(config.capture).expanduser(), False
    directory = Path(config.home).expanduser() if config.home else default_sessions_dir()
    return directory / session_file_name(started, name, os.getpid()), True


class Proxy:
    def __init__(self, config: ProxyConfig) -> None:
        self.config = config
        self._t0 = time.monotonic()
        self.recording: Recording | None = None  # from main() on
        self._server_exited = trio.Event()
        self._client_gone = False
        self._kill_timer_started = False
        # fd 2 carries the server's stderr and mcpspy's own lines: ours wait for the end of
        # a server line, so that a log line never splits one (print writes in pieces).
        self._stderr_lock = threading.Lock()
        self._stderr_midline = False
        self._own_deferred: list[bytes] = []

    # --- own messages: stderr only, and only when asked (a failing capture always says so)

    def warn(self, message: str) -> None:
        try:
            self.write_own_stderr(message.encode("utf-8", "replace") + b"\n")
        except OSError:
            pass

    def write_own_stderr(self, data: bytes) -> None:
        """mcpspy's own bytes on fd 2, at a line boundary of the server's stderr."""
        with self._stderr_lock:
            if self._stderr_midline:
                self._own_deferred.append(data)
            else:
                write_all(2, data)

    def _forward_stderr(self, data: bytes) -> None:
        with self._stderr_lock:
            write_all(2, data)
            self._stderr_midline = not data.endswith(b"\n")
            if not self._stderr_midline and self._own_deferred:
                deferred, self._own_deferred = self._own_deferred, []
                write_all(2, b"".join(deferred))

    def _flush_own_stderr(self) -> None:
        with self._stderr_lock:
            if self._own_deferred:
                deferred, self._own_deferred = self._own_deferred, []
                write_quietly(2, b"\n" + b"".join(deferred))
            self._stderr_midline = False

    def say(self, message: str) -> None:
        if self.config.verbose:
            self.warn(f"mcpspy: {message}")

    # --- the record

    def event(self, event: Event, **details: int | str | float) -> None:
        """A lifecycle event, in the record order where it happens (any thread)."""
        assert self.recording is not None
        self.recording.event(event, **details)

    # --- the session

    async def main(self) -> int:
        config = self.config
        started = datetime.now(UTC)
        name = config.name or server_name(config.command)
        path, private = capture_path(config, started, name)
        session_id = path.stem if private else f"{started:%Y%m%dT%H%M%S}-{os.getpid()}"
        header = Header(
            format=FORMAT_VERSION,
            session=session_id,
            started=started.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            command=config.command,
            name=name,
            cwd=os.getcwd(),
            mcpspy=__version__,
            pid=os.getpid(),
        )
        capture = CaptureWriter(path, on_failure=self.warn, redaction=config.redaction)
        try:
            capture.open(header, private_dir=private, overwrite=config.capture_overwrite)
        except CaptureRefused as exc:
            self.warn(f"mcpspy: {exc}")
            return EXIT_REFUSED
        if private and not capture.failed and (pruned := prune_at_start(path.parent, config.retention)):
            self.say(pruned)
        self.recording = Recording(capture, self._t0)
        log = SinkThread(self._open_log(config.log)) if config.log is not None else None
        if log is not None:
            self.recording.observe(log)
        self.say(f"capture: {path}")
        try:
            with trio.open_signal_receiver(*FORWARDED_SIGNALS) as signals:
                status = await self._serve(signals)
            self.event(Event.PROXY_STOPPED, code=status)
        finally:
            self.recording.finish()
            if log is not None:
                log.close()
            self._flush_own_stderr()
        return status

    async def _serve(self, signals: AsyncIterator[int]) -> int:
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        try:
            proc = await start_server(self.config.command, stdin_r, stdout_w, stderr_w)
        except OSError as exc:
            for fd in (stdin_w, stdout_r, stderr_r):
                os.close(fd)
            reason = exc.strerror or str(exc)
            self.warn(f"mcpspy: cannot start {self.config.command[0]!r}: {reason}")
            self.event(Event.SERVER_EXITED, code=EXIT_CANNOT_START, error=reason)
            return EXIT_CANNOT_START
        finally:
            for fd in (stdin_r, stdout_w, stderr_w):
                os.close(fd)
        self.event(Event.SERVER_STARTED, pid=proc.pid)
        self.say(f"started {' '.join(self.config.command)} (pid {proc.pid})")

        # Each pump thread owns its pipe end and closes it at end of stream; an
        # abandoned pump (a client that never closes stdin) dies with the process.
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._relay_signals, signals, proc, nursery)
                nursery.start_soon(self._pump_client, stdin_w, proc, nursery)
                async with trio.open_nursery() as server_side:
                    pipes_scope = trio.CancelScope()
                    server_side.start_soon(self._await_exit, proc, pipes_scope)
                    with pipes_scope:
                        async with trio.open_nursery() as pipes:
                            pipes.start_soon(
                                self._pump, Stream.S2C, stdout_r, writer_to(1), self._on_client_gone
                            )
                            pipes.start_soon(self._pump, Stream.ERR, stderr_r, self._forward_stderr, None)
                    await self._server_exited.wait()
                    server_side.cancel_scope.cancel()
                nursery.cancel_scope.cancel()
        finally:
            if proc.returncode is None:  # we are being torn down: leave no server behind
                signal_group(proc, signal.SIGKILL)
                with trio.CancelScope(shield=True):
                    await proc.wait()
        code = proc.returncode
        assert code is not None
        if code < 0:
            self.event(Event.SERVER_EXITED, signal=signal_name(-code))
        else:
            self.event(Event.SERVER_EXITED, code=code)
        self.say(f"server exited with status {exit_status(code)}")
        return exit_status(code)

    async def _await_exit(self, proc: trio.Process, pipes: trio.CancelScope) -> None:
        """Once the server exits, give its pipes a moment to drain, then stop reading."""
        await proc.wait()
        self._server_exited.set()
        await trio.sleep(DRAIN_AFTER_EXIT)
        # Still open: a child of the server holds its stdout or stderr.
        self.say("the server's children still hold its pipes; stopping them")
        signal_group(proc, signal.SIGKILL)
        await trio.sleep(0.2)
        pipes.cancel()

    # --- pumps

    async def _pump(
        self,
        stream: Stream,
        src: int,
        forward: Callable[[bytes], None],
        on_write_error: Callable[[OSError], None] | None,
        close_after: int | None = None,
    ) -> None:
        await trio.to_thread.run_sync(
            self._pump_blocking, stream, src, forward, on_write_error, close_after, abandon_on_cancel=True
        )

    def _pump_blocking(
        self,
        stream: Stream,
        src: int,
        forward: Callable[[bytes], None],
        on_write_error: Callable[[OSError], None] | None,
        close_after: int | None,
    ) -> None:
        """Copy src on through ``forward`` until EOF, on a worker thread; every chunk is recorded.

        Read, stamp, forward, yield, record: the stamp before forwarding keeps
        the record order the order of reading; the recording after it, and
        after the peer has had the CPU, keeps the capture's work off the
        forwarding path. ``close_after`` is a
        destination fd this pump owns and closes at the end.
        """
        recording = self.recording
        assert recording is not None
        stamp, record = recording.stamp, recording.chunk
        forwarding = True
        try:
            while True:
                data = read_chunk(src)
                ticket, t = stamp()
                if data and forwarding:
                    try:
                        forward(data)
                    except OSError as exc:
                        forwarding = False
                        if on_write_error is not None:
                            on_write_error(exc)
                    # A write to a pipe wakes its reader on this CPU, expecting the writer to sleep
                    # next; this one records first. Yielding lets the woken peer run now instead of
                    # after the recording (added latency 1.56x -> 1.26x of a bare forwarder's).
                    os.sched_yield()
                record(ticket, stream, t, data)
                if not data:
                    return
        finally:
            close_quietly(src)
            if close_after is not None:
                close_quietly(close_after)

    def _on_client_gone(self, exc: OSError) -> None:
        """The s2c pump could not write to our stdout (any thread)."""
        if not self._client_gone:
            self._client_gone = True
            self.event(Event.CLIENT_GONE, error=exc.strerror or str(exc))
            self.say("the client stopped reading stdout; still recording the server")

    async def _pump_client(self, stdin_w: int, proc: trio.Process, nursery: trio.Nursery) -> None:
        """Client stdin to server stdin; at client EOF, the server's stdin is closed."""
        await self._pump(Stream.C2S, 0, writer_to(stdin_w), None, close_after=stdin_w)
        self.event(Event.STDIN_CLOSED)
        self.say("the client closed stdin; closed the server's stdin")
        nursery.start_soon(self._grace_watchdog, proc)

    async def _grace_watchdog(self, proc: trio.Process) -> None:
        """A server should exit when its stdin closes; past the grace, make it."""
        grace = self.config.exit_grace
        with trio.move_on_after(grace):
            await self._server_exited.wait()
            return
        self.event(Event.GRACE_EXPIRED, grace=grace)
        self.say(f"the server is still running {grace:g}s after its stdin closed; terminating it")
        if signal_group(proc, signal.SIGTERM):
            self.event(Event.SERVER_TERMINATED)
        await self._kill_unless_exited(proc, KILL_AFTER)

    async def _kill_unless_exited(self, proc: trio.Process, after: float) -> None:
        with trio.move_on_after(after):
            await self._server_exited.wait()
            return
        if signal_group(proc, signal.SIGKILL):
            self.event(Event.SERVER_KILLED)
            self.say("the server did not exit; killed it")

    async def _relay_signals(
        self, signals: AsyncIterator[int], proc: trio.Process, nursery: trio.Nursery
    ) -> None:
        async for signum in signals:
            signal_group(proc, signum)
            self.event(Event.SIGNAL_FORWARDED, signal=signal_name(signum))
            self.say(f"passed {signal_name(signum)} on to the server")
            if not self._kill_timer_started:
                self._kill_timer_started = True
                nursery.start_soon(self._kill_unless_exited, proc, self.config.exit_grace + KILL_AFTER)

    # --- sinks

    def _open_log(self, target: str) -> Callable[[list[Record]], None]:
        from mcpspy.proxy.log import open_log_sink

        sink: Callable[[list[Record]], None] = open_log_sink(target, self.warn, self.write_own_stderr)
        return sink
