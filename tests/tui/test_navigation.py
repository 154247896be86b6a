"""Moving around the inspector: big lists, following, panes and tabs, a 10 MiB message, the layout."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from textual.widgets import Tab, TabbedContent

from mcpspy.capture.format import encode_header, encode_line
from mcpspy.capture.records import Header, Stream
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.whole_message import WholeMessage
from mcpspy.tui.widgets.rowlist import RowList
from mcpspy.tui.widgets.textview import TextView
from tests.conftest import FIXTURES
from tests.tui.test_app import detail_of, header_of, wait_rows

HEADER = Header("1.0", "s", "2026-12-03T00:00:00.000Z", ("python", "srv.py"), "srv", "/", "0.1.0", 1)


def write_capture(path: Path, lines: list[tuple[Stream, bytes]]) -> Path:
    out = [encode_header(HEADER)]
    out += [encode_line(seq, seq / 1000, stream, data, True) for seq, (stream, data) in enumerate(lines, 1)]
    path.write_bytes(b"".join(out))
    return path


def calls(n: int) -> list[tuple[Stream, bytes]]:
    lines = []
    for i in range(1, n + 1):
        lines.append((Stream.C2S, orjson.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call"})))
        lines.append((Stream.S2C, orjson.dumps({"jsonrpc": "2.0", "id": i, "result": {"n": i}})))
    return lines


async def wait_loaded(app: InspectorApp, pilot: object) -> None:
    for _ in range(400):
        if app.loaded:
            return
        await pilot.pause(0.05)  # type: ignore[attr-defined]
    raise AssertionError("the capture never finished loading")


def visible_rows(table: RowList[object]) -> list[str]:
    """The rows on screen as drawn, below the column titles."""
    return [table.render_line(y).text for y in range(1, table.scrollable_content_region.height)]


async def test_a_big_list_draws_only_what_is_on_screen_and_pages(tmp_path: Path) -> None:
    path = write_capture(tmp_path / "big.jsonl", calls(5000))
    app = InspectorApp(path, live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        table = app.message_list
        assert len(table.rows) == 10_000 and table.cursor == 9999
        assert "response" in visible_rows(table)[-1] and "5000" in visible_rows(table)[-1]
        await pilot.press("g")
        assert table.cursor == 0 and visible_rows(table)[0].split()[4] == "1"
        await pilot.press("pagedown", "pagedown", "j")
        assert table.cursor == 2 * table.page + 1
        assert table.row_text(table.cursor) in visible_rows(table), (
            table.row_text(table.cursor),
            visible_rows(table),
        )
        await pilot.press("pageup")
        assert table.cursor == table.page + 1
        assert len(table._cache) <= 200  # a few screenfuls, never the whole list


async def test_following_stops_when_moving_up_and_resumes_at_the_end(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    shutil.copy(FIXTURES / "lesson-out-of-order.jsonl", path)
    app = InspectorApp(path, live=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_rows(app, pilot, 4)
        await pilot.press("k")
        assert "paused" in header_of(app)
        with path.open("ab") as f:
            f.write(encode_line(5, 0.5, Stream.ERR, b"still here", True))
        await wait_rows(app, pilot, 5)
        assert app.message_list.cursor == 2  # paused: the cursor stays where the user put it
        await pilot.press("G")
        assert "following" in header_of(app) and app.message_list.cursor == 4
        await pilot.press("k", "f")
        assert "following" in header_of(app) and app.message_list.cursor == 4


async def test_a_10_mib_message_is_cut_in_the_detail_and_whole_with_v(tmp_path: Path) -> None:
    blob = "x" * (10 * 1024 * 1024)
    reply = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"blob": blob, "end": "THE-END"}})
    request = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read"})
    path = write_capture(tmp_path / "huge.jsonl", [(Stream.C2S, request), (Stream.S2C, reply)])
    app = InspectorApp(path, live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.pause(0.1)
        assert "v: whole message" in detail_of(app) and "v shows it all" in detail_of(app)
        assert "THE-END" not in detail_of(app)
        await pilot.press("v")
        await pilot.pause(0.1)
        assert isinstance(app.screen, WholeMessage)
        view = app.screen.query_one(TextView)
        assert view.line_count > len(blob) // 100  # the blob, wrapped at the view's width
        await pilot.press("G")
        await pilot.pause(0.1)
        drawn = [view.render_line(y).text for y in range(view.scrollable_content_region.height)]
        assert any("THE-END" in line for line in drawn)
        await pilot.press("escape")
        assert not isinstance(app.screen, WholeMessage)


async def test_tab_moves_between_panes_and_keys_switch_side_tabs() -> None:
    app = InspectorApp(FIXTURES / "meta-not-rejected.jsonl", live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        side = app.query_one("#side", TabbedContent)
        assert app.focused is app.message_list
        await pilot.press("tab")
        assert app.focused is app.query_one("#detail")
        await pilot.press("tab")
        assert app.focused is app.message_list
        await pilot.press("2")
        assert side.active == "tab-findings"
        await pilot.press("]", "]")
        assert side.active == "tab-stderr"
        await pilot.press("[", "[", "tab")
        findings = app.query_one("#findings", RowList)
        assert app.focused is findings and findings.rows
        await pilot.press("enter")  # jump to the line the finding is about
        assert side.active == "tab-detail"
        assert app.message_list.current is not None
        assert app.message_list.current.seq == findings.rows[0].seq  # type: ignore[attr-defined]


@pytest.mark.parametrize("width", [80, 110, 120, 160])
async def test_every_column_and_tab_fits(width: int) -> None:
    app = InspectorApp(FIXTURES / "lesson-out-of-order.jsonl", live=False)
    async with app.run_test(size=(width, 24)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.pause(0.1)
        titles = app.message_list.render_line(0).text.split()
        assert titles == ["time", "dir", "kind", "id", "method", "latency", "size", "!"]
        assert app.message_list.region.right <= width
        for tab in app.query(Tab):
            assert tab.region.right <= width, tab.label
        assert "ended" in header_of(app) and len(header_of(app)) <= width
        side = app.query_one("#side").region
        assert side.right <= width and side.width >= 40
        assert (side.x > 0) == (width >= 120)  # beside the list when wide, else under it


async def test_mouse_click_selects_and_the_palette_runs_the_inspector_commands() -> None:
    app = InspectorApp(FIXTURES / "lesson-out-of-order.jsonl", live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        table = app.message_list
        await pilot.click(table, offset=(10, 2))  # the second row, under the column titles
        assert table.cursor == 1 and "paused" in header_of(app)
        await pilot.pause(0.05)
        assert detail_of(app).startswith(f"seq {app.rows[1].seq} ")
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert {"Follow", "Filter", "Pair", "Whole message", "Show findings"} <= set(titles)
        await pilot.press("ctrl+p", *"Whole message")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert isinstance(app.screen, WholeMessage) and app.screen.message is app.rows[1]


async def test_the_raw_line_is_drawn_whole_beside_a_scrollbar() -> None:
    app = InspectorApp(FIXTURES / "lesson-ready-glued.jsonl", live=False)
    async with app.run_test(size=(120, 34)) as pilot:
        await wait_loaded(app, pilot)
        detail = app.query_one("#detail", TextView)
        top = next(y for y in range(detail.line_count) if detail.line_text(y).startswith("raw: "))
        detail.scroll_to(y=top, animate=False, force=True)  # at once: a ScrollView does not defer it
        await pilot.pause(0.1)
        assert detail.show_vertical_scrollbar
        drawn = [detail.render_line(y).text for y in range(detail.scrollable_content_region.height)]
        start = top - round(detail.scroll_y)  # the view stops at its end
        end = next(i for i in range(start, len(drawn)) if "⏎" in drawn[i])
        raw = "".join(
            line.rstrip() if i == end else line for i, line in enumerate(drawn[start : end + 1], start)
        )
        assert raw == "raw: " + app.rows[-1].raw.decode() + "⏎"
