"""Blocking file-descriptor I/O for the pump threads, and fd hygiene.

The pumps block in ``read``/``write`` on their own threads: the kernel wakes a
blocked reader the moment bytes land, which no event loop hop can beat, and
mcpspy's own stdio (often a shared terminal) never has to turn non-blocking.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import functools
import os
import select
from collections.abc import Callable
from typing import Any, cast

READ_SIZE = 1 << 16  # as much as a pipe holds by default: a bigger buffer costs an mmap a read
#: What a pump reads at once inside a big line, from pipes widened to hold it: a 64 MiB line in
#: 1 MiB reads and writes, not 64 KiB ones (the proxy's context switches over it: 4,700 -> 360).
BULK_READ = 1 << 20  # Linux's pipe-max-size for unprivileged users, by default


def read_chunk(fd: int, size: int = READ_SIZE) -> bytes:
    """The next chunk, or b"" at end of stream (a hung-up terminal's EIO counts)."""
    while True:
        try:
            return os.read(fd, size)
        except InterruptedError:
            continue
        except BlockingIOError:  # handed to us non-blocking: wait as if it were not
            select.select([fd], [], [])
        except OSError as exc:
            if exc.errno in (errno.EIO, errno.EBADF):
                return b""
            raise


def write_all(fd: int, data: bytes | memoryview) -> None:
    """Write every byte; raises OSError (EPIPE, ...) when the reader is gone."""
    try:
        written = os.write(fd, data)  # the common case: one write takes it all
    except (InterruptedError, BlockingIOError):
        written = 0
    if written < len(data):
        _write_rest(fd, memoryview(data)[written:])


def _write_rest(fd: int, view: memoryview) -> None:
    while view:
        try:
            written = os.write(fd, view)
        except InterruptedError:
            continue
        except BlockingIOError:
            select.select([], [fd], [])
            continue
        view = view[written:]


def widen_pipe(fd: int, size: int = BULK_READ) -> int:
    """Let the pipe at ``fd`` hold at least ``size`` bytes; what it holds now (0: not a pipe).

    Capacity only (``F_SETPIPE_SZ``): the bytes, their order and when a reader sees them stay as
    they were. A pipe that holds more already is left so; one that cannot grow (the user's pipe
    quota) stays as it is.
    """
    try:
        held: int = fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ)
    except (OSError, AttributeError):  # not a pipe; not Linux
        return 0
    if held >= size:
        return held
    try:
        return fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)
    except OSError:  # over the user's quota of pipe memory
        return held


def writer_to(fd: int) -> Callable[[bytes], None]:
    """``write_all`` to fd, as a pump's forward callable."""
    return functools.partial(write_all, fd)


def write_quietly(fd: int, data: bytes) -> None:
    """For mcpspy's own few lines on stderr: never raise."""
    try:
        write_all(fd, data)
    except OSError:
        pass


def ensure_std_fds() -> None:
    """Give closed fds 0-2 /dev/null, so no pipe we open lands on them."""
    for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, mode)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


def close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when the thread that forked it ends


def libc_function(name: str) -> Any:
    """A C library function from the symbols this process already has, or None where there is none.

    Not ``ctypes.util.find_library("c")``: that runs ``ldconfig -p`` (a process of mcpspy's, at
    every start) to find what is already loaded. ``errno`` is kept for ``ctypes.get_errno``.
    """
    try:
        return getattr(ctypes.CDLL(None, use_errno=True), name, None)
    except (OSError, TypeError):
        return None


def _libc_tee() -> Callable[[int, int, int, int], int] | None:
    """libc's ``tee`` (Linux only), or None."""
    function = libc_function("tee")
    if function is None:
        return None
    function.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.c_uint)
    function.restype = ctypes.c_ssize_t
    return cast(Callable[[int, int, int, int], int], function)


_tee = _libc_tee()


def tee_then_read(source: int, sink: int, size: int) -> bytes:
    """Forward up to ``size`` bytes waiting in pipe ``source`` to pipe ``sink``, then read them.

    ``tee(2)`` links the pages into ``sink`` (no copy, and before this thread copies them out), the
    bytes staying in ``source`` for the read that records them. Blocks while ``sink`` is full; b"" at
    the end of ``source``. Raises OSError: EINVAL (either is not a pipe, or no ``tee`` here: nothing
    was forwarded nor read), EPIPE (``sink``'s reader is gone).
    """
    if _tee is None:
        raise OSError(errno.EINVAL, "no tee(2) here")
    while (linked := _tee(source, sink, size, 0)) < 0:
        if (err := ctypes.get_errno()) != errno.EINTR:
            raise OSError(err, os.strerror(err))
    data = os.read(source, linked) if linked else b""
    while len(data) < linked:  # only this thread reads ``source``: the bytes linked are there
        data += os.read(source, linked - len(data))
    return data
