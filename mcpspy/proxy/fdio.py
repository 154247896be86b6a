"""Raw, non-blocking file-descriptor I/O on trio.

trio's FdStream checkpoints before every read and write; forwarding a line
as soon as it is read matters more here, so the pumps talk to the fds
directly and wait on the kernel only when a read or write would block.
"""

from __future__ import annotations

import errno
import os
import select

import trio

READ_SIZE = 1 << 20


async def read_some(fd: int, size: int = READ_SIZE) -> bytes:
    """The next chunk, or b"" at end of stream (EIO from a hung-up terminal counts)."""
    while True:
        try:
            return os.read(fd, size)
        except BlockingIOError:
            await trio.lowlevel.wait_readable(fd)
        except OSError as exc:
            if exc.errno in (errno.EIO, errno.EBADF):
                return b""
            raise


async def write_all(fd: int, data: bytes) -> None:
    """Write every byte; raises OSError (EPIPE, ...) when the reader is gone."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            await trio.lowlevel.wait_writable(fd)
            continue
        view = view[written:]


def write_all_sync(fd: int, data: bytes) -> None:
    """For mcpspy's own few lines on stderr, which may be non-blocking too."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [], 1.0)
            continue
        except OSError:
            return
        view = view[written:]


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


class NonBlocking:
    """Set fds non-blocking for the proxy's life; put them back as they were."""

    def __init__(self, *fds: int) -> None:
        self._saved: list[tuple[int, bool]] = []
        for fd in fds:
            try:
                self._saved.append((fd, os.get_blocking(fd)))
                os.set_blocking(fd, False)
            except OSError:
                pass

    def restore(self) -> None:
        for fd, blocking in self._saved:
            try:
                os.set_blocking(fd, blocking)
            except OSError:
                pass
        self._saved.clear()
