"""The analyzer: fed capture records one at a time, in the manner of h11.

``feed(record)`` returns what the record taught it (the classified message,
exchanges that changed, findings); ``check_pending(t)`` flags slow requests
at a time the caller chooses; ``finish()`` closes the books. No clock, no
I/O: the same records always give the same analysis, live or replayed.

This is the facade: it hands each line to the rule families in rules/, in a
fixed order (framing, then the message by its kind and direction), and keeps
no rule of its own.
"""

from __future__ import annotations

from typing import Any

import orjson

from mcpspy.analysis.jsonrpc import Parsed
from mcpspy.analysis.message_fields import request_version
from mcpspy.analysis.model import (
    AnalysisEvent,
    Era,
    Exchange,
    Finding,
    Kind,
    LifecycleSeen,
    Message,
    Severity,
)
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rules.capabilities import Capabilities
from mcpspy.analysis.rules.capture_integrity import CaptureIntegrity
from mcpspy.analysis.rules.digest import DigestRules
from mcpspy.analysis.rules.envelope import Envelope
from mcpspy.analysis.rules.framing import Framing, classify_line
from mcpspy.analysis.rules.legacy import EraTracker
from mcpspy.analysis.rules.lifecycle import Lifecycle
from mcpspy.analysis.rules.modern import ModernRules
from mcpspy.analysis.rules.pairing import Pairing
from mcpspy.analysis.rules.progress_logging import Logging, Progress
from mcpspy.analysis.rules.requests import Requests
from mcpspy.analysis.rules.shapes import Shapes
from mcpspy.analysis.rules.tool_schemas import ToolSchemas
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Record, Stream

# Hot (every line is dispatched here): Enum members as module constants (speed policy: analysis/__init__.py).
REQUEST, NOTIFICATION, RESPONSE, STDERR = Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.STDERR
C2S, S2C, ERR = Stream.C2S, Stream.S2C, Stream.ERR
LEGACY = Era.LEGACY
SWEEP_AT = 1024  # requests kept for their replies before the ones no longer pending are dropped


def read_line(record: LineRecord) -> tuple[Message, Parsed | None]:
    """A line on its own, with no history: its message, and what its reading says (None for stderr)."""
    if record.stream is ERR:
        return Message(record.seq, record.t, record.stream, STDERR, record.data, record.terminated), None
    parsed = classify_line(record.data, record.stream)
    message = Message(
        record.seq,
        record.t,
        record.stream,
        parsed.kind,
        record.data,
        record.terminated,
        parsed.payload,
        parsed.id,
        parsed.method,
        glued_prefix=parsed.glued_prefix,
    )
    return message, parsed


RECENT_EXCHANGES = 4096  # lean mode: answered requests remembered per direction (late and duplicate replies)


