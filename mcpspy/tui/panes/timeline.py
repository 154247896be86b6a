"""The timeline pane: one bar per exchange, from request to reply, in sending order.

Replies that overtake older requests show as bars that end before the bar above
them does, and are marked, so out-of-order answers are visible at a glance. A
legend line above the bars says what each colour means.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Static

from mcpspy.analysis.model import ExchangeState
from mcpspy.tui.rows import SERVER_SHOWN, Bar

LABEL_WIDTH = 22
MAX_BARS = 200  # the newest ones; older exchanges are in the message list
MIN_WIDTH = 40
STATE_STYLE = {
    ExchangeState.ANSWERED: "green",
    ExchangeState.ERROR: "red",
    ExchangeState.PENDING: "yellow",
    ExchangeState.CANCELLED: "magenta",
    ExchangeState.UNANSWERED: "red",
    ExchangeState.LOST: "dark_orange",  # replied, but unparseable to the client: still awaited
    ExchangeState.UNKNOWN: "grey50",  # pending when records went missing (a capture gap)
}


STATE_WORDS = (
    (ExchangeState.ANSWERED, "answered"),
    (ExchangeState.ERROR, "error"),
    (ExchangeState.PENDING, "pending"),
    (ExchangeState.CANCELLED, "cancelled"),
    (ExchangeState.UNANSWERED, "unanswered"),
    (ExchangeState.LOST, "lost"),
    (ExchangeState.UNKNOWN, "unknown"),
)


def timeline_legend(width: int | None = None) -> Text:
    """What each bar colour and the out-of-order mark mean; broken between entries to fit ``width``."""
    entries = [("█", STATE_STYLE[state], word) for state, word in STATE_WORDS]
    entries.append(("⇅", "bold yellow", "overtook"))
    legend, used = Text(), 0
    for mark, style, word in entries:
        size = len(mark) + 1 + len(word)
        if used and width is not None and used + 2 + size > width:
            legend.append("\n")
            used = 0
        elif used:
            legend.append("  ")
            used += 2
        legend.append(mark, style=style)
        legend.append(f" {word}")
        used += size
    return legend


def render_timeline(bars: list[Bar], now: float, width: int) -> Text:
    """The newest bars scaled to the span from the first request to ``now`` (or the last reply)."""
    shown = bars[-MAX_BARS:]
    out = Text()
    if not shown:
        return Text("no requests yet", style="dim")
    server_width = SERVER_SHOWN + 1 if any(bar.server for bar in shown) else 0
    start = shown[0].sent
    end = max([now, *(bar.replied for bar in shown if bar.replied is not None)])
    span = max(end - start, 1e-6)
    cells = max(width - server_width - LABEL_WIDTH - 2, 10)
    for bar in shown:
        x = bar.exchange
        first = int((bar.sent - start) / span * (cells - 1))
        stop = bar.replied if bar.replied is not None else end
        last = max(first, int((stop - start) / span * (cells - 1)))
        if server_width:
            out.append(bar.server.ljust(server_width), style="bold")
        out.append(bar.label[: LABEL_WIDTH - 1].ljust(LABEL_WIDTH))
        out.append(" " * first)
        out.append("█" * (last - first + 1), style=STATE_STYLE[x.state])
        if x.out_of_order:
            out.append(" ⇅", style="bold yellow")
        out.append("\n")
    return out


class TimelinePane(Vertical):
    """The newest exchanges as bars under a legend; drawn when shown, on a tick while live, on resize."""

    DEFAULT_CSS = """
    TimelinePane > #timeline-legend { height: auto; color: $text-muted; }
    TimelinePane > VerticalScroll { height: 1fr; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self._bars: list[Bar] = []
        self._now = 0.0

    def compose(self) -> ComposeResult:
        yield Static(timeline_legend(), id="timeline-legend")
        with VerticalScroll(can_focus=True):
            yield Static(id="timeline-bars")

    def show(self, bars: list[Bar], now: float) -> None:
        self._bars, self._now = bars, now
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#timeline-legend", Static).update(timeline_legend(event.size.width))
        self._draw()

    def _draw(self) -> None:
        try:
            bars = self.query_one("#timeline-bars", Static)
        except NoMatches:  # not composed yet (drawn at its first resize), or removed as the app closes
            return
        width = max(self.size.width - 2, MIN_WIDTH)  # room for a scrollbar, so the bars never move
        bars.update(render_timeline(self._bars, self._now, width))
