"""Growing a Line-API view without laying the whole screen out again, through public API only.

Setting ``ScrollView.virtual_size`` lays out the whole screen (~50 ms here),
once per batch of new rows. Most of the time nothing on screen moves but the
scrollbar's thumb, and that is what ``set_virtual_size`` updates instead.
tests/tui/test_scrolling.py checks that it leaves the scrollbar exactly as a
full layout would: if Textual changes how it sizes a scrollbar, that test fails.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Set ``view.virtual_size``, laying the screen out again only when that can change something.

    A hidden view is laid out when it is shown; a view that has its scrollbar and keeps it only
    needs the thumb moved; one that needs no scrollbar before or after, only a repaint.
    """
    if size == view.virtual_size:
        return
    hidden = not view.size
    same_width = size.width == view.virtual_size.width
    height = view.scrollable_content_region.height
    keeps_scrollbar = same_width and view.show_vertical_scrollbar and size.height > height
    needs_none = same_width and not view.show_vertical_scrollbar and size.height <= height
    if needs_none:
        view.set_reactive(ScrollView.virtual_size, size)
        view.refresh()
    elif keeps_scrollbar:
        view.set_reactive(ScrollView.virtual_size, size)
        move_thumb(view, size.height)
        view.refresh()
    elif hidden:
        view.set_reactive(ScrollView.virtual_size, size)
    else:
        view.virtual_size = size


def move_thumb(view: ScrollView, virtual_height: int) -> None:
    """Resize a shown vertical scrollbar's thumb for ``virtual_height`` lines, as a layout would."""
    if view.styles.scrollbar_size_vertical:
        bar = view.vertical_scrollbar
        bar.window_virtual_size = virtual_height
        bar.window_size = view.container_size.height - view.scrollbar_size_horizontal
        bar.refresh()
    view.scroll_y = view.validate_scroll_y(view.scroll_y)


def scroll_to_line(view: ScrollView, y: int) -> None:
    """Scroll ``view`` to line ``y`` now, its scrollbar's thumb with it.

    Textual moves a thumb only while its scrollbar is shown; a view that grew
    and scrolled before the layout that shows its scrollbar would otherwise
    show the thumb where the view was, not where it is.
    """
    view.scroll_to(y=y, animate=False, force=True)
    view.vertical_scrollbar.position = view.scroll_y
