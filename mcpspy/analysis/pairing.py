"""Pairing: each direction's id space, pending and answered requests, cancels and progress.

A response pairs with the pending request of the same id sent the other way;
1 and "1" are different ids. Pending requests are kept in sending order, so
the oldest one is always the first left.

Ids key the dicts as they are: a valid id is an exact str or int (orjson's
types), and no str equals an int, so 1 and "1" never meet. Enum members are
module constants here: on Python 3.11 ``Stream.C2S`` runs Python code per access.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from mcpspy.analysis.jsonrpc import valid_id
from mcpspy.analysis.model import Exchange, ExchangeState, Kind, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.schema import describe
from mcpspy.capture.records import Stream

LONG_LIVED = frozenset({"subscriptions/listen"})
PARSE_ERRORS = frozenset({-32700, -32600})
IdKey = str | int  # a valid id (see the module docstring)
C2S, S2C = Stream.C2S, Stream.S2C
ERROR_RESPONSE = Kind.ERROR_RESPONSE
ANSWERED, ERROR, CANCELLED = ExchangeState.ANSWERED, ExchangeState.ERROR, ExchangeState.CANCELLED

NO_FIELDS: dict[str, Any] = {}  # never written to


def params_of(message: Message) -> dict[str, Any]:
    payload = message.payload
    params = payload.get("params") if isinstance(payload, dict) else None
    return params if isinstance(params, dict) else NO_FIELDS


def meta_of(message: Message) -> dict[str, Any]:
    return meta_in(params_of(message))


def meta_in(params: dict[str, Any]) -> dict[str, Any]:
    """The _meta of params already taken from their message."""
    meta = params.get("_meta")
    return meta if isinstance(meta, dict) else NO_FIELDS


@dataclass(slots=True)
class IdSpace:
    """The requests one side has sent, by id."""

    pending: dict[IdKey, Exchange] = field(default_factory=dict)  # in sending order
    closed: dict[IdKey, Exchange] = field(default_factory=dict)  # answered or cancelled
    progress_tokens: dict[IdKey, Exchange] = field(default_factory=dict)
    # Requests that expect a prompt reply, in sending order; those no longer pending are pruned
    # lazily from the front. (Iterating ``pending`` instead costs O(holes): a dict popped from
    # the front scans past its deleted slots until it is resized.)
    sent_order: deque[Exchange] = field(default_factory=deque)
    # The same requests, until each is answered or found slow: ``check_pending`` looks only at the
    # front, so asking it at every record costs O(1) amortised.
    not_yet_slow: deque[Exchange] = field(default_factory=deque)

    def oldest_waiting(self) -> Exchange | None:
        """The oldest pending request that is not long-lived (what every reply is compared with)."""
        order, pending = self.sent_order, self.pending
        while order:
            oldest = order[0]
            if pending.get(oldest.id) is oldest:
                return oldest
            order.popleft()
        return None


class Pairing:
    def __init__(self, out: Reporter) -> None:
        self._out = out
        self._client = IdSpace()
        self._server = IdSpace()
        self._progress_last: dict[int, float] = {}  # request seq -> the last progress value reported
        self._task_augmented: set[int] = set()  # request seqs whose progress outlives the reply

    def _sent_on(self, stream: Stream) -> IdSpace:
        """The id space of the requests sent on this pipe."""
        return self._server if stream is S2C else self._client

    def _answered_on(self, stream: Stream) -> IdSpace:
        """The id space of the requests a reply or a progress on this pipe is about."""
        return self._client if stream is S2C else self._server

    @property
    def pending(self) -> list[Exchange]:
        both = [*self._client.pending.values(), *self._server.pending.values()]
        return sorted(both, key=lambda e: e.request_seq)

    def in_flight(self, stream: Stream) -> list[Exchange]:
        return [e for e in self._sent_on(stream).pending.values() if not e.long_lived]

    # --- requests and responses

    def request(self, message: Message, params: dict[str, Any], meta: dict[str, Any]) -> Exchange:
        """Open the exchange of a request; ``params`` and ``meta`` are its own, taken once by the caller."""
        stream, method, request_id = message.stream, message.method or "", message.id
        long_lived = method in LONG_LIVED
        exchange = Exchange(message.seq, stream, request_id, method, message.t, long_lived=long_lived)
        message.exchange = exchange
        space = self._sent_on(stream)
        if valid_id(request_id):
            first = space.pending.get(request_id)
            if first is not None:
                self._out.find(
                    "pairing.duplicate-id",
                    message.seq,
                    stream,
                    f"id {request_id!r} is already in flight ({first.method}, seq {first.request_seq})",
                )
            else:
                space.pending[request_id] = exchange
                if not long_lived:
                    space.sent_order.append(exchange)
                    space.not_yet_slow.append(exchange)
        token = meta.get("progressToken")
        if token is not None and valid_id(token):
            space.progress_tokens[token] = exchange
            if "task" in params:
                self._task_augmented.add(message.seq)
        return exchange

    def response(self, message: Message, code: Any) -> Exchange | None:
        """Pair a response; the exchange when it answers a pending request, None for a stray one."""
        stream = message.stream
        if message.id is None:
            if message.kind is ERROR_RESPONSE and code not in PARSE_ERRORS:
                self._out.find(
                    "jsonrpc.null-id",
                    message.seq,
                    stream,
                    f"an error ({code}) with no id, though no unreadable request preceded it",
                )
            return None  # an id-less parse error is legal: the id could not be read
        key = message.id
        if not valid_id(key):
            return None
        space = self._answered_on(stream)
        exchange = space.pending.pop(key, None)
        if exchange is None:
            self._stray(message, space.closed.get(key), code)
            return None
        oldest = space.oldest_waiting()
        space.closed[key] = exchange
        self._pair(exchange, message)
        if oldest is not None and oldest.request_seq < exchange.request_seq:
            exchange.out_of_order = True
            self._out.find(
                "pairing.out-of-order",
                message.seq,
                stream,
                f"the reply to id {message.id!r} overtook the reply to id {oldest.id!r} "
                f"(sent at seq {oldest.request_seq})",
                related_seq=exchange.request_seq,
            )
        return exchange

    def _stray(self, message: Message, closed: Exchange | None, code: Any) -> None:
        if closed is None:
            self._out.find(
                "pairing.unknown-id",
                message.seq,
                message.stream,
                f"a reply to id {message.id!r}, but no request with that id is pending",
            )
        elif closed.state is CANCELLED and closed.reply_seq is None:
            self._pair(closed, message)
            closed.state = CANCELLED
            self._out.find(
                "pairing.reply-after-cancel",
                message.seq,
                message.stream,
                f"a reply to {closed.method} (id {message.id!r}), cancelled at seq {closed.cancel_seq}",
                related_seq=closed.request_seq,
            )
        else:
            self._out.find(
                "pairing.duplicate-response",
                message.seq,
                message.stream,
                f"a second reply to {closed.method} (id {message.id!r}); the first was seq "
                f"{closed.reply_seq}",
                related_seq=closed.request_seq,
            )

    def _pair(self, exchange: Exchange, message: Message) -> None:
        exchange.reply_seq = message.seq
        exchange.reply_t = message.t
        exchange.state = ERROR if message.kind is ERROR_RESPONSE else ANSWERED
        message.exchange = exchange
        message.method = exchange.method
        self._out.updated(exchange)

    # --- notifications about requests

    def cancel(self, message: Message) -> None:
        request_id = params_of(message).get("requestId")
        # The requester cancels its own request: a cancel on c2s names a c2s request.
        key = request_id if valid_id(request_id) else None
        space = self._sent_on(message.stream)
        exchange = None if key is None else space.pending.pop(key, None)
        if key is None or exchange is None:
            if key is None or key not in space.closed:
                self._out.find(
                    "cancel.unknown-request",
                    message.seq,
                    message.stream,
                    f"the cancel names id {request_id!r}, which is not in flight",
                )
            return
        if exchange.method == "initialize" and message.stream is C2S:
            self._out.find(
                "cancel.initialize",
                message.seq,
                message.stream,
                f"the client cancelled initialize (id {request_id!r})",
                related_seq=exchange.request_seq,
            )
        space.closed[key] = exchange
        exchange.state = CANCELLED
        exchange.cancel_seq = message.seq
        self._out.updated(exchange)

    def progress(self, message: Message) -> None:
        """Progress travels against its request: the receiver of a request reports on it."""
        params = params_of(message)
        token: Any = params.get("progressToken")
        value = params.get("progress")
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        number: float | None = value if is_number else None
        if not valid_id(token) or number is None:
            field, wanted = (
                ("progressToken", "a string or an integer")
                if not valid_id(token)
                else ("progress", "a number")
            )
            got = describe(params[field]) if field in params else "missing"
            self._out.find(
                "progress.invalid",
                message.seq,
                message.stream,
                f"the progress notification's params.{field} is {got}; it must be {wanted}",
            )
            if not valid_id(token):
                return
        exchange = self._answered_on(message.stream).progress_tokens.get(token)
        if exchange is None:
            self._out.find(
                "progress.unknown-token",
                message.seq,
                message.stream,
                f"progress for token {token!r}, which no request carried",
            )
            return
        if exchange.reply_seq is not None and exchange.request_seq not in self._task_augmented:
            self._out.find(
                "progress.after-completion",
                message.seq,
                message.stream,
                f"progress for token {token!r} after {exchange.method} (id {exchange.id!r}) was "
                f"answered at seq {exchange.reply_seq}",
                related_seq=exchange.request_seq,
            )
            return
        if number is None:
            return
        last = self._progress_last.get(exchange.request_seq)
        if last is not None and number <= last:
            self._out.find(
                "progress.not-increasing",
                message.seq,
                message.stream,
                f"progress for token {token!r} went from {last!r} to {number!r}; it must increase",
                related_seq=exchange.request_seq,
            )
        self._progress_last[exchange.request_seq] = number

    # --- the passing of time and the end

    def check_pending(self, t: float, slow_after: float) -> None:
        """Flag each request still pending ``slow_after`` seconds after it was sent, once.

        The sentence names the threshold, not the wait: the same capture gives the
        same finding whenever the caller asks (each record, or a live view's clock).
        """
        for space in (self._client, self._server):
            watch, pending = space.not_yet_slow, space.pending
            while watch:
                oldest = watch[0]
                if pending.get(oldest.id) is not oldest:  # answered or cancelled meanwhile
                    watch.popleft()
                    continue
                if t - oldest.sent_t < slow_after:
                    break  # in sending order: every later request is younger
                watch.popleft()
                self._out.find(
                    "pairing.slow",
                    oldest.request_seq,
                    oldest.stream,
                    f"{oldest.method} (id {oldest.id!r}) waited more than {slow_after:g}s for a reply",
                )

    def give_up(self, exchanges: list[Exchange]) -> None:
        """These will never be answered (the server is gone)."""
        for exchange in exchanges:
            self._sent_on(exchange.stream).pending.pop(exchange.id, None)
            exchange.state = ExchangeState.UNANSWERED
            self._out.updated(exchange)

    def finish(self) -> None:
        unanswered = [e for e in self.pending if not e.long_lived]
        self.give_up(unanswered)
        for exchange in unanswered:
            self._out.find(
                "pairing.unanswered",
                exchange.request_seq,
                exchange.stream,
                f"{exchange.method} (id {exchange.id!r}) never got a reply",
            )
