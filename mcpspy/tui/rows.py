"""How a message, a finding and a JSON payload look on screen. No Textual here.

Each list is a tuple of ``Column``s and a function from one item to its cells;
``RowList`` (widgets/rowlist.py) lays them out, so adding a column is one line
here. Cells are plain text: ``RowList`` shows their controls as escapes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mcpspy import json_text
from mcpspy.analysis.model import Exchange, ExchangeState, Finding, Kind, Message, Severity
from mcpspy.capture.records import Stream
from mcpspy.terminal import visible_bytes, visible_line

DIRECTION = {Stream.C2S: "→ c2s", Stream.S2C: "← s2c", Stream.ERR: "! err"}
DIRECTION_STYLE = {Stream.C2S: "cyan", Stream.S2C: "green", Stream.ERR: "magenta"}
MARK = {severity: severity.mark for severity in Severity}
MARK_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.INFO: "blue"}
INJECTED_MARK = "⚑"  # a line mcpspy --inject wrote, with no finding of its own
LOST = ExchangeState.LOST
DETAIL_LIMIT = 64 * 1024  # larger payloads are shown truncated in the detail pane, whole with `v`


@dataclass(frozen=True, slots=True)
class Column:
    title: str
    width: int  # cells; a flexible column takes the room left over, and at least this
    flexible: bool = False
    right: bool = False  # right-aligned (numbers)
    wrap: bool = False  # the text goes on over the next lines instead of being cut (the last column)
    middle: bool = False  # cut in the middle, as a method and what it names: `notif…/progress lookup`


Cell = tuple[str, str]  # text, Rich style ("" for the row's own)
CellsOf = Callable[[Any], tuple[Cell, ...]]


def short_id(value: Any) -> str:
    return "" if value is None else (value if isinstance(value, str) else str(value))[:16]


def duration_text(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.1f}ms" if ms < 1000 else f"{seconds:.2f}s"


def latency_text(message: Message) -> str:
    exchange = message.exchange
    if exchange is None or exchange.latency is None or exchange.reply_seq != message.seq:
        return ""
    return duration_text(exchange.latency)


def raw_preview(raw: bytes, limit: int = 40) -> str:
    text = raw[: limit * 4].decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + "…"


MESSAGE_COLUMNS = (
    Column("time", 9, right=True),
    Column("dir", 5),
    Column("kind", 12),
    Column("id", 6),
    Column("method", 14, flexible=True, middle=True),
    Column("latency", 8, right=True),
    Column("size", 7, right=True),
    Column("!", 1),
)
SERVER_COLUMN = Column("server", 10)  # `watch --all`: which server a row is from


NAMED_BY = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}  # what a call names


def subject_of(message: Message) -> str | None:
    """The tool, prompt or resource a tools/call, prompts/get or resources/read request names."""
    key = NAMED_BY.get(message.method or "")
    payload = message.payload
    if key is None or not isinstance(payload, dict) or "params" not in payload:
        return None
    params = payload["params"]
    named = params.get(key) if isinstance(params, dict) else None
    return named if isinstance(named, str) and named else None


def message_cells(message: Message) -> tuple[Cell, ...]:
    """One message list row: a reply shows its request's method and the latency.

    A line mcpspy --inject wrote is marked so; findings an injection provoked do not flag a row.
    """
    severity = max((f.severity for f in message.findings if not f.injected), default=None)
    injected = message.injected is not None or any(f.injected for f in message.findings)
    method = message.method or ("" if message.kind is not Kind.STDERR else raw_preview(message.raw, 80))
    return (
        (f"{message.t:.3f}", "dim"),
        (DIRECTION[message.stream], DIRECTION_STYLE[message.stream]),
        (message.kind.value, "bold red" if message.kind in (Kind.NOT_JSON, Kind.INVALID) else ""),
        (short_id(message.id), ""),
        (method + (" [injected]" if injected else ""), ""),
        (latency_text(message), ""),
        (str(message.size), "dim"),
        (MARK[severity], MARK_STYLE[severity])
        if severity is not None
        else (INJECTED_MARK, "bold magenta")
        if injected
        else ("", ""),
    )


FINDING_COLUMNS = (
    Column("sev", 9),
    Column("seq", 6, right=True),
    Column("rule", 26),
    Column("message", 20, flexible=True, wrap=True),
)


def finding_cells(finding: Finding) -> tuple[Cell, ...]:
    severity = finding.severity
    return (
        (f"{MARK[severity]} {severity.label}", MARK_STYLE[severity]),
        (str(finding.seq), "dim"),
        (finding.id, ""),
        (finding.message, ""),
    )


@dataclass(frozen=True, slots=True)
class PendingRow:
    """An in-flight request and how long it has waited, as of the last tick."""

    exchange: Exchange
    age: float
    slow: bool
    server: str | None = None  # `watch --all`: the server it waits on


PENDING_COLUMNS = (
    Column("dir", 5),
    Column("id", 8),
    Column("method", 14, flexible=True, middle=True),
    Column("age", 8, right=True),
)
PENDING_COLUMNS_ALL = (PENDING_COLUMNS[0], SERVER_COLUMN, *PENDING_COLUMNS[1:])


def pending_rows(
    pending: Iterable[Exchange], now: float, slow_after: float, server: str | None = None
) -> list[PendingRow]:
    """``pending`` as rows, aged as of ``now`` (their own clock: seconds since their session began)."""
    return [PendingRow(x, now - x.sent_t, now - x.sent_t >= slow_after, server) for x in pending]


def pending_cells(row: PendingRow) -> tuple[Cell, ...]:
    x = row.exchange
    server: tuple[Cell, ...] = () if row.server is None else ((row.server, "bold"),)
    return (
        (DIRECTION[x.stream], DIRECTION_STYLE[x.stream]),
        *server,
        (short_id(x.id), ""),
        (f"lost: {x.method}", "dark_orange") if x.state is LOST else (x.method, ""),
        (f"{row.age:.1f}s", "bold yellow" if row.slow else ""),
    )


SERVER_SHOWN = 8  # a server's name in a bar's label (`watch --all`) is cut to this


@dataclass(frozen=True, slots=True)
class Bar:
    """One exchange on the timeline, its times on one clock for every bar drawn together."""

    server: str  # `watch --all`: the server's name, made visible and cut ("": one session is shown)
    label: str
    sent: float
    replied: float | None
    exchange: Exchange


def bars_of(exchanges: Iterable[Exchange], offset: float = 0.0, server: str | None = None) -> list[Bar]:
    """``exchanges`` as bars, their times moved by ``offset`` (`watch --all`: their session's start)."""
    name = "" if server is None else visible_line(server)[:SERVER_SHOWN] or "?"
    return [
        Bar(
            name,
            visible_line(f"{x.stream.arrow}{x.id!s:>4} {x.method}"),
            x.sent_t + offset,
            None if x.reply_t is None else x.reply_t + offset,
            x,
        )
        for x in exchanges
    ]


def visible_raw(raw: bytes, terminated: bool, limit: int | None = DETAIL_LIMIT) -> str:
    """The line as one line of text, every control and invalid byte shown as an escape."""
    cut = limit is not None and len(raw) > limit
    shown = visible_bytes(raw[:limit] if cut else raw)
    if cut:
        shown += f"… ({len(raw) - (limit or 0):,} more bytes: v shows it all)"
    return shown + ("⏎" if terminated else "  [no newline]")


def pretty_json(payload: Any, limit: int | None = DETAIL_LIMIT) -> str:
    """Indented JSON for the detail pane and `v`, cut at ``limit``; a note when too deep to re-encode."""
    text = json_text.pretty_json(payload)
    if text is None:
        return f"({json_text.TOO_DEEP}: see the raw line, or r in v)"
    if limit is None or len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit:,} more characters: v shows it all)"
