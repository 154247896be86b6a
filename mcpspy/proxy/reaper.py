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
process group and every process whose parent chain still leads to the server
or to mcpspy.

By the time the watchdog sees the EOF, the kernel has already re-parented
mcpspy's children, and those of any process that died with it, to init: a
walk of parent links then misses a ``setsid`` grandchild. So the watchdog
knows the descendants before anyone dies: while it waits it walks the tree
every ``TRACK_EVERY`` seconds and remembers each descendant (by pid and start
time, so a reused pid is never killed), and the server is given no
parent-death signal while a watchdog guards it (``Watchdog.guards``): it
lives until the watchdog has walked its tree one last time.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time

from mcpspy.proxy.fdio import ensure_std_fds, libc_function

PR_SET_CHILD_SUBREAPER = 36
TRACK_EVERY = 0.2  # seconds between the watchdog's walks of mcpspy's tree
TERM_WAIT = 0.5  # seconds a swept descendant gets between SIGTERM and SIGKILL
SWEEP_POLL = 0.02
DONE = b"done\n"


def become_subreaper() -> bool:
    """Make orphaned descendants re-parent to mcpspy, so ``sweep`` can find them (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    prctl = libc_function("prctl")
    return prctl is not None and prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def _parents() -> dict[int, int]:
    """Every live process's parent, from /proc (empty where there is no /proc)."""
    return {pid: parent for pid, (parent, _) in _stats().items()}


def _stats() -> dict[int, tuple[int, int]]:
    """Every live process's parent and start time (clock ticks since boot), from /proc."""
    parents: dict[int, tuple[int, int]] = {}
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
        if len(fields) > 19:
            parents[int(name)] = (int(fields[1]), int(fields[19]))
    return parents


def descendants(
    root: int, exclude: frozenset[int] = frozenset(), parents: dict[int, int] | None = None
) -> list[int]:
    """The pids whose parent chain leads to ``root`` (not ``root``; not ``exclude`` nor theirs)."""
    children: dict[int, list[int]] = {}
    for pid, ppid in (_parents() if parents is None else parents).items():
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

    @property
    def guards(self) -> bool:
        """Whether a watchdog runs (the server then needs no parent-death signal)."""
        return self.pid is not None

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


def early_watchdog() -> Watchdog:
    """The watchdog, forked before the proxy's modules (trio and the rest) are imported.

    A fork's resident memory is the parent's, as it was at the fork: forked
    from a mcpspy of ~15 MB it holds about half of what it does forked from
    one that has imported the proxy (~28 MB). The std fds are made sure of
    first, so the watchdog's pipe never lands on fd 0-2.
    """
    ensure_std_fds()
    return Watchdog()


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
    mcpspy, me = os.getppid(), frozenset({os.getpid()})
    known: dict[int, int] = {}  # every descendant of mcpspy seen so far: pid -> start time
    data = b""
    while True:
        if select.select([read_fd], [], [], TRACK_EVERY)[0]:
            if not (chunk := os.read(read_fd, 256)):
                break
            data += chunk
        _track(mcpspy, me, known)
    lines = data.split(b"\n")
    if DONE.strip() in lines:
        return
    servers = [int(line) for line in lines if line.isdigit()]
    stats = _stats()
    parents = {pid: parent for pid, (parent, _) in stats.items()}
    doomed = [pid for server in servers for pid in (server, *descendants(server, me, parents))]
    doomed += [pid for pid, started in known.items() if stats.get(pid, (0, -1))[1] == started]
    for pgid in servers:
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
    for pid in doomed:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _track(mcpspy: int, me: frozenset[int], known: dict[int, int]) -> None:
    """Remember mcpspy's descendants now living; forget those that have ended."""
    stats = _stats()
    for pid in [pid for pid, started in known.items() if stats.get(pid, (0, -1))[1] != started]:
        del known[pid]
    parents = {pid: parent for pid, (parent, _) in stats.items()}
    for pid in descendants(mcpspy, me, parents):
        known[pid] = stats[pid][1]
