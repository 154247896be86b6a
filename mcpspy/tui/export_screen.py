"""The `e` dialog: what to export (the filtered view, or the selected exchange), in which format, where.

The path box has the focus, so `e` then enter writes the view as text into the
current directory; enter writes from any field (on a choice, it takes the
highlighted option first). Changing the scope or the format changes the
suggested name, until the name is edited. An existing file is replaced only
on a second enter. The chosen option is marked ●, the others blank: it shows
without colour. Every format is in sight at 80 columns (two rows of four).
Dismissed with an ``ExportRequest``, or None (escape).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, RadioButton, RadioSet, Static

from mcpspy.terminal import visible_line
from mcpspy.tui.export import ExportRequest, default_path, formats


class Choice(RadioButton):
    """A radio button whose state shows without colour: ● when chosen, blank when not."""

    def render(self) -> Content:
        self.BUTTON_INNER = "●" if self.value else " "
        return super().render()


class ExportScreen(ModalScreen[ExportRequest | None]):
    """Scope, format and path; enter in the path box exports."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss_none", "Cancel"),
        Binding("enter", "write", "Write", priority=True),  # from any field, not only the path box
    ]
    DEFAULT_CSS = """
    ExportScreen { align: center middle; }
    ExportScreen > #export-box {
        width: 90%; max-width: 110; height: auto; border: round $accent; background: $surface; padding: 0 1;
    }
    ExportScreen .export-row { height: auto; margin-top: 1; }
    ExportScreen .export-label { width: 8; }
    ExportScreen RadioSet { width: 1fr; height: auto; border: none; padding: 0; }
    ExportScreen RadioSet:focus { background-tint: $foreground 10%; }
    ExportScreen #export-format { layout: grid; grid-size: 4; grid-rows: 1; grid-columns: 14; height: auto; }
    ExportScreen #export-format > RadioButton { width: auto; }
    ExportScreen Input { width: 1fr; }
    ExportScreen #export-note { height: auto; color: $warning; }
    """

    def __init__(self, capture: Path, view_text: str, exchange_text: str | None, directory: Path) -> None:
        super().__init__()
        self.capture = capture
        self.view_text = view_text  # "the filtered view: 42 messages"
        self.exchange_text = exchange_text  # None: no exchange under the cursor
        self.directory = directory
        self._suggested = ""
        self._confirm: Path | None = None  # an existing file the user was warned about
        self._write_when_changed = False  # enter on a choice: write once the choice is in

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static("export (enter writes, tab moves, escape cancels)", markup=False)
            with Horizontal(classes="export-row"):
                yield Label("what", classes="export-label")
                with RadioSet(id="export-scope"):
                    yield Choice(Content(visible_line(self.view_text)), value=True, id="scope-view")
                    if self.exchange_text is not None:
                        yield Choice(Content(visible_line(self.exchange_text)), id="scope-exchange")
            with Horizontal(classes="export-row"):
                yield Label("format", classes="export-label")
                with RadioSet(id="export-format"):
                    for i, fmt in enumerate(formats()):
                        yield Choice(fmt, value=i == 0, id=f"format-{fmt}")
            with Horizontal(classes="export-row"):
                yield Label("file", classes="export-label export-file")
                yield Input(id="export-path")
            yield Static(id="export-note", markup=False)

    def on_mount(self) -> None:
        self._suggest()
        self.query_one("#export-path", Input).focus()

    @property
    def scope(self) -> str:
        pressed = self.query_one("#export-scope", RadioSet).pressed_button
        return "exchange" if pressed is not None and pressed.id == "scope-exchange" else "view"

    @property
    def fmt(self) -> str:
        pressed = self.query_one("#export-format", RadioSet).pressed_button
        return pressed.id.removeprefix("format-") if pressed is not None and pressed.id else formats()[0]

    def _suggest(self) -> None:
        """Suggest a file name for the scope and format, unless the user has typed their own."""
        box = self.query_one("#export-path", Input)
        if box.value and box.value != self._suggested:
            return
        path = default_path(self.capture, self.scope, self.fmt, self.directory)
        self._suggested = box.value = path.name  # in the directory the TUI was started from
        box.cursor_position = len(box.value)

    @on(RadioSet.Changed)
    def _changed(self, event: RadioSet.Changed) -> None:
        self._suggest()
        if self._write_when_changed:
            self._write_when_changed = False
            self.write()

    def action_write(self) -> None:
        """Enter: on a choice, take the highlighted option (then write once it is in); else write."""
        focused = self.focused
        highlighted = (
            focused.query(".-selected").first(RadioButton) if isinstance(focused, RadioSet) else None
        )
        if highlighted is not None and not highlighted.value:
            self._write_when_changed = True  # once the set has taken it (RadioSet.Changed)
            highlighted.value = True
        else:
            self.write()

    def write(self) -> None:
        text = self.query_one("#export-path", Input).value.strip()
        if not text:
            self._say("say where to write it")
            return
        dest = Path(text).expanduser()
        if not dest.is_absolute():
            dest = self.directory / dest
        if not dest.parent.is_dir():
            self._say(f"no such directory: {dest.parent}")
            return
        overwrite = os.path.lexists(dest)
        if overwrite and self._confirm != dest:
            self._confirm = dest
            self._say(f"{dest} exists: enter again to replace it")
            return
        self.dismiss(ExportRequest(self.fmt, self.scope, dest, overwrite))

    def _say(self, note: str) -> None:
        self.query_one("#export-note", Static).update(Content(visible_line(note)))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
