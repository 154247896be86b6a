"""The session picker `mcpspy watch` shows when several sessions are live."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from mcpspy.capture.sessions import SessionInfo


def describe(s: SessionInfo) -> str:
    """One line per session: when, state, name, command."""
    state = "live " if s.live else "ended"
    started = s.header.started[:19].replace("T", " ")
    return f"{started}  {state}  {s.header.name:<20} {' '.join(s.header.command)}"


class SessionPicker(App[Path | None]):
    """Choose one session; the app's return value is its capture path (None on quit)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit_picker", "Quit"),
        Binding("j", "down", "Down", show=False),
        Binding("k", "up", "Up", show=False),
    ]

    def __init__(self, sessions: list[SessionInfo]) -> None:
        super().__init__()
        self.sessions = sessions

    def compose(self) -> ComposeResult:
        yield Static(f"{len(self.sessions)} sessions are live: pick one (enter)")
        yield OptionList(*(Option(describe(s), id=str(i)) for i, s in enumerate(self.sessions)), id="picker")
        yield Footer()

    @on(OptionList.OptionSelected, "#picker")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.exit(self.sessions[event.option_index].path)

    def action_down(self) -> None:
        self.query_one("#picker", OptionList).action_cursor_down()

    def action_up(self) -> None:
        self.query_one("#picker", OptionList).action_cursor_up()

    def action_quit_picker(self) -> None:
        self.exit(None)
