"""Pairing (pairing.*, cancel.*): each direction's id space, pending and answered requests, cancels.

A response pairs with the pending request of the same id sent the other way;
1 and "1" are different ids. Pending requests are kept in sending order, so
the oldest one is always the first left.

A reply whose line reached the requester unparseable (text glued before it)
is ``lost``: the requester still waits, so it stays among the pending until a
cancel, a reply that parses, or the end of the session.

The lean analysis (``bound``) keeps at most that many requests pending a
direction: past it the oldest become ``unknown`` (like those pending at a gap,
a reply to them is no stray), and one finding at the end says how many.

Ids key the dicts as they are: a valid id is an exact str or int (orjson's
types), and no str equals an int, so 1 and "1" never meet.
"""

from __future__ import annotations

import bisect
import itertools
import math
import sys

from mcpspy.analysis.id_space import IdSpace
from mcpspy.analysis.jsonrpc import ID_TYPES, shown, valid_id
from mcpspy.analysis.message_fields import held_of, request_version
from mcpspy.analysis.model import Era, Exchange, ExchangeState, Kind, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.legacy import EraTracker
from mcpspy.capture.records import Stream

LONG_LIVED = frozenset({"subscriptions/listen"})
# Hot (every request and reply): Enum members as module constants (speed policy: analysis/__init__.py).
C2S, S2C = Stream.C2S, Stream.S2C
ERROR_RESPONSE = Kind.ERROR_RESPONSE
ANSWERED, ERROR, CANCELLED = ExchangeState.ANSWERED, ExchangeState.ERROR, ExchangeState.CANCELLED
LOST, UNKNOWN = ExchangeState.LOST, ExchangeState.UNKNOWN
LEGACY = Era.LEGACY


