"""`x`: one exchange in one screen (request, progress, cancel, reply, late reply), Follow-Stream style.

Each part has a heading (its role, seq, time since the request, direction),
its findings, and its JSON (cut at DETAIL_LIMIT, as in the detail pane; `v`
shows one message whole). Everything from the capture goes in as plain text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from mcpspy.analysis.model import Exchange, Message
from mcpspy.terminal import visible_bytes, visible_line
from mcpspy.tui.exchange_view import Part, exchange_parts
from mcpspy.tui.panes.detail import finding_lines
from mcpspy.tui.rows import DIRECTION, DIRECTION_STYLE, duration_text, pretty_json, visible_raw
from mcpspy.tui.widgets.textview import TextView

ROLE_STYLE = {
    "request": "bold cyan",
    "reply": "bold green",
    "error reply": "bold red",
    "cancel": "bold magenta",
}


def exchange_title(exchange: Exchange | None, parts: Sequence[Part]) -> str:
    if exchange is None:
        return f"seq {parts[0].message.seq}: not part of an exchange"
    latency = duration_text(exchange.latency) if exchange.latency is not None else "no reply"
    order = "  out of order" if exchange.out_of_order else ""
    said = f"{exchange.method} id {exchange.id!r}  {exchange.state.value}  {latency}{order}"
    return visible_line(f"{said}  {len(parts)} messages")


def summary_lines(parts: Sequence[Part], since: float) -> list[str | Text]:
    """One line a part, in order: the exchange at a glance, before each part in full."""
    lines: list[str | Text] = []
    for part in parts:
        m = part.message
        line = Text(f"{part.role:<12}", style=ROLE_STYLE.get(part.role, "bold yellow"))
        line.append(f"seq {m.seq:<6} {'+' + duration_text(m.t - since):>10}  ")
        line.append(DIRECTION[m.stream], style=DIRECTION_STYLE[m.stream])
        if m.findings:
            worst = max(m.findings, key=lambda f: f.severity)
            line.append(visible_line(f"  {worst.id}"), style="dim")
        lines.append(line)
    return [*lines, ""]


def part_lines(part: Part, since: float) -> list[str | Text]:
    m = part.message
    heading = Text(f"── {part.role} ", style=ROLE_STYLE.get(part.role, "bold yellow"))
    heading.append(f"seq {m.seq}  +{duration_text(m.t - since)}  ", style="bold")
    heading.append(DIRECTION[m.stream], style=DIRECTION_STYLE[m.stream])
    heading.append(f"  {m.size:,} bytes ──", style="dim")
    lines: list[str | Text] = [heading, *finding_lines(m)]
    if m.glued_prefix:
        glued = Text("glued before the JSON: ", style="bold red")
        glued.append(visible_bytes(m.glued_prefix), style="reverse red")
        lines.append(glued)
    if m.payload is not None:
        lines.extend(visible_line(line) for line in pretty_json(m.payload).split("\n"))
    else:
        lines.append(Text(visible_raw(m.raw, m.terminated)))
    lines.append("")
    return lines


class FollowExchange(Screen[None]):
    """The exchange of the message under the cursor, every part of it in order."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,x", "app.pop_screen", "Back")]
    DEFAULT_CSS = """
    FollowExchange > #follow-title { height: 1; background: $panel; padding: 0 1; }
    FollowExchange > TextView { height: 1fr; padding: 0 1; }
    """

    def __init__(self, message: Message, messages: Sequence[Message]) -> None:
        super().__init__()
        self.exchange, self.parts = exchange_parts(message, messages)

    def compose(self) -> ComposeResult:
        yield Static(id="follow-title", markup=False)
        yield TextView(id="follow")
        yield Footer()

    def on_mount(self) -> None:
        since = self.parts[0].message.t
        lines = summary_lines(self.parts, since)
        lines += [line for part in self.parts for line in part_lines(part, since)]
        view = self.query_one(TextView)
        view.set_lines(lines, json=True)
        view.focus()
        self.query_one("#follow-title", Static).update(Content(exchange_title(self.exchange, self.parts)))

    @property
    def text(self) -> str:
        """What the screen shows, as plain text (what a test reads)."""
        view = self.query_one(TextView)
        return "\n".join(view.line_text(y) for y in range(view.line_count))
