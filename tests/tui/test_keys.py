"""Each key under Pilot: search, copy, go to, order, time, follow-exchange, export, sessions, help."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import orjson
import pytest

from mcpspy.capture.records import Stream
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.export_screen import ExportScreen
from mcpspy.tui.follow_screen import FollowExchange
from mcpspy.tui.help_screen import HelpScreen
from mcpspy.tui.keymap import HELP, KEYS
from mcpspy.tui.panes.detail import DetailPane
from mcpspy.tui.sessions_screen import SessionsScreen
from mcpspy.tui.time_display import TimeDisplay, time_text
from mcpspy.tui.widgets.prompt_bar import PromptBar
from mcpspy.tui.widgets.textview import TextView
from tests.conftest import FIXTURES
from tests.tui.test_app import header_of
from tests.tui.test_navigation import calls, wait_loaded, write_capture


def fixture_app(name: str) -> InspectorApp:
    return InspectorApp(FIXTURES / f"{name}.jsonl", live=False, session_dirs=[FIXTURES])


async def test_search_highlights_and_n_moves_between_matches(tmp_path: Path) -> None:
    lines = calls(5)
    lines[4] = (
        Stream.C2S,
        orjson.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"q": "NeedLE"}}),
    )
    lines[8] = (
        Stream.C2S,
        orjson.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"q": "needle"}}),
    )
    app = InspectorApp(write_capture(tmp_path / "c.jsonl", lines), live=False)
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("g", "ctrl+f", *"needle", "enter")
        await pilot.pause(0.1)
        table = app.message_list
        assert table.current is not None and table.current.seq == 5  # the first match after the cursor
        assert "search: needle (2)" in header_of(app) and "paused" in header_of(app)
        detail = app.query_one(DetailPane)
        drawn = [detail.render_line(y) for y in range(detail.scrollable_content_region.height)]
        marked = [seg.text for strip in drawn for seg in strip if seg.style is not None and seg.style.reverse]
        assert "NeedLE" in marked  # any case, highlighted in the detail
        await pilot.press("n")
        assert table.current is not None and table.current.seq == 9
        await pilot.press("n")  # wraps around
        assert table.current.seq == 5
        await pilot.press("N")
        assert table.current.seq == 9
        await pilot.press("ctrl+f", "ctrl+a", "ctrl+k", *"tools/call", "enter")
        await pilot.pause(0.1)

        def marked(y: int) -> list[str]:
            return [
                s.text.strip() for s in table.render_line(y) if s.style and s.style.reverse and s.style.bold
            ]

        assert marked(1) == ["0.001", "tools/call"]  # the row is marked, the text highlighted
        assert marked(2) == ["0.002", "tools/call"]  # a reply has its request's method, as the filter sees
        await pilot.press("ctrl+f", "ctrl+a", "ctrl+k", *"needle", "enter")
        await pilot.pause(0.1)
        top = round(table.scroll_y)
        assert marked(5 - top) == ["0.005"] and marked(4 - top) == []  # the match is out of sight
        await pilot.press("escape")  # no bar open: escape clears the search
        assert app.search is None and "search:" not in header_of(app)


async def test_y_copies_the_message_and_Y_its_pair(tmp_path: Path) -> None:
    app = fixture_app("lesson-out-of-order")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("g", "y")
        assert app.clipboard == app.rows[0].raw.decode()
        await pilot.press("Y")  # request id 2 and its reply, the last line
        assert app.clipboard.split("\n") == [app.rows[0].raw.decode(), app.rows[3].raw.decode()]
        assert [orjson.loads(line)["id"] for line in app.clipboard.split("\n")] == [2, 2]


async def test_colon_goes_to_a_seq_or_the_nearest(tmp_path: Path) -> None:
    app = InspectorApp(write_capture(tmp_path / "c.jsonl", calls(50)), live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("colon", *"42", "enter")
        assert app.message_list.current is not None and app.message_list.current.seq == 42
        await pilot.press("colon", *"abc")
        bar = app.query_one("#goto-bar", PromptBar)
        assert "a seq is a number" in bar.note
        await pilot.press("enter")  # not applied: still open, cursor unmoved
        assert bar.is_open and app.message_list.current.seq == 42
        await pilot.press("ctrl+a", "ctrl+k", *"500", "enter")
        assert app.message_list.current.seq == 100  # past the end: the nearest


async def test_o_orders_by_latency_then_size_then_seq(tmp_path: Path) -> None:
    lines = []
    for i in range(1, 4):
        lines.append((Stream.C2S, orjson.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call"})))
        lines.append((Stream.S2C, orjson.dumps({"jsonrpc": "2.0", "id": i, "result": {"pad": "x" * i * 10}})))
    path = write_capture(tmp_path / "c.jsonl", lines)
    # write_capture spaces lines 1 ms apart: stretch the replies to give each exchange its latency
    records = path.read_bytes().split(b"\n")
    for n, delay in enumerate([0.005, 0.5, 0.05]):
        reply = orjson.loads(records[2 + 2 * n])
        reply["t"] = orjson.loads(records[1 + 2 * n])["t"] + delay
        records[2 + 2 * n] = orjson.dumps(reply)
    path.write_bytes(b"\n".join(records))
    app = InspectorApp(path, live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("o")
        assert [m.id for m in app.rows] == [2, 2, 3, 3, 1, 1] and "by latency" in header_of(app)
        assert "following" not in header_of(app)
        await pilot.press("o")
        assert [m.seq for m in app.rows][:2] == [6, 4] and "by size" in header_of(app)
        await pilot.press("o")
        assert [m.seq for m in app.rows] == [1, 2, 3, 4, 5, 6] and "by " not in header_of(app)


async def test_t_cycles_the_time_column() -> None:
    app = fixture_app("lesson-out-of-order")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        table = app.message_list
        assert table.render_line(0).text.split()[0] == "time" and table.row_text(1).split()[0] == "0.020"
        await pilot.press("t")
        started = app.snapshot.started_epoch
        expected = time_text(TimeDisplay.ABSOLUTE, app.rows[1], None, started)
        assert table.render_line(0).text.split()[0] == "clock" and table.row_text(1).split()[0] == expected
        await pilot.press("t")
        assert table.render_line(0).text.split()[0] == "Δtime" and table.row_text(1).split()[0] == "+0.010"
        await pilot.press("t")
        assert table.render_line(0).text.split()[0] == "time"


async def test_x_follows_the_exchange_in_one_screen() -> None:
    app = fixture_app("clean-progress")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("g", "j", "x")  # from a progress notification
        await pilot.pause(0.1)
        screen = app.screen
        assert isinstance(screen, FollowExchange)
        headings = [line for line in screen.text.splitlines() if line.startswith("── ")]
        assert [h.split()[1] for h in headings] == ["request", "progress", "progress", "reply"]
        assert '"progress": 2.5' in screen.text
        await pilot.press("escape")
        assert not isinstance(app.screen, FollowExchange)


EXCHANGE_KEYS = ("shift+tab", "shift+tab", "right", "space", "tab", "tab")  # to the scopes, the second, back


@pytest.mark.parametrize(("scope_keys", "expect"), [((), "all"), (EXCHANGE_KEYS, "exchange")])
async def test_e_exports_through_the_report_formats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scope_keys: tuple[str, ...], expect: str
) -> None:
    monkeypatch.chdir(tmp_path)
    app = fixture_app("lesson-cancelled")
    async with app.run_test(size=(120, 35), notifications=True) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("g", "e")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ExportScreen)
        await pilot.press(*scope_keys)
        await pilot.pause(0.1)
        await pilot.press("enter")
        for _ in range(100):
            written = list(tmp_path.glob("*.txt"))
            if written and written[0].stat().st_size:
                break
            await pilot.pause(0.05)
        assert [p.name for p in written] == [
            f"lesson-cancelled-{'view' if expect == 'all' else 'exchange'}.txt"
        ]
        assert stat.S_IMODE(os.stat(written[0]).st_mode) == 0o600
        text = written[0].read_text()
        assert "pairing.reply-after-cancel" in text  # the same findings as `mcpspy report`
        assert "request 1" in text and "notification 1" in text and "response 1" in text
        await pilot.pause(0.1)
        assert any(str(written[0]) in n.message for n in app._notifications)


async def test_s_opens_another_session_inside_the_tui() -> None:
    app = InspectorApp(FIXTURES / "lesson-out-of-order.jsonl", live=False, session_dirs=[FIXTURES])
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("slash", *"dir:s2c", "enter")
        await pilot.press("s")
        for _ in range(200):
            if app.screen.query("SessionChooser"):
                break
            await pilot.pause(0.05)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        chooser = screen.query_one("SessionChooser")
        names = [s.path.name for s in chooser.sessions]  # type: ignore[attr-defined]
        assert len(names) == len(list(FIXTURES.glob("*.jsonl")))
        picker = screen.query_one("#picker")
        current = picker.highlighted  # type: ignore[attr-defined]
        assert names[current] == "lesson-out-of-order.jsonl"
        await pilot.press("j" if current == 0 else "k", "enter")
        await pilot.pause(0.1)
        assert (
            app.screen is app.screen_stack[0]
            and app.path.name == names[current + (1 if current == 0 else -1)]
        )
        await wait_loaded(app, pilot)
        assert app.message_list.filter is not None and all(m.stream is Stream.S2C for m in app.rows)


async def test_question_mark_lists_keys_and_legends() -> None:
    app = fixture_app("lesson-out-of-order")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause(0.1)
        assert isinstance(app.screen, HelpScreen)
        view = app.screen.query_one(TextView)
        text = "\n".join(view.line_text(y) for y in range(view.line_count))
        for said in (
            "ctrl+f, n/N",
            "✖ error  ▲ warning  · info",
            "N pending",
            "⇅ overtook",
            "a OR b",
            "latency:",
        ):
            assert said in text, said
        await pilot.press("question_mark")
        assert not isinstance(app.screen, HelpScreen)


async def test_every_key_is_written_once_and_bound_palette_and_help_from_it() -> None:
    """keymap.py is the one place: each key bound once, its action found on its area, listed in the help."""
    bound = [key.key for key in KEYS]
    assert len(bound) == len(set(bound)), "a key bound twice"
    app = fixture_app("lesson-out-of-order")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        for key in KEYS:
            assert app._bindings.key_to_bindings[key.key][0].action == key.action
            target, name, _ = app._parse_action(key.action, app)
            assert callable(getattr(target, f"action_{name}", None)), key
        palette = {command.title: command.help for command in app.get_system_commands(app.screen)}
        for key in KEYS:
            if key.palette is not None:
                assert palette[key.title or key.label].endswith(f"({key.shown})")
        await pilot.press("question_mark")
        await pilot.pause(0.1)
        view = app.screen.query_one(TextView)
        text = "\n".join(view.line_text(y) for y in range(view.line_count))
        assert all(f"{row.shown.ljust(22)}  {row.what[:40]}" in text for row in HELP)


async def test_list_keys_act_from_the_side_pane_and_not_over_a_screen() -> None:
    """`p` pairs with the focus in the detail; over the help screen it does nothing."""
    app = fixture_app("lesson-out-of-order")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("g", "tab")
        assert app.side.pane.has_focus
        before = app.message_list.current
        await pilot.press("p")
        assert app.message_list.current is not before
        await pilot.press("question_mark", "p", "question_mark")
        assert not isinstance(app.screen, HelpScreen)
        assert app.message_list.current is not before  # p over the help moved nothing
        await pilot.press("p")
        assert app.message_list.current is before


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({}, "sent to the terminal's clipboard (OSC 52)"),
        ({"TERM_PROGRAM": "Apple_Terminal"}, "macOS Terminal ignores OSC 52"),
        ({"TMUX": "/tmp/none,1,0", "PATH": ""}, "tmux drops OSC 52 unless `set -g set-clipboard on`"),
    ],
)
async def test_the_copy_toast_says_what_was_done_never_a_copy_it_cannot_know(
    env: dict[str, str], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OSC 52 has no answer: the toast says it was sent; where it is dropped, the text is in a file it names."""
    for name in ("TERM_PROGRAM", "TMUX", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)  # PATH "": no tmux to ask, as a tmux without set-clipboard on
    app = fixture_app("lesson-out-of-order")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("g", "y")
        toast = [n.message for n in app._notifications][-1]
        assert toast.startswith(f"seq {app.rows[0].seq} (") and said in toast and "copied" not in toast
        saved = Path(os.environ["XDG_STATE_HOME"]) / "mcpspy" / "clipboard.txt"
        if env:
            assert f"saved to {saved}" in toast
            assert (
                saved.read_text() == app.rows[0].raw.decode() and stat.S_IMODE(saved.stat().st_mode) == 0o600
            )
        else:
            assert not saved.exists()


