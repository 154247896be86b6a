"""The timeline pane: one bar per exchange, from request to reply, in sending order.

Replies that overtake older requests show as bars that end before the bar above
them does, and are marked, so out-of-order answers are visible at a glance.
"""

from __future__ import annotations

from rich.text import Text

from mcpspy.analysis.model import Exchange, ExchangeState

LABEL_WIDTH = 22
MAX_BARS = 200  # the newest ones; older exchanges are in the message list


def render_timeline(exchanges: list[Exchange], now: float, width: int) -> Text:
    """Bars scaled to the span from the first request to ``now`` (or the last reply)."""
    shown = exchanges[-MAX_BARS:]
    out = Text()
    if not shown:
        return Text("no requests yet", style="dim")
    start = shown[0].sent_t
    end = max([now, *(x.reply_t for x in shown if x.reply_t is not None)])
    span = max(end - start, 1e-6)
    cells = max(width - LABEL_WIDTH - 2, 10)
    for x in shown:
        label = f"{x.stream.arrow}{x.id!s:>4} {x.method}"[: LABEL_WIDTH - 1].ljust(LABEL_WIDTH)
        first = int((x.sent_t - start) / span * (cells - 1))
        stop_t = x.reply_t if x.reply_t is not None else end
        last = max(first, int((stop_t - start) / span * (cells - 1)))
        style = {
            ExchangeState.ANSWERED: "green",
            ExchangeState.ERROR: "red",
            ExchangeState.PENDING: "yellow",
            ExchangeState.CANCELLED: "magenta",
            ExchangeState.UNANSWERED: "red",
        }[x.state]
        out.append(label)
        out.append(" " * first)
        out.append("█" * (last - first + 1), style=style)
        if x.out_of_order:
            out.append(" ⇅", style="bold yellow")
        out.append("\n")
    return out
