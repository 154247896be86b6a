"""How long captures are kept, and pruning the ones past it.

The proxy prunes its sessions directory as it starts, by ``DEFAULT``: a
capture last written more than 30 days ago goes, and so do the oldest once
all of them together pass 2 GiB. ``--retain`` or ``MCPSPY_RETAIN`` changes
that (``14d``, ``500MiB``, ``30d,2GiB``); ``forever`` turns it off.
``mcpspy sessions --prune`` applies the same policy, or ``--older-than`` and
``--keep``, on demand.

Only what is surely a finished mcpspy capture is deleted: a regular file of
the user's, named ``*.jsonl``, whose first line is a capture header, and
which is not live (its proxy is still running and has not written
proxy-stopped). Anything else in the directory is left alone.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.private import CaptureRefused, private_dir_fd
from mcpspy.capture.sessions import read_header_and_state

DAY = 86400.0
GIB = 1 << 30
ENV = "MCPSPY_RETAIN"

_UNITS_OF_TIME = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": DAY, "w": 7 * DAY}
_UNITS_OF_SIZE = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": GIB, "t": 1 << 40}


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    """What to keep; every limit that is set applies (None: no such limit)."""

    max_age: float | None = None  # seconds since the capture was last written
    max_total: int | None = None  # bytes, all captures together; the oldest go first
    keep: int | None = None  # the newest this many

    @property
    def forever(self) -> bool:
        return self.max_age is None and self.max_total is None and self.keep is None


DEFAULT = RetentionPolicy(max_age=30 * DAY, max_total=2 * GIB)
FOREVER = RetentionPolicy()


def parse_age(text: str) -> float:
    """``30d``, ``12h``, ``90m``, ``2w``, ``3600s`` (or a bare number of seconds) to seconds."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([smhdw]?)", text.strip().lower())
    if match is None:
        raise ValueError(f"not an age: {text!r} (try 30d, 12h or 90m)")
    return float(match[1]) * _UNITS_OF_TIME[match[2] or "s"]


def parse_size(text: str) -> int:
    """``2GiB``, ``500MB``, ``1.5G``, ``800k`` to bytes (K, M, G, T are powers of 1024)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?", text.strip().lower())
    if match is None:
        raise ValueError(f"not a size: {text!r} (try 2GiB or 500MiB)")
    return int(float(match[1]) * _UNITS_OF_SIZE[match[2]])


def parse_policy(text: str) -> RetentionPolicy:
    """``forever``, or ages and sizes separated by commas: ``30d,2GiB``."""
    if text.strip().lower() in ("forever", "never", "off", "none"):
        return FOREVER
    age: float | None = None
    total: int | None = None
    for term in filter(None, (t.strip() for t in text.split(","))):
        if re.fullmatch(r"[\d.]+\s*[smhdw]", term.lower()):
            age = parse_age(term)
        else:
            try:
                total = parse_size(term)
            except ValueError:
                raise ValueError(
                    f"not a retention policy: {text!r} (try 30d,2GiB, 14d, 500MiB or forever)"
                ) from None
    if age is None and total is None:
        raise ValueError(f"not a retention policy: {text!r} (try 30d,2GiB, 14d, 500MiB or forever)")
    return RetentionPolicy(max_age=age, max_total=total)


def policy_from(option: str | None, env: Mapping[str, str] | None = None) -> RetentionPolicy:
    """``--retain``, else ``$MCPSPY_RETAIN``, else the default. ValueError names a bad one."""
    env = os.environ if env is None else env
    if option is not None:
        return parse_policy(option)
    if env.get(ENV):
        try:
            return parse_policy(env[ENV])
        except ValueError as exc:
            raise ValueError(f"{ENV}: {exc}") from None
    return DEFAULT


@dataclass
class Pruned:
    """What a prune did in one directory."""

    directory: Path
    deleted: int = 0
    freed: int = 0  # bytes
    kept: int = 0
    live: int = 0  # of the kept, those still being written
    problems: list[str] = field(default_factory=list)


def prune(directory: Path, policy: RetentionPolicy, now: float | None = None) -> Pruned:
    """Delete the captures in ``directory`` that ``policy`` lets go; never a live one.

    Captures are judged newest first by when they were last written, so
    ``keep`` and ``max_total`` keep the newest. Raises CaptureRefused for a
    directory that others could tamper with, as the proxy refuses to write
    there; a missing directory has nothing to prune.
    """
    result = Pruned(directory)
    if policy.forever:
        return result
    try:
        dir_fd = private_dir_fd(directory, create=False)
    except FileNotFoundError:
        return result
    now = time.time() if now is None else now
    try:
        total = 0
        for index, (name, st) in enumerate(_captures_newest_first(dir_fd)):
            old = policy.max_age is not None and now - st.st_mtime > policy.max_age
            beyond = (policy.keep is not None and index >= policy.keep) or (
                policy.max_total is not None and total + st.st_size > policy.max_total
            )
            if (old or beyond) and _delete_if_finished(dir_fd, name, st, result):
                result.deleted += 1
                result.freed += st.st_size
            else:
                result.kept += 1
                total += st.st_size
    finally:
        os.close(dir_fd)
    return result


def prune_at_start(directory: Path, policy: RetentionPolicy) -> str | None:
    """The proxy's prune as it starts: never raises; what it did, for --verbose, if anything."""
    try:
        result = prune(directory, policy)
    except (CaptureRefused, OSError) as exc:
        return f"not pruning {directory}: {exc}"
    return pruned_text(result) if result.deleted or result.problems else None


def _captures_newest_first(dir_fd: int) -> list[tuple[str, os.stat_result]]:
    """Regular ``*.jsonl`` files of the user's in the directory (no symlinks), newest first."""
    found = []
    uid = os.geteuid()
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            if not entry.name.endswith(".jsonl"):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_uid == uid:
                found.append((entry.name, st))
    found.sort(key=lambda item: (item[1].st_mtime, item[0]), reverse=True)
    return found


def _delete_if_finished(dir_fd: int, name: str, st: os.stat_result, result: Pruned) -> bool:
    """Delete ``name`` if it is still that file, a capture, and not live; whether it was deleted."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            return False
        _, live = read_header_and_state(fd)
    except CaptureFormatError:
        return False  # not a capture of ours: never deleted
    except OSError as exc:
        result.problems.append(f"{result.directory / name}: {exc.strerror or exc}")
        return False
    finally:
        os.close(fd)
    if live:
        result.live += 1
        return False
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return False  # pruned meanwhile by another mcpspy
    except OSError as exc:
        result.problems.append(f"{result.directory / name}: {exc.strerror or exc}")
        return False
    return True


def size_text(size: float) -> str:
    """Bytes for a person: ``812 B``, ``14.2 MiB``."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def pruned_text(result: Pruned) -> str:
    """One line: what went, what stayed."""
    live = f", {result.live} of them live" if result.live else ""
    return (
        f"deleted {result.deleted} capture{'s' * (result.deleted != 1)} ({size_text(result.freed)}) "
        f"in {result.directory}; kept {result.kept}{live}"
    )
