"""A Line-API table, toolong-style: it renders only the rows on screen.

The rows live in a list the app owns (100,000 messages cost nothing here);
``render_line`` lays out the visible ones and keeps their Strips in a small
LRU cache. A DataTable measures every cell of every row, which is what made
big captures slow. A row is one line, unless its last column wraps
(``Column.wrap``): then it takes the lines its text needs (row_lines.py), in
its column when that is wide enough, else under the row at the list's width.

Every cell is drawn as plain text (a Segment, never markup) through
``visible_line``: a method name from a capture cannot style, link or retitle.
Matches of ``highlight`` (the search) are drawn reversed in every cell.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mcpspy.terminal import visible_line
from mcpspy.tui.rows import Cell, CellsOf, Column
from mcpspy.tui.widgets.row_lines import BELOW_INDENT, WRAP_BELOW, RowLines, wrap
from mcpspy.tui.widgets.scrolling import scroll_to_line, set_virtual_size

T = TypeVar("T")
CACHE_ROWS = 1000
NARROWEST = 6  # cells a text column keeps when the row must be narrowed to fit
MATCH_STYLE = Style(reverse=True, bold=True)


def narrowed(columns: Sequence[Column], widths: list[int], room: int) -> list[int]:
    """``widths`` taken down to ``room``: a text column loses a cell at a time, to NARROWEST.

    Numbers (right-aligned) and one-cell marks keep their width: cut, a size 137 would read 1,
    and the findings mark would be gone.
    """
    over = sum(widths) - room
    shrinkable = [i for i, c in enumerate(columns) if not c.right and c.width > NARROWEST]
    while over > 0:  # the flexible column (the method) gives way last: it says the most
        wide = [i for i in shrinkable if widths[i] > NARROWEST]
        widest = max(wide, key=lambda i: (not columns[i].flexible, widths[i]), default=None)
        if widest is None:
            break
        widths[widest] -= 1
        over -= 1
    return widths


def elide_middle(text: str, width: int) -> str:
    """``text`` in ``width`` cells, its middle cut: `notif…/progress` (the end says which one)."""
    if len(text) <= width:
        return text
    if width < 5:
        return text[:width]
    keep = width - 1
    tail = text[text.rfind("/") :] if "/" in text else ""
    if not tail or len(tail) > keep - 3:
        tail = text[-(keep // 2) :]
    return text[: keep - len(tail)] + "…" + tail


def elide_method(text: str, width: int) -> str:
    """A method and what it names (`tools/call lookup`); narrow, the family goes first (`call lookup`)."""
    method, _, subject = text.partition(" ")
    if len(text) <= width or "/" not in method:  # fits, or no method: a stderr line is cut at its end
        return text
    if not subject:
        return elide_middle(text, width)
    short = f"{method.rsplit('/', 1)[-1]} {subject}"  # `call lookup`: the name matters more
    if len(short) <= width:
        return short
    room = width - len(subject) - 1
    if room >= NARROWEST:
        return elide_middle(method, room) + " " + subject
    return short[: max(width - 1, 0)] + "…"


def fit(text: str, width: int, right: bool = False) -> str:
    """``text`` in exactly ``width`` cells (one per character: row text is kept single-width)."""
    if len(text) > width:
        return text[: width - 1] + "…" if width > 1 else text[:width]
    return text.rjust(width) if right else text.ljust(width)


class RowList(ScrollView, Generic[T], can_focus=True, inherit_bindings=False):
    """Rows of ``columns`` with a cursor; the first line is the column titles."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"rowlist--header", "rowlist--cursor", "rowlist--even"}
    DEFAULT_CSS = """
    RowList {
        background: $surface;
        overflow-x: hidden;
        &:focus { background-tint: $foreground 5%; }
        & > .rowlist--header { text-style: bold; background: $panel; }
        & > .rowlist--even { background: $surface-lighten-1 50%; }
        & > .rowlist--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
        }
        &:focus > .rowlist--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("home,g", "first", "Top", show=False),
        Binding("end,G", "last", "Bottom", show=False),
        Binding("enter", "select", "Select", show=False),
    ]

    @dataclass
    class Highlighted(Message):
        """The cursor moved to ``index``; ``upward`` when the user moved it up (not to the end)."""

        row_list: RowList[object]
        index: int
        upward: bool

        @property
        def control(self) -> RowList[object]:
            return self.row_list

    @dataclass
    class Selected(Message):
        row_list: RowList[object]
        index: int

        @property
        def control(self) -> RowList[object]:
            return self.row_list

    def __init__(
        self, columns: Sequence[Column], cells: CellsOf, *, id: str | None = None, empty: str = ""
    ) -> None:
        super().__init__(id=id)
        self.cells = cells
        self.empty = empty  # said on the first row when there are no rows
        self.rows: Sequence[T] = []
        self.cursor = 0
        self.highlight: re.Pattern[str] | None = None
        self._cache: LRUCache[tuple[int, bool], list[Strip]] = LRUCache(CACHE_ROWS)
        self._widths: tuple[int, ...] = ()
        self._laid_out_for = -1  # the content width the widths and cached Strips are for
        self._styles: dict[str, Style] = {}  # resolving a component style walks the DOM: do it once
        self._below = False  # the wrapping column is drawn under its row
        self._lines: RowLines[int] = RowLines(self._height_of_row)
        self.set_columns(columns)

    def set_columns(self, columns: Sequence[Column]) -> None:
        """Lay the rows out in ``columns`` from now on (the time column changes with its display)."""
        self.columns = tuple(columns)
        self.wraps = bool(self.columns) and self.columns[-1].wrap
        self._laid_out_for = -1
        self.refresh()

    def set_highlight(self, pattern: re.Pattern[str] | None) -> None:
        """Draw what ``pattern`` matches reversed in every cell (None: nothing)."""
        self.highlight = pattern
        self._cache.clear()
        self.refresh()

    # --- the rows

    def cells_of(self, index: int) -> tuple[Cell, ...]:
        """The cells of row ``index`` (a subclass may look at the rows around it)."""
        return self.cells(self.rows[index])

    def set_rows(self, rows: Sequence[T], cursor: int | None = None) -> None:
        """Show ``rows`` (kept by reference: append to it, then call ``rows_added``)."""
        self.rows = rows
        self._cache.clear()
        self._lines.reset()
        self._grow()
        self.move_to(min(self.cursor, len(rows) - 1) if cursor is None else cursor, upward=False)
        self.refresh()

    def rows_added(self) -> None:
        """Rows were appended to the list given to ``set_rows``."""
        self._grow()
        self.refresh()

    def refresh_row(self, index: int) -> None:
        """A row's content changed (a latency, a finding)."""
        self.refresh_rows((index,))

    def refresh_rows(self, indices: Iterable[int]) -> None:
        """Rows whose content changed: forget their Strips, and redraw if one is on screen."""
        top = round(self.scroll_y)
        bottom = top + self.page
        visible = False
        for index in indices:
            self._cache.discard((index, True))
            self._cache.discard((index, False))
            visible = visible or top <= self.top_of(index) < bottom
        if visible:
            self.refresh()

    def forget_rows(self) -> None:
        """Many rows changed: forget every Strip (cheaper than finding each), redraw what is shown."""
        self._cache.clear()
        self.refresh()

    def _grow(self) -> None:
        set_virtual_size(self, Size(self.size.width, self.line_count + 1))

    @property
    def _wrapping(self) -> bool:
        """Rows take the lines their wrapped text needs: a column wraps, and there is a width to wrap
        it at (a hidden tab has none: its rows are measured once it is shown, not at every batch)."""
        if not self.wraps:
            return False
        self.widths()
        return self._laid_out_for > 0

    @property
    def line_count(self) -> int:
        """Screen lines the rows take (one a row unless a column wraps)."""
        if not self._wrapping:
            return len(self.rows)
        self._lines.extend(range(len(self.rows)))
        return self._lines.total

    def top_of(self, index: int) -> int:
        """The first screen line of row ``index`` (under the column titles)."""
        if index >= len(self.rows) or not self._wrapping:
            return index
        self.line_count  # noqa: B018 - counts the rows not counted yet
        return self._lines.top(index)

    def _row_at(self, line: int) -> tuple[int, int]:
        if not self._wrapping:
            return line, 0
        return self._lines.row_at(line)

    def _height_of_row(self, index: int) -> int:
        return len(self._wrapped(self.cells_of(index)[-1][0]))

    def _wrapped(self, text: str) -> list[str]:
        width = self._widths[-1] if not self._below else max(self._laid_out_for - BELOW_INDENT, 10)
        lines = wrap(visible_line(text), max(width, 1))
        return ["", *lines] if self._below else lines

    @property
    def current(self) -> T | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    @property
    def page(self) -> int:
        return max(self.scrollable_content_region.height - 1, 1)

    def row_text(self, index: int) -> str:
        """The row as it is drawn, as plain text, its lines joined by newlines (what a test reads)."""
        return "\n".join(strip.text for strip in self._row_strips(index, False))

    # --- the cursor

    def move_to(self, index: int, upward: bool = False) -> None:
        """Put the cursor on ``index`` (clamped), scroll it into view, and say so."""
        index = max(0, min(index, len(self.rows) - 1))
        old, self.cursor = self.cursor, index
        for row in {old, index}:
            self.refresh_row(row)
        if self.rows:
            first = self.top_of(index)
            last = first + (self._lines.height_of(index) if self._wrapping else 1) - 1
            top = round(self.scroll_y)
            if first < top:
                scroll_to_line(self, first)
            elif last >= top + self.page:
                scroll_to_line(self, min(first, last - self.page + 1))
            self.post_message(self.Highlighted(self, index, upward))  # type: ignore[arg-type]

    def _page_from(self, step: int) -> int:
        """The row a page up (-1) or down (+1) from the cursor."""
        if not self._wrapping:
            return self.cursor + step * self.page
        line = max(0, min(self.top_of(self.cursor) + step * self.page, self.line_count - 1))
        return self._row_at(line)[0]

    def action_cursor_down(self) -> None:
        self.move_to(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self.move_to(self.cursor - 1, upward=True)

    def action_page_down(self) -> None:
        self.move_to(self._page_from(1))

    def action_page_up(self) -> None:
        self.move_to(self._page_from(-1), upward=True)

    def action_first(self) -> None:
        self.move_to(0, upward=True)

    def action_last(self) -> None:
        self.move_to(len(self.rows) - 1)

    def action_select(self) -> None:
        if self.rows:
            self.post_message(self.Selected(self, self.cursor))  # type: ignore[arg-type]

    def on_click(self, event: events.Click) -> None:
        line = round(self.scroll_y) + event.y - 1
        if event.y >= 1 and 0 <= line < self.line_count:
            index = self._row_at(line)[0]
            if index == self.cursor:
                self.action_select()
            else:
                self.move_to(index, upward=index < self.cursor)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        """Scrolling up means reading history: say so, as moving up does, so following stops."""
        if self.rows:
            self.post_message(self.Highlighted(self, self.cursor, True))  # type: ignore[arg-type]

    # --- drawing

    def on_resize(self, event: events.Resize) -> None:
        self._grow()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._cache.clear()

    def on_focus(self) -> None:
        self._styles.clear()
        self.refresh_row(self.cursor)

    def on_blur(self) -> None:
        self._styles.clear()
        self.refresh_row(self.cursor)

    def style_of(self, component: str = "") -> Style:
        """The Rich style of a component class ("" for the widget's own), cached until styles change."""
        style = self._styles.get(component)
        if style is None:
            style = self.get_component_rich_style(component) if component else self.rich_style
            self._styles[component] = style
        return style

    def widths(self) -> tuple[int, ...]:
        """Column widths for the current width: fixed ones as given, the flexible one gets the rest."""
        width = self.scrollable_content_region.width
        if width != self._laid_out_for:  # resized, or the scrollbar came or went
            self._laid_out_for = width
            self._cache.clear()
            self._lines.reset()
            room = width - (len(self.columns) - 1)
            fixed = sum(c.width for c in self.columns if not c.flexible)
            flexible = max(room - fixed, 0)
            self._below = self.wraps and flexible < WRAP_BELOW  # the wrapping column goes under the row
            widths = [max(c.width, flexible) if c.flexible else c.width for c in self.columns]
            self._widths = tuple(widths if self.wraps else narrowed(self.columns, widths, room))
        return self._widths

    def _cell_segments(self, text: str, width: int, right: bool, style: Style) -> list[Segment]:
        shown = fit(visible_line(text), width, right)
        pattern = self.highlight
        if pattern is None:
            return [Segment(shown, style)]
        out: list[Segment] = []
        at = 0
        for match in pattern.finditer(shown):
            if match.end() > match.start():
                out += [
                    Segment(shown[at : match.start()], style),
                    Segment(match.group(), style + MATCH_STYLE),
                ]
                at = match.end()
        out.append(Segment(shown[at:], style))
        return out

    def _segments(self, cells: Sequence[Cell], base: Style, widths: Sequence[int]) -> list[Segment]:
        segments: list[Segment] = []
        for i, (column, width, (text, style)) in enumerate(zip(self.columns, widths, cells, strict=False)):
            if i:
                segments.append(Segment(" ", base))
            cell_style = base + Style.parse(style) if style else base
            if column.middle:
                text = elide_method(visible_line(text), width)
            segments += self._cell_segments(text, width, column.right, cell_style)
        return segments

    def _row_strips(self, index: int, under_cursor: bool) -> list[Strip]:
        key = (index, under_cursor)
        strips = self._cache.get(key)
        if strips is None:
            base = self.style_of("rowlist--cursor" if under_cursor else "rowlist--even" if index % 2 else "")
            cells = self.cells_of(index)
            widths = self.widths()
            if not self.wraps:
                strips = [Strip(self._segments(cells, base, widths))]
            else:
                strips = self._wrapped_strips(cells, base, widths)
            self._cache[key] = strips
        return strips

    def _wrapped_strips(self, cells: Sequence[Cell], base: Style, widths: Sequence[int]) -> list[Strip]:
        """A row whose last column wraps: in its column, or under the other cells when too narrow."""
        text, style = cells[-1]
        lines = self._wrapped(text)
        cell_style = base + Style.parse(style) if style else base
        if self._below:
            first = Strip(self._segments(cells[:-1], base, widths))
            indent = Segment(" " * BELOW_INDENT, base)
            width = self._laid_out_for - BELOW_INDENT
            below = [
                Strip([indent, *self._cell_segments(line, width, False, cell_style)]) for line in lines[1:]
            ]
            return [first, *below]
        first = Strip(self._segments([*cells[:-1], (lines[0], style)], base, widths))
        lead = Segment(" " * (sum(widths[:-1]) + len(widths) - 1), base)
        more = [
            Strip([lead, *self._cell_segments(line, widths[-1], False, cell_style)]) for line in lines[1:]
        ]
        return [first, *more]

    def render_line(self, y: int) -> Strip:
        widths = self.widths()
        width = self._laid_out_for
        if y == 0:
            header = self.style_of("rowlist--header")
            titles = [(c.title, "") for c in self.columns]
            if self._below:
                titles, widths = titles[:-1], widths[:-1]
            return Strip(self._segments(titles, header, widths)).crop_extend(0, width, header)
        line = round(self.scroll_y) + y - 1
        if line >= self.line_count:
            if line == 0 and self.empty:
                return Strip([Segment(fit(self.empty, width), self.style_of() + Style(dim=True))])
            return Strip.blank(width, self.style_of())
        index, part = self._row_at(line)
        under_cursor = index == self.cursor
        base = self.style_of("rowlist--cursor" if under_cursor else "")
        return self._row_strips(index, under_cursor)[part].crop_extend(0, width, base)
