"""The filter bar: `/` opens it, enter applies the filter it holds, a mistake is said under it.

It parses what was typed itself and posts ``Applied`` with the compiled filter
(None for an empty one); an invalid filter leaves the list as it was. The
error is shown as plain text: what was typed is never read as markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

from mcpspy.filters import Filter, FilterError, parse_filter
from mcpspy.terminal import visible_line

PLACEHOLDER = "method:tools/* dir:s2c -kind:notification latency:>500ms"


class FilterBar(Vertical):
    """Hidden until opened; closes itself once a valid filter is applied."""

    DEFAULT_CSS = """
    FilterBar { display: none; height: auto; }
    FilterBar > #filter-error { display: none; color: $error; height: 1; }
    """

    @dataclass
    class Applied(Message):
        """A valid filter was entered: show what it passes (everything for None)."""

        bar: FilterBar
        filter: Filter | None

        @property
        def control(self) -> FilterBar:
            return self.bar

    def compose(self) -> ComposeResult:
        yield Input(placeholder=PLACEHOLDER, id="filter")
        yield Static(id="filter-error", markup=False)

    @property
    def input(self) -> Input:
        return self.query_one(Input)

    def open(self) -> None:
        self.display = True
        self.input.focus()

    def close(self) -> None:
        self.display = False
        self._say("")

    def _say(self, error: str) -> None:
        note = self.query_one("#filter-error", Static)
        note.update(Content(visible_line(error)))
        note.display = bool(error)

    @on(Input.Submitted, "#filter")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            new_filter = parse_filter(event.value) if event.value.strip() else None
        except FilterError as exc:
            self._say(f"invalid filter: {exc}")
            return
        self.close()  # the header says which filter is on
        self.post_message(self.Applied(self, new_filter))
