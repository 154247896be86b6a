"""`v` shows the glued prefix and counts the message's lines; findings are in seq order and readable."""

from __future__ import annotations

from pathlib import Path

from mcpspy.analysis.model import Finding, Rule, Severity
from mcpspy.capture.records import Stream
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.panes.detail import DetailPane
from mcpspy.tui.panes.findings import FindingsPane
from mcpspy.tui.rows import pretty_json
from mcpspy.tui.whole_message import WholeMessage
from mcpspy.tui.widgets.textview import TextView
from tests.conftest import FIXTURES
from tests.tui.test_navigation import wait_loaded


async def test_v_shows_the_glued_prefix_and_the_right_line_count_at_once() -> None:
    app = InspectorApp(FIXTURES / "lesson-ready-glued.jsonl", live=False)
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("G", "v")
        screen = app.screen
        assert isinstance(screen, WholeMessage)
        view = screen.query_one(TextView)
        shown = [view.line_text(y) for y in range(view.line_count)]
        assert "glued before the JSON: ready " in shown
        assert any(line.startswith("✖ stdout.glued-prefix (error)") for line in shown)
        lines = pretty_json(app.rows[-1].payload, limit=None).count("\n") + 1
        title = str(screen.query_one("#whole-title").render())
        assert title.endswith(f"JSON, {lines} lines")  # on first open, before any resize
        await pilot.press("r")
        assert str(screen.query_one("#whole-title").render()).endswith("raw, 1 lines")
        assert view.line_text(0).startswith("ready {")


async def test_the_detail_shows_the_finding_above_the_json() -> None:
    app = InspectorApp(FIXTURES / "lesson-ready-glued.jsonl", live=False)
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("G")
        await pilot.pause(0.05)
        detail = app.query_one(DetailPane)
        lines = detail.text.splitlines()
        assert lines[1].startswith("✖ stdout.glued-prefix (error): the stray text 'ready '")
        assert lines.index("{") > 1
        on_screen = [detail.line_text(y) for y in range(detail.scrollable_content_region.height)]
        assert any("stdout.glued-prefix" in line for line in on_screen)


RULE = Rule("test.rule", Severity.WARNING, "a rule", "nowhere")


def finding(seq: int, text: str = "short") -> Finding:
    return Finding(RULE, seq, Stream.S2C, text)


async def test_findings_are_sorted_by_seq_and_wrap_at_every_width(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes((FIXTURES / "clean-modern.jsonl").read_bytes())
    app = InspectorApp(path, live=False)
    long = "a sentence long enough to need several lines in a narrow pane, " * 3
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(app, pilot)
        pane = app.query_one(FindingsPane)
        pane.add([finding(5), finding(9, long)])
        pane.add([finding(2)])  # raised at the end, about an older line
        assert [f.seq for f in pane.rows] == [2, 5, 9]
        for width in (80, 120, 200):
            await pilot.resize_terminal(width, 35)
            await pilot.press("2")
            await pilot.pause(0.1)
            text = pane.row_text(2)
            words = " ".join(text.split())
            assert long.strip() in words, (width, text)  # every word of it is on screen, in order
            assert all(len(line) <= pane.scrollable_content_region.width for line in text.splitlines())
            lines = sum(len(pane.row_text(row).splitlines()) for row in range(3))  # measured as shown
            assert pane.line_count == lines and pane.virtual_size.height == lines + 1
        await pilot.press("tab", "G")
        assert pane.cursor == 2
        await pilot.press("k", "enter")  # the finding about seq 5 -> its line
        message = app.message_list.current
        assert message is not None and message.seq == 5
