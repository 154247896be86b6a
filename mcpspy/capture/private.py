"""Private files and directories: traffic holds tokens and customer data.

Every directory mcpspy creates is 0700 and every capture 0600, whatever the
umask. Nothing is written through a symlink: a capture is created with
``O_CREAT|O_EXCL|O_NOFOLLOW``, inside a directory opened with
``O_NOFOLLOW`` and used by its descriptor, so no path can be swapped between
the check and the write. A sessions directory that others could tamper with
(a symlink, someone else's, writable by group or others) is refused with the
reason, as ssh refuses a lax ``~/.ssh``; it is never chmodded.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_APPEND | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class CaptureRefused(Exception):
    """A place mcpspy will not write a capture to; the message is the one line the user sees."""


def private_dir_fd(path: Path, create: bool = True) -> int:
    """The sessions directory, opened; missing directories on the way are created 0700.

    Raises CaptureRefused for a directory others could tamper with, OSError
    when it cannot be created or opened (FileNotFoundError with ``create`` off).
    """
    path = Path(os.path.abspath(path))
    if create:
        _make_dirs(path)
    try:
        fd = os.open(path, _DIR)
    except OSError:
        if os.path.islink(path):
            raise CaptureRefused(
                f"the sessions directory {path} is a symlink; mcpspy does not write through one "
                "(point --home or MCPSPY_HOME at the real directory)"
            ) from None
        if os.path.exists(path) and not os.path.isdir(path):
            raise CaptureRefused(f"the sessions directory {path} is not a directory") from None
        raise
    try:
        _check_dir(path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check_dir(path: Path, st: os.stat_result) -> None:
    if st.st_uid != os.geteuid():
        raise CaptureRefused(
            f"the sessions directory {path} belongs to uid {st.st_uid}, not to you (uid {os.geteuid()})"
        )
    if st.st_mode & 0o022:
        raise CaptureRefused(
            f"the sessions directory {path} is writable by others (mode {stat.S_IMODE(st.st_mode):04o}); "
            f"make it private with: chmod 700 {path}"
        )


def _make_dirs(path: Path) -> None:
    """Create the missing directories of ``path``, each 0700 whatever the umask."""
    missing: list[Path] = []
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            break
        missing.append(candidate)
    for directory in reversed(missing):
        try:
            os.mkdir(directory, DIR_MODE)
        except FileExistsError:
            continue  # made meanwhile by someone else: checked like any existing one
        fd = os.open(directory, _DIR)  # chmod through the descriptor: it is the directory we made
        try:
            os.fchmod(fd, DIR_MODE)
        finally:
            os.close(fd)


def ensure_private_dir(path: Path) -> None:
    """Create the sessions directory 0700, or check the one there; CaptureRefused says what is wrong."""
    os.close(private_dir_fd(path))


def create_in(dir_fd: int, name: str) -> int:
    """A new file ``name`` in the directory, 0600 whatever the umask; never an existing one."""
    fd = os.open(name, _CREATE, FILE_MODE, dir_fd=dir_fd)
    os.fchmod(fd, FILE_MODE)
    return fd


def open_named_capture(path: Path, overwrite: bool = False) -> int:
    """The file named by ``--capture``, created new (0600); an existing one only with ``overwrite``.

    Raises CaptureRefused for a symlink, or for an existing file unless
    ``overwrite`` is given and it is a regular file of the user's with no
    other hard link; that one is emptied and made 0600. A FIFO of the user's
    that no one else may open (mode 0600) is written to as it is: it replaces
    nothing, and streams the capture to whoever reads it (a reader that stalls
    gets ``capture-gap``s, never a stalled proxy); with no reader, opening it
    fails (ENXIO) and forwarding goes on without a capture. Any other failure
    (a missing directory, no permission) is an OSError.
    """
    try:
        before = os.lstat(path)
    except FileNotFoundError:
        before = None
    if before is None:
        try:
            fd = os.open(path, _CREATE, FILE_MODE)
        except FileExistsError:  # made since the lstat: judged as an existing file
            return open_named_capture(path, overwrite)
        os.fchmod(fd, FILE_MODE)
        return fd
    fifo = _private_fifo(path, before)
    if not fifo:
        _check_existing(path, before, overwrite)
    flags = os.O_WRONLY | os.O_NOFOLLOW | os.O_APPEND | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO must not block
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if os.path.islink(path):  # swapped for a symlink since the lstat
            raise CaptureRefused(f"--capture {path} is a symlink; mcpspy never writes through one") from None
        raise exc
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (before.st_dev, before.st_ino):
            raise CaptureRefused(f"--capture {path} was replaced while mcpspy opened it")
        os.set_blocking(fd, True)
        if fifo:
            _private_fifo(path, now)
            return fd
        _check_existing(path, now, overwrite)
        os.ftruncate(fd, 0)
        os.fchmod(fd, FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _private_fifo(path: Path, st: os.stat_result) -> bool:
    """Whether ``st`` is a FIFO of the user's that only they may open; refused if others may."""
    if not stat.S_ISFIFO(st.st_mode):
        return False
    if st.st_uid != os.geteuid() or st.st_mode & 0o077:
        raise CaptureRefused(f"--capture {path} is a FIFO others may open (make it yours and 0600)")
    return True


