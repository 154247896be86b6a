"""``set_virtual_size`` leaves a growing list's scrollbar exactly as Textual's own layout does.

It moves the thumb itself (public API) instead of laying the screen out; if
Textual ever sizes a scrollbar differently, the two lists below disagree.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Size

from mcpspy.tui.rows import Cell, Column
from mcpspy.tui.widgets import scrolling
from mcpspy.tui.widgets.rowlist import RowList

COLUMNS = (Column("n", 6, flexible=True),)


def cells(n: int) -> tuple[Cell, ...]:
    return ((str(n), ""),)


class TwoLists(App[None]):
    CSS = "RowList { width: 1fr; height: 12; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield RowList[int](COLUMNS, cells, id="ours")
            yield RowList[int](COLUMNS, cells, id="textuals")


def scrollbar(view: RowList[int]) -> tuple[object, ...]:
    bar = view.vertical_scrollbar
    return (bar.window_virtual_size, bar.window_size, bar.position, view.scroll_y, view.max_scroll_y)


@pytest.mark.parametrize(
    ("before", "after", "cursor"),
    [(50, 500, 0), (50, 500, 20), (500, 100, 499)],
    ids=["grow", "grow-scrolled", "shrink-from-the-end"],
)
async def test_moving_the_thumb_matches_a_full_layout(
    monkeypatch: pytest.MonkeyPatch, before: int, after: int, cursor: int
) -> None:
    moved = []
    move_thumb = scrolling.move_thumb
    monkeypatch.setattr(
        scrolling, "move_thumb", lambda view, height: (moved.append(height), move_thumb(view, height))
    )
    app = TwoLists()
    async with app.run_test(size=(80, 20)) as pilot:
        ours, textuals = app.query_one("#ours", RowList), app.query_one("#textuals", RowList)
        for view in (ours, textuals):
            view.set_rows(list(range(before)), cursor=cursor)
        await pilot.pause()
        assert ours.show_vertical_scrollbar and scrollbar(ours) == scrollbar(textuals)
        size = Size(ours.virtual_size.width, after + 1)
        scrolling.set_virtual_size(ours, size)  # keeps its scrollbar: only the thumb is moved
        await pilot.pause()
        moved_thumb = scrollbar(ours)  # before the layout below sets every scrollbar right anyway
        textuals.virtual_size = size
        await pilot.pause()
        assert moved == [after + 1]
        assert moved_thumb == scrollbar(textuals)


async def test_a_scrollbar_that_appears_with_the_cursor_at_the_end_shows_where_the_view_is() -> None:
    """Rows that outgrow the list with the cursor moved to the last (following): the thumb at the bottom.

    The view scrolls before the layout that shows its scrollbar; Textual moves a thumb only while it is
    shown, so the bar appeared at the top of a list scrolled to its end (seen under load in a snapshot).
    """
    app = TwoLists()
    async with app.run_test(size=(80, 20)) as pilot:
        ours = app.query_one("#ours", RowList)
        ours.set_rows(list(range(5)))
        await pilot.pause()
        assert not ours.show_vertical_scrollbar
        ours.set_rows(list(range(50)), cursor=49)
        await pilot.pause()
        assert ours.show_vertical_scrollbar and ours.scroll_y == ours.max_scroll_y > 0
        assert ours.vertical_scrollbar.position == ours.scroll_y
