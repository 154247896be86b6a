"""The DIGEST rooms of 2026-07-28 (mrtr.py, subscriptions.py, deprecations.py, caching.py) behind one door.

It raises nothing itself: it decides which messages are 2026-07-28 traffic
(a request carrying the revision's _meta, a notification of a process that is
not legacy) and hands each to the rooms, so the analyzer calls one object.
"""

from __future__ import annotations

from mcpspy.analysis.message_fields import result_of
from mcpspy.analysis.model import Era, Exchange, Kind, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rules.caching import Caching
from mcpspy.analysis.rules.deprecations import Deprecations
from mcpspy.analysis.rules.legacy import EraTracker
from mcpspy.analysis.rules.mrtr import Mrtr
from mcpspy.analysis.rules.subscriptions import Subscriptions
from mcpspy.capture.records import Stream

MODERN = Era.MODERN


class DigestRules:
    def __init__(self, out: Reporter, era: EraTracker) -> None:
        self._era = era
        self.mrtr = Mrtr(out)
        self.subscriptions = Subscriptions(out)
        self.deprecations = Deprecations(out)
        self.caching = Caching(out)

    def client_request(self, message: Message, exchange: Exchange) -> None:
        """A client request other than initialize."""
        if exchange.version is None or self._era.era is Era.LEGACY:
            return
        self.mrtr.request(message)
        self.subscriptions.request(message)
        self.deprecations.client_request(message, exchange)
        self.caching.request(message)

    def initialize(self, message: Message) -> None:
        """Any era: a fallback to initialize is judged by what server/discover answered before it."""
        self.deprecations.initialize(message)

    def cancel(self, message: Message) -> bool:
        """A notifications/cancelled; True when it is a 2026-07-28 server's, which pairing must not read.

        A 2026-07-28 server cancels only a client's subscriptions/listen, never a request of its own.
        """
        if self._era.era is not MODERN:
            return False
        by_server = message.stream is Stream.S2C
        self.subscriptions.cancel(message, by_server)
        return by_server

    def client_notification(self, message: Message) -> None:
        if self._era.era is MODERN and not self._era.handshake_open:
            self.deprecations.client_notification(message)

    def server_notification(self, message: Message) -> None:
        if self._era.era is MODERN:
            self.subscriptions.notification(message)
            self.deprecations.server_notification(message)
            self.caching.server_notification(message)

    def answered(self, exchange: Exchange, reply: Message, request: Message | None) -> None:
        """The reply to a client request other than initialize, and that request (when still held)."""
        if exchange.version is None or self._era.era is Era.LEGACY:
            return
        if exchange.method == "subscriptions/listen":
            self.subscriptions.answered(exchange.id, reply)
        if exchange.method == "server/discover":
            self.deprecations.discover_answered(reply)
        if reply.kind is not Kind.RESPONSE:
            self.deprecations.error(exchange, reply)
            self.caching.error()
            return
        result = result_of(reply)
        if not isinstance(result, dict):
            return
        result_type = result.get("resultType")
        result_type = "complete" if result_type is None else result_type  # absent (or null) reads as complete
        if result_type == "input_required":
            self.mrtr.result(exchange, reply, result, request)
        self.caching.result(exchange, reply, result, result_type, request)
        if exchange.method == "resources/read" and result_type == "complete":
            self.deprecations.read_result(reply, result)
