"""The session picker on real captures from the real proxy."""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import OptionList

from mcpspy.capture.format import encode_header
from mcpspy.capture.records import Header
from mcpspy.capture.sessions import SessionInfo, list_sessions
from mcpspy.tui import command as watch_command
from mcpspy.tui.picker import SessionPicker


async def test_pick_the_second_session(tmp_path: Path) -> None:
    for command in (["cat"], ["tr", "a", "b"]):
        subprocess.run(
            [sys.executable, "-m", "mcpspy", "--home", str(tmp_path), "--", *command],
            input=b"abc\n",
            capture_output=True,
            check=True,
            timeout=30,
        )
    sessions = [replace(s, live=True) for s in list_sessions([tmp_path])]  # as if both proxies still ran
    assert len(sessions) == 2
    app = SessionPicker(sessions)
    async with app.run_test(size=(120, 20)) as pilot:
        picker = app.query_one("#picker", OptionList)
        assert picker.option_count == 2
        for _ in range(100):  # the counts arrive from a thread
            if "…" not in str(picker.get_option_at_index(1).prompt):
                break
            await pilot.pause(0.05)
        for i, session in enumerate(sessions):
            prompt = str(picker.get_option_at_index(i).prompt)
            messages = sum(1 for line in session.path.read_bytes().splitlines() if b'"stream"' in line)
            assert (
                "live" in prompt
                and f"{messages} msgs" in prompt
                and " ".join(session.header.command) in prompt
            )
            assert session.header.started[:10] in prompt and "✖" in prompt
        await pilot.press("j", "enter")
    assert app.return_value == sessions[1].path


def finished_sessions(home: Path, commands: list[list[str]]) -> list[SessionInfo]:
    for command in commands:
        subprocess.run(
            [sys.executable, "-m", "mcpspy", "--home", str(home), "--", *command],
            input=b"abc\n",
            capture_output=True,
            check=True,
            timeout=30,
        )
    return list_sessions([home])


def test_watch_offers_the_finished_sessions_when_none_is_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = finished_sessions(tmp_path, [["cat"], ["tr", "a", "b"]])
    shown: list[SessionPicker] = []

    def run(picker: SessionPicker) -> Path | None:
        shown.append(picker)
        return None  # the user quit

    monkeypatch.setattr(watch_command, "on_a_terminal", lambda: True)
    monkeypatch.setattr(SessionPicker, "run", run)
    assert watch_command.run_watch(argparse.Namespace(session=None, home=str(tmp_path))) == 0
    (picker,) = shown
    assert picker.title_text.startswith("no session is live; 2 finished: pick one")
    assert [s.path for s in picker.sessions] == [s.path for s in reversed(sessions)]  # newest first
    assert picker.wait_in == [tmp_path]


async def test_the_picker_opens_a_session_that_starts_while_it_waits(tmp_path: Path) -> None:
    sessions = finished_sessions(tmp_path, [["cat"]])
    app = SessionPicker(sessions, title="none live", wait_in=[tmp_path])
    async with app.run_test(size=(120, 20)) as pilot:
        await pilot.pause(0.3)
        header = Header("1.0", "new", "2099-01-01T00:00:00.000Z", ("srv",), "srv", "/", "0.1.0", 1)
        new = tmp_path / "20990101T000000.000Z-srv-1.jsonl"
        new.write_bytes(encode_header(header))
        for _ in range(100):
            if app.return_value is not None:
                break
            await pilot.pause(0.05)
    assert app.return_value is not None and app.return_value.resolve() == new.resolve()
