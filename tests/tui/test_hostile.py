"""Hostile captures: every pane, `v`, the filter bar and the picker show the data as plain text.

No escape sequence, C1 control, BEL or bidi override reaches the screen (each
shows as ``\\x1b``, ``\\u202e``...); Textual markup is drawn literally, never
parsed: ``[/]`` crashes nothing and a click action writes no file.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Log, OptionList, Static

from mcpspy.capture.format import decode_header
from mcpspy.capture.sessions import SessionInfo
from mcpspy.terminal import visible_bytes, visible_line
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.panes.detail import DetailPane
from mcpspy.tui.panes.findings import FindingsPane
from mcpspy.tui.panes.header import HeaderBar
from mcpspy.tui.panes.inflight import InFlightPane
from mcpspy.tui.panes.timeline import TimelinePane
from mcpspy.tui.picker import SessionPicker
from mcpspy.tui.whole_message import WholeMessage
from mcpspy.tui.widgets.textview import TextView
from tests.tui.hostile import CONTROLS, click, hostile_strings, write_hostile_capture

# Opening `v` takes a while: one string of each kind (OSC, CSI, C1, bidi, click, [/], 10,000 chars).
V_CASES = (0, 3, 4, 6, 7, 8, 11)
# Long enough that the header shows the server's (hostile) name instead of the file's.
FILE_NAME = "20261203T000000.000Z-" + "x" * 150 + ".jsonl"


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """Where a parsed click action would write its screenshot."""
    return tmp_path / "written-by-markup"


@pytest.fixture
def capture(tmp_path: Path, target: Path) -> Path:
    return write_hostile_capture(tmp_path / FILE_NAME, target)


def click_actions(app: InspectorApp | SessionPicker) -> list[str]:
    """The @click actions of everything drawn on the screen: markup from the data would add one."""
    actions = []
    for widget in app.screen.walk_children(with_self=True):
        for y in range(widget.size.height):
            actions += [
                str(s.style.meta["@click"])
                for s in widget.render_line(y)
                if s.style and s.style.meta and "@click" in s.style.meta
            ]
    return actions


def screen_text(app: InspectorApp | SessionPicker) -> str:
    """What the screen shows, from the exported SVG: no control character, no click action in it."""
    assert not any("screenshot" in action for action in click_actions(app))
    svg = app.export_screenshot()
    for control in CONTROLS:
        assert control not in svg, f"{control!r} reached the screen"
    rows: dict[float, list[tuple[float, str]]] = {}
    for match in re.finditer(r'<text [^>]*?x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        text = html.unescape(match.group(3)).replace("\xa0", " ")
        rows.setdefault(float(match.group(2)), []).append((float(match.group(1)), text))
    return "\n".join("".join(text for _, text in sorted(row)) for _, row in sorted(rows.items()))


async def settle(app: InspectorApp, pilot: Pilot[None], messages: int) -> None:
    for _ in range(400):
        listed = len(app.message_list.all_messages) >= messages and not app.reading and not app.unanalysed
        if listed and (app.loaded or app.live):
            break
        await pilot.pause(0.05)
    else:
        raise AssertionError("the capture never settled")
    await pilot.pause(0.1)


async def click_along(pilot: Pilot[None], y: int) -> None:
    """Click along the start of screen line ``y``, where a parsed @click's "x" would be."""
    for x in range(0, 40, 4):
        await pilot.click(offset=(x, y))


def message_count(capture: Path) -> int:
    return sum(1 for line in capture.read_bytes().splitlines()[1:] if b'"stream"' in line)