async def test_the_export_dialog_shows_every_format_at_80x24_and_enter_writes_from_a_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every format in sight, the chosen one marked without colour, enter on a choice takes it and writes."""
    monkeypatch.chdir(tmp_path)
    app = fixture_app("lesson-cancelled")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("g", "e")
        await pilot.pause(0.2)
        screen = app.screen
        assert isinstance(screen, ExportScreen)

        formats = [str(b.label) for b in screen.query("#export-format RadioButton")]
        assert len(formats) == 8
        for button in screen.query("#export-format RadioButton"):
            region = button.region
            assert region.width and region.right <= 80 and region.bottom <= 24, (button.label, region)
        chosen = [b for b in screen.query("#export-format RadioButton") if b.render().plain.startswith("▐●▌")]
        assert [str(b.label) for b in chosen] == ["text"]  # the mark itself says which, not its colour
        await pilot.press("shift+tab", "right")  # to the formats, the highlight on json
        await pilot.press("enter")
        for _ in range(100):
            written = list(tmp_path.glob("*.json"))
            if written and written[0].stat().st_size:
                break
            await pilot.pause(0.05)
        assert [p.name for p in written] == ["lesson-cancelled-view.json"], (
            list(tmp_path.iterdir()),
            app.screen,
            app.focused,
        )
        assert orjson.loads(written[0].read_bytes())
