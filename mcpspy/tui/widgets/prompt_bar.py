"""A one-line prompt under the list: checked as you type, with its own history (up/down).

A bar with a ``history_key`` keeps its history across runs (``HistoryFile``:
only what was typed and entered, in mcpspy's state dir).

The filter, search and go-to bars are each one of these with a ``check``
that turns the text into a value or raises ``ValueError`` with the reason.
What is wrong is said under the box as you type (plain text, never markup),
and enter does nothing until it is right. Enter posts ``Entered`` with the
value and closes the bar; escape closes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

from mcpspy.terminal import visible_line
from mcpspy.tui.history_file import HistoryFile

V = TypeVar("V")
HISTORY = 50  # entries kept per bar


class PromptBar(Vertical, Generic[V]):
    """Hidden until opened; subclasses say what it asks (``check``, ``placeholder``, ``label``)."""

    DEFAULT_CSS = """
    PromptBar { display: none; height: auto; }
    PromptBar > Input { border: tall $accent; }
    PromptBar > Input.-invalid { border: tall $error; }
    PromptBar > .prompt-note { display: none; color: $error; height: auto; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "history(-1)", "Older", show=False),
        Binding("down", "history(1)", "Newer", show=False),
    ]
    placeholder = ""
    history_key: ClassVar[str | None] = None  # the history is kept across runs under this key

    @dataclass
    class Entered(Message):
        """The user entered a valid ``value`` (``text`` as typed): what the bar's ``check`` made of it."""

        bar: PromptBar[Any]
        text: str
        value: Any

        @property
        def control(self) -> PromptBar[Any]:
            return self.bar

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.history: list[str] = []
        self._back = 0  # how far back in the history the box is (0: what is being typed)
        self._typed = ""  # what was typed before going back in the history

    def on_mount(self) -> None:
        if self.history_key is not None:
            self.history = HistoryFile().load(self.history_key)

    def check(self, text: str) -> V:
        """The value ``text`` stands for; raises ValueError saying what is wrong."""
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        yield Input(placeholder=self.placeholder)
        yield Static(classes="prompt-note", markup=False)

    @property
    def input(self) -> Input:
        return self.query_one(Input)

    @property
    def is_open(self) -> bool:
        return bool(self.display)

    def open(self, text: str | None = None) -> None:
        """Show the bar with the focus in its box (at once: keys typed next must land in it)."""
        self.display = True
        if text is not None:
            self.input.value = text
            self.input.cursor_position = len(text)
        self._back = 0
        self.screen.set_focus(self.input)
        self._validate(self.input.value)

    def close(self) -> None:
        self.display = False
        self.say("")

    def say(self, note: str) -> None:
        """A line under the box (what is wrong), or none."""
        widget = self.query_one(".prompt-note", Static)
        widget.update(Content(visible_line(note)))
        widget.display = bool(note)

    @property
    def note(self) -> str:
        """What the line under the box says (what a test reads)."""
        widget = self.query_one(".prompt-note", Static)
        return str(widget.render()) if widget.display else ""

    def _validate(self, text: str) -> V | None:
        try:
            value = self.check(text)
        except ValueError as exc:
            self.say(str(exc))
            self.input.set_class(True, "-invalid")
            return None
        self.say("")
        self.input.set_class(False, "-invalid")
        return value

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self._validate(event.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value
        try:
            value = self.check(text)
        except ValueError:
            return  # said under the box already
        if text.strip():
            if text in self.history:
                self.history.remove(text)
            self.history.append(text)
            del self.history[:-HISTORY]
            if self.history_key is not None:  # merged with what other runs entered meanwhile
                self.history = HistoryFile().add(self.history_key, text)[-HISTORY:] or self.history
        self.close()
        self.post_message(self.Entered(self, text, value))

    def action_history(self, step: int) -> None:
        """Up: an older entry; down: a newer one, and at the end what was being typed."""
        if not self.history:
            return
        if self._back == 0:
            self._typed = self.input.value
        self._back = max(0, min(self._back - step, len(self.history)))
        text = self._typed if self._back == 0 else self.history[-self._back]
        self.input.value = text
        self.input.cursor_position = len(text)
