"""The server process's life (lifecycle.*): how it ends, as the proxy's events tell it."""

from __future__ import annotations

from collections import deque

from mcpspy.analysis.jsonrpc import shown
from mcpspy.analysis.model import Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.pairing import Pairing
from mcpspy.capture.records import Event, LifecycleRecord, Stream
from mcpspy.terminal import visible_bytes

STDERR_SHOWN = 3  # the last stderr lines a failed start quotes
STDERR_WIDTH = 160  # characters of each


class Lifecycle:
    def __init__(self, out: Reporter, pairing: Pairing) -> None:
        self._out = out
        self._pairing = pairing  # a server that exits gives up the requests it was sent
        self._stdin_closed = False
        self._command: object = None  # as the proxy recorded it when it started the server
        # What a failed start is told with, learnt as lines pass (lean mode keeps no history); it is
        # judged by whether the client asked and the server replied, which pairing keeps.
        self._stderr: deque[bytes] = deque(maxlen=STDERR_SHOWN)

    def stderr(self, message: Message) -> None:
        self._stderr.append(message.raw)

    def event(self, record: LifecycleRecord) -> None:
        if record.event is Event.STDIN_CLOSED:
            self._stdin_closed = True
        elif record.event is Event.SERVER_STARTED:
            self._command = record.details.get("command")
        elif record.event is Event.GRACE_EXPIRED:
            self._out.find(
                RuleId.LIFECYCLE_NO_EXIT_ON_EOF,
                record.seq,
                None,
                f"the server was still running {record.details.get('grace', '?')}s after its "
                "stdin closed; mcpspy terminated it",
            )
        elif record.event is Event.SERVER_EXITED:
            self._server_exited(record)

    def _server_exited(self, record: LifecycleRecord) -> None:
        in_flight = self._pairing.in_flight(Stream.C2S)
        if self._failed_to_connect(record):  # one finding says it all: the requests are given up quietly
            self._pairing.give_up(in_flight)
            return
        clean_exit = record.details.get("code") == 0 and self._stdin_closed
        if not in_flight or clean_exit:  # a clean exit after EOF: finish() calls them unanswered
            return
        how = record.details.get("signal") or f"code {record.details.get('code', '?')}"
        names = ", ".join(f"{e.method} (id {shown(e.id)})" for e in in_flight[:3])
        more = f" and {len(in_flight) - 3} more" if len(in_flight) > 3 else ""
        self._out.find(
            RuleId.LIFECYCLE_CRASH_IN_FLIGHT,
            record.seq,
            None,
            f"the server exited ({how}) with {len(in_flight)} request(s) in flight: {names}{more}",
        )
        self._pairing.give_up(in_flight)

    def _failed_to_connect(self, record: LifecycleRecord) -> bool:
        """Never started, or gone before its first reply: on its own, or unclean after the client left."""
        details = record.details
        never_started = "error" in details  # what the proxy records when it cannot start the command
        if not never_started:
            if self._pairing.server_replied:
                return False
            # The client left first: a clean exit, or no request, is no failure.
            if self._stdin_closed and (not self._pairing.client_asked or details.get("code") == 0):
                return False
        how = f"never started: {details['error']}" if never_started else "exited before its first reply"
        code = (
            f"signal {details['signal']}" if "signal" in details else f"exit code {details.get('code', '?')}"
        )
        command = details.get("command", self._command)
        command = (
            "" if command is None else f"; command: {visible_bytes(str(command).encode(), STDERR_WIDTH)}"
        )
        stderr = "" if never_started else f"; {self._last_stderr()}"  # a command never run wrote nothing
        self._out.find(
            RuleId.LIFECYCLE_FAILED_TO_CONNECT,
            record.seq,
            None,
            f"the server {how} ({code}){command}{stderr}",
        )
        return True

    def _last_stderr(self) -> str:
        if not self._stderr:
            return "it wrote nothing on stderr"
        return "its last stderr lines: " + " | ".join(
            visible_bytes(raw, STDERR_WIDTH) for raw in self._stderr
        )
