"""`mcpspy diff` on two real recordings: the Python SDK client against the SDK server and a changed copy."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.clients.sdk_recording import PY_SERVER, record_sdk_session
from tests.conftest import MCPSPY

pytestmark = pytest.mark.clients


def test_diff_of_two_recordings_names_the_changed_tool(tmp_path: Path) -> None:
    source = PY_SERVER.read_text()
    changed = source.replace("def add(a: int, b: int) -> str:", "def add(a: int, b: int, c: int = 0) -> str:")
    changed = changed.replace('"""Add two numbers."""', '"""Add two or three numbers."""')
    assert changed.count("c: int = 0") == 1 and "three" in changed
    (tmp_path / "changed.py").write_text(changed)
    before = record_sdk_session(tmp_path, PY_SERVER, "before")
    after = record_sdk_session(tmp_path, tmp_path / "changed.py", "after")

    done = subprocess.run(
        [*MCPSPY, "diff", str(before), str(after)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1, done.stderr
    assert '  ~ add: description: changed "Add two numbers." → "Add two or three numbers."' in done.stdout
    assert "  ~ add: inputSchema $.properties.c: loosened, new optional property" in done.stdout

    same = subprocess.run(
        [*MCPSPY, "diff", str(before), str(record_sdk_session(tmp_path, PY_SERVER, "again"))],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert same.returncode == 0, same.stdout
