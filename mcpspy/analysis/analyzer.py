"""The analyzer: fed capture records one at a time, in the manner of h11.

``feed(record)`` returns what the record taught it (the classified message,
exchanges that changed, findings); ``check_pending(t)`` flags slow requests
at a time the caller chooses; ``finish()`` closes the books. No clock, no
I/O: the same records always give the same analysis, live or replayed.

This is the facade. Lines become messages here (framing); the rest is
delegated: pairing.py (ids, cancels, progress), era.py (which revision, the
handshake, _meta), capabilities.py (gating), shapes.py (result and log shapes).
"""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.capabilities import Capabilities
from mcpspy.analysis.era import EraTracker, meta_version
from mcpspy.analysis.jsonrpc import Parsed, classify_line, preview, valid_id_code
from mcpspy.analysis.model import (
    AnalysisEvent,
    Era,
    Exchange,
    Finding,
    Kind,
    LifecycleSeen,
    Message,
)
from mcpspy.analysis.pairing import Pairing, meta_in, params_of
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.shapes import RESULT_DEFS, log_message_problem, result_problem
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Record, Stream

MULTILINE_MAX_LINES = 500
TASKS_REVISION = "2025-11-25"  # the one revision with task-augmented requests in the core protocol
# Enum members as module constants: on Python 3.11 ``Kind.REQUEST`` runs Python code per access.
REQUEST, NOTIFICATION = Kind.REQUEST, Kind.NOTIFICATION
RESPONSE, ERROR_RESPONSE = Kind.RESPONSE, Kind.ERROR_RESPONSE
NOT_JSON, INVALID, STDERR = Kind.NOT_JSON, Kind.INVALID, Kind.STDERR
PROTOCOL_KINDS = (REQUEST, NOTIFICATION, RESPONSE, ERROR_RESPONSE)  # a tuple: `in` tests identity first
C2S, S2C, ERR = Stream.C2S, Stream.S2C, Stream.ERR


def side(stream: Stream) -> str:
    """The prefix of the framing rules for a pipe."""
    return "stdout" if stream is S2C else "stdin"


