"""`?`: every key, what the marks in the header, the list and the timeline mean, and the filter language."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Footer

from mcpspy.analysis.model import Severity
from mcpspy.filters import FIELDS, SYNTAX_HELP
from mcpspy.tui.keymap import HELP
from mcpspy.tui.panes.timeline import timeline_legend
from mcpspy.tui.rows import DIRECTION, DIRECTION_STYLE, MARK, MARK_STYLE
from mcpspy.tui.widgets.textview import TextView


def heading(text: str) -> Text:
    return Text(text, style="bold underline")


def pairs(rows: tuple[tuple[str, str], ...], width: int) -> list[Text]:
    return [Text.assemble((key.ljust(width), "bold"), "  ", what) for key, what in rows]


def severity_legend() -> Text:
    """``✖ error  ▲ warning  · info``, each in its colour."""
    parts: list[tuple[str, str] | str] = []
    for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
        parts += [(f"{MARK[severity]} {severity.label}", MARK_STYLE[severity]), "  "]
    return Text.assemble(*parts)


def help_lines() -> list[Text]:
    lines = [heading("Keys"), *pairs(tuple((row.shown, row.what) for row in HELP), 22), Text("")]
    lines += [heading("Header"), Text.assemble("findings by severity: ", severity_legend())]
    lines += pairs(
        (
            ("N msgs, shown/N", "messages seen; with a filter, those shown out of all"),
            ("N pending", "requests still waiting for their reply"),
            ("following/paused", "the cursor stays on the newest message, or where you put it"),
            ("ended", "the session is over (its proxy stopped)"),
            ("reading…, analysing", "a big capture is listed, then analysed"),
            ("by latency/size", "the order the list is in (o)"),
            ("search", "the text searched for, and how many messages have it (n/N)"),
            ("↻ second line", "the server restarted: the new session is shown, the filter kept"),
        ),
        22,
    )
    lines += [Text(""), heading("Message list")]
    for stream, arrow in DIRECTION.items():
        what = {"c2s": "client to server", "s2c": "server to client", "err": "server's stderr"}[stream.value]
        lines.append(Text.assemble((arrow.ljust(22), DIRECTION_STYLE[stream]), "  ", what))
    lines += pairs(
        (
            ("!", "the worst finding on the message (details in the detail tab)"),
            ("latency", "on a reply: the time since its request"),
        ),
        22,
    )
    lines += [Text(""), heading("Timeline"), timeline_legend(), Text("")]
    lines += [heading("Filter (/)"), *pairs(SYNTAX_HELP, 22)]
    lines += [Text.assemble((f"{key}:".ljust(22), "bold"), "  ", cls.help) for key, cls in FIELDS.items()]
    return lines


class HelpScreen(ModalScreen[None]):
    """Keys and legends, scrollable; `?` or escape closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "app.pop_screen", "Back")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > TextView {
        width: 96%; max-width: 110; height: 90%; border: round $accent; background: $surface; padding: 0 1;
    }
    """

    def compose(self) -> ComposeResult:
        yield TextView(id="help")
        yield Footer()

    def on_mount(self) -> None:
        view = self.query_one(TextView)
        view.set_lines(help_lines())
        view.focus()
