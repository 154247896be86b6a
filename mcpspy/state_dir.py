"""mcpspy's own state directory: config backups and prompt history live here, never in a project."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/mcpspy``, else ``~/.local/state/mcpspy`` (the sessions dir's default parent)."""
    env = os.environ if env is None else env
    state = env.get("XDG_STATE_HOME") or ""
    if state and os.path.isabs(state):
        return Path(state) / "mcpspy"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".local" / "state" / "mcpspy"
