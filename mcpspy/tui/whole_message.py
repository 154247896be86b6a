"""The screen `v` opens: one message in full, however big, as pretty JSON or as its raw line."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from mcpspy.analysis.model import Message
from mcpspy.terminal import visible_line
from mcpspy.tui.rows import pretty_json, visible_raw
from mcpspy.tui.widgets.textview import TextView

METHOD_WIDTH = 48  # a longer method is cut in the title: the sizes after it stay in sight


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
            view.set_text(visible_raw(m.raw, m.terminated, limit=None))
        else:
            view.set_text(pretty_json(m.payload, limit=None), json=True)
        what = "raw" if self.raw else "JSON"
        method = visible_line(m.method or "")
        if len(method) > METHOD_WIDTH:
            method = method[: METHOD_WIDTH - 1] + "…"
        title = f"seq {m.seq}  {m.kind.value}  {method}  {m.size:,} bytes  {what}, {view.line_count:,} lines"
        self.query_one("#whole-title", Static).update(Content(title))

    def action_toggle_raw(self) -> None:
        if self.message.payload is not None:
            self.raw = not self.raw
            self.show()