@pytest.mark.parametrize(("live", "size"), [(True, (160, 50)), (False, (80, 24))], ids=["watch", "view"])
async def test_every_pane_shows_the_data_as_plain_text(
    capture: Path, target: Path, live: bool, size: tuple[int, int]
) -> None:
    strings = hostile_strings(target)
    app = InspectorApp(capture, live=live)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot, message_count(capture))
        header = app.query_one(HeaderBar).text
        assert header.startswith(visible_line(f"{click(target)}[/]\x1b]0;PWNED\x07")[: size[0] // 4])
        assert "[@click=app.screenshot(" in screen_text(app).splitlines()[0]
        await click_along(pilot, 0)  # the header, with the server's name in it
        messages = app.message_list
        rows = [messages.row_text(i) for i in range(len(messages.rows))]
        for n, text in enumerate(strings, 1):
            request = next(m for m in messages.all_messages if m.id == n and m.method is not None)
            assert visible_line(text)[:8] in rows[messages.rows.index(request)]
            assert messages.jump_to(request.seq)
            await pilot.pause()
            detail = app.query_one(DetailPane).text
            assert visible_line(text)[:60] in detail, (text[:40], detail[:400])
            junk = next(
                m for m in messages.all_messages if m.kind.value == "not-json" and m.raw == text.encode()
            )
            assert messages.jump_to(junk.seq)
            await pilot.pause()
            assert f"raw: {visible_line(text)[:60]}" in app.query_one(DetailPane).text
        await pilot.press("g")
        await pilot.pause(0.1)
        assert visible_line(strings[0]) in screen_text(app)
        await pilot.press("2")
        await pilot.pause(0.1)
        findings = app.query_one(FindingsPane)
        assert any("[/] (id 9)" in findings.row_text(i) for i in range(len(findings.rows)))
        assert "\\x1b]0;PWNED\\x07 (id 1)" in screen_text(app)
        await pilot.press("3")
        await pilot.pause(0.1)
        in_flight = app.query_one(InFlightPane)
        assert len(in_flight.rows) == (len(strings) // 2 if live else 0)
        if live:
            pending = [in_flight.row_text(i) for i in range(len(in_flight.rows))]
            assert any("[@click=app." in row for row in pending) and any(
                "[bold]bold" in row for row in pending
            )
        screen_text(app)
        await pilot.press("4")
        await pilot.pause(0.1)
        assert app.query_one("#stderr", Log).lines[: len(strings)] == [visible_line(text) for text in strings]
        assert visible_line(strings[0]) in screen_text(app)
        await pilot.press("5")
        await pilot.pause(0.1)
        timeline = str(app.query_one(TimelinePane).query_one("#timeline-bars", Static).render())
        assert "[bold]bold" in timeline and "\\x1b]0;PWNED" in timeline
        assert visible_line(strings[0])[:10] in screen_text(app)
    assert app.return_code in (None, 0)
    assert not target.exists()


async def test_v_shows_the_whole_message_literally_and_its_title_cannot_click(
    capture: Path, target: Path
) -> None:
    app = InspectorApp(capture, live=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot, message_count(capture))
        strings = hostile_strings(target)
        for text in [strings[i] for i in V_CASES]:
            request = next(m for m in app.message_list.all_messages if m.method == text)
            assert app.message_list.jump_to(request.seq)
            await pilot.press("v")
            await pilot.pause(0.1)
            assert isinstance(app.screen, WholeMessage)
            title = str(app.screen.query_one("#whole-title", Static).render())
            assert visible_line(text)[:40] in title and visible_line(text)[:40] in screen_text(app)
            if text == click(target):
                await click_along(pilot, 0)
            await pilot.press("r")  # the raw line, every byte in place
            await pilot.pause(0.1)
            view = app.screen.query_one(TextView)
            drawn = "".join(view.line_text(y) for y in range(view.line_count))
            assert drawn == visible_bytes(request.raw) + "⏎"
            assert not any(c in view.render_line(y).text for y in range(view.size.height) for c in CONTROLS)
            await pilot.press("escape")
            await pilot.pause()
    assert app.return_code in (None, 0)
    assert not target.exists()


async def test_a_typed_filter_is_text_too(capture: Path, target: Path) -> None:
    app = InspectorApp(capture, live=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot, message_count(capture))
        for typed in ("[/]", "dir:[/]", f"method:{click(target)}", "[bold]x"):
            await pilot.press("slash")
            app.query_one("#filter-bar Input", Input).value = typed
            await pilot.press("enter")
            await pilot.pause(0.1)
            shown = screen_text(app)
            if typed.startswith("dir:"):  # not a valid filter: said under the bar
                assert f"invalid filter: {typed}:" in shown
            else:
                assert f"filter: {typed[:8]}" in shown.splitlines()[0]
        await click_along(pilot, 0)
        await pilot.press("escape")
    assert app.return_code in (None, 0)
    assert not target.exists()


async def test_the_picker_shows_names_and_commands_as_they_are(capture: Path, target: Path) -> None:
    with capture.open("rb") as f:
        header = decode_header(f.readline())
    sessions = [SessionInfo(capture, header, live=True), SessionInfo(capture, header, live=True)]
    app = SessionPicker(sessions)
    async with app.run_test(size=(120, 20)) as pilot:
        picker = app.query_one(OptionList)
        for _ in range(100):  # the counts arrive from a thread
            if "…" not in str(picker.get_option_at_index(1).prompt):
                break
            await pilot.pause(0.05)
        prompt = str(picker.get_option_at_index(0).prompt)
        assert "node mcp[cli] [/]" in prompt and click(target) in prompt and "\\x1b]0;PWNED\\x07" in prompt
        shown = screen_text(app)
        assert "node mcp[cli] [/]" in shown and "[@click=app.screenshot(" in shown
        await pilot.click(OptionList, offset=(30, 1))
    assert app.return_code in (None, 0)
    assert not target.exists()
