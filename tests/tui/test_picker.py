"""The session picker on real captures from the real proxy."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from textual.widgets import OptionList

from mcpspy.capture.sessions import list_sessions
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
