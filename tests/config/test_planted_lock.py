"""A lock file planted in place of wrap's edit lock: the message blames the lock, not the config."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.config.test_safe_edit import start
from tests.config.test_wrap import PROJECT_MCP


@pytest.mark.parametrize("plant", ["dangling symlink", "symlink to the config", "directory"])
def test_a_planted_lock_is_named_and_the_config_is_untouched(dirs: tuple[Path, Path], plant: str) -> None:
    project, home = dirs
    path = project / ".mcp.json"
    path.write_text(PROJECT_MCP)
    lock = project / ".mcp.json.mcpspy-lock"
    if plant == "directory":
        lock.mkdir()
    else:
        lock.symlink_to("/nonexistent" if plant == "dangling symlink" else path)
    run = start(project, home, "wrap", "helpdesk")
    _, err = run.communicate(timeout=60)
    assert run.returncode == 2 and err.count("\n") == 1, err
    assert f"edit lock {lock}" in err and f"cannot write {path}" not in err
    assert path.read_text() == PROJECT_MCP and os.path.lexists(lock)
