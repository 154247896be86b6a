"""One exchange's messages, as Wireshark's Follow Stream gathers a conversation. No Textual.

From any of its messages (the request, a progress notification, the cancel,
the reply, a late or second reply), ``exchange_parts`` finds the exchange and
gathers, in order: the request, each progress notification carrying its
progress token, the cancel, the reply, and the replies that came late (after
the cancel, or a second time; the analysis links those to the request).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcpspy.analysis.model import Exchange, Kind, Message

PROGRESS = "notifications/progress"
CANCELLED = "notifications/cancelled"
RESPONSES = (Kind.RESPONSE, Kind.ERROR_RESPONSE)


@dataclass(frozen=True, slots=True)
class Part:
    role: str  # request, progress, cancel, reply, error reply, late reply, related
    message: Message


def _params(message: Message) -> dict[str, Any]:
    payload = message.payload
    params = payload.get("params") if isinstance(payload, dict) else None
    return params if isinstance(params, dict) else {}


def progress_token(request: Message) -> Any:
    meta = _params(request).get("_meta")
    return meta.get("progressToken") if isinstance(meta, dict) else None


def _at(messages: Sequence[Message], seq: int) -> Message | None:
    index = bisect_left(messages, seq, key=lambda m: m.seq)
    return messages[index] if index < len(messages) and messages[index].seq == seq else None


def exchange_of(message: Message, messages: Sequence[Message]) -> Exchange | None:
    """The exchange ``message`` belongs to or is about; ``messages`` in seq order."""
    if message.exchange is not None:
        return message.exchange
    for finding in message.findings:  # a second reply, progress after the reply...
        related = _at(messages, finding.related_seq) if finding.related_seq is not None else None
        if related is not None and related.exchange is not None:
            return related.exchange
    if message.method == CANCELLED:
        wanted = _params(message).get("requestId")
        same_way = (m for m in reversed(messages[: bisect_left(messages, message.seq, key=lambda m: m.seq)]))
        for m in same_way:
            if m.kind is Kind.REQUEST and m.stream is message.stream and m.id == wanted:
                return m.exchange
    if message.method == PROGRESS:
        token = _params(message).get("progressToken")
        earlier = messages[: bisect_left(messages, message.seq, key=lambda m: m.seq)]
        for m in reversed(earlier):
            if m.kind is Kind.REQUEST and m.stream is not message.stream and progress_token(m) == token:
                return m.exchange
    return None


def _role(message: Message, exchange: Exchange, token: Any) -> str | None:
    seq = message.seq
    if seq == exchange.request_seq:
        return "request"
    if seq == exchange.cancel_seq:
        return "cancel"
    if seq == exchange.reply_seq:
        late = exchange.cancel_seq is not None and seq > exchange.cancel_seq
        return "late reply" if late else "error reply" if message.kind is Kind.ERROR_RESPONSE else "reply"
    answering = message.stream is not exchange.stream
    progress = answering and message.method == PROGRESS and token is not None
    if progress and _params(message).get("progressToken") == token:
        return "progress"
    if any(f.related_seq == exchange.request_seq for f in message.findings):
        return "late reply" if message.kind in RESPONSES else "related"
    return None


def exchange_parts(message: Message, messages: Sequence[Message]) -> tuple[Exchange | None, list[Part]]:
    """The exchange of ``message`` and its messages in order; ``messages`` is every message, by seq."""
    exchange = exchange_of(message, messages)
    if exchange is None:
        return None, [Part("message", message)]
    start = bisect_left(messages, exchange.request_seq, key=lambda m: m.seq)
    request = messages[start] if start < len(messages) else None
    token = progress_token(request) if request is not None else None
    parts = []
    for m in messages[start:]:
        reused = m.kind is Kind.REQUEST and m.stream is exchange.stream and m.id == exchange.id
        if reused and m.seq != exchange.request_seq and m.exchange is not exchange:
            break  # the id was used again: what follows is another exchange's
        role = _role(m, exchange, token)
        if role is not None:
            parts.append(Part(role, m))
    return exchange, parts
