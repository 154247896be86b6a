"""The proxy's scopes, and its exit policy.

    client stdin  --c2s-->  server stdin
    client stdout <--s2c--  server stdout
    own stderr    <--err--  server stderr

Each pump is a blocking loop on a worker thread (``pump.py``) that records
what it reads itself (``recording.py``). Trio owns everything else (the
server process, signals, the exit timers) and is not woken by the traffic.
The scopes, outermost first, each with what it holds and when it ends:

``run``
    The session (the capture, the ``--log`` sink) and fd 2's sharing, from
    before the server starts until the last record is written: it finishes
    the capture whatever happens inside.
``Proxy.serve``
    The signal receiver: SIGINT, SIGTERM and SIGHUP are ours to pass on from
    before the server starts until it has exited. Its ``finally`` kills the
    server and waits for it when the scopes below end with it still running.
the ``session`` nursery (``Proxy._proxy``)
    Every task of the session. Its body waits for the server to exit, then
    for its output to end (``_drain``), then cancels the nursery: that ends
    the signal relay and the timers, and abandons a client pump still blocked
    on a stdin the client never closed (the pump thread dies with the process).

    - the signal relay: the whole session; the first signal starts a kill timer.
    - the c2s pump: until the client closes stdin; then the server's stdin is
      closed and the grace watchdog starts.
    - the grace watchdog and the kill timer: until the server exits, or they
      have terminated it.
    - the ``output`` nursery: the s2c and err pumps, until both streams end.

Exit policy: mcpspy's exit code is the server's (128+N for signal N). A
server should exit once its stdin closes; ``exit_grace`` seconds later it is
sent SIGTERM, then SIGKILL ``KILL_AFTER`` seconds after that; a signal passed
on gets ``exit_grace + KILL_AFTER``. After it exits, its children may hold
its pipes open for ``DRAIN_AFTER_EXIT`` seconds; then they are killed.

No process outlives mcpspy (``reaper.py``): mcpspy is a child subreaper, so
once the server has exited (or mcpspy is told to stop) every process left
behind, in the server's group or ``setsid``, is re-parented to mcpspy, and
the sweep terminates, then kills and reaps it. If mcpspy is SIGKILLed, the
watchdog kills the server's group and whatever still descends from the
server. The one case not covered: a SIGKILL of mcpspy (or of mcpspy and the
watchdog together, which has its own session for that reason) when a
descendant has left the server's group (``setsid``/``setpgid``) *and* its
parent chain to the server is already broken (an orphan re-parented to
mcpspy): on mcpspy's death the kernel hands it to init, where nothing links
it to this session any more. Off Linux there is neither subreaper nor
/proc: only the server's group is signalled.
"""

from __future__ import annotations

import functools
import os
import shlex
import signal
import threading
from collections.abc import AsyncIterator

import trio

from mcpspy import early_signals
from mcpspy.capture.private import CaptureRefused
from mcpspy.capture.records import Event, Stream
from mcpspy.inject.engine import Injector
from mcpspy.inject.record import unmatched_details
from mcpspy.proxy.fdio import ensure_std_fds, writer_to
from mcpspy.proxy.inject_pump import Faults, InjectingPump
from mcpspy.proxy.process import exit_status, signal_group, signal_name, start_server
from mcpspy.proxy.pump import Pump
from mcpspy.proxy.reaper import Watchdog, become_subreaper, sweep
from mcpspy.proxy.recording import Recording
from mcpspy.proxy.session import ProxyConfig, Session
from mcpspy.proxy.stderr import SharedStderr

__all__ = ["ProxyConfig", "run"]

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
KILL_AFTER = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_AFTER_EXIT = 2.0  # how long a server's children may hold its pipes open after it exits
DRAIN_AFTER_KILL = 0.2  # then, how long their pipes get to deliver what the kill left
EXIT_CANNOT_START = 127
EXIT_REFUSED = 2  # the capture's place is unsafe: refused before the server starts
STDERR_CLOSE_WAIT = 1.0  # at exit, how long a line of ours may wait for a stderr nobody reads


def run(config: ProxyConfig, watchdog: Watchdog | None = None) -> int:
    """Run the proxy until the server has exited; return the server's exit status.

    ``watchdog``: one forked before this module was imported (``reaper.early_watchdog``), else one
    is forked here.
    """
    ensure_std_fds()
    stderr = SharedStderr(config.verbose)
    try:
        session = Session(config, stderr)
    except CaptureRefused as exc:
        if watchdog is not None:
            watchdog.release()
        stderr.warn(f"mcpspy: {exc}")
        stderr.close()
        return EXIT_REFUSED
    become_subreaper()
    watchdog = watchdog if watchdog is not None else Watchdog()
    swept = False
    status: int | None = None
    try:
        status = trio.run(Proxy(config, session.recording, stderr, watchdog, session.header.command).serve)
        swept = _sweep(stderr, watchdog, session)
        return status
    finally:
        if not swept:  # torn down by an exception: still leave nothing behind
            _sweep(stderr, watchdog, session)
        watchdog.release()
        session.finish(
            status
        )  # the end records after every line; proxy-stopped unless torn down; the sinks stopped
        _close_stderr(stderr)


