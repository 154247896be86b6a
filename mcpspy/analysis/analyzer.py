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

from mcpspy.analysis.jsonrpc import Parsed
from mcpspy.analysis.message_fields import request_version
from mcpspy.analysis.model import AnalysisEvent, Era, Exchange, Finding, Kind, LifecycleSeen, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rules.capabilities import Capabilities
from mcpspy.analysis.rules.envelope import Envelope
from mcpspy.analysis.rules.framing import Framing, classify_line
from mcpspy.analysis.rules.legacy import EraTracker
from mcpspy.analysis.rules.lifecycle import Lifecycle
from mcpspy.analysis.rules.modern import ModernRules
from mcpspy.analysis.rules.pairing import Pairing
from mcpspy.analysis.rules.progress_logging import Logging, Progress
from mcpspy.analysis.rules.requests import Requests
from mcpspy.analysis.rules.shapes import Shapes
from mcpspy.capture.records import LifecycleRecord, LineRecord, Record, Stream

# Hot (every line is dispatched here): Enum members as module constants (speed policy: analysis/__init__.py).
REQUEST, NOTIFICATION, RESPONSE, STDERR = Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.STDERR
C2S, S2C, ERR = Stream.C2S, Stream.S2C, Stream.ERR


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


class Analyzer:
    def __init__(self, slow_after: float = 30.0) -> None:
        self.slow_after = slow_after
        self.exchanges: list[Exchange] = []
        self._out = out = Reporter()
        self._framing = Framing(out)
        self._envelope = Envelope(out)
        self._pairing = Pairing(out)
        self._era = EraTracker(out)
        self._modern = ModernRules(out, self._era)
        self._capabilities = Capabilities(out, self._era)
        self._progress = Progress(out)
        self._logging = Logging(out)
        self._shapes = Shapes(out, self._era)
        self._lifecycle = Lifecycle(out, self._pairing)
        self._requests = Requests(out)
        self.lifecycle: list[LifecycleSeen] = []  # every process event, in order (exports place them)
        self._finished = False

    # --- public API

    @property
    def messages(self) -> list[Message]:
        return self._out.messages

    @property
    def findings(self) -> list[Finding]:
        return self._out.findings

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
            self.lifecycle.append(seen)
            self._out.events.append(seen)
            self._lifecycle.event(record)
            return self._out.events
        return self.feed_read(*read_line(record))

    def feed_read(self, message: Message, parsed: Parsed | None) -> list[AnalysisEvent]:
        """A line that ``read_line`` has read already (a viewer lists lines before analysing them)."""
        self._out.events = []
        if parsed is None:  # stderr: listed, never judged
            self._out.message(message)
        else:
            carried = self._framing.line(message, parsed)
            if carried is not None:
                self._protocol(carried)
        return self._out.events

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
        if message.payload is None:  # an oversized line, read from its ends (rules/framing.py)
            self._pair_only(message)
        elif message.kind is REQUEST:
            self._request(message)
        elif message.kind is NOTIFICATION:
            self._notification(message)
        else:
            self._response(message)

    def _pair_only(self, message: Message) -> None:
        """A message whose content is unread: its exchange is kept, and no rule judges it."""
        if message.kind is REQUEST:
            self.exchanges.append(self._pairing.request(message))
        elif message.kind is not NOTIFICATION:
            self._pairing.response(message)

    def _request(self, message: Message) -> None:
        exchange = self._pairing.request(message)
        self.exchanges.append(exchange)
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
            return
        if self._era.client_request(message, exchange):
            self._modern.meta_missing(message)
        self._modern.client_request(message)
        self._capabilities.client_request(message)

    def _notification(self, message: Message) -> None:
        self._requests.notification(message)
        if message.method == "notifications/cancelled":
            self._pairing.cancel(message)
        elif message.method == "notifications/progress":
            self._progress.notification(message)
            self._requests.progress(message)
        elif message.stream is C2S:
            self._era.client_notification(message)
        else:
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
        request = self._out.by_seq.get(exchange.request_seq)  # never None: requests are seen first
        is_result = message.kind is RESPONSE
        if exchange.stream is C2S:
            if exchange.method == "initialize":
                for held in self._era.initialize_answered(message, request):
                    self._modern.meta_missing(held)
            elif is_result:
                self._modern.result(exchange, message)
            else:
                self._modern.error(exchange, message)
            if not is_result:
                self._requests.client_error(exchange, message)
            self._capabilities.learn_server(exchange.method, message)
        if is_result and request is not None:
            self._shapes.result(exchange, message, request)