def read_line(record: LineRecord) -> tuple[Message, Parsed | None]:
    """A line on its own, with no history: its message, and what its framing says (None for stderr)."""
    if record.stream is ERR:
        return Message(record.seq, record.t, record.stream, STDERR, record.data, record.terminated), None
    parsed = classify_line(record.data)
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
        self.lifecycle: list[LifecycleSeen] = []
        self._out = Reporter()
        self._pairing = Pairing(self._out)
        self._era = EraTracker(self._out)
        self._capabilities = Capabilities(self._out)
        self._multiline: dict[Stream, list[Message]] = {C2S: [], S2C: []}
        self._revision = self._era.revision  # bound once: capabilities asks it per request
        self._stdin_closed = False
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
        return self._era.supported_versions

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
            self._lifecycle(record)
            return self._out.events
        return self.feed_read(*read_line(record))

    def feed_read(self, message: Message, parsed: Parsed | None) -> list[AnalysisEvent]:
        """A line that ``read_line`` has read already (a viewer lists lines before analysing them)."""
        self._out.events = []
        if parsed is None:
            self._out.message(message)
        else:
            self._line(message, parsed)
        return self._out.events

    def check_pending(self, t: float) -> list[AnalysisEvent]:
        self._out.events = []
        self._pairing.check_pending(t, self.slow_after)
        return self._out.events

    def finish(self) -> list[AnalysisEvent]:
        self._out.events = []
        if not self._finished:
            self._finished = True
            for stream in (C2S, S2C):
                self._flush_multiline(stream)
            self._pairing.finish()
        return self._out.events

    # --- records

    def _lifecycle(self, record: LifecycleRecord) -> None:
        seen = LifecycleSeen(record.seq, record.t, record.event.value, dict(record.details))
        self.lifecycle.append(seen)
        self._out.events.append(seen)
        if record.event is Event.STDIN_CLOSED:
            self._stdin_closed = True
        elif record.event is Event.GRACE_EXPIRED:
            self._out.find(
                "lifecycle.no-exit-on-eof",
                record.seq,
                None,
                f"the server was still running {record.details.get('grace', '?')}s after its "
                "stdin closed; mcpspy terminated it",
            )
        elif record.event is Event.SERVER_EXITED:
            self._server_exited(record)

    def _server_exited(self, record: LifecycleRecord) -> None:
        in_flight = self._pairing.in_flight(C2S)
        clean_exit = record.details.get("code") == 0 and self._stdin_closed
        if not in_flight or clean_exit:  # a clean exit after EOF: finish() calls them unanswered
            return
        how = record.details.get("signal") or f"code {record.details.get('code', '?')}"
        names = ", ".join(f"{e.method} (id {e.id!r})" for e in in_flight[:3])
        more = f" and {len(in_flight) - 3} more" if len(in_flight) > 3 else ""
        self._out.find(
            "lifecycle.crash-in-flight",
            record.seq,
            None,
            f"the server exited ({how}) with {len(in_flight)} request(s) in flight: {names}{more}",
        )
        self._pairing.give_up(in_flight)

    def _line(self, message: Message, parsed: Parsed) -> None:
        stream = message.stream
        if self._multiline[stream] and self._continue_multiline(message, parsed):
            return
        self._out.message(message)
        for rule, sentence in parsed.problems:
            if rule == "not-json" and self._start_multiline(message):
                continue
            rule_id = rule if "." in rule else f"{side(stream)}.{rule}"
            self._out.find(rule_id, message.seq, stream, sentence)
        if not message.terminated:
            self._out.find(
                f"{side(stream)}.unterminated",
                message.seq,
                stream,
                "the stream ended in the middle of this line, with no newline",
            )
        if parsed.kind in PROTOCOL_KINDS:
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
        fragment = parsed.kind is NOT_JSON or (
            parsed.kind is INVALID and not isinstance(parsed.payload, dict | list)
        )
        if not fragment or len(group) >= MULTILINE_MAX_LINES:
            self._flush_multiline(message.stream)
            return False
        group.append(message)
        self._out.message(message)
        joined = classify_line(b"\n".join(m.raw for m in group))
        if joined.kind is NOT_JSON:
            return True
        self._multiline[message.stream] = []
        first = group[0]
        what = f"id {joined.id!r}" if joined.has_id else (joined.method or "a message")
        self._out.find(
            f"{side(message.stream)}.multiline-json",
            first.seq,
            message.stream,
            f"one message ({what}) was pretty-printed over {len(group)} lines (seq {first.seq}-"
            f"{message.seq}); the other side sees {len(group)} broken lines",
        )
        if joined.kind in PROTOCOL_KINDS:
            # Pair it through its first line, so the exchange shows what the server meant to say.
            first.kind, first.payload = joined.kind, joined.payload
            first.id, first.method = joined.id, joined.method
            self._protocol(first, joined)
        return True

    def _flush_multiline(self, stream: Stream) -> None:
        """The group never became JSON: each of its lines is plain stray text."""
        group, self._multiline[stream] = self._multiline[stream], []
        for m in group:
            self._out.find(f"{side(stream)}.not-json", m.seq, stream, f"{preview(m.raw)} is not JSON")

    # --- protocol

    def _protocol(self, message: Message, parsed: Parsed) -> None:
        if parsed.glued_prefix is not None:
            lost = (
                f"the response to id {parsed.id!r}"
                if parsed.kind in (RESPONSE, ERROR_RESPONSE)
                else f"this {parsed.kind.value}"
            )
            self._out.find(
                f"{side(message.stream)}.glued-prefix",
                message.seq,
                message.stream,
                f"the stray text {preview(parsed.glued_prefix)} was glued before a JSON message, "
                f"so the other side cannot parse the line and loses {lost}",
            )
        if parsed.kind is REQUEST:
            self._request(message)
        elif parsed.kind is NOTIFICATION:
            self._notification(message)
        else:
            self._response(message)

    def _request(self, message: Message) -> None:
        params = params_of(message)
        meta = meta_in(params)  # taken once here: pairing and the era both read it
        exchange = self._pairing.request(message, params, meta)
        self.exchanges.append(exchange)
        if message.stream is C2S:
            version = exchange.version = meta_version(meta)  # its reply is held to it too
            self._era.client_request(message, exchange, version)
            if message.method == "initialize":
                self._capabilities.learn_client(message)
            else:
                self._capabilities.client_request(message, version, self._revision)
        else:
            self._era.server_request(message)
            self._capabilities.server_request(message, self._era.protocol_version)

    def _notification(self, message: Message) -> None:
        if message.method == "notifications/cancelled":
            self._pairing.cancel(message)
        elif message.method == "notifications/progress":
            self._pairing.progress(message)
        elif message.stream is C2S:
            self._era.client_notification(message)
        else:
            self._capabilities.server_notification(message)
            if message.method == "notifications/message":
                problem = log_message_problem(params_of(message))
                if problem is not None:
                    self._out.find(
                        "logging.invalid-message",
                        message.seq,
                        message.stream,
                        f"the log message is malformed: {problem}",
                    )

    def _response(self, message: Message) -> None:
        if message.stream is C2S:
            self._era.client_response(message)
        code = None
        if message.kind is ERROR_RESPONSE:  # a RESPONSE has no "error" (classify_message)
            error = message.payload.get("error")
            code = error.get("code") if isinstance(error, dict) else None
        exchange = self._pairing.response(message, code if valid_id_code(code) else None)
        if exchange is None:
            return
        request = self._out.by_seq.get(exchange.request_seq)  # never None: requests are seen first
        version = exchange.version
        if exchange.stream is C2S:
            self._era.reply(exchange, message, code, request, version)
            self._capabilities.learn_server(exchange.method, message)
        if request is not None and message.kind is RESPONSE:
            self._check_shape(exchange, message, request, version)

    def _check_shape(
        self, exchange: Exchange, message: Message, request: Message, version: str | None
    ) -> None:
        result: Any = message.payload.get("result")
        if exchange.method not in RESULT_DEFS or not isinstance(result, dict):
            return
        revision = self._era.revision(request, version)
        if revision is None or (revision == TASKS_REVISION and "task" in params_of(request)):
            return  # a task-augmented request is answered with a CreateTaskResult instead
        problem = result_problem(exchange.method, exchange.stream, revision, result)
        if problem is not None:
            self._out.find(
                "schema.result-shape", message.seq, message.stream, problem, related_seq=exchange.request_seq
            )
