"""The analyzer: fed capture records one at a time, in the manner of h11.

``feed(record)`` returns what the record taught it (the classified message,
exchanges that changed, findings); ``check_pending(t)`` flags slow requests
at a time the caller chooses; ``finish()`` closes the books. No clock, no
I/O: the same records always give the same analysis, live or replayed.
"""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.jsonrpc import Parsed, classify_line, preview, valid_id
from mcpspy.analysis.model import (
    AnalysisEvent,
    Era,
    Exchange,
    ExchangeState,
    ExchangeUpdated,
    Finding,
    FindingRaised,
    Kind,
    LifecycleSeen,
    Message,
    MessageSeen,
)
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Record, Stream

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
CACHEABLE = frozenset(
    {"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list",
     "resources/read"}
)
LONG_LIVED = frozenset({"subscriptions/listen"})
PARSE_ERRORS = frozenset({-32700, -32600})
MULTILINE_MAX_LINES = 500
IdKey = tuple[str, Any]


def id_key(value: Any) -> IdKey:
    """1 and "1" are different ids."""
    return (type(value).__name__, value)


def opposite(stream: Stream) -> Stream:
    return Stream.S2C if stream is Stream.C2S else Stream.C2S


class Analyzer:
    def __init__(self, slow_after: float = 30.0) -> None:
        self.slow_after = slow_after
        self.messages: list[Message] = []
        self.exchanges: list[Exchange] = []
        self.findings: list[Finding] = []
        self.lifecycle: list[LifecycleSeen] = []
        self.era = Era.UNKNOWN
        self.protocol_version: str | None = None
        self.supported_versions: list[str] | None = None
        self._by_seq: dict[int, Message] = {}
        self._pending: dict[Stream, dict[IdKey, Exchange]] = {Stream.C2S: {}, Stream.S2C: {}}
        self._closed: dict[Stream, dict[IdKey, Exchange]] = {Stream.C2S: {}, Stream.S2C: {}}
        self._slow_flagged: set[int] = set()
        self._meta_missing: set[int] = set()  # request seqs flagged meta.missing
        self._held_meta: list[Message] = []  # requests without _meta while initialize is unanswered
        self._initialize: Exchange | None = None
        self._initialized_sent = False
        self._initialized_flagged = False
        self._multiline: dict[Stream, list[Message]] = {Stream.C2S: [], Stream.S2C: []}
        self._stdin_closed = False
        self._finished = False
        self._events: list[AnalysisEvent] = []

    # --- public API

    @property
    def pending(self) -> list[Exchange]:
        return sorted(
            (e for d in self._pending.values() for e in d.values()), key=lambda e: e.request_seq
        )

    def message(self, seq: int) -> Message | None:
        return self._by_seq.get(seq)

    def feed(self, record: Record) -> list[AnalysisEvent]:
        self._events = []
        if isinstance(record, LifecycleRecord):
            self._lifecycle(record)
        elif record.stream is Stream.ERR:
            self._add_message(Message(record.seq, record.t, record.stream, Kind.STDERR, record.data,
                                      record.terminated))
        else:
            self._line(record)
        return self._events

    def check_pending(self, t: float) -> list[AnalysisEvent]:
        self._events = []
        for pending in self._pending.values():
            for exchange in pending.values():  # in sending order: stop at the first young one
                if t - exchange.sent_t < self.slow_after:
                    break
                if exchange.long_lived or exchange.request_seq in self._slow_flagged:
                    continue
                self._slow_flagged.add(exchange.request_seq)
                self._find("pairing.slow", exchange.request_seq, exchange.stream,
                           f"{exchange.method} (id {exchange.id!r}) has waited {t - exchange.sent_t:.1f}s "
                           "for a reply")
        return self._events

    def finish(self) -> list[AnalysisEvent]:
        self._events = []
        if self._finished:
            return self._events
        self._finished = True
        for stream in (Stream.C2S, Stream.S2C):
            self._flush_multiline(stream)
        for exchange in self.pending:
            if exchange.long_lived:
                continue
            self._pending[exchange.stream].pop(id_key(exchange.id), None)
            exchange.state = ExchangeState.UNANSWERED
            self._events.append(ExchangeUpdated(exchange))
            self._find("pairing.unanswered", exchange.request_seq, exchange.stream,
                       f"{exchange.method} (id {exchange.id!r}) never got a reply")
        return self._events

    # --- records

    def _lifecycle(self, record: LifecycleRecord) -> None:
        seen = LifecycleSeen(record.seq, record.t, record.event.value, dict(record.details))
        self.lifecycle.append(seen)
        self._events.append(seen)
        if record.event is Event.STDIN_CLOSED:
            self._stdin_closed = True
        elif record.event is Event.GRACE_EXPIRED:
            self._find("lifecycle.no-exit-on-eof", record.seq, None,
                       f"the server was still running {record.details.get('grace', '?')}s after its "
                       "stdin closed; mcpspy terminated it")
        elif record.event is Event.SERVER_EXITED:
            self._server_exited(record)

    def _server_exited(self, record: LifecycleRecord) -> None:
        in_flight = [e for e in self._pending[Stream.C2S].values() if not e.long_lived]
        clean_exit = record.details.get("code") == 0 and self._stdin_closed
        if not in_flight or clean_exit:  # a clean exit after EOF: finish() calls them unanswered
            return
        how = record.details.get("signal") or f"code {record.details.get('code', '?')}"
        names = ", ".join(f"{e.method} (id {e.id!r})" for e in in_flight[:3])
        more = f" and {len(in_flight) - 3} more" if len(in_flight) > 3 else ""
        self._find("lifecycle.crash-in-flight", record.seq, None,
                   f"the server exited ({how}) with {len(in_flight)} request(s) in flight: {names}{more}")
        for exchange in in_flight:
            self._pending[Stream.C2S].pop(id_key(exchange.id), None)
            exchange.state = ExchangeState.UNANSWERED
            self._events.append(ExchangeUpdated(exchange))

    def _line(self, record: LineRecord) -> None:
        parsed = classify_line(record.data)
        message = Message(record.seq, record.t, record.stream, parsed.kind, record.data, record.terminated,
                          parsed.payload, parsed.id, parsed.method, glued_prefix=parsed.glued_prefix)
        if self._continue_multiline(message, parsed):
            return
        self._add_message(message)
        prefix = "stdout" if record.stream is Stream.S2C else "stdin"
        for rule, sentence in parsed.problems:
            if rule == "not-json" and self._start_multiline(message):
                continue
            rule_id = rule if "." in rule else f"{prefix}.{rule}"
            self._find(rule_id, record.seq, record.stream, sentence)
        if not record.terminated:
            self._find(f"{prefix}.unterminated", record.seq, record.stream,
                       "the stream ended in the middle of this line, with no newline")
        if parsed.kind in (Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.ERROR_RESPONSE):
            self._protocol(message, parsed)

    # --- multi-line (pretty-printed) JSON

    def _start_multiline(self, message: Message) -> bool:
        stripped = message.raw.strip()
        if stripped[:1] in (b"{", b"[") and not self._multiline[message.stream]:
            self._multiline[message.stream] = [message]
            return True
        return False

    def _continue_multiline(self, message: Message, parsed: Parsed) -> bool:
        group = self._multiline[message.stream]
        if not group:
            return False
        # Inside a pretty-printed message, a line may parse alone ("2026-07-28", 3): still a fragment.
        fragment = parsed.kind is Kind.NOT_JSON or (
            parsed.kind is Kind.INVALID and not isinstance(parsed.payload, dict | list))
        if not fragment or len(group) >= MULTILINE_MAX_LINES:
            self._flush_multiline(message.stream)
            return False
        group.append(message)
        self._add_message(message)
        joined = b"\n".join(m.raw for m in group)
        joined_parsed = classify_line(joined)
        if joined_parsed.kind in (Kind.NOT_JSON,):
            return True
        self._multiline[message.stream] = []
        first = group[0]
        prefix = "stdout" if message.stream is Stream.S2C else "stdin"
        what = f"id {joined_parsed.id!r}" if joined_parsed.has_id else (joined_parsed.method or "a message")
        self._find(f"{prefix}.multiline-json", first.seq, message.stream,
                   f"one message ({what}) was pretty-printed over {len(group)} lines (seq {first.seq}-"
                   f"{message.seq}); the other side sees {len(group)} broken lines")
        if joined_parsed.kind in (Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.ERROR_RESPONSE):
            # Pair it through its first line, so the exchange shows what the server meant to say.
            first.kind, first.payload = joined_parsed.kind, joined_parsed.payload
            first.id, first.method = joined_parsed.id, joined_parsed.method
            self._protocol(first, joined_parsed)
        return True

    def _flush_multiline(self, stream: Stream) -> None:
        """The group never became JSON: each of its lines is plain stray text."""
        group, self._multiline[stream] = self._multiline[stream], []
        prefix = "stdout" if stream is Stream.S2C else "stdin"
        for m in group:
            self._find(f"{prefix}.not-json", m.seq, stream, f"{preview(m.raw)} is not JSON")

    # --- protocol

    def _protocol(self, message: Message, parsed: Parsed) -> None:
        if parsed.glued_prefix is not None:
            lost = f"the response to id {parsed.id!r}" if parsed.kind in (
                Kind.RESPONSE, Kind.ERROR_RESPONSE) else f"this {parsed.kind.value}"
            side = "stdout" if message.stream is Stream.S2C else "stdin"
            self._find(f"{side}.glued-prefix", message.seq, message.stream,
                       f"the stray text {preview(parsed.glued_prefix)} was glued before a JSON message, so "
                       f"the other side cannot parse the line and loses {lost}")
        if parsed.kind is Kind.REQUEST:
            self._request(message)
        elif parsed.kind is Kind.NOTIFICATION:
            self._notification(message)
        else:
            self._response(message)

    def _request(self, message: Message) -> None:
        stream, method = message.stream, message.method or ""
        params = message.payload.get("params")
        exchange = Exchange(message.seq, stream, message.id, method, message.t,
                            long_lived=method in LONG_LIVED)
        message.exchange = exchange
        if valid_id(message.id):
            key = id_key(message.id)
            if key in self._pending[stream]:
                self._find("pairing.duplicate-id", message.seq, stream,
                           f"id {message.id!r} is already in flight ({self._pending[stream][key].method}, "
                           f"seq {self._pending[stream][key].request_seq})")
            else:
                self._pending[stream][key] = exchange
        self.exchanges.append(exchange)
        if stream is Stream.S2C:
            if self.era is Era.MODERN:
                self._find("direction.server-request", message.seq, stream,
                           f"the server sent a {method} request; in 2026-07-28 servers send no requests")
            return
        meta = params.get("_meta") if isinstance(params, dict) else None
        version = meta.get(META_VERSION) if isinstance(meta, dict) else None
        has_meta = isinstance(version, str) and isinstance(meta, dict) and META_CAPABILITIES in meta
        if method == "initialize":
            self._initialize = exchange
            return
        if has_meta:
            if self.era is Era.UNKNOWN:
                self.era = Era.MODERN
                self.protocol_version = version
        elif self.era is Era.LEGACY:
            if not self._initialized_sent and not self._initialized_flagged and method != "ping":
                self._initialized_flagged = True
                self._find("legacy.initialized-missing", message.seq, stream,
                           f"{method} was sent before notifications/initialized")
        elif self._initialize is not None and self._initialize.state is ExchangeState.PENDING:
            self._held_meta.append(message)
        else:
            self._flag_meta_missing(message)
        if method == "ping" and self.era is Era.MODERN:
            self._find("ping.modern", message.seq, stream, "ping was removed in 2026-07-28")

    def _flag_meta_missing(self, message: Message) -> None:
        self._meta_missing.add(message.seq)
        self._find("meta.missing", message.seq, message.stream,
                   f"{message.method} (id {message.id!r}) has no _meta protocolVersion and "
                   "clientCapabilities; a 2026-07-28 server must reject it with -32602")
        exchange = message.exchange
        if exchange is not None and exchange.reply_seq is not None:
            self._check_not_rejected(exchange, self._by_seq[exchange.reply_seq])

    def _notification(self, message: Message) -> None:
        if message.method == "notifications/initialized" and message.stream is Stream.C2S:
            self._initialized_sent = True
        if message.method != "notifications/cancelled":
            return
        params = message.payload.get("params")
        request_id = params.get("requestId") if isinstance(params, dict) else None
        # The requester cancels its own request: a cancel on c2s names a c2s request.
        exchange = self._pending[message.stream].get(id_key(request_id)) if valid_id(request_id) else None
        if exchange is None:
            closed = self._closed[message.stream].get(id_key(request_id)) if valid_id(request_id) else None
            if closed is None:
                self._find("cancel.unknown-request", message.seq, message.stream,
                           f"the cancel names id {request_id!r}, which is not in flight")
            return
        self._pending[message.stream].pop(id_key(request_id))
        self._closed[message.stream][id_key(request_id)] = exchange
        exchange.state = ExchangeState.CANCELLED
        exchange.cancel_seq = message.seq
        self._events.append(ExchangeUpdated(exchange))

    def _response(self, message: Message) -> None:
        stream = message.stream
        requests = opposite(stream)
        if stream is Stream.C2S and self.era is Era.MODERN:
            self._find("direction.client-response", message.seq, stream,
                       "the client wrote a response on stdin; in 2026-07-28 clients send none")
        error = message.payload.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        if message.id is None:
            if message.kind is Kind.ERROR_RESPONSE and code in PARSE_ERRORS:
                return  # legal: the id could not be read
            if message.kind is Kind.ERROR_RESPONSE:
                self._find("jsonrpc.null-id", message.seq, stream,
                           f"an error ({code}) with no id, though no unreadable request preceded it")
            return
        if not valid_id(message.id):
            return
        key = id_key(message.id)
        exchange = self._pending[requests].pop(key, None)
        if exchange is None:
            closed = self._closed[requests].get(key)
            if closed is None:
                self._find("pairing.unknown-id", message.seq, stream,
                           f"a reply to id {message.id!r}, but no request with that id is pending")
            elif closed.state is ExchangeState.CANCELLED and closed.reply_seq is None:
                self._pair(closed, message, code)
                closed.state = ExchangeState.CANCELLED
                self._find("pairing.reply-after-cancel", message.seq, stream,
                           f"a reply to {closed.method} (id {message.id!r}), cancelled at seq "
                           f"{closed.cancel_seq}", related_seq=closed.request_seq)
            else:
                self._find("pairing.duplicate-response", message.seq, stream,
                           f"a second reply to {closed.method} (id {message.id!r}); the first was seq "
                           f"{closed.reply_seq}", related_seq=closed.request_seq)
            return
        # Pending requests are kept in sending order, so the oldest is the first one left.
        oldest = next((e for e in self._pending[requests].values() if not e.long_lived), None)
        self._closed[requests][key] = exchange
        self._pair(exchange, message, code)
        if oldest is not None and oldest.request_seq < exchange.request_seq:
            exchange.out_of_order = True
            self._find("pairing.out-of-order", message.seq, stream,
                       f"the reply to id {message.id!r} overtook the reply to id {oldest.id!r} "
                       f"(sent at seq {oldest.request_seq})", related_seq=exchange.request_seq)
        if requests is Stream.C2S:
            self._check_reply(exchange, message, code)

    def _pair(self, exchange: Exchange, message: Message, code: Any) -> None:
        exchange.reply_seq = message.seq
        exchange.reply_t = message.t
        failed = message.kind is Kind.ERROR_RESPONSE
        exchange.state = ExchangeState.ERROR if failed else ExchangeState.ANSWERED
        message.exchange = exchange
        message.method = exchange.method
        self._events.append(ExchangeUpdated(exchange))

    def _check_reply(self, exchange: Exchange, message: Message, code: Any) -> None:
        """Rules on a server's reply to a client request."""
        result = message.payload.get("result")
        if exchange.method == "initialize":
            self._initialize_answered(message, result)
            return
        if code == -32022:
            data = message.payload["error"].get("data")
            if not (isinstance(data, dict) and isinstance(data.get("supported"), list)):
                self._find("error.unsupported-version-data", message.seq, message.stream,
                           "-32022 without data.supported: the client cannot pick a version to retry with")
        elif (code is not None and isinstance(code, int) and -32019 <= code <= -32000
              and self.era is not Era.LEGACY):
            self._find("jsonrpc.deprecated-error-code", message.seq, message.stream,
                       f"error code {code} is in the pre-MCP range -32000..-32019")
        if exchange.request_seq in self._meta_missing:
            self._check_not_rejected(exchange, message)
        request = self._by_seq.get(exchange.request_seq)
        if message.kind is not Kind.RESPONSE or not isinstance(result, dict) or request is None:
            return
        params = request.payload.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        version = meta.get(META_VERSION) if isinstance(meta, dict) else None
        if not isinstance(version, str) or self.era is Era.LEGACY:
            return
        if exchange.method == "server/discover" and isinstance(result.get("supportedVersions"), list):
            self.supported_versions = [v for v in result["supportedVersions"] if isinstance(v, str)]
        if self.supported_versions is not None and version not in self.supported_versions:
            self._find("version.unlisted", message.seq, message.stream,
                       f"the server answered a {version} request but lists only "
                       f"{', '.join(self.supported_versions)}")
        if "resultType" not in result:
            self._find("result.missing-result-type", message.seq, message.stream,
                       f"the {exchange.method} result has no resultType")
        if (exchange.method in CACHEABLE and result.get("resultType", "complete") == "complete"
                and not ("ttlMs" in result and "cacheScope" in result)):
            missing = " and ".join(k for k in ("ttlMs", "cacheScope") if k not in result)
            self._find("cache.missing-ttl", message.seq, message.stream,
                       f"the {exchange.method} result has no {missing}")

    def _check_not_rejected(self, exchange: Exchange, reply: Message) -> None:
        if reply.kind is Kind.RESPONSE:
            self._find("meta.not-rejected", reply.seq, reply.stream,
                       f"the server answered {exchange.method} (id {exchange.id!r}), which had no _meta, "
                       "instead of rejecting it with -32602", related_seq=exchange.request_seq)

    def _initialize_answered(self, message: Message, result: Any) -> None:
        held, self._held_meta = self._held_meta, []
        if message.kind is Kind.RESPONSE and isinstance(result, dict):
            self.era = Era.LEGACY
            version = result.get("protocolVersion")
            self.protocol_version = version if isinstance(version, str) else None
            return
        if self.era is Era.UNKNOWN:  # a modern server rejected initialize: the process is modern
            self.era = Era.MODERN
        for request in held:
            self._flag_meta_missing(request)

    # --- bookkeeping

    def _add_message(self, message: Message) -> None:
        self.messages.append(message)
        self._by_seq[message.seq] = message
        self._events.append(MessageSeen(message))

    def _find(self, rule_id: str, seq: int, stream: Stream | None, sentence: str,
              related_seq: int | None = None) -> None:
        finding = Finding(RULES[rule_id], seq, stream, sentence, related_seq)
        self.findings.append(finding)
        target = self._by_seq.get(seq)
        if target is not None:
            target.findings.append(finding)
        self._events.append(FindingRaised(finding))
