"""The era of the process, and the legacy handshake's rules (legacy.*).

Modern (2026-07-28): every request carries _meta protocolVersion and
clientCapabilities, and there is no handshake. Legacy: an answered
`initialize` switches the process to the 2024-11-05 .. 2025-11-25 rules, the
version in its result in force. The era is read from what this process
carries, never from having seen a probe. What 2026-07-28 asks of a request
that lacks _meta is rules/modern.py's; this file says which requests those are.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from mcpspy.analysis.jsonrpc import shown
from mcpspy.analysis.message_fields import HANDSHAKE_REVISIONS, declares_handshake_revision, result_of
from mcpspy.analysis.model import Era, Exchange, ExchangeState, Kind, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId

LEGACY_REVISIONS = HANDSHAKE_REVISIONS
# Hot (the era is asked of every request and reply): Enum members as module constants
# (speed policy: analysis/__init__.py).
UNKNOWN, MODERN, LEGACY = Era.UNKNOWN, Era.MODERN, Era.LEGACY


class EraTracker:
    """``bound`` (lean mode): at most that many requests held while initialize is unanswered, the newest."""

    def __init__(self, out: Reporter, bound: int | None = None) -> None:
        self._out = out
        self.era = UNKNOWN
        self.protocol_version: str | None = None
        # Requests without _meta while initialize is unanswered (their Exchanges, not their messages).
        self._held: deque[Exchange] = deque(maxlen=bound)
        self._initialize: Exchange | None = None
        self._initialize_ok = False  # an initialize got a result in this process
        self._initialized_sent = False
        self._initialized_flagged = False
        self.lacks_meta = False  # the client request just seen lacks the _meta 2026-07-28 asks for
        self.released: list[Exchange] = []  # requests held, found to lack _meta when initialize was answered

    @property
    def handshake_open(self) -> bool:
        """A legacy handshake is under way or done, and the client has not sent initialized yet."""
        return (
            self._initialize is not None
            and not self._initialized_sent
            and (self._initialize_ok or self._initialize.state is ExchangeState.PENDING)
        )

    def revision(self, exchange: Exchange) -> str | None:
        """The revision whose schema ``exchange`` is held to."""
        if self.era is LEGACY:
            if self.protocol_version in LEGACY_REVISIONS:
                return self.protocol_version
            if exchange.method == "initialize":  # its result named no known revision: the one asked for
                requested = exchange.held.requested if exchange.held is not None else None
                return requested if isinstance(requested, str) else None
            return None
        return exchange.version

    # --- whether a message is 2026-07-28 traffic (what the DIGEST rules of that revision judge)

    def modern_request(self, exchange: Exchange) -> bool:
        """A client request that carried the revision's _meta, in a process that is not legacy."""
        return exchange.version is not None and self.era is not LEGACY

    def modern_reply(self, exchange: Exchange) -> bool:
        """The reply to such a request, other than initialize (an answered initialize is the era's)."""
        return exchange.version is not None and self.era is not LEGACY and exchange.method != "initialize"

    @property
    def modern(self) -> bool:
        return self.era is MODERN

    @property
    def modern_client(self) -> bool:
        """A 2026-07-28 process with no legacy handshake under way: what the client sends is judged so."""
        return self.era is MODERN and not self.handshake_open

    # --- what the client sends

    def initialize(self, message: Message) -> None:
        if self._initialize_ok:
            self._out.find(
                RuleId.LEGACY_REINITIALIZE,
                message.seq,
                message.stream,
                f"a second initialize (id {shown(message.id)}); the first was answered at seq "
                f"{self._initialize.reply_seq if self._initialize else '?'}",
            )
        self._initialize = message.exchange

    def client_request(self, message: Message) -> None:
        """Any client request but initialize; ``lacks_meta`` says whether the process is not legacy and
        it lacks _meta (rules/modern.py flags it next).

        A request without _meta while initialize is pending is held until the
        answer says the era (``initialize_answered``).
        """
        exchange = message.exchange
        if exchange is not None and exchange.version is not None and self.era is not UNKNOWN:
            self.lacks_meta = False  # _lacks_meta's common case, inline: every request
        else:
            self.lacks_meta = self._lacks_meta(message)

    def _lacks_meta(self, message: Message) -> bool:
        exchange = message.exchange
        assert exchange is not None  # pairing opened it
        if exchange.version is not None:
            if self.era is UNKNOWN:
                self.era = MODERN
                self.protocol_version = exchange.version
            return False
        if self.era is LEGACY:
            if not self._initialized_sent and not self._initialized_flagged and message.method != "ping":
                self._initialized_flagged = True
                self._out.find(
                    RuleId.LEGACY_INITIALIZED_MISSING,
                    message.seq,
                    message.stream,
                    f"{message.method} was sent before notifications/initialized",
                )
            return False
        if declares_handshake_revision(message):  # judged by the revision it declares, not 2026-07-28's
            return False
        if self._initialize is not None and self._initialize.state is ExchangeState.PENDING:
            self._held.append(exchange)
            self._out.holding(True)  # a lean Reporter keeps their replies: meta_missing reads them
            return False
        return True

    def client_notification(self, message: Message) -> None:
        if message.method != "notifications/initialized":
            return
        initialize = self._initialize
        if initialize is not None and not self._initialize_ok:
            when = (
                "before initialize was answered"
                if initialize.state is ExchangeState.PENDING
                else f"after initialize failed (seq {initialize.reply_seq})"
            )
            self._out.find(
                RuleId.LEGACY_INITIALIZED_EARLY,
                message.seq,
                message.stream,
                f"notifications/initialized was sent {when}",
                related_seq=initialize.request_seq,
            )
        self._initialized_sent = True

    # --- what the server sends

    def server_request(self, message: Message) -> None:
        if self.era is not MODERN and message.method != "ping" and self.handshake_open:
            self._out.find(
                RuleId.LEGACY_SERVER_EARLY_REQUEST,
                message.seq,
                message.stream,
                f"the server sent {message.method or ''} (id {shown(message.id)}) before the client's "
                "notifications/initialized",
            )

    def initialize_answered(self, message: Message) -> None:
        """The server's reply to initialize decides the era.

        When the answer makes the process modern, ``released`` lists the requests held
        while it was pending: they lacked the _meta 2026-07-28 asks for (rules/modern.py).
        """
        exchange = message.exchange
        if exchange is None or exchange.method != "initialize":
            return
        held = list(self._held)
        self._held.clear()
        self._out.holding(False)
        result = result_of(message)
        if message.kind is Kind.RESPONSE and isinstance(result, dict):
            self.era = LEGACY
            self._initialize_ok = True
            version = result.get("protocolVersion")
            self.protocol_version = version if isinstance(version, str) else None
            requested = exchange.held.requested if exchange.held is not None else None
            self._check_negotiated(message, version, requested)
            for early in held:
                if early.method != "ping":
                    self._out.find(
                        RuleId.LEGACY_EARLY_REQUEST,
                        early.request_seq,
                        early.stream,
                        f"{early.method} (id {shown(early.id)}) was sent before initialize was "
                        f"answered (seq {message.seq})",
                    )
            return
        if self.era is UNKNOWN:  # a modern server rejected initialize: the process is modern
            self.era = MODERN
        self.released = held

    def _check_negotiated(self, message: Message, version: Any, requested: Any) -> None:
        if not isinstance(version, str) or version == requested:
            return
        if version not in LEGACY_REVISIONS:
            self._out.find(
                RuleId.LEGACY_VERSION_UNKNOWN,
                message.seq,
                message.stream,
                f"the server chose protocol version {shown(version)}, which the client did not ask for "
                f"({shown(requested)}) and is no revision with an initialize handshake",
            )
        else:
            self._out.find(
                RuleId.LEGACY_VERSION_CHANGED,
                message.seq,
                message.stream,
                f"the client asked for {shown(requested)}; the server chose {shown(version)}",
            )