class Analyzer:
    """``retain=False`` is the lean mode of the proxy's ``--log``: no history, the same findings.

    It keeps what pairing and the rules need (pending requests and their
    messages, the last ``RECENT_EXCHANGES`` answered ones of each direction, the
    progress tokens of those) and counts instead of lists: ``messages``,
    ``findings``, ``exchanges`` and ``lifecycle`` stay empty, ``message_count``
    and ``finding_counts`` say how many. The one difference: a reply (or a
    progress notification, or a cancel) about a request answered more than
    ``RECENT_EXCHANGES`` requests ago is judged as if that request were unknown.
    """

    def __init__(self, slow_after: float = 30.0, retain: bool = True) -> None:
        self.slow_after = slow_after
        self.retain = retain
        recent = None if retain else RECENT_EXCHANGES
        self.exchanges: list[Exchange] = []
        self._out = out = Reporter(retain)
        self._framing = Framing(out)
        self._envelope = Envelope(out)
        self._pairing = Pairing(out, recent)
        self._era = EraTracker(out)
        self._modern = ModernRules(out, self._era)
        self._capabilities = Capabilities(out, self._era)
        self._progress = Progress(out, recent, self._pairing.is_pending)
        self._logging = Logging(out)
        self._shapes = Shapes(out, self._era)
        self._tool_schemas = ToolSchemas(out, self._era)
        self._lifecycle = Lifecycle(out, self._pairing)
        self._capture = CaptureIntegrity(out, self._pairing)  # what the capture says it lost
        self._digest = DigestRules(out, self._era)  # MRTR, subscriptions, deprecations, caching
        self._requests = Requests(out)
        self.lifecycle: list[LifecycleSeen] = []  # every process event, in order (exports place them)
        self._finished = False
        # The messages of requests that may still be answered, by seq (what a reply is checked with).
        self._open: dict[int, Message] = {}
        self._sweep_at = SWEEP_AT

    # --- public API

    @property
    def messages(self) -> list[Message]:
        return self._out.messages

    @property
    def findings(self) -> list[Finding]:
        return self._out.findings

    @property
    def message_count(self) -> int:
        return self._out.message_count

    @property
    def finding_counts(self) -> dict[Severity, int]:
        return self._out.finding_counts

    @property
    def era(self) -> Era:
        return self._era.era

    @property
    def protocol_version(self) -> str | None:
        return self._era.protocol_version

    @property
    def supported_versions(self) -> list[str] | None:
        return self._modern.supported_versions

    @property
    def server_capabilities(self) -> dict[str, Any] | None:
        """From the initialize or server/discover result; None until one is seen."""
        return self._capabilities.server

    @property
    def client_capabilities(self) -> dict[str, Any] | None:
        """From the initialize params (legacy); None otherwise."""
        return self._capabilities.client

    @property
    def pending(self) -> list[Exchange]:
        return self._pairing.pending

    def message(self, seq: int) -> Message | None:
        return self._out.by_seq.get(seq)

    def feed(self, record: Record) -> list[AnalysisEvent]:
        if isinstance(record, LifecycleRecord):
            self._out.events = []
            seen = LifecycleSeen(record.seq, record.t, record.event.value, dict(record.details))
            if self.retain:
                self.lifecycle.append(seen)
            self._out.events.append(seen)
            if record.event is Event.INJECTED:
                self._injected(record.details)
            self._lifecycle.event(record)
            self._capture.event(record)
            return self._out.events
        return self.feed_read(*read_line(record))

    def feed_read(self, message: Message, parsed: Parsed | None) -> list[AnalysisEvent]:
        """A line that ``read_line`` has read already (a viewer lists lines before analysing them)."""
        self._out.events = []
        if parsed is None:  # stderr: listed, never judged (a failed start quotes its last lines)
            self._out.message(message)
            self._lifecycle.stderr(message)
        else:
            carried = self._framing.line(message, parsed)
            if carried is not None:
                self._protocol(carried)
        return self._out.events

    def _injected(self, details: dict[str, Any]) -> None:
        """An ``injected`` record (``mcpspy --inject``): what it wrote, and the request it struck, are its."""
        out = self._out
        altered, lines = details.get("altered"), details.get("lines", 0)
        if type(altered) is int and type(lines) is int:
            seqs = range(altered, altered + max(1, min(lines, 1 << 20)))
            out.injected_seqs.update(seqs)
            out.injected_lines.update(dict.fromkeys(seqs, details))
        ident = details.get("id")
        if isinstance(ident, str) and details.get("request"):
            for exchange in self._pairing.in_flight(C2S):
                if orjson.dumps(exchange.id).decode() == ident:
                    out.injected_seqs.add(exchange.request_seq)
        if details.get("ends"):
            out.injected_all = True

    @property
    def injected_findings(self) -> list[Finding]:
        """Findings an injection provoked (``--inject``): never among ``findings``, never counted."""
        return self._out.injected_findings

    def records_missing(self) -> None:
        """Records between the last fed and the next never came (a --log that fell behind)."""
        self._pairing.gap()

    def check_pending(self, t: float) -> list[AnalysisEvent]:
        self._out.events = []
        self._pairing.check_pending(t, self.slow_after)
        self._requests.check(t)
        return self._out.events

    def finish(self) -> list[AnalysisEvent]:
        self._out.events = []
        if not self._finished:
            self._finished = True
            for stream in (C2S, S2C):
                self._framing.flush(stream)
            self._pairing.finish()
            self._requests.finish()
        return self._out.events

    # --- a JSON-RPC message, to the families by kind and direction

    def _protocol(self, message: Message) -> None:
        self._lifecycle.protocol(message)
        if message.payload is None:  # an oversized line, read from its ends (rules/framing.py)
            self._pair_only(message)
            return
        if message.kind is REQUEST:
            self._request(message)
        elif message.kind is NOTIFICATION:
            self._notification(message)
        else:
            self._response(message)
        self._modern.meta_keys(message)  # after: an initialize result has set the revision

    def _open_exchange(self, message: Message) -> Exchange:
        """Pair a request; keep its message while a reply may still come for it."""
        exchange = self._pairing.request(message, self._era.era is LEGACY)
        if self.retain:
            self.exchanges.append(exchange)
        opened = self._open
        opened[message.seq] = message
        if len(opened) > self._sweep_at:  # cancelled, given up or never pending: amortised O(1)
            is_pending = self._pairing.is_pending
            self._open = {seq: m for seq, m in opened.items() if m.exchange and is_pending(m.exchange)}
            self._sweep_at = max(SWEEP_AT, 2 * len(self._open))
        return exchange

    def _pair_only(self, message: Message) -> None:
        """A message whose content is unread: its exchange is kept, and no rule judges it."""
        if message.kind is REQUEST:
            self._open_exchange(message)
        elif message.kind is not NOTIFICATION:
            self._pairing.response(message)

    def _request(self, message: Message) -> None:
        exchange = self._open_exchange(message)
        self._progress.request(message, exchange)
        if message.stream is S2C:
            self._era.server_request(message)
            self._modern.server_request(message)
            self._capabilities.server_request(message)
            return
        exchange.version = request_version(message)  # its reply is held to it too
        self._requests.client_request(message, exchange)
        if message.method == "initialize":
            self._era.initialize(message, exchange)
            self._capabilities.learn_client(message)
            self._digest.initialize(message)
            return
        if self._era.client_request(message, exchange):
            self._modern.meta_missing(message)
        self._modern.client_request(message)
        self._capabilities.client_request(message)
        self._digest.client_request(message, exchange)

    def _notification(self, message: Message) -> None:
        self._requests.notification(message)
        if message.method == "notifications/cancelled":
            if not self._digest.cancel(message):
                self._pairing.cancel(message)
        elif message.method == "notifications/progress":
            self._progress.notification(message)
            self._requests.progress(message)
            if message.stream is C2S:
                self._digest.client_notification(message)
        elif message.stream is C2S:
            self._digest.client_notification(message)
            self._era.client_notification(message)
        else:
            self._digest.server_notification(message)
            self._capabilities.server_notification(message)
            if message.method == "notifications/message":
                self._logging.notification(message)

    def _response(self, message: Message) -> None:
        if message.stream is C2S:
            self._modern.client_response(message)
        self._envelope.idless_error(message)
        exchange = self._pairing.response(message)
        if exchange is None:
            return
        request = self._open.pop(exchange.request_seq, None)  # never None: requests are seen first
        is_result = message.kind is RESPONSE
        if exchange.stream is C2S:
            if exchange.method == "initialize":
                for held in self._era.initialize_answered(message, request):
                    self._modern.meta_missing(held)
            elif is_result:
                self._modern.result(exchange, message)
            else:
                self._modern.error(exchange, message, request)
            if not is_result:
                self._requests.client_error(exchange, message)
            self._capabilities.learn_server(exchange.method, message)
            if exchange.method != "initialize":
                self._digest.answered(exchange, message, request)
        if is_result and exchange.method == "ping":
            self._modern.ping_result(message)
        if is_result and request is not None:
            named = self._tool_schemas.result(exchange, message, request)
            self._shapes.result(exchange, message, request, named)
