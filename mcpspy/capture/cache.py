"""Figures computed from a capture, kept beside it until it changes: `mcpspy stats` and `sessions` stay quick.

A replay costs milliseconds a message; a thousand sessions cost minutes. What
is derived from one capture is kept in a cache file keyed by the capture's
path, size and modification time: a capture that grows (a live session) or
is rewritten is computed again.

    with CaptureCache.open("stats", sessions_dir) as cache:
        figures = cache.get(path, compute)   # compute(path) -> a JSON value, only on a miss

    figures = cached(path, compute, "stats", sessions_dir)   # one capture, one call

The cache is JSON in mcpspy's state directory (``cache_dir``), 0600 in a 0700
directory like the captures whose figures it holds; it is read without
following a symlink, and written to a new private file that is then renamed
into place, so a symlink planted in its place is never written through. An
unreadable cache is an empty one, and so is one that is not the user's own
(a cache under someone else's ``--home``). Nothing in it is trusted whole:
an entry that is not the shape its caller expects (``valid``) is computed
again, and the entries of captures that are gone (pruned, deleted) are
dropped as the cache is loaded, so it never outgrows the sessions directory.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import orjson

from mcpspy.capture.private import write_private_atomic
from mcpspy.capture.sessions import default_sessions_dir, ensure_private_dir

T = TypeVar("T")
CACHE_FORMAT = 1


def is_count(value: Any) -> bool:
    """A cached count: an int (not a bool, nor a float that JSON gave) that is not negative."""
    return type(value) is int and value >= 0


def is_counts(value: Any, numbered: bool = False) -> bool:
    """A cached dict of counts by name (``numbered``: by a number written in ASCII digits)."""
    if not isinstance(value, dict):
        return False
    return all(
        isinstance(k, str) and (not numbered or (k.isascii() and k.isdigit())) and is_count(n)
        for k, n in value.items()
    )


def cache_dir(sessions_dir: Path | None = None) -> Path:
    """``~/.local/state/mcpspy/cache`` beside the default sessions directory; ``DIR/.cache`` for any other."""
    sessions = sessions_dir if sessions_dir is not None else default_sessions_dir()
    if sessions.name == "sessions" and sessions.parent.name == "mcpspy":
        return sessions.parent / "cache"
    return sessions / ".cache"


def file_key(path: Path) -> tuple[str, list[int]] | None:
    """(absolute path, [size, mtime in ns]), or None when the file cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return str(path.absolute()), [st.st_size, st.st_mtime_ns]


class CaptureCache:
    """One namespace of cached figures (``stats``, ``sessions``), loaded once and saved once."""

    def __init__(self, file: Path, version: int = 1) -> None:
        self.file = file
        self.version = version
        self.entries: dict[str, Any] = {}
        self.hits = 0
        self.misses = 0
        self._dirty = False
        self._load()

    @classmethod
    @contextlib.contextmanager
    def open(
        cls, namespace: str, sessions_dir: Path | None = None, version: int = 1
    ) -> Iterator[CaptureCache]:
        """The cache for ``namespace``; saved on leaving if anything was computed.

        Bump ``version`` when what ``compute`` returns changes shape: older entries are then ignored.
        """
        cache = cls(cache_dir(sessions_dir) / f"{namespace}.json", version)
        try:
            yield cache
        finally:
            cache.save()

    def get(self, path: Path, compute: Callable[[Path], T], valid: Callable[[Any], bool] | None = None) -> T:
        """The cached value while the file's size and mtime are unchanged; else ``compute(path)``, kept.

        ``valid``: whether a cached value has the shape ``compute`` gives (else it is computed again).
        """
        key = file_key(path)
        if key is None:
            return compute(path)
        name, stamp = key
        entry = self.entries.get(name)
        if (
            isinstance(entry, dict)
            and entry.get("stamp") == stamp
            and "value" in entry
            and (valid is None or valid(entry["value"]))
        ):
            self.hits += 1
            value: T = entry["value"]
            return value
        self.misses += 1
        value = compute(path)
        self.entries[name] = {"stamp": stamp, "value": value}
        self._dirty = True
        return value

    def _load(self) -> None:
        try:
            fd = os.open(self.file, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return
        try:
            with os.fdopen(fd, "rb") as f:
                st = os.fstat(f.fileno())
                if st.st_uid != os.geteuid() or not stat.S_ISREG(st.st_mode):
                    return  # not the user's own: figures someone else wrote are not shown as theirs
                data = orjson.loads(f.read())
        except (OSError, orjson.JSONDecodeError):
            return
        if isinstance(data, dict) and data.get("format") == [CACHE_FORMAT, self.version]:
            entries = data.get("entries")
            self.entries = entries if isinstance(entries, dict) else {}
        gone = [name for name in self.entries if not os.path.exists(name)]
        for name in gone:  # a capture pruned or deleted: its figures go with it
            del self.entries[name]
        self._dirty = bool(gone)

    def save(self) -> None:
        """Write the cache (only if it changed): a new 0600 file, renamed over the old one."""
        if not self._dirty:
            return
        try:
            ensure_private_dir(self.file.parent)
            data = orjson.dumps({"format": [CACHE_FORMAT, self.version], "entries": self.entries})
            write_private_atomic(self.file, data)
        except OSError:
            return  # a cache that cannot be written only costs time next run
        self._dirty = False


def cached(path: Path, compute: Callable[[Path], T], namespace: str, sessions_dir: Path | None = None) -> T:
    """One capture's value (loads and saves the whole cache: for many captures, ``CaptureCache.open``)."""
    with CaptureCache.open(namespace, sessions_dir) as cache:
        return cache.get(path, compute)
