"""The pump of a session with ``--inject``: the injector (``inject.engine``) says what to write.

Chosen once at start-up instead of ``pump.Pump``, so a session without
``--inject`` runs exactly the plain loop. While the injector says a side is
passthrough (no fault can strike there now), a chunk goes the plain way:
read, stamp, forward, record. On the client's side, while a reply may still
be struck, the injector observes the chunk first (the client's requests are
what a reply is matched with: a fast server's reply could otherwise be read
before its request is known), and a crash it calls for strikes before the
forward (so that no reply can race it). A server chunk no live SPEC can
strike at (``Injector.quick``: each waits for a reply to a method no pending
request has, or for a later match) is forwarded as read too, and only then
fed to the injector, to be counted and paired. Otherwise the chunk goes to the
injector, and its steps are carried out in order: each write stamped,
forwarded and recorded as what the peer received; a ``Mark`` recorded just
before the bytes it describes (the capture's ``injected`` record); pauses
sleep this pump's thread; a held line let go when the injector's deadline
passes (``select`` on the source in the meantime). The injector is shared by
both pumps, under one lock.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import trio

from mcpspy.capture.records import Stream
from mcpspy.inject.engine import Close, Injector, Kill, Mark, Pause, Step, Write
from mcpspy.inject.record import Redact, mark_details
from mcpspy.proxy.fdio import READ_SIZE, close_quietly, read_chunk
from mcpspy.proxy.pump import ReadSize
from mcpspy.proxy.recording import Recording

HELD_POLL = 0.02  # while a line is held, how often the pump looks whether the other side let it go


@dataclass(frozen=True)
class Faults:
    """What both injecting pumps share: the injector, its lock, and what its steps act on."""

    injector: Injector
    lock: threading.Lock
    stderr: Callable[[bytes], None]  # the server's stderr as the client sees it
    close_client: Callable[[], None]  # a cut line: the client's stdout ends
    kill_server: Callable[[], object]
    redact: Redact | None = None


@dataclass(eq=False)
class InjectingPump:
    """``pump.Pump`` with faults: the same fields, the same ``run``."""

    stream: Stream
    source: int
    forward: Callable[[bytes], None]
    faults: Faults
    on_forward_error: Callable[[OSError], None] | None = None
    closes: int | None = None
    sink: int | None = None  # widened with ``source`` inside a big line (``pump.ReadSize``)
    _forwarding: bool = True  # False once the peer is gone (or its stdout cut): recording only

    async def run(self, recording: Recording) -> None:
        await trio.to_thread.run_sync(self.run_blocking, recording, abandon_on_cancel=True)

    def run_blocking(self, recording: Recording) -> None:
        faults, stream = self.faults, self.stream
        injector, lock = faults.injector, faults.lock
        self._forwarding = True
        reads = ReadSize(self.source, self.sink)  # a big line is read in bulk, as ``pump.Pump`` does
        try:
            while True:
                if not self._wait_for_input(recording):
                    continue
                data = read_chunk(self.source, reads.size)
                with lock:
                    passthrough = injector.passthrough(stream)
                    quick = not passthrough and injector.quick(stream, data)
                if quick:  # a SPEC waits, but not for this chunk: on as read, then counted and paired
                    ticket, t = recording.stamp()
                    self._forward(data)
                    recording.chunk(ticket, stream, t, data)
                    with lock:
                        injector.feed(stream, data, time.monotonic(), forwarded=True)
                elif passthrough:
                    if stream is Stream.C2S and data and injector.observing:  # before the forward:
                        with lock:  # the reply may be read first
                            steps = injector.observe(data)
                        if steps:  # a crash: the server dies as the request reaches it
                            self._carry(steps, recording)
                    ticket, t = recording.stamp()
                    if data:
                        self._forward(data)
                    recording.chunk(ticket, stream, t, data)
                else:
                    with lock:
                        steps = injector.feed(stream, data, time.monotonic())
                    self._carry(steps, recording)
                    if not data:
                        ticket, t = recording.stamp()
                        recording.chunk(ticket, stream, t, b"")
                if not data:
                    return
                reads.after(data)
        finally:
            close_quietly(self.source)
            if self.closes is not None:
                close_quietly(self.closes)

    def _wait_for_input(self, recording: Recording) -> bool:
        """With a line held, wait for input only until its deadline; False once the deadline let it go."""
        injector, lock = self.faults.injector, self.faults.lock
        with lock:
            deadline = injector.deadline(self.stream)
        if deadline is None:
            return True
        wait = min(max(deadline - time.monotonic(), 0.0), HELD_POLL)
        if wait > 0 and select.select([self.source], [], [], wait)[0]:
            return True
        with lock:
            steps = injector.due(self.stream, time.monotonic())
        self._carry(steps, recording)
        return False

    def _forward(self, data: bytes) -> None:
        if not self._forwarding:
            return
        try:
            self.forward(data)
        except OSError as exc:
            self._forwarding = False
            if self.on_forward_error is not None:
                self.on_forward_error(exc)
        if len(data) <= READ_SIZE:  # as pump.Pump does: the woken peer runs before the recording
            os.sched_yield()  # (not a bulk read: the peer has a full pipe to work on)

    def _carry(self, steps: list[Step], recording: Recording) -> None:
        faults = self.faults
        for step in steps:
            if isinstance(step, Write):
                ticket, t = recording.stamp()
                if step.to is Stream.ERR:
                    try:
                        faults.stderr(step.data)
                    except OSError:
                        pass
                else:
                    self._forward(step.data)
                recording.chunk(ticket, step.to, t, step.data)
            elif isinstance(step, Mark):
                recording.injected(step.stream, step.lines, mark_details(step, faults.redact), step.skip)
            elif isinstance(step, Pause):
                time.sleep(step.seconds)
            elif isinstance(step, Close):
                self._forwarding = False
                faults.close_client()
            elif isinstance(step, Kill):
                faults.kill_server()
