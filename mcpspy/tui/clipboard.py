"""Copying out of the TUI: OSC 52 to the terminal, and a file where the terminal is known to drop it.

Textual's ``copy_to_clipboard`` writes the OSC 52 sequence and returns; no
terminal answers, so nothing can say the text arrived. The toast says what was
done: "sent to the terminal's clipboard (OSC 52)". Where the sequence is known
to go nowhere (macOS Terminal, the Linux console, tmux unless its
``set-clipboard`` is ``on``), the text is also written to a private file in
mcpspy's state dir, and the toast names that file instead of claiming a copy.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

from mcpspy.capture.private import CaptureRefused, private_dir_fd, write_private_atomic
from mcpspy.state_dir import state_dir

FILE_NAME = "clipboard.txt"
TMUX_ASK_TIMEOUT = 1.0


def _tmux_passes_osc52() -> bool:
    """tmux hands an application's OSC 52 on only with ``set-clipboard on`` (its default is ``external``)."""
    try:
        answer = subprocess.run(
            ["tmux", "show-options", "-gv", "set-clipboard"],
            capture_output=True,
            text=True,
            timeout=TMUX_ASK_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return answer.stdout.strip() == "on"


def osc52_dropped(env: Mapping[str, str], tmux_passes: Callable[[], bool] = _tmux_passes_osc52) -> str | None:
    """Why the terminal will drop OSC 52 (None: nothing known against it)."""
    if env.get("TERM_PROGRAM") == "Apple_Terminal":
        return "macOS Terminal ignores OSC 52"
    if env.get("TERM") == "linux":
        return "the Linux console ignores OSC 52"
    if env.get("TMUX") and not tmux_passes():
        return "tmux drops OSC 52 unless `set -g set-clipboard on`"
    return None


def save_copy(text: str, directory: Path | None = None) -> Path:
    """``text`` in ``clipboard.txt`` of the state dir (0600, replaced whole, never through a symlink)."""
    directory = directory if directory is not None else state_dir()
    dir_fd = private_dir_fd(directory)
    try:
        write_private_atomic(Path(FILE_NAME), text.encode("utf-8", "replace"), dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    return directory / FILE_NAME


def send_to_clipboard(
    copy_to_terminal: Callable[[str], None], text: str, env: Mapping[str, str] | None = None
) -> str:
    """Send ``text`` by OSC 52 (and to a file where that is dropped); what was done, for the toast."""
    copy_to_terminal(text)
    dropped = osc52_dropped(os.environ if env is None else env)
    if dropped is None:
        return "sent to the terminal's clipboard (OSC 52)"
    try:
        saved = save_copy(text)
    except (OSError, CaptureRefused) as exc:
        return f"sent by OSC 52, but {dropped}; and not saved: {exc}"
    return f"saved to {saved} ({dropped})"
