"""The proxy's one nursery tree: three pumps, a capture writer, a signal relay.

    client stdin  --c2s-->  server stdin
    client stdout <--s2c--  server stdout
    own stderr    <--err--  server stderr

Each pump is a blocking loop on a worker thread that the nursery owns. It
takes the chunk's time and place in the record order the moment the chunk is
read, forwards it, and only then hands it to the trio side, which turns what
has been handed in into records and appends them to the capture. Trio owns
everything else: the server process, signals, the exit grace, the sinks.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import trio

from mcpspy import __version__
from mcpspy.capture.format import FORMAT_VERSION
from mcpspy.capture.recorder import Recorder
from mcpspy.capture.records import Event, Header, Record, Stream
from mcpspy.capture.sessions import default_sessions_dir, server_name, session_file_name
from mcpspy.capture.writer import CaptureWriter
from mcpspy.proxy.fdio import close_quietly, ensure_std_fds, read_chunk, write_all, write_quietly
from mcpspy.proxy.process import exit_status, signal_group, signal_name, start_server

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
BATCH_WINDOW = 0.002  # while traffic flows, the writer collects this long between writes
BACKLOG_CHUNKS = 256  # forwarded chunks not yet recorded, past which a pump waits for the writer
KILL_AFTER = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_AFTER_EXIT = 2.0  # how long a server's children may hold its pipes open after it exits
EXIT_CANNOT_START = 127


@dataclass(frozen=True)
class ProxyConfig:
    command: tuple[str, ...]
    capture: str | None = None
    home: str | None = None
    name: str | None = None
    exit_grace: float = 5.0
    log: str | None = None
    verbose: bool = False


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
        self.recorder = Recorder()
        self._t0 = time.monotonic()
        self._order = threading.Lock()  # one sequence across the pump threads and trio
        self._wake = trio.Event()
        self._sinks: list[Callable[[list[Record]], None]] = []
        self._server_exited = trio.Event()
        self._client_gone = False
        self._kill_timer_started = False
        self._token: trio.lowlevel.TrioToken | None = None
        # Pump threads append here without waking anyone, unless the writer sleeps.
        self._handed_in: deque[tuple[int, Stream, float, bytes]] = deque()
        self._writer_asleep = False
        self._drained = threading.Event()
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

    # --- the record order

    def _stamp(self) -> tuple[int, float]:
        """A place in the record order and the time, taken together (any thread)."""
        with self._order:
            return self.recorder.ticket(), time.monotonic() - self._t0

    def event(self, event: Event, **details: int | str | float) -> None:
        ticket, t = self._stamp()
        self.recorder.event(ticket, t, event, **details)
        self._wake.set()

    def _take_handed_in(self) -> bool:
        """Move what the pumps handed in to the recorder; False when there was nothing."""
        handed_in = self._handed_in
        if not handed_in:
            return False
        while handed_in:
            ticket, stream, t, data = handed_in.popleft()
            if data:
                self.recorder.chunk(ticket, stream, t, data)
            else:
                self.recorder.end_of_stream(ticket, stream, t)
        self._drained.set()
        return True

    # --- the session

    async def main(self) -> int:
        self._token = trio.lowlevel.current_trio_token()
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
        capture = CaptureWriter(path, on_failure=self.warn)
        capture.open(header, private_dir=private)
        self._sinks.append(capture.write)
        if config.log is not None:
            self._sinks.append(self._open_log(config.log))
        self.say(f"capture: {path}")
        try:
            with trio.open_signal_receiver(*FORWARDED_SIGNALS) as signals:
                status = await self._serve(signals)
            self.event(Event.PROXY_STOPPED, code=status)
        finally:
            _, t = self._stamp()
            self._take_handed_in()
            self._emit(self.recorder.finish(t))
            capture.close()
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
                nursery.start_soon(self._writer)
                nursery.start_soon(self._relay_signals, signals, proc, nursery)
                nursery.start_soon(self._pump_client, stdin_w, proc, nursery)
                async with trio.open_nursery() as server_side:
                    pipes_scope = trio.CancelScope()
                    server_side.start_soon(self._await_exit, proc, pipes_scope)
                    with pipes_scope:
                        async with trio.open_nursery() as pipes:
                            pipes.start_soon(self._pump, Stream.S2C, stdout_r, _writer_to(1),
                                             self._on_client_gone)
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

        ``close_after`` is a destination fd this pump owns and closes at the end.
        """
        assert self._token is not None
        forwarding = True
        try:
            while True:
                data = read_chunk(src)
                ticket, t = self._stamp()
                if data and forwarding:
                    try:
                        forward(data)
                    except OSError as exc:
                        forwarding = False
                        if on_write_error is not None:
                            self._token.run_sync_soon(on_write_error, exc)
                self._handed_in.append((ticket, stream, t, data))
                if self._writer_asleep:
                    self._writer_asleep = False
                    self._token.run_sync_soon(self._wake.set)
                elif len(self._handed_in) > BACKLOG_CHUNKS:
                    # The recorder is behind: read on only when it has caught up, so that
                    # memory stays flat and nothing goes unrecorded.
                    self._drained.clear()
                    self._drained.wait(timeout=0.1)
                if not data:
                    return
        except trio.RunFinishedError:
            return  # abandoned, and the proxy has finished: nothing left to tell
        finally:
            close_quietly(src)
            if close_after is not None:
                close_quietly(close_after)

    def _on_client_gone(self, exc: OSError) -> None:
        if not self._client_gone:
            self._client_gone = True
            self.event(Event.CLIENT_GONE, error=exc.strerror or str(exc))
            self.say("the client stopped reading stdout; still recording the server")

    async def _pump_client(self, stdin_w: int, proc: trio.Process, nursery: trio.Nursery) -> None:
        """Client stdin to server stdin; at client EOF, the server's stdin is closed."""
        await self._pump(Stream.C2S, 0, _writer_to(stdin_w), None, close_after=stdin_w)
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

    async def _writer(self) -> None:
        """Write what has come in, in batches; sleep until woken when nothing comes."""
        while True:
            if self._take_handed_in():
                self._emit(self.recorder.drain())
                await trio.sleep(BATCH_WINDOW)
                continue
            self._writer_asleep = True
            if self._handed_in:  # a pump appended before it saw the flag
                self._writer_asleep = False
                continue
            await self._wake.wait()
            self._wake = trio.Event()
            self._emit(self.recorder.drain())

    def _emit(self, records: list[Record]) -> None:
        if records:
            for sink in self._sinks:
                sink(records)

    def _open_log(self, target: str) -> Callable[[list[Record]], None]:
        from mcpspy.proxy.log import open_log_sink

        sink: Callable[[list[Record]], None] = open_log_sink(target, self.warn, self.write_own_stderr)
        return sink


def _writer_to(fd: int) -> Callable[[bytes], None]:
    return lambda data: write_all(fd, data)
