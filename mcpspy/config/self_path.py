"""The command a client should start to run this mcpspy, whatever PATH the client has.

A GUI client starts servers with its own PATH, which often lacks ``~/.local/bin``
(pipx, uv tool) or a venv's ``bin``: a bare ``mcpspy`` is then not found. So
wrap writes an absolute path: the script this mcpspy was started as
(``sys.argv[0]``), or, under ``python -m mcpspy``, the console script beside
the interpreter (a venv's, pipx's or uv's ``bin``). Symlinks are kept, not
resolved: ``~/.local/bin/mcpspy`` and Homebrew's ``bin/mcpspy`` survive an
upgrade, the versioned file they point at does not.
"""

from __future__ import annotations

import os
import shutil
import sys

NAMES = ("mcpspy", "mcpspy.exe")


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def running_mcpspy(argv0: str | None = None, executable: str | None = None) -> str | None:
    """The absolute path of the running mcpspy's executable, or None when there is none to name."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    executable = sys.executable if executable is None else executable
    found: list[str] = []
    if os.path.basename(argv0) in NAMES:
        if os.sep in argv0 or (os.altsep and os.altsep in argv0):
            found.append(os.path.abspath(argv0))
        elif located := shutil.which(argv0):
            found.append(os.path.abspath(located))
    if executable:
        bindir = os.path.dirname(os.path.abspath(executable))
        found += [os.path.join(bindir, name) for name in NAMES]
    return next((path for path in found if _executable(path)), None)
