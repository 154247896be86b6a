"""The session picker `mcpspy watch` shows when several sessions are live.

A session's name and command come from its capture: each prompt is a rich
``Text`` (never markup) with their controls made visible.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from mcpspy.capture.sessions import SessionInfo
from mcpspy.session_counts import SessionCounts, count_session, session_line

TITLES = f"{'started':<19}  state  {'messages':>11}  {'findings':<10}  name / command"


def prompt(s: SessionCounts) -> Text:
    """Started, live or ended, counts and name on one line, the server command under them (plain text)."""
    return Text(session_line(s, command_below=True))


@dataclass
class Summarized(Message):
    index: int
    summary: SessionCounts


class SessionPicker(App[Path | None]):
    """Choose one session; the app's return value is its capture path (None on quit).

    Each line says when the session started, whether it is live, how many
    messages and findings by severity it has (counted in a thread, filled in
    as they come), its name and its server command.
    """

    CSS = """
    #titles { color: $text-muted; text-style: bold; padding: 0 2; }
    #picker { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit_picker", "Quit"),
        Binding("j", "down", "Down", show=False),
        Binding("k", "up", "Up", show=False),
    ]

    def __init__(self, sessions: list[SessionInfo]) -> None:
        super().__init__()
        self.sessions = sessions
        self.summaries = [SessionCounts(s) for s in sessions]

    def compose(self) -> ComposeResult:
        yield Static(f"{len(self.sessions)} sessions are live: pick one (enter)", markup=False)
        yield Static(TITLES, id="titles", markup=False)
        yield OptionList(*(Option(prompt(s), id=str(i)) for i, s in enumerate(self.summaries)), id="picker")
        yield Footer()

    def on_mount(self) -> None:
        self.count_sessions()

    @work(thread=True, exclusive=True)
    def count_sessions(self) -> None:
        for index, session in enumerate(self.sessions):
            self.post_message(Summarized(index, count_session(session)))

    @on(Summarized)
    def show_counts(self, event: Summarized) -> None:
        self.summaries[event.index] = event.summary
        for picker in self.query("#picker").results(OptionList):
            picker.replace_option_prompt_at_index(event.index, prompt(event.summary))

    @on(OptionList.OptionSelected, "#picker")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.exit(self.sessions[event.option_index].path)

    def action_down(self) -> None:
        self.query_one("#picker", OptionList).action_cursor_down()

    def action_up(self) -> None:
        self.query_one("#picker", OptionList).action_cursor_up()

    def action_quit_picker(self) -> None:
        self.exit(None)
