"""What the exports say about one exchange: its messages, its target, how it ended.

HAR, OTLP and ``stats`` all ask the same questions of an exchange (which tool,
which JSON-RPC error code, was it a tool error); they are answered here once,
from the analysis, so the formats agree. Server data is untrusted: every
accessor checks the shape it reads and gives ``None`` rather than raising.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import Exchange, ExchangeState, Kind, Message
from mcpspy.capture.records import Stream

#: Methods whose target (the span name's second word, stats' "tool") is ``params.name``.
NAMED_TARGET = {"tools/call": "tool", "prompts/get": "prompt"}
#: Methods that carry ``params.uri`` (the OpenTelemetry conventions list them).
URI_METHODS = frozenset(
    {"resources/read", "resources/subscribe", "resources/unsubscribe", "notifications/resources/updated"}
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How an exchange ended, as the formats classify it."""

    state: str  # answered, error, pending, cancelled, unanswered, lost (exchange_state adds out-of-order)
    error_code: int | None = None  # the JSON-RPC error code of an error response
    error_message: str | None = None  # its message, when it is a string
    tool_error: bool = False  # a tools/call result with isError: true

    @property
    def failed(self) -> bool:
        return self.error_code is not None or self.tool_error or self.state in ("unanswered", "lost")


def stray_text(message: Message) -> bytes | None:
    """What in a message is not protocol: a stderr line, a stray stdout line, text glued before JSON."""
    if message.kind is Kind.STDERR or (
        message.stream is Stream.S2C and message.kind in (Kind.NOT_JSON, Kind.INVALID)
    ):
        return message.raw
    return message.glued_prefix or None


def params(message: Message | None) -> dict[str, Any]:
    payload = message.payload if message is not None else None
    value = payload.get("params") if isinstance(payload, dict) else None
    return value if isinstance(value, dict) else {}


def meta(message: Message | None) -> dict[str, Any]:
    value = params(message).get("_meta")
    return value if isinstance(value, dict) else {}


class RequestGist(NamedTuple):
    """What the exports read of a request besides its Exchange, for a lean analysis (which keeps no
    old message): its envelope's jsonrpc, its params' name and uri, its _meta's trace context.
    Each a string or None: the exports read no other (and a gist of strings can be shared)."""

    jsonrpc: str | None
    name: str | None
    uri: str | None
    traceparent: str | None
    tracestate: str | None


def request_gist(request: Message) -> RequestGist:
    """What ``request_of_gist`` makes the request again from."""
    payload = request.payload if isinstance(request.payload, dict) else {}
    params, fields = request.params, request.meta
    return RequestGist(
        text_field(payload, "jsonrpc"),
        text_field(params, "name"),
        text_field(params, "uri"),
        text_field(fields, "traceparent"),
        text_field(fields, "tracestate"),
    )


def request_of_gist(exchange: Exchange, gist: RequestGist) -> Message:
    """The request of ``exchange`` carrying only its gist: what the exports read of it (spans.py)."""
    jsonrpc, name, uri, traceparent, tracestate = gist
    trace = {"traceparent": traceparent, "tracestate": tracestate}
    request_meta: dict[str, Any] = {key: value for key, value in trace.items() if value is not None}
    request_params: dict[str, Any] = {k: v for k, v in (("name", name), ("uri", uri)) if v is not None}
    if request_meta:
        request_params["_meta"] = request_meta
    payload = {"jsonrpc": jsonrpc, "id": exchange.id, "method": exchange.method, "params": request_params}
    return Message(
        exchange.request_seq,
        exchange.sent_t,
        exchange.stream,
        Kind.REQUEST,
        b"",
        True,
        payload,
        exchange.id,
        exchange.method,
        None,
        request_params,
        request_meta,
        exchange,
    )


def text_field(fields: dict[str, Any], name: str) -> str | None:
    value = fields.get(name)
    return value if isinstance(value, str) else None


def target(exchange: Exchange, request: Message | None) -> str | None:
    """The tool or prompt an exchange is about (``params.name``), if its method has one."""
    if exchange.method not in NAMED_TARGET:
        return None
    return text_field(params(request), "name")


def resource_uri(exchange: Exchange, request: Message | None) -> str | None:
    return text_field(params(request), "uri") if exchange.method in URI_METHODS else None


def outcome(exchange: Exchange, reply: Message | None) -> Outcome:
    state = exchange.state.value
    payload = reply.payload if reply is not None and isinstance(reply.payload, dict) else None
    if payload is None:
        return Outcome(state)
    if reply is not None and reply.kind is Kind.ERROR_RESPONSE:
        error = payload.get("error")
        error = error if isinstance(error, dict) else {}
        code = error.get("code")
        code = code if isinstance(code, int) and not isinstance(code, bool) else None
        return Outcome(state, code, text_field(error, "message"))
    result = payload.get("result")
    tool_error = (
        exchange.method == "tools/call" and isinstance(result, dict) and result.get("isError") is True
    )
    return Outcome(state, tool_error=tool_error)


def reply_or_end(exchange: Exchange, analyzer: Analyzer, end_t: float) -> float:
    """When an exchange ended: its reply, else its cancel, else the capture's end."""
    if exchange.reply_t is not None:
        return exchange.reply_t
    if exchange.state is ExchangeState.CANCELLED and exchange.cancel_seq is not None:
        cancel = analyzer.message(exchange.cancel_seq)
        if cancel is not None:
            return cancel.t
    return max(end_t, exchange.sent_t)


def parse_started(started: str) -> datetime:
    """The capture header's start (ISO 8601, UTC); the epoch when it is unreadable."""
    try:
        value = datetime.fromisoformat(started.replace("Z", "+00:00"))
    except ValueError:
        return datetime.fromtimestamp(0, UTC)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def wall_clock(started: datetime, t: float) -> datetime:
    return started + timedelta(seconds=t)


def server_info_of(message: Message) -> dict[str, Any] | None:
    """The server's name and version in one reply: an initialize result, or a result's 2026-07-28 _meta."""
    if message.kind is not Kind.RESPONSE or not isinstance(message.payload, dict):
        return None
    result = message.payload.get("result")
    if not isinstance(result, dict):
        return None
    info = result.get("serverInfo")
    if not isinstance(info, dict):
        result_meta = result.get("_meta")
        info = (
            result_meta.get("io.modelcontextprotocol/serverInfo") if isinstance(result_meta, dict) else None
        )
    return info if isinstance(info, dict) and isinstance(info.get("name"), str) else None


def server_info(analyzer: Analyzer) -> dict[str, Any]:
    """The first serverInfo the server gave, or nothing."""
    for message in analyzer.messages:
        if (info := server_info_of(message)) is not None:
            return info
    return {}
