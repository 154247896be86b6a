"""The screen `v` opens: one message in full, however big, as pretty JSON or as its raw line.

Above the JSON: the message's findings and any stray text glued before it on
its line (the JSON alone would hide it). The title counts the message's own
lines, not the screen lines they wrap to.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from mcpspy.analysis.model import Message
from mcpspy.terminal import visible_bytes, visible_line
from mcpspy.tui.panes.detail import finding_lines
from mcpspy.tui.rows import pretty_json, visible_raw
from mcpspy.tui.widgets.textview import TextView

METHOD_WIDTH = 48  # a longer method is cut in the title: the sizes after it stay in sight


def head_lines(message: Message) -> list[str | Text]:
    """Above the JSON: its findings, and the stray text glued before it on its line (else unseen)."""
    lines: list[str | Text] = [*finding_lines(message)]
    if message.glued_prefix:
        glued = Text("glued before the JSON: ", style="bold red")
        glued.append(visible_bytes(message.glued_prefix), style="reverse red")
        lines.append(glued)
    if lines:
        lines.append(Text(""))
    return lines


class WholeMessage(Screen[None]):
    """Pretty JSON when the message parsed, else (or with `r`) the raw line."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,v", "app.pop_screen", "Back"),
        Binding("r", "toggle_raw", "Raw/JSON"),
    ]
    DEFAULT_CSS = """
    WholeMessage > #whole-title { height: 1; background: $panel; padding: 0 1; }
    WholeMessage > TextView { height: 1fr; }
    """

    def __init__(self, message: Message) -> None:
        super().__init__()
        self.message = message
        self.raw = message.payload is None

    def compose(self) -> ComposeResult:
        yield Static(id="whole-title", markup=False)
        yield TextView(id="whole")
        yield Footer()

    def on_mount(self) -> None:
        self.show()
        self.query_one(TextView).focus()

    def show(self) -> None:
        m = self.message
        view = self.query_one(TextView)
        if self.raw:
            text = visible_raw(m.raw, m.terminated, limit=None)
            lines: list[str | Text] = [text]
        else:
            text = pretty_json(m.payload, limit=None)
            lines = [*head_lines(m), *text.split("\n")]
        view.set_lines(lines, json=not self.raw)
        what = "raw" if self.raw else "JSON"
        method = visible_line(m.method or "")
        if len(method) > METHOD_WIDTH:
            method = method[: METHOD_WIDTH - 1] + "…"
        count = text.count("\n") + 1  # the message's own lines, whatever the width wraps them to
        title = f"seq {m.seq}  {m.kind.value}  {method}  {m.size:,} bytes  {what}, {count:,} lines"
        self.query_one("#whole-title", Static).update(Content(title))

    def action_toggle_raw(self) -> None:
        if self.message.payload is not None:
            self.raw = not self.raw
            self.show()
