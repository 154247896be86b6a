"""Start the server and stop it: process group, signals, exit codes."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Sequence

import trio

from mcpspy.proxy.fdio import PR_SET_PDEATHSIG, libc_function


def _parent_death_hook(signal_death: bool) -> Callable[[], None] | None:
    """On Linux, ask the kernel to SIGTERM the server if mcpspy itself is killed (with ``signal_death``)."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = libc_function("prctl")
    if prctl is None:
        return None
    parent = os.getpid()

    def hook() -> None:
        if signal_death:
            prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # mcpspy died before the hook ran
            os._exit(1)

    return hook


async def start_server(
    command: Sequence[str], stdin: int, stdout: int, stderr: int, parent_death: bool = True
) -> trio.Process:
    """Start CMD in its own process group, looked up on PATH, with our env and cwd.

    Its own group lets mcpspy signal the server and whatever it spawned
    (`npx`, `uv run` and `sh -c` are wrappers) without signalling itself.
    ``parent_death``: SIGTERM it when mcpspy dies (not when a watchdog is to
    walk its tree first: ``proxy.reaper``). Raises OSError when it cannot start.
    """
    return await trio.lowlevel.open_process(
        list(command),
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        process_group=0,
        preexec_fn=_parent_death_hook(parent_death),
    )


def signal_group(proc: trio.Process, signum: int) -> bool:
    """Send a signal to the server's process group; False when nothing was there."""
    try:
        os.killpg(proc.pid, signum)
        return True
    except ProcessLookupError:
        pass
    except PermissionError:
        return False
    try:
        proc.send_signal(signum)
        return True
    except ProcessLookupError:
        return False


def exit_status(returncode: int) -> int:
    """mcpspy's exit code for the server's: its code, or 128+N for signal N."""
    return 128 - returncode if returncode < 0 else returncode


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return str(signum)
