"""`mcpspy diff` on two real recordings: the Python SDK client against the SDK server and a changed copy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MCPSPY, REPO

pytestmark = pytest.mark.clients

CLIENTS = REPO / "tests" / "clients"
PY_SERVER = CLIENTS / "servers" / "py_server.py"


def record(tmp_path: Path, server: Path, name: str) -> Path:
    capture = tmp_path / f"{name}.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            str(CLIENTS / "py_client.py"),
            "add",
            json.dumps({"a": 2, "b": 3}),
            "--",
            *MCPSPY,
            "--capture",
            str(capture),
            "--",
            sys.executable,
            str(server),
        ],
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return capture


def test_diff_of_two_recordings_names_the_changed_tool(tmp_path: Path) -> None:
    source = PY_SERVER.read_text()
    changed = source.replace("def add(a: int, b: int) -> str:", "def add(a: int, b: int, c: int = 0) -> str:")
    changed = changed.replace('"""Add two numbers."""', '"""Add two or three numbers."""')
    assert changed.count("c: int = 0") == 1 and "three" in changed
    (tmp_path / "changed.py").write_text(changed)
    before = record(tmp_path, PY_SERVER, "before")
    after = record(tmp_path, tmp_path / "changed.py", "after")

    done = subprocess.run(
        [*MCPSPY, "diff", str(before), str(after)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1, done.stderr
    assert '  ~ add: description: changed "Add two numbers." → "Add two or three numbers."' in done.stdout
    assert "  ~ add: inputSchema $.properties.c: loosened, new optional property" in done.stdout

    same = subprocess.run(
        [*MCPSPY, "diff", str(before), str(record(tmp_path, PY_SERVER, "again"))],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert same.returncode == 0, same.stdout
