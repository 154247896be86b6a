"""The proxy's one nursery tree: three pumps, a capture writer, a signal relay.

    client stdin  --c2s-->  server stdin
    client stdout <--s2c--  server stdout
    own stderr    <--err--  server stderr

Each pump takes the chunk's time and place in the record order the moment it
is read, forwards it, and only then hands it to the recorder; the writer task
turns what has been handed in into records and appends them to the capture.
"""

from __future__ import annotations

import os
import signal
import time
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
from mcpspy.proxy.fdio import NonBlocking, ensure_std_fds, read_some, write_all, write_all_sync
from mcpspy.proxy.process import exit_status, signal_group, signal_name, start_server

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
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
    blocking = NonBlocking(0, 1, 2)
    try:
        return trio.run(Proxy(config).main)
    finally:
        blocking.restore()


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
        self._wake = trio.Event()
        self._sinks: list[Callable[[list[Record]], None]] = []
        self._server_exited = trio.Event()
        self._client_gone = False
        self._server_stdin_gone = False
        self._kill_timer_started = False
        self._server_stdin = -1

    # --- own messages: stderr only, and only when asked (a failing capture always says so)

    def now(self) -> float:
        return time.monotonic() - self._t0

    def warn(self, message: str) -> None:
        write_all_sync(2, message.encode("utf-8", "replace") + b"\n")

    def say(self, message: str) -> None:
        if self.config.verbose:
            self.warn(f"mcpspy: {message}")

    def event(self, event: Event, **details: int | str | float) -> None:
        self.recorder.event(self.now(), event, **details)
        self._wake.set()

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
        capture = CaptureWriter(path, on_failure=self.warn)
        capture.open(header, private_dir=private)
        self._sinks.append(capture.write)
        if config.log is not None:
            self._sinks.append(self._open_log(config.log))
        self.say(f"capture: {path}")
        with trio.open_signal_receiver(*FORWARDED_SIGNALS) as signals:
            status = await self._serve(signals)
        self.recorder.event(self.now(), Event.PROXY_STOPPED, code=status)
        self._flush()
        capture.close()
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
        for fd in (stdin_w, stdout_r, stderr_r):
            os.set_blocking(fd, False)
        self._server_stdin = stdin_w
        self.event(Event.SERVER_STARTED, pid=proc.pid)
        self.say(f"started {' '.join(self.config.command)} (pid {proc.pid})")

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
                            pipes.start_soon(self._pump, Stream.S2C, stdout_r, 1, self._on_client_gone)
                            pipes.start_soon(self._pump, Stream.ERR, stderr_r, 2, None)
                    await self._server_exited.wait()
                    server_side.cancel_scope.cancel()
                nursery.cancel_scope.cancel()
        finally:
            self._close_server_stdin()
            for fd in (stdout_r, stderr_r):
                _close_quietly(fd)
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
        dst: int,
        on_write_error: Callable[[OSError], None] | None,
    ) -> None:
        """Copy src to dst until EOF, recording every chunk in read order."""
        forwarding = True
        while True:
            data = await read_some(src)
            t = self.now()
            ticket = self.recorder.ticket()
            try:
                if data and forwarding:
                    try:
                        await write_all(dst, data)
                    except OSError as exc:
                        forwarding = False
                        if on_write_error is not None:
                            on_write_error(exc)
            finally:
                if data:
                    self.recorder.chunk(ticket, stream, t, data)
                else:
                    self.recorder.end_of_stream(ticket, stream, t)
                self._wake.set()
            if not data:
                return
            await trio.lowlevel.checkpoint()

    def _on_client_gone(self, exc: OSError) -> None:
        if not self._client_gone:
            self._client_gone = True
            self.event(Event.CLIENT_GONE, error=exc.strerror or str(exc))
            self.say("the client stopped reading stdout; still recording the server")

    def _close_server_stdin(self) -> None:
        fd, self._server_stdin = self._server_stdin, -1
        _close_quietly(fd)

    async def _pump_client(self, stdin_w: int, proc: trio.Process, nursery: trio.Nursery) -> None:
        """Client stdin to server stdin; at client EOF, close the server's stdin."""

        def server_stdin_gone(exc: OSError) -> None:
            self._server_stdin_gone = True

        await self._pump(Stream.C2S, 0, stdin_w, server_stdin_gone)
        self._close_server_stdin()
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
        await self._terminate(proc)

    async def _terminate(self, proc: trio.Process) -> None:
        if signal_group(proc, signal.SIGTERM):
            self.event(Event.SERVER_TERMINATED)
        with trio.move_on_after(KILL_AFTER):
            await self._server_exited.wait()
            return
        if signal_group(proc, signal.SIGKILL):
            self.event(Event.SERVER_KILLED)
            self.say("the server ignored SIGTERM; killed it")

    async def _relay_signals(
        self, signals: AsyncIterator[int], proc: trio.Process, nursery: trio.Nursery
    ) -> None:
        async for signum in signals:
            signal_group(proc, signum)
            self.event(Event.SIGNAL_FORWARDED, signal=signal_name(signum))
            self.say(f"passed {signal_name(signum)} on to the server")
            if not self._kill_timer_started:
                self._kill_timer_started = True
                nursery.start_soon(self._kill_later, proc)

    async def _kill_later(self, proc: trio.Process) -> None:
        with trio.move_on_after(self.config.exit_grace + KILL_AFTER):
            await self._server_exited.wait()
            return
        if signal_group(proc, signal.SIGKILL):
            self.event(Event.SERVER_KILLED)

    # --- sinks

    async def _writer(self) -> None:
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            self._flush()

    def _flush(self) -> None:
        records = self.recorder.drain()
        if records:
            for sink in self._sinks:
                sink(records)

    def _open_log(self, target: str) -> Callable[[list[Record]], None]:
        from mcpspy.proxy.log import open_log_sink

        return open_log_sink(target, self.warn)


def _close_quietly(fd: int) -> None:
    if fd < 0:
        return
    try:
        os.close(fd)
    except OSError:
        pass
