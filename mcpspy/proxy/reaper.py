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
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
TERM_WAIT = 0.5  # seconds a swept descendant gets between SIGTERM and SIGKILL
SWEEP_POLL = 0.02
DONE = b"done\n"

WATCHDOG = r"""
import os, signal
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
    signal.signal(s, signal.SIG_IGN)
fd = int(os.sys.argv[1])
data = b""
while True:
    try:
        chunk = os.read(fd, 256)
    except InterruptedError:
        continue
    if not chunk:
        break
    data += chunk
lines = data.split(b"\n")
if b"done" not in lines:
    servers = [int(line) for line in lines if line.isdigit()]
    children = {}
    for name in os.listdir("/proc") if os.path.isdir("/proc") else ():
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
            children.setdefault(int(stat[stat.rfind(b")") + 2 :].split()[1]), []).append(int(name))
        except (OSError, ValueError, IndexError):
            pass
    todo, doomed = list(servers), []
    while todo:
        pid = todo.pop()
        doomed.append(pid)
        todo.extend(children.get(pid, ()))
    for pgid in servers:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    for pid in doomed:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
"""


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
    """Kills the server's process group if mcpspy dies without a clean end (SIGKILL)."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self._fd: int | None = None
        read_fd, write_fd = os.pipe()
        try:
            proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", WATCHDOG, str(read_fd)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(read_fd,),
                start_new_session=True,  # not in the terminal's group: a Ctrl-C is not for it
            )
        except OSError:
            os.close(write_fd)
            return
        finally:
            os.close(read_fd)
        self.pid = proc.pid
        self._fd = write_fd
        proc.returncode = 0  # never waited for: it outlives a clean end by one read

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
