"""The inspector under Pilot: open captures, move, jump to a pair, follow a growing capture."""

from __future__ import annotations

import shutil
from pathlib import Path

from mcpspy.capture.format import encode_record
from mcpspy.capture.records import LineRecord, Stream
from mcpspy.tui.all_live import now_in
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.panes.detail import DetailPane
from mcpspy.tui.panes.filter_bar import FilterBar
from mcpspy.tui.panes.header import HeaderBar
from mcpspy.tui.widgets.rowlist import RowList
from tests.conftest import FIXTURES


async def wait_rows(app: InspectorApp, pilot: object, n: int) -> None:
    for _ in range(100):
        if len(app.rows) >= n:
            return
        await pilot.pause(0.05)  # type: ignore[attr-defined]
    raise AssertionError(f"only {len(app.rows)} rows")


def header_of(app: InspectorApp) -> str:
    """The header as drawn, as plain text."""
    return app.query_one(HeaderBar).text


def detail_of(app: InspectorApp) -> str:
    """The detail pane's content, as plain text."""
    return app.query_one(DetailPane).text


def cells(table: RowList[object], row: int) -> list[str]:
    """A row as drawn, split into its columns."""
    text, out, start = table.row_text(row), [], 0
    for width in table.widths():
        out.append(text[start : start + width].strip())
        start += width + 1
    return out


async def test_view_shows_messages_findings_and_the_glued_prefix() -> None:
    app = InspectorApp(FIXTURES / "lesson-ready-glued.jsonl", live=False)
    async with app.run_test(size=(120, 32)) as pilot:
        await wait_rows(app, pilot, 2)
        table = app.query_one("#messages", RowList)
        assert len(table.rows) == 2
        assert cells(table, 1)[2] == "response" and cells(table, 1)[4] == "server/discover"
        assert cells(table, 1)[7] == "✖"
        findings = app.query_one("#findings", RowList)
        assert cells(findings, 0)[2] == "stdout.glued-prefix"
        assert "✖ 1" in header_of(app)
        await pilot.press("G")
        await pilot.pause(0.1)
        assert "stdout.glued-prefix (error)" in detail_of(app)
        assert '"resultType": "complete"' in detail_of(app)
        assert "raw: ready {" in detail_of(app) and "pair seq 1" in detail_of(app)


async def test_pair_jumps_between_request_and_reply_out_of_order() -> None:
    app = InspectorApp(FIXTURES / "lesson-out-of-order.jsonl", live=False)
    async with app.run_test(size=(120, 32)) as pilot:
        await wait_rows(app, pilot, 4)
        table = app.query_one("#messages", RowList)
        await pilot.press("g")
        assert table.cursor == 0
        await pilot.press("p")  # request id 2 -> its reply, the last line
        assert table.cursor == 3
        await pilot.press("k", "p")  # reply to id 3 -> request id 3
        assert table.cursor == 1
        assert "paused" in header_of(app)


async def test_watch_follows_a_capture_as_it_grows(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    shutil.copy(FIXTURES / "lesson-out-of-order.jsonl", path)
    app = InspectorApp(path, live=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_rows(app, pilot, 4)
        with path.open("ab") as f:
            f.write(encode_record(LineRecord(5, 0.5, Stream.ERR, b"helpdesk: bye")))
            f.write(encode_record(LineRecord(6, 0.6, Stream.S2C, b"ready")))
        await wait_rows(app, pilot, 6)
        table = app.query_one("#messages", RowList)
        await pilot.pause(0.05)
        assert table.cursor == 5  # following: on the newest line
        assert cells(table, 5)[2] == "not-json"
        assert "helpdesk: bye" in "\n".join(app.query_one("#stderr").lines)  # type: ignore[attr-defined]


async def test_newer_capture_format_is_refused_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "newer.jsonl"
    path.write_bytes(b'{"format":"9.0","session":"x"}\n')
    app = InspectorApp(path, live=False)
    async with app.run_test() as pilot:
        for _ in range(40):
            if app.problems:
                break
            await pilot.pause(0.05)
        assert "newer" in app.problems[0]


async def test_filter_bar_narrows_the_list_and_says_what_is_wrong() -> None:
    app = InspectorApp(FIXTURES / "lesson-out-of-order.jsonl", live=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_rows(app, pilot, 4)
        table = app.query_one("#messages", RowList)
        await pilot.press("slash", *"dir:s2c", "enter")
        await pilot.pause(0.1)
        assert len(table.rows) == 2
        assert all(m.stream is Stream.S2C for m in app.rows)
        await pilot.press("slash", "ctrl+a", "ctrl+k", *"dir:up", "enter")
        await pilot.pause(0.1)
        bar = app.query_one(FilterBar)
        assert "invalid filter: dir:up: expected one of c2s, err, s2c (col 1)" in bar.note
        assert len(table.rows) == 2  # an invalid filter leaves the list as it was
        await pilot.press("ctrl+a", "ctrl+k", "enter")
        await pilot.pause(0.1)
        assert len(table.rows) == 4


def test_timeline_marks_the_reply_that_overtook() -> None:
    from mcpspy.replay_policy import open_capture
    from mcpspy.tui.panes.timeline import render_timeline
    from mcpspy.tui.rows import bars_of

    analyzer = open_capture(FIXTURES / "lesson-out-of-order.jsonl").analyzer
    lines = render_timeline(bars_of(analyzer.exchanges), 1.0, 80).plain.splitlines()
    assert len(lines) == len(analyzer.exchanges) == 2
    assert [("⇅" in line) for line in lines] == [x.out_of_order for x in analyzer.exchanges]
    assert any(x.out_of_order for x in analyzer.exchanges)


async def test_a_finished_capture_concludes_like_the_report() -> None:
    from mcpspy.replay_policy import open_capture

    path = FIXTURES / "pairing-unanswered.jsonl"
    expected = open_capture(path).analyzer
    app = InspectorApp(path, live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_rows(app, pilot, len(expected.messages))
        findings = app.query_one("#findings", RowList)
        for _ in range(40):
            if app.loaded:
                break
            await pilot.pause(0.05)
        assert sorted(cells(findings, i)[2] for i in range(len(findings.rows))) == sorted(
            f.id for f in expected.findings
        )
        assert f"{len(expected.pending)} pending" in header_of(app)


async def test_live_ages_tick_by_the_wall_clock(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    shutil.copy(FIXTURES / "pairing-unanswered.jsonl", path)
    app = InspectorApp(path, live=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_rows(app, pilot, 1)
        assert app.snapshot.started_epoch is not None
        # the fixture started long ago: its pending requests are far past the slow threshold by now
        assert now_in(app.session, app.live, app.clock) > app.rows[-1].t + 60


def test_the_timeline_takes_bars_before_it_is_composed_and_after_it_is_gone() -> None:
    """The live tick may reach the timeline tab as it mounts, or as the app closes: never an error."""
    from mcpspy.tui.panes.timeline import TimelinePane

    pane = TimelinePane(id="timeline")  # no children yet: nothing to draw into
    pane.show([], 1.0)
    assert pane._bars == []  # kept, drawn at its first resize
