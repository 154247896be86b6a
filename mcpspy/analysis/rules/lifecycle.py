"""The server process's life (lifecycle.*): how it ends, as the proxy's events tell it."""

from __future__ import annotations

from mcpspy.analysis.jsonrpc import shown
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.pairing import Pairing
from mcpspy.capture.records import Event, LifecycleRecord, Stream


class Lifecycle:
    def __init__(self, out: Reporter, pairing: Pairing) -> None:
        self._out = out
        self._pairing = pairing  # a server that exits gives up the requests it was sent
        self._stdin_closed = False

    def event(self, record: LifecycleRecord) -> None:
        if record.event is Event.STDIN_CLOSED:
            self._stdin_closed = True
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
