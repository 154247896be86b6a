"""The analyzer: sans-IO, fed capture records one at a time, h11 style.

No clock and no I/O: the same records always give the same result, so a live
session and a replay of its capture agree.
"""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.jsonrpc import classify, id_key, parse
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

PREFIX = {Stream.S2C: "stdout", Stream.C2S: "stdin"}
OTHER = {Stream.S2C: Stream.C2S, Stream.C2S: Stream.S2C}
LONG_LIVED = {"subscriptions/listen"}
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"


class Analyzer:
    """Classifies lines, pairs requests with replies, and raises findings."""

    def __init__(self, slow_after: float = 30.0) -> None:
        self.slow_after = slow_after
        self.messages: list[Message] = []
        self.exchanges: list[Exchange] = []
        self.findings: list[Finding] = []
        self.lifecycle: list[LifecycleSeen] = []
        self.era = Era.UNKNOWN
        self.protocol_version: str | None = None
        # per direction of the request: id key -> open exchange, in send order
        self._open: dict[Stream, dict[tuple[str, Any], Exchange]] = {Stream.C2S: {}, Stream.S2C: {}}
        self._done: dict[Stream, dict[tuple[str, Any], Exchange]] = {Stream.C2S: {}, Stream.S2C: {}}
        self._slow: set[int] = set()
        self._events: list[AnalysisEvent] = []

    @property
    def pending(self) -> list[Exchange]:
        return [x for d in self._open.values() for x in d.values()]

    # --- the three entry points

    def feed(self, record: Record) -> list[AnalysisEvent]:
        if isinstance(record, LineRecord):
            self._line(record)
        else:
            self._lifecycle_record(record)
        return self._take()

    def check_pending(self, t: float) -> list[AnalysisEvent]:
        for x in self.pending:
            if not x.long_lived and t - x.sent_t > self.slow_after and x.request_seq not in self._slow:
                self._slow.add(x.request_seq)
                self._raise(None, "pairing.slow", x.request_seq, x.stream,
                            f"{x.method} (id {x.id!r}) still pending after {t - x.sent_t:.1f}s")
        return self._take()

    def finish(self) -> list[AnalysisEvent]:
        for x in self.pending:
            self._open[x.stream].pop(id_key(x.id), None)
            if x.long_lived:
                continue
            x.state = ExchangeState.UNANSWERED
            self._events.append(ExchangeUpdated(x))
            self._raise(None, "pairing.unanswered", x.request_seq, x.stream,
                        f"{x.method} (id {x.id!r}) was never answered")
        return self._take()

    # --- lines

    def _line(self, rec: LineRecord) -> None:
        if rec.stream is Stream.ERR:
            self._emit(Message(rec.seq, rec.t, rec.stream, Kind.STDERR, rec.data, rec.terminated))
            return
        msg = Message(rec.seq, rec.t, rec.stream, Kind.NOT_JSON, rec.data, rec.terminated)
        prefix = PREFIX[rec.stream]
        self.messages.append(msg)
        self._events.append(MessageSeen(msg))
        data = rec.data
        if not rec.terminated:
            self._raise(msg, f"{prefix}.unterminated", rec.seq, rec.stream,
                        f"the last {prefix} line ({len(data)} bytes) has no newline")
        if data.endswith(b"\r"):
            self._raise(msg, f"{prefix}.crlf", rec.seq, rec.stream, "the line ends in CR LF")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self._raise(msg, f"{prefix}.invalid-utf8", rec.seq, rec.stream,
                        f"invalid UTF-8 at byte {exc.start}")
            return
        if not data.strip():
            self._raise(msg, f"{prefix}.blank-line", rec.seq, rec.stream, "an empty line")
            return
        ok, payload = parse(data)
        if not ok:
            self._not_json(msg, prefix)
            return
        self._message(msg, payload)

    def _not_json(self, msg: Message, prefix: str) -> None:
        data = msg.raw
        if data.lower().startswith(b"content-length:"):
            self._raise(msg, f"{prefix}.content-length", msg.seq, msg.stream,
                        f"LSP header framing: {data[:40].decode('utf-8', 'replace')!r}")
            return
        brace = data.find(b"{")
        if brace > 0:
            ok, payload = parse(data[brace:])
            if ok and isinstance(payload, dict) and "jsonrpc" in payload:
                stray = data[:brace].decode("utf-8", "replace")
                msg.glued_prefix = data[:brace]
                lost = f"the response to id {payload['id']!r}" if "id" in payload else "this message"
                self._raise(msg, f"{prefix}.glued-prefix", msg.seq, msg.stream,
                            f"stray text {stray!r} is glued before a JSON message: the client loses {lost}")
                self._message(msg, payload)
                return
        shown = data[:60].decode("utf-8", "replace")
        self._raise(msg, f"{prefix}.not-json", msg.seq, msg.stream, f"not JSON: {shown!r}")

    def _message(self, msg: Message, payload: Any) -> None:
        kind, msg_id, method, problems = classify(payload)
        msg.kind, msg.payload, msg.id, msg.method = kind, payload, msg_id, method
        for rule_id, sentence in problems:
            self._raise(msg, rule_id, msg.seq, msg.stream, sentence)
        if kind is Kind.REQUEST and method is not None:
            self._request(msg, method, payload)
        elif kind is Kind.NOTIFICATION and method == "notifications/cancelled":
            self._cancel(msg, payload)
        elif kind in (Kind.RESPONSE, Kind.ERROR_RESPONSE) and msg_id is not None:
            self._reply(msg, payload)

    # --- pairing

    def _request(self, msg: Message, method: str, payload: dict[str, Any]) -> None:
        x = Exchange(msg.seq, msg.stream, msg.id, method, msg.t, long_lived=method in LONG_LIVED)
        msg.exchange = x
        self.exchanges.append(x)
        key = id_key(msg.id)
        if key in self._open[msg.stream]:
            old = self._open[msg.stream][key]
            self._raise(msg, "pairing.duplicate-id", msg.seq, msg.stream,
                        f"id {msg.id!r} is still open (request {old.request_seq})", old.request_seq)
            return
        self._done[msg.stream].pop(key, None)
        self._open[msg.stream][key] = x

    def _cancel(self, msg: Message, payload: dict[str, Any]) -> None:
        params = payload.get("params")
        if not isinstance(params, dict) or "requestId" not in params:
            return
        x = self._open[msg.stream].get(id_key(params["requestId"]))
        if x is None:
            return
        x.state, x.cancel_seq = ExchangeState.CANCELLED, msg.seq
        msg.exchange = x
        self._events.append(ExchangeUpdated(x))

    def _reply(self, msg: Message, payload: dict[str, Any]) -> None:
        direction = OTHER[msg.stream]
        key = id_key(msg.id)
        x = self._open[direction].pop(key, None)
        if x is None:
            done = self._done[direction].get(key)
            if done is not None:
                msg.exchange, msg.method = done, done.method
                self._raise(msg, "pairing.duplicate-response", msg.seq, msg.stream,
                            f"request {done.request_seq} (id {msg.id!r}) was already answered",
                            done.reply_seq)
            else:
                self._raise(msg, "pairing.unknown-id", msg.seq, msg.stream,
                            f"no open request has id {msg.id!r}")
            return
        older = next(iter(self._open[direction].values()), None)
        msg.exchange, msg.method = x, x.method
        x.reply_seq, x.reply_t = msg.seq, msg.t
        if x.state is ExchangeState.CANCELLED:
            self._raise(msg, "pairing.reply-after-cancel", msg.seq, msg.stream,
                        f"reply to {x.method} (id {x.id!r}) after it was cancelled", x.cancel_seq)
        else:
            x.state = ExchangeState.ERROR if msg.kind is Kind.ERROR_RESPONSE else ExchangeState.ANSWERED
        if older is not None and older.request_seq < x.request_seq and not older.long_lived:
            x.out_of_order = True
            self._raise(msg, "pairing.out-of-order", msg.seq, msg.stream,
                        f"answered before request {older.request_seq} (id {older.id!r})", x.request_seq)
        if x.latency is not None and x.latency > self.slow_after and x.request_seq not in self._slow:
            self._slow.add(x.request_seq)
            self._raise(None, "pairing.slow", x.request_seq, x.stream,
                        f"{x.method} (id {x.id!r}) took {x.latency:.1f}s")
        self._done[direction][key] = x
        self._era_from_reply(x, payload)
        self._events.append(ExchangeUpdated(x))

    def _era_from_reply(self, x: Exchange, payload: dict[str, Any]) -> None:
        result = payload.get("result")
        if x.method == "initialize" and x.stream is Stream.C2S and isinstance(result, dict):
            self.era = Era.LEGACY
            version = result.get("protocolVersion")
            self.protocol_version = version if isinstance(version, str) else None
        elif x.method == "server/discover" and isinstance(result, dict) and self.era is not Era.LEGACY:
            self.era = Era.MODERN

    # --- lifecycle

    def _lifecycle_record(self, rec: LifecycleRecord) -> None:
        seen = LifecycleSeen(rec.seq, rec.t, rec.event.value, dict(rec.details))
        self.lifecycle.append(seen)
        self._events.append(seen)
        if rec.event is Event.GRACE_EXPIRED:
            self._raise(None, "lifecycle.no-exit-on-eof", rec.seq, None,
                        "the server was still running after its stdin closed")
        elif rec.event is Event.SERVER_EXITED:
            open_ = [x for x in self._open[Stream.C2S].values() if not x.long_lived]
            if open_:
                ids = ", ".join(repr(x.id) for x in open_)
                self._raise(None, "lifecycle.crash-in-flight", rec.seq, None,
                            f"the server exited with {len(open_)} request(s) in flight (ids {ids})")

    # --- plumbing

    def _emit(self, msg: Message) -> None:
        self.messages.append(msg)
        self._events.append(MessageSeen(msg))

    def _raise(self, msg: Message | None, rule_id: str, seq: int, stream: Stream | None,
               sentence: str, related: int | None = None) -> None:
        finding = Finding(RULES[rule_id], seq, stream, sentence, related)
        self.findings.append(finding)
        if msg is not None:
            msg.findings.append(finding)
        self._events.append(FindingRaised(finding))

    def _take(self) -> list[AnalysisEvent]:
        events, self._events = self._events, []
        return events
