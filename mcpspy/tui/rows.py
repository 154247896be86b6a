"""How a message, a finding and a JSON payload look on screen. No Textual here."""

from __future__ import annotations

from typing import Any

import orjson

from mcpspy.analysis.model import Kind, Message, Severity
from mcpspy.capture.records import Stream

DIRECTION = {Stream.C2S: "→ c2s", Stream.S2C: "← s2c", Stream.ERR: "! err"}
MARK = {Severity.ERROR: "✖", Severity.WARNING: "▲", Severity.INFO: "·"}
DETAIL_LIMIT = 64 * 1024  # larger payloads are shown truncated, whole on demand


def short_id(value: Any) -> str:
    return "" if value is None else (value if isinstance(value, str) else str(value))[:16]


def latency_text(message: Message) -> str:
    exchange = message.exchange
    if exchange is None or exchange.latency is None or exchange.reply_seq != message.seq:
        return ""
    ms = exchange.latency * 1000
    return f"{ms:.1f}ms" if ms < 1000 else f"{ms / 1000:.2f}s"


def message_cells(message: Message) -> tuple[str, ...]:
    severity = message.severity
    return (
        f"{message.t:8.3f}",
        DIRECTION[message.stream],
        message.kind.value,
        short_id(message.id),
        (message.method or ("" if message.kind is not Kind.STDERR else preview(message.raw)))[:40],
        latency_text(message),
        str(message.size),
        MARK[severity] if severity is not None else "",
    )


def preview(raw: bytes, limit: int = 40) -> str:
    text = raw.decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + "…"


def visible_raw(raw: bytes, terminated: bool, limit: int = DETAIL_LIMIT) -> str:
    """The line with its invisible characters shown."""
    shown = raw[:limit].decode("utf-8", "backslashreplace")
    shown = shown.replace("\r", "␍").replace("\t", "⇥").replace("\x00", "␀")
    if len(raw) > limit:
        shown += f"… ({len(raw) - limit:,} more bytes)"
    return shown + ("⏎" if terminated else "  [no newline]")


def pretty_json(payload: Any, limit: int = DETAIL_LIMIT) -> str:
    text = orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode()
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters)"
