"""A session recorded through the real proxy: the Python SDK client calls `add` on an SDK server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import MCPSPY, REPO

CLIENTS = REPO / "tests" / "clients"
PY_SERVER = CLIENTS / "servers" / "py_server.py"


def record_sdk_session(tmp_path: Path, server: Path = PY_SERVER, name: str = "recorded") -> Path:
    """The capture of one `add` call by the SDK client to ``server`` (a copy of py_server.py, changed or not)."""
    capture = tmp_path / f"{name}.jsonl"
    command = [sys.executable, str(CLIENTS / "py_client.py"), "add", json.dumps({"a": 2, "b": 3}), "--"]
    command += [*MCPSPY, "--capture", str(capture), "--", sys.executable, str(server)]
    done = subprocess.run(command, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return capture
