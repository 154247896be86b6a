"""`mcpspy --log`: one human line per message as it passes, on stderr or in a file.

The sink runs in the proxy's sink process (``proxy.sink_child``), fed what
the proxy recorded; it must never raise: the first failure is reported once
through ``warn`` and the sink goes quiet for the rest of the session.
Forwarding never depends on it.
"""

from __future__ import annotations

from collections.abc import Callable

from mcpspy.analysis.model import AnalysisEvent, Finding, FindingRaised, Kind, Message, MessageSeen
from mcpspy.capture.records import Record
from mcpspy.replay_policy import Replay
from mcpspy.terminal import visible_line

PREFIX = "mcpspy"


def format_message(message: Message) -> str:
    """`mcpspy   0.012s → request  id=1 tools/list  [meta.missing]`"""
    parts = [f"{PREFIX} {message.t:9.3f}s {message.stream.arrow} {message.kind.value:<12}"]
    if message.id is not None:
        parts.append(f"id={message.id!r}")
    if message.method:
        parts.append(message.method)
    ex = message.exchange
    if message.kind in (Kind.RESPONSE, Kind.ERROR_RESPONSE) and ex is not None and ex.latency is not None:
        parts.append(f"{ex.latency * 1000:.1f}ms")
    if message.kind in (Kind.NOT_JSON, Kind.STDERR, Kind.INVALID):
        parts.append(repr(message.raw[:60].decode("utf-8", "backslashreplace")))
    if message.findings:
        parts.append("[" + " ".join(f.id for f in message.findings) + "]")
    return " ".join(parts)


def format_finding(finding: Finding) -> str:
    return f"{PREFIX} {finding.severity.label}: {finding.id} (seq {finding.seq}): {finding.message}"


class LogSink:
    """Feeds each batch through its own Replay (the one policy every view uses) and writes what it learned."""

    def __init__(
        self, write: Callable[[bytes], None], warn: Callable[[str], None], show_stderr: bool
    ) -> None:
        self.replay = Replay(retain=False)  # lean: pending requests and recent exchanges, no history
        self._write = write
        self._warn = warn
        self._show_stderr = show_stderr  # on stderr the server's own lines already pass through
        self._dead = False

    def __call__(self, records: list[Record]) -> None:
        if self._dead:
            return
        try:
            lines: list[str] = []
            for record in records:
                lines += self._lines(self.replay.feed(record))
            lines += self._lines(self.replay.caught_up())  # concluded once the proxy's last record is in
            if lines:  # each line quotes server data: no control character reaches the terminal
                text = "".join(visible_line(line) + "\n" for line in lines)
                self._write(text.encode("utf-8", "backslashreplace"))
        except Exception as exc:  # the proxy must go on whatever the log does
            self._dead = True
            self._warn(f"mcpspy: the --log output stopped: {exc}")

    def skipped(self, count: int) -> None:
        """Say in the log itself what it missed: records dropped while it was behind (SinkThread)."""
        self.replay.analyzer.records_missing()  # exchange updates only (pending -> unknown): not shown
        if not self._dead:
            self._write(
                f"{PREFIX} warning: --log skipped {count:,} records: it fell behind the traffic (its "
                "analysis is slower, or its output was not read); the capture has them all, and no "
                "request is judged unanswered, nor reply unknown or out of order, across the gap\n".encode()
            )

    def _lines(self, events: list[AnalysisEvent]) -> list[str]:
        out: list[str] = []
        attached: set[int] = set()
        for event in events:
            if isinstance(event, MessageSeen):
                message = event.message
                attached.update(id(f) for f in message.findings)
                if message.kind is Kind.STDERR and not self._show_stderr:
                    continue
                out.append(format_message(message))
        for event in events:
            if isinstance(event, FindingRaised) and id(event.finding) not in attached:
                out.append(format_finding(event.finding))
        return out
