"""`s` in the TUI: every session, live and finished, newest first; enter shows the chosen one.

The directories are listed in a thread (each capture's header is read), then
the sessions are counted one by one, as the `watch` picker does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from mcpspy.capture.sessions import SessionInfo, list_sessions
from mcpspy.terminal import visible_line
from mcpspy.tui.picker import SessionChooser


@dataclass
class Listed(Message):
    sessions: list[SessionInfo]


ALL_LIVE = "all live"  # what the screen is dismissed with for `a`: every live session at once


class SessionsScreen(ModalScreen[SessionInfo | str | None]):
    """Dismissed with the chosen session, ALL_LIVE (`a`), or None (escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,s", "dismiss_none", "Back"),
        Binding("a", "all_live", "All live"),
    ]
    DEFAULT_CSS = """
    SessionsScreen { align: center middle; }
    SessionsScreen > #sessions-box {
        width: 96%; height: 90%; border: round $accent; background: $surface; padding: 0 1;
    }
    SessionsScreen #sessions-title { height: 1; text-style: bold; }
    """

    def __init__(self, dirs: list[Path], current: Path) -> None:
        super().__init__()
        self.dirs = dirs
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-box"):
            yield Static("sessions: reading…", id="sessions-title", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.list_them()

    @work(thread=True, exclusive=True)
    def list_them(self) -> None:
        self.post_message(Listed(list(reversed(list_sessions(self.dirs)))))

    @on(Listed)
    def show_them(self, event: Listed) -> None:
        where = ", ".join(str(d) for d in self.dirs)
        title = (
            f"{len(event.sessions)} sessions in {where}, newest first: enter shows one,"
            " a: all live at once, escape goes back"
        )
        if not event.sessions:
            title = f"no sessions in {where} (escape goes back)"
        self.query_one("#sessions-title", Static).update(Content(visible_line(title)))
        if event.sessions:
            self.query_one("#sessions-box").mount(SessionChooser(event.sessions, current=self.current))

    @on(SessionChooser.Chosen)
    def chosen(self, event: SessionChooser.Chosen) -> None:
        self.dismiss(event.session)

    def action_all_live(self) -> None:
        self.dismiss(ALL_LIVE)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
