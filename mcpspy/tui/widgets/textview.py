"""Text, however big, in a scrollable view drawn line by line.

``TextView`` wraps the text to its width and renders only the visible lines
(highlighted one at a time), so a 10 MiB message opens and scrolls without
freezing the UI. What it is given is plain text or rich ``Text``, never
markup, and controls in it are shown as escapes (``mcpspy.terminal``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import ClassVar

from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mcpspy.terminal import visible_line
from mcpspy.tui.widgets.scrolling import scroll_to_line, set_virtual_size

_JSON = JSONHighlighter()


class TextView(ScrollView, can_focus=True, inherit_bindings=False):
    """Text wrapped at the view's width; only the visible lines are ever styled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "scroll_down", "Down", show=False),
        Binding("up,k", "scroll_up", "Up", show=False),
        Binding("pagedown,space", "page_down", "Page down", show=False),
        Binding("pageup,b", "page_up", "Page up", show=False),
        Binding("home,g", "scroll_home", "Top", show=False),
        Binding("end,G", "scroll_end", "Bottom", show=False),
    ]
    DEFAULT_CSS = """
    TextView {
        overflow-x: hidden;
        scrollbar-gutter: stable;  /* the wrap width does not change when the scrollbar comes */
        &:focus { background-tint: $foreground 5%; }
    }
    """

    def __init__(self, text: str = "", json: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.json = json  # highlight plain lines as JSON
        self._lines: Sequence[str | Text] = [visible_line(line) for line in text.split("\n")]
        self._wrapped: list[tuple[int, int]] = []  # per screen line: (line, start column, or piece)
        self._pieces: dict[int, list[Text]] = {}  # styled lines wrapped at word boundaries
        self._wrap_width = 0
        self._cache: LRUCache[int, Strip] = LRUCache(500)
        self.highlight: re.Pattern[str] | None = None  # the search: its matches are drawn reversed
        self.marked: int | None = None  # a line (of those given) drawn reversed: a cursor on it

    def set_text(self, text: str, json: bool = False) -> None:
        """Show ``text`` line by line, every control in it (tabs too) shown as an escape."""
        self._show([visible_line(line) for line in text.split("\n")], json)

    def set_lines(self, lines: Sequence[str | Text], json: bool = False) -> None:
        """Show ``lines``: plain strings (highlighted as JSON when ``json``) or styled Texts.

        They are expected safe already (built with ``visible_line``); a styled line that is not
        loses its styles rather than let a control through.
        """
        self._show([safe_line(line) for line in lines], json)

    def _show(self, lines: Sequence[str | Text], json: bool) -> None:
        self.json = json
        self._lines = lines
        self.marked = None
        self._wrap_width = 0
        self.scroll_to(0, 0, animate=False)
        self._rewrap()
        self.refresh()

    def set_highlight(self, pattern: re.Pattern[str] | None) -> None:
        """Draw what ``pattern`` matches reversed (None: nothing)."""
        self.highlight = pattern
        self._cache.clear()
        self.refresh()

    def first_match(self) -> int | None:
        """The first screen line with a match of ``highlight`` in it (None: none, or no highlight)."""
        if self.highlight is None:
            return None
        search = self.highlight.search
        return next((y for y in range(len(self._wrapped)) if search(self.line_text(y))), None)

    def scroll_to_match(self) -> None:
        """Bring the first match into view, a few lines below the top, when it is not in view."""
        line = self.first_match()
        height = self.scrollable_content_region.height
        if line is not None and not round(self.scroll_y) <= line < round(self.scroll_y) + height:
            scroll_to_line(self, max(line - 2, 0))

    @property
    def line_count(self) -> int:
        return len(self._wrapped)

    @property
    def given_count(self) -> int:
        """How many lines the view was given (before wrapping)."""
        return len(self._lines)

    def mark_line(self, number: int | None) -> None:
        """Draw given line ``number`` reversed and bring it into view (None: no line)."""
        self.marked = number
        self._cache.clear()
        self.refresh()
        if number is None or not self._wrapped:
            return
        y = bisect.bisect_left(self._wrapped, (number, -1))
        height = self.scrollable_content_region.height
        if not round(self.scroll_y) <= y < round(self.scroll_y) + height:
            scroll_to_line(self, max(y - height // 2, 0))

    def _rewrap(self) -> None:
        width = max(self.scrollable_content_region.width, 10)
        if width == self._wrap_width:
            return
        self._wrap_width = width
        wrapped: list[tuple[int, int]] = []
        add = wrapped.append
        self._pieces = {}
        for number, line in enumerate(self._lines):
            if len(line) <= width:
                add((number, 0))
            elif isinstance(line, Text) and not line.no_wrap:  # prose and pretty JSON: between words
                pieces = self._pieces[number] = list(line.wrap(self.app.console, width, overflow="fold"))
                wrapped.extend((number, piece) for piece in range(len(pieces)))
            else:  # a raw line (or a Text marked no_wrap), maybe megabytes long: cut at the width
                wrapped.extend((number, start) for start in range(0, len(line), width))
        self._wrapped = wrapped
        self._cache.clear()
        set_virtual_size(self, Size(width, len(wrapped)))

    def on_resize(self, event: events.Resize) -> None:
        self._rewrap()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def line_text(self, y: int) -> str:
        """Screen line ``y`` as plain text."""
        line = self._line(y)
        return line if isinstance(line, str) else line.plain

    def _line(self, y: int) -> str | Text:
        number, start = self._wrapped[y]
        if number in self._pieces:
            return self._pieces[number][start]
        line = self._lines[number]
        if start == 0 and len(line) <= self._wrap_width:
            return line
        return line[start : start + self._wrap_width]

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_y) + y
        width = self.scrollable_content_region.width
        if index >= len(self._wrapped):
            return Strip.blank(width, self.rich_style)
        strip = self._cache.get(index)
        base = self.rich_style
        if strip is None:
            line = self._line(index)
            if isinstance(line, str):
                line = Text(line, no_wrap=True)
                if self.json:
                    _JSON.highlight(line)
            if self.highlight is not None and self.highlight.search(line.plain):
                line = line.copy()
                line.highlight_regex(self.highlight, style="reverse bold")
            if self.marked is not None and self._wrapped[index][0] == self.marked:
                line = line.copy()
                line.stylize("reverse")
            strip = Strip(line.render(self.app.console)).apply_style(base)
            self._cache[index] = strip
        return strip.crop_extend(0, width, base)


def safe_line(line: str | Text) -> str | Text:
    """``line`` with no control character left in it (a no-op for a line built safe)."""
    text = line if isinstance(line, str) else line.plain
    shown = visible_line(text)
    if shown == text:
        return line
    return shown if isinstance(line, str) else Text(shown, style=line.style, no_wrap=line.no_wrap)