class Pairing:
    def __init__(
        self, out: Reporter, era: EraTracker, recent: int | None = None, bound: int | None = None
    ) -> None:
        self._out = out
        self._era = era  # before 2026-07-28, an answered id is spent
        self._recent = recent  # answered requests remembered per direction (None: all)
        self._bound = bound  # requests kept pending per direction (None: all)
        self._first_forgotten: Exchange | None = None
        self._client = IdSpace()
        self._server = IdSpace()
        self._given_up: list[Exchange] = []  # never answered (what a server's request held up)
        self._gap = False  # records went missing: a reply to an unknown id may answer one of them

    def _sent_on(self, stream: Stream) -> IdSpace:
        """The id space of the requests sent on this pipe."""
        return self._server if stream is S2C else self._client

    @property
    def pending(self) -> list[Exchange]:
        """What the requesters still wait for: no reply yet, or a reply that reached them unparseable."""
        client, server = self._client, self._server
        waiting = [
            *client.pending.values(),
            *server.pending.values(),
            *client.lost.values(),
            *server.lost.values(),
        ]
        return sorted(waiting, key=lambda e: e.request_seq)

    def is_pending(self, exchange: Exchange) -> bool:
        """Whether a reply to ``exchange`` would still pair with it."""
        return valid_id(exchange.id) and self._sent_on(exchange.stream).pending.get(exchange.id) is exchange

    @property
    def client_asked(self) -> bool:
        """The client sent a request."""
        return self._client.sent

    @property
    def server_replied(self) -> bool:
        """The server sent a reply (to whatever id)."""
        return self._client.replied

    def in_flight(self, stream: Stream) -> list[Exchange]:
        return [e for e in self._sent_on(stream).pending.values() if not e.long_lived]

    def gap(self) -> None:
        """Records went missing here (capture-gap, a --log that fell behind): judge nothing across it.

        What is pending may have been answered in the gap: it is owed no reply, and its order
        no longer counts. A reply to an id never seen may answer a request in the gap.
        """
        self._gap = True
        for space in (self._client, self._server):
            for exchange in space.pending.values():
                exchange.state = UNKNOWN
                self._out.updated(exchange)
            space.unsure.update(space.pending)
            if self._bound is not None and len(space.unsure) > self._bound:  # a gap is rare: O(n) is fine
                dropped = list(space.unsure.items())
                space.unsure = dict(dropped[-self._bound :])
                for _, exchange in dropped[: -self._bound]:
                    self._forget(space, exchange)
            space.pending.clear()
            space.sent_order.clear()
            space.not_yet_slow.clear()

    # --- requests and responses

    def request(self, message: Message) -> None:
        """Open the exchange of a request (``message.exchange``), holding what its reply is judged with."""
        stream, method, request_id = message.stream, sys.intern(message.method or ""), message.id
        long_lived = method in LONG_LIVED
        exchange = Exchange(message.seq, stream, request_id, method, message.t)  # by position: as Parsed
        if long_lived:
            exchange.long_lived = True
        version = exchange.version = request_version(message) if stream is C2S else None  # its reply's too
        exchange.held = held_of(message, version)
        message.exchange = exchange
        self._out.opened(exchange)
        space = self._server if stream is S2C else self._client  # _sent_on, inline: every request
        space.sent = True
        if type(request_id) in ID_TYPES or valid_id(request_id):  # valid_id, its common case inline
            first = space.pending.get(request_id)
            if first is not None:
                self._out.find(
                    RuleId.PAIRING_DUPLICATE_ID,
                    message.seq,
                    stream,
                    f"id {shown(request_id)} is already in flight ({first.method}, seq {first.request_seq})",
                )
            else:
                # Legacy revisions: an answered id is spent.
                earlier = space.closed.get(request_id) if self._era.era is LEGACY else None
                if earlier is not None:
                    self._out.find(
                        RuleId.PAIRING_ID_REUSED,
                        message.seq,
                        stream,
                        f"id {shown(request_id)} was used before in this session ({earlier.method}, seq "
                        f"{earlier.request_seq}); before 2026-07-28 a requester never reuses an id",
                        related_seq=earlier.request_seq,
                    )
                space.pending[request_id] = exchange
                if not long_lived:
                    space.sent_order.append(exchange)
                    space.not_yet_slow.append(exchange)
                if self._bound is not None and len(space.pending) > self._bound:
                    self._forget_oldest(space)

    def _forget_oldest(self, space: IdSpace) -> None:
        """Past the bound, the oldest pending request becomes unknown (the long-lived are kept)."""
        oldest = space.oldest_waiting()
        if oldest is None:
            return
        space.sent_order.popleft()
        del space.pending[oldest.id]
        oldest.state = UNKNOWN
        self._forget(space, oldest)
        self._out.updated(oldest)

    def _forget(self, space: IdSpace, exchange: Exchange) -> None:
        exchange.held = None
        space.forgotten += 1
        if self._first_forgotten is None:
            self._first_forgotten = exchange

    def response(self, message: Message) -> bool:
        """Pair a response (``message.exchange``); True when it answers nothing, so no rule reads on."""
        stream = message.stream
        space = self._client if stream is S2C else self._server  # of the requests it may answer
        space.replied = True
        key = message.id
        if type(key) not in ID_TYPES and not valid_id(key):  # valid_id, its common case inline
            return True  # no id (rules/envelope.py speaks of it) or one no request can carry
        exchange = space.pending.pop(key, None)
        if exchange is None:
            lost = space.lost.pop(key, None)
            if lost is not None:  # the reply again, in a line that parses this time
                self._pair(lost, message)
                if lost.state is LOST:
                    space.lost[key] = lost
                return False
            unsure = space.unsure.pop(key, None)
            if unsure is not None:  # pending at a gap, answered after it
                space.close(key, unsure, self._recent)
                self._pair(unsure, message)
                return False
            self._stray(message, space.closed.get(key), space)
            return True
        oldest = space.oldest_waiting()
        if self._recent is None:
            space.closed[key] = exchange  # close's, inline: every reply of a retained analysis
        else:
            space.close(key, exchange, self._recent)
        self._pair(exchange, message)
        if exchange.state is LOST:
            space.lost[key] = exchange
        if oldest is not None and oldest.request_seq < exchange.request_seq:
            exchange.out_of_order = True
            self._out.find(
                RuleId.PAIRING_OUT_OF_ORDER,
                message.seq,
                stream,
                f"the reply to id {shown(message.id)} overtook the reply to id {shown(oldest.id)} "
                f"(sent at seq {oldest.request_seq})",
                related_seq=exchange.request_seq,
            )
        return False

    def release(self, message: Message) -> None:
        """An unread reply has been paired: its request's held fields are no longer needed (the
        analyzer does the same after a paired reply's row: hooks.py's REPLIES)."""
        if message.exchange is not None:
            message.exchange.held = None

    def _stray(self, message: Message, closed: Exchange | None, space: IdSpace) -> None:
        if closed is None and (self._gap or space.forgotten):
            return  # its request may be one of the records lost in a gap, or set aside past the bound
        if closed is None:
            self._out.find(
                RuleId.PAIRING_UNKNOWN_ID,
                message.seq,
                message.stream,
                f"a reply to id {shown(message.id)}, but no request with that id is pending",
            )
        elif closed.state is CANCELLED and closed.reply_seq is None:
            self._pair(closed, message)
            closed.state = CANCELLED
            self._out.find(
                RuleId.PAIRING_REPLY_AFTER_CANCEL,
                message.seq,
                message.stream,
                f"a reply to {closed.method} (id {shown(message.id)}), cancelled at seq {closed.cancel_seq}",
                related_seq=closed.request_seq,
            )
        else:
            self._out.find(
                RuleId.PAIRING_DUPLICATE_RESPONSE,
                message.seq,
                message.stream,
                f"a second reply to {closed.method} (id {shown(message.id)}); the first was seq "
                f"{closed.reply_seq}",
                related_seq=closed.request_seq,
            )

    def _pair(self, exchange: Exchange, message: Message) -> None:
        exchange.reply_seq = message.seq
        exchange.reply_t = message.t
        if message.glued_prefix is not None:  # the requester could not parse the line
            exchange.state = LOST
        else:
            exchange.state = ERROR if message.kind is ERROR_RESPONSE else ANSWERED
        message.exchange = exchange
        message.method = exchange.method
        self._out.updated(exchange)

    # --- notifications about requests

    def cancel(self, message: Message) -> None:
        request_id = message.params.get("requestId")
        # The requester cancels its own request: a cancel on c2s names a c2s request.
        key = request_id if valid_id(request_id) else None
        space = self._sent_on(message.stream)
        exchange = (
            None
            if key is None
            else space.pending.pop(key, None) or space.lost.pop(key, None) or space.unsure.pop(key, None)
        )
        if key is None or exchange is None:
            if key is None or key not in space.closed:
                self._out.find(
                    RuleId.CANCEL_UNKNOWN_REQUEST,
                    message.seq,
                    message.stream,
                    f"the cancel names id {shown(request_id)}, which is not in flight",
                )
            return
        if exchange.method == "initialize" and message.stream is C2S:
            self._out.find(
                RuleId.CANCEL_INITIALIZE,
                message.seq,
                message.stream,
                f"the client cancelled initialize (id {shown(request_id)})",
                related_seq=exchange.request_seq,
            )
        space.close(key, exchange, self._recent)
        exchange.state = CANCELLED
        exchange.cancel_seq = message.seq
        exchange.held = None
        self._out.updated(exchange)

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
                    RuleId.PAIRING_SLOW,
                    oldest.request_seq,
                    oldest.stream,
                    f"{oldest.method} (id {shown(oldest.id)}) waited more than {slow_after:g}s for a reply",
                )

    def oldest_watched(self) -> float:
        """When the oldest request ``check_pending`` still watches was sent (perhaps answered since); inf."""
        heads = [space.not_yet_slow[0].sent_t for space in (self._client, self._server) if space.not_yet_slow]
        return min(heads, default=math.inf)

    def give_up(self, exchanges: list[Exchange]) -> None:
        """These will never be answered (the server is gone)."""
        for exchange in exchanges:
            self._sent_on(exchange.stream).pending.pop(exchange.id, None)
            exchange.state = ExchangeState.UNANSWERED
            exchange.held = None
            self._given_up.append(exchange)
            self._out.updated(exchange)

    def finish(self) -> None:
        """The session ended: what is pending is unanswered; a lost reply stays lost, no longer awaited."""
        waiting = [*self._client.pending.values(), *self._server.pending.values()]
        unanswered = sorted((e for e in waiting if not e.long_lived), key=lambda e: e.request_seq)
        self.give_up(unanswered)
        self._client.lost.clear()
        self._server.lost.clear()
        given_up = [e for e in self._given_up if e.stream is C2S]
        seqs = [e.request_seq for e in given_up]
        in_order = all(a < b for a, b in itertools.pairwise(seqs))
        for exchange in unanswered:
            if exchange.stream is S2C:
                self._server_request_unanswered(exchange, given_up, seqs if in_order else None)
                continue
            self._out.find(
                RuleId.PAIRING_UNANSWERED,
                exchange.request_seq,
                exchange.stream,
                f"{exchange.method} (id {shown(exchange.id)}) never got a reply",
            )
        first = self._first_forgotten
        if first is not None:
            client, server = self._client.forgotten, self._server.forgotten
            self._out.find(
                RuleId.PAIRING_PENDING_LIMIT,
                first.request_seq,
                None,
                f"{client + server:,} request(s) were set aside as unknown ({client:,} of the client's, "
                f"{server:,} of the server's), the oldest when more than {self._bound:,} a direction were "
                "pending: their replies are not paired, and they are not called unanswered",
            )

    def _server_request_unanswered(
        self, request: Exchange, given_up: list[Exchange], seqs: list[int] | None
    ) -> None:
        """A server that waits for its own request's reply answers nothing sent after it: name those.

        ``given_up``: the client's requests never answered; ``seqs``, theirs, when in sending order
        (always, but for a capture that repeats seqs): then a bisect finds those sent after, so a
        server that left 100,000 requests of its own unanswered costs no 100,000 scans.
        """
        if seqs is not None:
            after = bisect.bisect_right(seqs, request.request_seq)
            first, count = given_up[after : after + 3], len(given_up) - after
        else:
            behind = [e for e in given_up if e.request_seq > request.request_seq]
            first, count = behind[:3], len(behind)
        names = ", ".join(f"{e.method} (id {shown(e.id)})" for e in first)
        more = f" and {count - 3} more" if count > 3 else ""
        waited = f"; sent after it and never answered either: {names}{more}" if count else ""
        self._out.find(
            RuleId.PAIRING_SERVER_REQUEST_UNANSWERED,
            request.request_seq,
            request.stream,
            f"the client never answered the server's {request.method} (id {shown(request.id)}){waited}",
        )
