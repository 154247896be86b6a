"""Edit a user's config file without ever losing it or an update to it.

- A symlinked config is edited at its target: the link stays a link.
- Edits are serialised by ``flock`` on a lock file beside the target, which
  the holder removes before it lets go (a waiter that then gets a removed
  file's lock tries again), so no lock file is left behind.
- The new text is written to a temporary file in the same directory,
  fsynced, and renamed over the old one: a reader sees the old file or the
  new one, never half of either, and a crash leaves one of them whole.
- A write that finds the file changed since it was read (a client saving its
  own config meanwhile) starts over from the new text instead of undoing
  that change.
- The backup is made once, with ``O_EXCL``: a later wrap never overwrites it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mcpspy.capture.private import write_private_atomic

LOCK_SUFFIX = ".mcpspy-lock"
LOCK_WAIT = 30.0  # seconds to wait for another mcpspy editing the same file


class ConfigChanged(Exception):
    """The file changed between our read and our write: read it again."""


class LockUnusable(Exception):
    """The edit lock's file cannot be opened (something planted in its place); the message names it."""


class LockTimeout(Exception):
    """Another mcpspy held the config's lock for longer than ``LOCK_WAIT``."""


def real_path(path: Path) -> Path:
    """The file that a (chain of) symlink(s) points at: edits go there."""
    return Path(os.path.realpath(path))


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A config's text and the identity of the version it was read from."""

    text: str
    mode: int
    uid: int
    gid: int
    version: tuple[int, int, int, int]  # dev, inode, size, mtime in ns


def _version(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def read_snapshot(path: Path) -> Snapshot:
    """Read ``path`` (UTF-8); UnicodeDecodeError or OSError when it cannot be."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        data = f.read()
    return Snapshot(data.decode("utf-8"), st.st_mode & 0o7777, st.st_uid, st.st_gid, _version(st))


@contextlib.contextmanager
def locked(path: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the edit lock of ``path`` (a real path, not a symlink) for the block."""
    lock = path.with_name(path.name + LOCK_SUFFIX)
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            if not os.path.lexists(lock):
                raise  # nothing there: the directory is what refuses (the config cannot be written either)
            raise LockUnusable(f"{lock}: {exc.strerror or exc}") from None  # a symlink, a directory planted
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise LockTimeout(str(lock)) from None
                    time.sleep(0.01)
            try:
                current = os.stat(lock, follow_symlinks=False)
            except FileNotFoundError:
                current = None
            held = os.fstat(fd)
            if current is not None and (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino):
                break  # the lock file is still the one in place: the lock is ours
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # the holder removed it as we waited: take the new one
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock)
        os.close(fd)


def replace(path: Path, text: str, read: Snapshot) -> None:
    """Put ``text`` in place of ``path`` atomically, as the file ``read`` was (mode, owner).

    Raises ConfigChanged when the file is no longer the version ``read``.
    """

    def unchanged() -> None:
        if _version(os.stat(path)) != read.version:
            raise ConfigChanged(str(path))

    unchanged()
    write_private_atomic(
        path, text.encode("utf-8"), mode=read.mode, owner=(read.uid, read.gid), durable=True, check=unchanged
    )


def create_backup(path: Path, text: str, mode: int) -> bool:
    """Write ``text`` to ``path`` unless something is there already; whether it was written."""
    try:
        write_private_atomic(path, text.encode("utf-8"), replace=False, mode=mode & 0o666, durable=True)
    except FileExistsError:
        return False
    return True