def _check_existing(path: Path, st: os.stat_result, overwrite: bool) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise CaptureRefused(f"--capture {path} is a symlink; mcpspy never writes through one")
    if not overwrite:
        raise CaptureRefused(
            f"--capture {path} already exists; name a new file, or add --capture-overwrite to replace it"
        )
    if not stat.S_ISREG(st.st_mode):
        raise CaptureRefused(f"--capture {path} is not a regular file; --capture-overwrite replaces only one")
    if st.st_uid != os.geteuid():
        raise CaptureRefused(f"--capture {path} belongs to uid {st.st_uid}, not to you; it is not replaced")
    if st.st_nlink > 1:
        raise CaptureRefused(f"--capture {path} has other hard links; it is not replaced")


def write_pieces(fd: int, data: bytes | Iterable[bytes]) -> None:
    """All of ``data`` (bytes, or pieces of it) to ``fd``."""
    for piece in (data,) if isinstance(data, (bytes, bytearray, memoryview)) else data:
        view = memoryview(piece)
        while view:
            view = view[os.write(fd, view) :]


def write_private_atomic(
    path: Path,
    data: bytes | Iterable[bytes],
    *,
    replace: bool = True,
    mode: int = FILE_MODE,
    owner: tuple[int, int] | None = None,
    durable: bool = False,
    check: Callable[[], None] | None = None,
    dir_fd: int | None = None,
) -> None:
    """Write ``data`` to ``path`` whole or not at all, never through a symlink: every private file's writer.

    The bytes go to a new file beside ``path`` (``O_EXCL|O_NOFOLLOW``, ``mode``
    whatever the umask) that is then renamed over ``path``: a reader sees the
    old file or the new one, and a symlink planted at ``path`` is replaced,
    never followed. ``replace=False`` refuses an existing ``path``
    (FileExistsError, a symlink included): the file is created in place with
    ``O_EXCL`` and removed again if writing it fails. ``owner`` (uid, gid) is
    kept where the user may give it; ``durable`` fsyncs the file and the
    directory; ``check`` runs just before the rename and may raise to call it off.
    With ``dir_fd``, ``path`` is a name in that open directory.
    """
    target = path if not replace else path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(target, _NEW_FILE, mode, dir_fd=dir_fd)
    try:
        try:
            os.fchmod(fd, mode)
            if owner is not None:
                with contextlib.suppress(PermissionError):  # only root may give a file away
                    os.fchown(fd, *owner)
            write_pieces(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if check is not None:
            check()
        if replace:
            os.replace(target, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target, dir_fd=dir_fd)
        raise
    if durable:
        sync_dir(path.parent, dir_fd)


def sync_dir(directory: Path, dir_fd: int | None = None) -> None:
    """Make a rename or a new name in ``directory`` (relative to ``dir_fd``) durable (best effort)."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_output(path: Path, data: bytes | Iterable[bytes]) -> None:
    """``--out FILE``: a new or replaced regular file, 0600, written whole; never through a symlink.

    ``data`` may come in pieces (a page written as it is made): the file is still replaced only
    once all of them are written.

    A symlink at ``path`` is refused (OSError ELOOP, as ``O_NOFOLLOW`` says it),
    never followed nor replaced. A device or a FIFO there (``/dev/null``, a
    pipe to another program) is written to as it is: nothing is replaced.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise OSError(errno.ELOOP, "a symlink; mcpspy never writes through one")
    if st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            write_pieces(fd, data)
        finally:
            os.close(fd)
        return
    write_private_atomic(path, data)