def _close_stderr(stderr: SharedStderr) -> None:
    """End fd 2's sharing, but never wait long on a stderr nobody reads (a --log line may be stuck in it)."""
    closer = threading.Thread(target=stderr.close, name="mcpspy-stderr-close", daemon=True)
    closer.start()
    closer.join(STDERR_CLOSE_WAIT)


def _sweep(stderr: SharedStderr, watchdog: Watchdog, session: Session) -> bool:
    """Stop every process the server left behind (re-parented to us, the subreaper); True.

    Not ours: the watchdog, and the sink process (``Session.finish`` stops it, after the last record).
    """
    exclude = frozenset(pid for pid in (watchdog.pid, session.sink_pid) if pid is not None)
    if count := sweep(exclude):
        stderr.say(f"stopped {count} process(es) the server left running")
    return True


class Proxy:
    """The trio side of one run: the server process, the pumps' tasks, signals and timers."""

    def __init__(
        self,
        config: ProxyConfig,
        recording: Recording,
        stderr: SharedStderr,
        watchdog: Watchdog | None = None,
        stored_command: tuple[str, ...] = (),
    ) -> None:
        self.config = config
        self.stored_command = stored_command
        self.recording = recording
        self.stderr = stderr
        self.watchdog = watchdog

    async def serve(self) -> int:
        """Start the server, proxy it until it has exited, and return mcpspy's exit status."""
        with trio.open_signal_receiver(*FORWARDED_SIGNALS) as signals:
            if (status := early_signals.pending_exit()) is not None:
                return status  # a signal came while mcpspy started: no server is started
            command = shlex.join(
                self.stored_command
            )  # recorded (escaped, redacted): a failed start's finding names it
            stdin_r, stdin_w = os.pipe()
            stdout_r, stdout_w = os.pipe()
            stderr_r, stderr_w = os.pipe()
            try:
                guarded = self.watchdog is not None and self.watchdog.guards
                proc = await start_server(
                    self.config.command, stdin_r, stdout_w, stderr_w, parent_death=not guarded
                )
            except OSError as exc:
                for fd in (stdin_w, stdout_r, stderr_r):
                    os.close(fd)
                reason = exc.strerror or str(exc)
                self.stderr.warn(f"mcpspy: cannot start {self.config.command[0]!r}: {reason}")
                self.recording.event(
                    Event.SERVER_EXITED, code=EXIT_CANNOT_START, error=reason, command=command
                )
                return EXIT_CANNOT_START
            finally:
                for fd in (stdin_r, stdout_w, stderr_w):
                    os.close(fd)
            if self.watchdog is not None:
                self.watchdog.guard(proc.pid)
            self.recording.event(Event.SERVER_STARTED, pid=proc.pid, command=command)
            self.stderr.say(f"started {' '.join(self.stored_command)} (pid {proc.pid})")
            # Each pump owns its fds and closes them at the end of its stream.
            client: Pump | InjectingPump
            server_out: Pump | InjectingPump
            injector = None
            if self.config.inject:  # chosen once: without --inject the pumps are the plain ones
                faults = self._faults(proc)
                injector = faults.injector
                client = InjectingPump(
                    Stream.C2S, 0, writer_to(stdin_w), faults, closes=stdin_w, sink=stdin_w
                )
                server_out = InjectingPump(
                    Stream.S2C, stdout_r, writer_to(1), faults, on_forward_error=self._client_gone, sink=1
                )
            else:
                client = Pump(Stream.C2S, 0, writer_to(stdin_w), closes=stdin_w, sink=stdin_w)
                server_out = Pump(
                    Stream.S2C, stdout_r, writer_to(1), on_forward_error=self._client_gone, sink=1
                )
            server_err = Pump(Stream.ERR, stderr_r, self.stderr.forward)
            try:
                await self._proxy(proc, signals, client, (server_out, server_err))
                if injector is not None:
                    self._say_unmatched(injector)
            finally:
                if proc.returncode is None:  # we are being torn down: leave no server behind
                    signal_group(proc, signal.SIGKILL)
                    with trio.CancelScope(shield=True):
                        await proc.wait()
        code = proc.returncode
        assert code is not None  # the nursery ends only once the server has exited
        if code < 0:
            self.recording.event(Event.SERVER_EXITED, signal=signal_name(-code))
        else:
            self.recording.event(Event.SERVER_EXITED, code=code)
        self.stderr.say(f"server exited with status {exit_status(code)}")
        return exit_status(code)

    async def _proxy(
        self,
        proc: trio.Process,
        signals: AsyncIterator[int],
        client: Pump | InjectingPump,
        output: tuple[Pump | InjectingPump, ...],
    ) -> None:
        """The session nursery: from the server's start until it has exited and its output ended."""
        output_ended = trio.Event()
        async with trio.open_nursery() as session:
            session.start_soon(self._relay_signals, signals, proc, session)
            session.start_soon(self._pump_client, client, proc, session)
            session.start_soon(self._pump_output, output, output_ended)
            await proc.wait()
            await self._drain(proc, output_ended)
            session.cancel_scope.cancel()

    async def _pump_output(self, pumps: tuple[Pump | InjectingPump, ...], ended: trio.Event) -> None:
        async with trio.open_nursery() as output:
            for pump in pumps:
                output.start_soon(pump.run, self.recording)
        ended.set()

    async def _drain(self, proc: trio.Process, output_ended: trio.Event) -> None:
        """The server has exited: let its output end; past the drain time, kill what holds its pipes."""
        with trio.move_on_after(DRAIN_AFTER_EXIT):
            await output_ended.wait()
            return
        self.stderr.say("the server's children still hold its pipes; stopping them")
        signal_group(proc, signal.SIGKILL)
        with trio.move_on_after(DRAIN_AFTER_KILL):
            await output_ended.wait()

    def _faults(self, proc: trio.Process) -> Faults:
        """What the injecting pumps share (``inject_pump.py``)."""

        def close_client() -> None:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)  # the client's end of our stdout is closed; later writes go nowhere
            os.close(null)

        return Faults(
            Injector(list(self.config.inject), self.config.seed),
            threading.Lock(),
            self.stderr.forward,
            close_client,
            functools.partial(signal_group, proc, signal.SIGKILL),
            self.recording.capture.redactor,
        )

    def _say_unmatched(self, injector: Injector) -> None:
        """Each SPEC that never struck: one stderr line, and a record for the report."""
        for spec in injector.unmatched():
            self.stderr.warn(f"mcpspy: --inject {spec.text!r} never matched (it waited for {spec.where})")
            self.recording.injected(Stream.C2S, 0, unmatched_details(spec))

    def _client_gone(self, exc: OSError) -> None:
        """The s2c pump could not write to our stdout (its thread; once: then it only records)."""
        self.recording.event(Event.CLIENT_GONE, error=exc.strerror or str(exc))
        self.stderr.say("the client stopped reading stdout; still recording the server")

    async def _pump_client(
        self, client: Pump | InjectingPump, proc: trio.Process, session: trio.Nursery
    ) -> None:
        """Client stdin to server stdin; at client EOF, the server's stdin is closed."""
        await client.run(self.recording)
        self.recording.event(Event.STDIN_CLOSED)
        self.stderr.say("the client closed stdin; closed the server's stdin")
        session.start_soon(self._grace_watchdog, proc)

    async def _grace_watchdog(self, proc: trio.Process) -> None:
        """A server should exit when its stdin closes; past the grace, make it."""
        grace = self.config.exit_grace
        if await exits_within(proc, grace):
            return
        self.recording.event(Event.GRACE_EXPIRED, grace=grace)
        self.stderr.say(f"the server is still running {grace:g}s after its stdin closed; terminating it")
        if signal_group(proc, signal.SIGTERM):
            self.recording.event(Event.SERVER_TERMINATED)
        await self._kill_unless_exited(proc, KILL_AFTER)

    async def _kill_unless_exited(self, proc: trio.Process, after: float) -> None:
        if await exits_within(proc, after):
            return
        if signal_group(proc, signal.SIGKILL):
            self.recording.event(Event.SERVER_KILLED)
            self.stderr.say("the server did not exit; killed it")

    async def _relay_signals(
        self, signals: AsyncIterator[int], proc: trio.Process, session: trio.Nursery
    ) -> None:
        kill_timer_started = False
        async for signum in signals:
            signal_group(proc, signum)
            self.recording.event(Event.SIGNAL_FORWARDED, signal=signal_name(signum))
            self.stderr.say(f"passed {signal_name(signum)} on to the server")
            if not kill_timer_started:
                kill_timer_started = True
                session.start_soon(self._kill_unless_exited, proc, self.config.exit_grace + KILL_AFTER)


async def exits_within(proc: trio.Process, seconds: float) -> bool:
    """Whether the server exits within ``seconds`` (at once, if it already has)."""
    with trio.move_on_after(seconds):
        await proc.wait()
        return True
    return False
