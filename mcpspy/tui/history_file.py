"""What the user typed in the filter and search bars, kept across runs.

One small JSON file in mcpspy's state dir (``prompt-history.json``), 0600 in
a 0700 directory, never read or written through a symlink, replaced whole by
a rename. It holds only what was typed and entered, at most ``LIMIT`` entries
a bar. Its contents are not trusted: anything that is not a short line of
printable text is dropped on reading. A failure to read or write it is
silent: history is a convenience, never a reason to stop the inspector.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path

from mcpspy.capture.private import CaptureRefused, private_dir_fd, write_private_atomic
from mcpspy.state_dir import state_dir

NAME = "prompt-history.json"
LIMIT = 50  # entries kept a bar
MAX_CHARS = 2000  # longer entries are not kept (nobody types one; a tampered file might hold one)
MAX_BYTES = 1 << 20
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def _clean(entries: object) -> list[str]:
    if not isinstance(entries, list):
        return []
    kept = [
        e for e in entries if isinstance(e, str) and 0 < len(e) <= MAX_CHARS and not _UNPRINTABLE.search(e)
    ]
    return list(dict.fromkeys(reversed(kept)))[:LIMIT][::-1]  # the newest of duplicates, oldest first


class HistoryFile:
    """The history of each bar, by key (``filter``, ``search``)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else state_dir()

    @property
    def path(self) -> Path:
        return self.directory / NAME

    def _read_all(self, dir_fd: int) -> dict[str, list[str]]:
        try:
            fd = os.open(NAME, _READ, dir_fd=dir_fd)
        except OSError:
            return {}
        try:
            data = os.read(fd, MAX_BYTES + 1)
        except OSError:
            return {}
        finally:
            os.close(fd)
        if len(data) > MAX_BYTES:
            return {}
        try:
            loaded = json.loads(data)
        except (ValueError, RecursionError):
            return {}
        if not isinstance(loaded, dict):
            return {}
        return {key: _clean(value) for key, value in loaded.items() if isinstance(key, str)}

    def load(self, key: str) -> list[str]:
        """The entries for ``key``, oldest first; [] when there are none or the file is not ours."""
        try:
            dir_fd = private_dir_fd(self.directory, create=False)
        except (OSError, CaptureRefused):
            return []
        try:
            return self._read_all(dir_fd).get(key, [])
        finally:
            os.close(dir_fd)

    def add(self, key: str, text: str) -> list[str]:
        """Put ``text`` last in ``key``'s history (merged with what other runs saved); the new history."""
        try:
            dir_fd = private_dir_fd(self.directory)
        except (OSError, CaptureRefused):
            return []
        try:
            everything = self._read_all(dir_fd)
            everything[key] = _clean([*everything.get(key, []), text])
            self._write(dir_fd, everything)
            return everything[key]
        finally:
            os.close(dir_fd)

    @staticmethod
    def _write(dir_fd: int, everything: dict[str, list[str]]) -> None:
        data = json.dumps(everything, ensure_ascii=False, indent=1).encode("utf-8")
        with contextlib.suppress(OSError):  # a history that cannot be saved is only forgotten
            write_private_atomic(Path(NAME), data, dir_fd=dir_fd)
