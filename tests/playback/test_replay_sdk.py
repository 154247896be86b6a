"""`mcpspy replay` of a session the real Python SDK client recorded against the real SDK server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.sdk_recording import PY_SERVER, record_sdk_session
from tests.conftest import MCPSPY

pytestmark = pytest.mark.clients


def changed_server(tmp_path: Path) -> Path:
    """A copy of the SDK server whose tool says something else and adds one too many."""
    source = PY_SERVER.read_text()
    changed = source.replace('"""Add two numbers."""', '"""Add two integers."""').replace(
        "str(a + b)", "str(a + b + 1)"
    )
    assert changed.count("integers") == 1 and "a + b + 1" in changed
    path = tmp_path / "py_server_changed.py"
    path.write_text(changed)
    return path


def test_replay_against_the_same_sdk_server_is_the_same_and_against_a_changed_copy_names_what_changed(
    tmp_path: Path,
) -> None:
    capture = record_sdk_session(tmp_path)
    home = ["--home", str(tmp_path / "home")]
    same = subprocess.run(
        [*MCPSPY, "replay", str(capture), *home, "--", sys.executable, str(PY_SERVER)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert same.returncode == 0, same.stdout + same.stderr
    assert same.stdout.startswith("3 exchanges replayed: no differences")

    changed = subprocess.run(
        [*MCPSPY, "replay", str(capture), *home, "--", sys.executable, str(changed_server(tmp_path))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert changed.returncode == 1, changed.stderr
    out = changed.stdout
    assert "3 exchanges replayed: 2 differ" in out
    assert "tools/list id 2 (recorded #" in out
    assert '$.result.tools[name=add].description: "Add two numbers." → "Add two integers."' in out
    assert "tools/call id 3 (recorded #" in out
    assert '$.result.content[0].text: "5" → "6"' in out
    assert '$.result.structuredContent.result: "5" → "6"' in out
