"""The detail pane's content for one message: header, pretty JSON, the raw line, pair, findings.

Lines of styled text for a ``TextView``: the pane draws only what is on screen,
and changing message never re-lays out the app.
"""

from __future__ import annotations

from rich.highlighter import JSONHighlighter
from rich.text import Text

from mcpspy.analysis.model import Message
from mcpspy.tui.rows import DETAIL_LIMIT, MARK, MARK_STYLE, duration_text, pretty_json, visible_raw

_JSON = JSONHighlighter()


def pair_of(message: Message) -> int | None:
    """The seq of the other half of the message's exchange (request <-> reply)."""
    exchange = message.exchange
    if exchange is None:
        return None
    return exchange.reply_seq if exchange.request_seq == message.seq else exchange.request_seq


def detail_lines(message: Message) -> list[Text]:
    """What the pane shows for ``message``; a payload past DETAIL_LIMIT is cut (`v` shows it all)."""
    title = f"seq {message.seq}  t {message.t:.6f}s  {message.kind.value}  {message.size:,} bytes"
    if message.size > DETAIL_LIMIT:
        title += "  (v: whole message)"
    lines = [Text(title, style="bold")]
    if message.payload is not None:
        lines.extend(_JSON(Text(pretty_json(message.payload))).split("\n", allow_blank=True))
    raw = Text(no_wrap=True)  # cut at the width, every byte in place
    raw.append("raw: ", style="dim")
    if message.glued_prefix:
        raw.append(message.glued_prefix.decode("utf-8", "replace"), style="reverse red")
        raw.append(visible_raw(message.raw[len(message.glued_prefix) :], message.terminated))
    else:
        raw.append(visible_raw(message.raw, message.terminated))
    lines.append(raw)
    exchange = message.exchange
    if exchange is not None:
        latency = duration_text(exchange.latency) if exchange.latency is not None else "pending"
        lines.append(
            Text(
                f"exchange: {exchange.method} id {exchange.id!r} {exchange.state.value} "
                f"{latency}; pair seq {pair_of(message)} (p)"
            )
        )
    for f in message.findings:
        lines.append(Text(f"{MARK[f.severity]} {f.id} ({f.severity.label}): ", style=MARK_STYLE[f.severity]))
        lines[-1].append(f.message, style="default")
        lines.append(Text(f"  {f.rule.summary}"))
        lines.append(Text(f"  source: {f.rule.source}", style="dim"))
    return lines
