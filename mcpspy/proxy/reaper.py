"""No process outlives mcpspy: the subreaper, the descendant sweep, and the watchdog.

mcpspy becomes a child subreaper (Linux) before it starts the server, so
whatever the server leaves behind (a background child, a ``setsid``
grandchild, the real server behind an ``sh -c``) is re-parented to mcpspy
instead of init: ``sweep`` finds every such descendant by walking /proc's
parent links from mcpspy, terminates, then kills and reaps it.

If mcpspy itself is SIGKILLed it runs no code, so a tiny watchdog process
(started in its own session, holding nothing but the read end of a pipe
whose write end only mcpspy holds) waits for that pipe's EOF. mcpspy writes
the server's pid into it once started, and ``DONE`` on a clean end; EOF
without ``DONE`` means mcpspy died, and the watchdog SIGKILLs the server's
process group and every process whose parent chain still leads to the server.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
TERM_WAIT = 0.5  # seconds a swept descendant gets between SIGTERM and SIGKILL
SWEEP_POLL = 0.02
DONE = b"done\n"


def become_subreaper() -> bool:
    """Make orphaned descendants re-parent to mcpspy, so ``sweep`` can find them (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _parents() -> dict[int, int]:
    """Every live process's parent, from /proc (empty where there is no /proc)."""
    parents: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return parents
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            parents[int(name)] = int(fields[1])
    return parents


def descendants(root: int, exclude: frozenset[int] = frozenset()) -> list[int]:
    """The pids whose parent chain leads to ``root`` (not ``root``; not ``exclude`` nor theirs)."""
    children: dict[int, list[int]] = {}
    for pid, ppid in _parents().items():
        children.setdefault(ppid, []).append(pid)
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in exclude and child != root:
                found.append(child)
                todo.append(child)
    return found


def _reap(pids: list[int]) -> None:
    """Collect the zombies of our own children among ``pids`` (others' are not ours to wait)."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def sweep(exclude: frozenset[int] = frozenset()) -> int:
    """Terminate, then kill and reap, every descendant of mcpspy; return how many there were."""
    me = os.getpid()
    left = descendants(me, exclude)
    if not left:
        return 0
    count = len(left)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + TERM_WAIT
    while left and time.monotonic() < deadline:
        time.sleep(SWEEP_POLL)
        _reap(left)
        left = descendants(me, exclude)
    for _ in range(3):  # a killed process's children are re-parented to us: sweep them too
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(SWEEP_POLL)
        _reap(left)
        left = descendants(me, exclude)
        if not left:
            break
    return count


class Watchdog:
    """Kills the server's process group if mcpspy dies without a clean end (SIGKILL).

    A fork, not a new interpreter: about 1 ms instead of a Python start-up's
    CPU, which on a busy machine competes with mcpspy's own. The child runs
    only ``_watch`` (os calls and /proc reads) and never returns.
    """

    def __init__(self) -> None:
        self.pid: int | None = None
        self._fd: int | None = None
        read_fd, write_fd = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            return
        if pid == 0:  # the watchdog
            try:
                _watch(read_fd, write_fd)
            finally:
                os._exit(0)
        os.close(read_fd)
        self.pid = pid
        self._fd = write_fd

    def guard(self, server_pid: int) -> None:
        """From now on, mcpspy's death kills ``server_pid``'s process group."""
        self._send(b"%d\n" % server_pid)

    def release(self) -> None:
        """A clean end: the watchdog exits without killing anything."""
        self._send(DONE)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _send(self, data: bytes) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.write(self._fd, data)


def _watch(read_fd: int, write_fd: int) -> None:
    """The watchdog's whole life: hold nothing but the pipe, wait for its end, act on what it says."""
    os.setsid()  # not in the terminal's group: a Ctrl-C, or a kill of mcpspy's group, is not for it
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_IGN)
    os.close(write_fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # not the client's pipes, nor our stderr
        os.dup2(devnull, fd)
    os.closerange(3, read_fd)
    os.closerange(read_fd + 1, max(read_fd + 1, os.sysconf("SC_OPEN_MAX")))
    data = b""
    while chunk := os.read(read_fd, 256):
        data += chunk
    lines = data.split(b"\n")
    if DONE.strip() in lines:
        return
    servers = [int(line) for line in lines if line.isdigit()]
    doomed = [pid for server in servers for pid in (server, *descendants(server))]
    for pgid in servers:
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
    for pid in doomed:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
