"""The TUI on real captures made by the real proxy, driven with Pilot."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from textual.widgets import DataTable, Static

from mcpspy.tui.app import SpyApp, show_invisibles

SERVER = (
    'read l; echo "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"result\\":{}}"; echo oops >&2; printf "junk\\r\\n"'
)
REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'


def make_capture(path: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "mcpspy", "--capture", str(path), "--", "sh", "-c", SERVER],
        input=REQUEST, capture_output=True, check=True, timeout=30,
    )
    return path


def cell_texts(table: DataTable[object]) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_view_lists_messages_and_details(tmp_path: Path) -> None:
    app = SpyApp(make_capture(tmp_path / "a.jsonl"))
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.query_one("#messages", DataTable)
        rows = cell_texts(table)
        arrows = [r[1] for r in rows]
        assert arrows[0] == "→" and "←" in arrows
        reply_row = arrows.index("←")
        assert rows[0][4] == "tools/list" and rows[reply_row][4] == "tools/list"  # a reply shows its method
        assert any(r[1] == "!" for r in rows)
        header = str(app.query_one("#header", Static).render())
        assert "sh -c" in header and "messages" in header
        await pilot.press("g")
        await pilot.press("p")
        assert table.cursor_row == reply_row  # jumped to the reply
        await pilot.press("p")
        assert table.cursor_row == 0
        message = app.selected()
        assert message is not None
        console = Console(width=100, record=True, file=io.StringIO())
        console.print(app.render_detail(message))
        detail = console.export_text()
        assert "tools/list" in detail and '"id": 1' in detail and "pair: #" in detail


async def test_follow_a_growing_capture(tmp_path: Path) -> None:
    source = make_capture(tmp_path / "a.jsonl").read_bytes().splitlines(keepends=True)
    growing = tmp_path / "g.jsonl"
    growing.write_bytes(b"".join(source[:2]))
    app = SpyApp(growing, live=True)
    async with app.run_test(size=(100, 24)) as pilot:
        table = app.query_one("#messages", DataTable)
        for _ in range(100):
            await pilot.pause(0.05)
            if table.row_count >= 1:
                break
        first = table.row_count
        with growing.open("ab") as f:
            f.write(b"".join(source[2:]))
        for _ in range(100):
            await pilot.pause(0.05)
            if table.row_count > first:
                break
        assert table.row_count > first
        assert table.cursor_row == table.row_count - 1  # follow mode keeps the end in view
        await pilot.press("k")
        assert "paused" in str(app.query_one("#header", Static).render())
        await pilot.press("f")
        assert "following" in str(app.query_one("#header", Static).render())


def test_invisibles_are_shown() -> None:
    assert show_invisibles(b"a\r\tb\0", False) == "a\\r\\tb\\0  ⟨no final newline⟩"


async def test_filter_bar(tmp_path: Path) -> None:
    app = SpyApp(make_capture(tmp_path / "a.jsonl"))
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.query_one("#messages", DataTable)
        total = table.row_count
        await pilot.press("slash", *"dir:s2c", "enter")
        await pilot.pause()
        assert 0 < table.row_count < total
        assert all(str(table.get_row_at(i)[1]) == "←" for i in range(table.row_count))
        await pilot.press("slash", "ctrl+a", "ctrl+k", *"dir:up", "enter")
        await pilot.pause()
        error = app.query_one("#filter-error", Static)
        assert error.display and "dir:up" in str(error.render())
