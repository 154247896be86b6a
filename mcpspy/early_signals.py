"""Signals that arrive while mcpspy starts, before the proxy's own handling is in place.

Python's default SIGINT handler raises KeyboardInterrupt wherever the main
thread is: in the middle of an import, that prints a traceback (mcpspy adds
nothing of its own to stderr) and, inside an extension module's
initialisation, has crashed the interpreter. From the first line of the
entry point until the proxy listens for signals, a signal is only noted;
``pending_exit`` turns a noted signal into the quiet exit status a shell
expects (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP) before any server
is started. The one window this cannot cover is the interpreter's own
start-up, before mcpspy's first line runs.
"""

from __future__ import annotations

import signal
from types import FrameType

EARLY_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_noted: list[int] = []


def _note(signum: int, frame: FrameType | None) -> None:
    _noted.append(signum)


def hold() -> None:
    """From now on, a start-up signal is noted instead of acted on."""
    for signum in EARLY_SIGNALS:
        signal.signal(signum, _note)


def release() -> None:
    """Back to Python's defaults (a subcommand's own code handles KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def pending_exit() -> int | None:
    """The exit status for the first signal noted so far, or None."""
    return 128 + _noted[0] if _noted else None
