"""Choosing a session: the list `mcpspy watch` shows, and `s` inside the TUI.

``SessionChooser`` lists sessions newest first, each line saying when it
started, whether it is live, its messages and findings (counted in a thread,
filled in as they come), its name and its server command. ``SessionPicker``
is the app `watch` runs when several sessions are live, or none is and
finished ones exist; waiting, it also opens the first new session that starts.

A session's name and command come from its capture: each prompt is a rich
``Text`` (never markup) with their controls made visible.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from mcpspy.capture.sessions import SessionInfo, read_session
from mcpspy.model.session_counts import SessionCounts, count_session, session_line
from mcpspy.tui.restarts import POLL, captures_in

TITLES = f"{'started':<19}  state  {'messages':>11}  {'findings':<10}  name / command"


def prompt(s: SessionCounts, current: bool = False) -> Text:
    """Started, live or ended, counts and name on one line, the server command under them (plain text)."""
    text = Text(session_line(s, command_below=True))
    if current:
        text.append("  (shown now)", style="bold")
    return text


@dataclass
class Summarized(Message):
    index: int
    summary: SessionCounts


class SessionChooser(Vertical):
    """Sessions, newest first as given; enter posts ``Chosen``. j/k move too."""

    DEFAULT_CSS = """
    SessionChooser { height: 1fr; }
    SessionChooser > #titles { color: $text-muted; text-style: bold; padding: 0 2; }
    SessionChooser > OptionList { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "down", "Down", show=False),
        Binding("k", "up", "Up", show=False),
    ]

    @dataclass
    class Chosen(Message):
        chooser: SessionChooser
        session: SessionInfo

        @property
        def control(self) -> SessionChooser:
            return self.chooser

    def __init__(self, sessions: list[SessionInfo], current: Path | None = None) -> None:
        super().__init__()
        self.sessions = sessions
        self.current = current
        self.summaries = [SessionCounts(s) for s in sessions]

    def compose(self) -> ComposeResult:
        yield Static(TITLES, id="titles", markup=False)
        options = (Option(self._prompt(i), id=str(i)) for i in range(len(self.sessions)))
        yield OptionList(*options, id="picker")

    def _prompt(self, index: int) -> Text:
        return prompt(self.summaries[index], self.sessions[index].path == self.current)

    def on_mount(self) -> None:
        picker = self.query_one(OptionList)
        paths = [s.path for s in self.sessions]
        if self.current in paths:
            picker.highlighted = paths.index(self.current)
        picker.focus()
        self.count_sessions()

    @work(thread=True, exclusive=True)
    def count_sessions(self) -> None:
        worker = get_current_worker()
        for index, session in enumerate(self.sessions):
            if worker.is_cancelled:
                return
            self.post_message(Summarized(index, count_session(session)))

    @on(Summarized)
    def show_counts(self, event: Summarized) -> None:
        self.summaries[event.index] = event.summary
        self.query_one(OptionList).replace_option_prompt_at_index(event.index, self._prompt(event.index))

    @on(OptionList.OptionSelected, "#picker")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Chosen(self, self.sessions[event.option_index]))

    def action_down(self) -> None:
        self.query_one(OptionList).action_cursor_down()

    def action_up(self) -> None:
        self.query_one(OptionList).action_cursor_up()


@dataclass
class Appeared(Message):
    path: Path


class SessionPicker(App[Path | None]):
    """Choose one session; the app's return value is its capture path (None on quit).

    With ``wait_in``, it also watches those directories and returns the first
    session that starts while it is shown (what `watch` would have waited for).
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit_picker", "Quit")]

    def __init__(
        self, sessions: list[SessionInfo], title: str | None = None, wait_in: list[Path] | None = None
    ) -> None:
        super().__init__()
        self.sessions = sessions
        self.title_text = title or f"{len(sessions)} sessions are live: pick one (enter)"
        self.wait_in = wait_in

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, markup=False)
        yield SessionChooser(self.sessions)
        yield Footer()

    def on_mount(self) -> None:
        if self.wait_in is not None:
            self.wait_for_new(self.wait_in)

    @work(thread=True, exclusive=True, group="wait")
    def wait_for_new(self, dirs: list[Path]) -> None:
        worker = get_current_worker()
        known = captures_in(dirs)
        while not worker.is_cancelled:
            for path in sorted(captures_in(dirs) - known):
                if read_session(path) is not None:  # its header is written: open it
                    self.post_message(Appeared(path))
                    return
            time.sleep(POLL)

    @on(Appeared)
    def new_session(self, event: Appeared) -> None:
        self.exit(event.path)

    @on(SessionChooser.Chosen)
    def chosen(self, event: SessionChooser.Chosen) -> None:
        self.exit(event.session.path)

    def action_quit_picker(self) -> None:
        self.exit(None)
