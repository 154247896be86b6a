"""Write a capture file; never let a failure stop the traffic.

The file is created 0600 and written in batches. When a write fails (an
unwritable directory, a full disk) the writer says so once, through
``on_failure``, and from then on drops records: forwarding goes on.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from mcpspy.capture.format import encode_header, encode_record
from mcpspy.capture.records import Header, Record
from mcpspy.capture.sessions import ensure_private_dir


class CaptureWriter:
    def __init__(self, path: Path, on_failure: Callable[[str], None]) -> None:
        self.path = path
        self._on_failure = on_failure
        self._fd = -1
        self.failed = False

    def open(self, header: Header, private_dir: bool) -> None:
        try:
            if private_dir:
                ensure_private_dir(self.path.parent)
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_CLOEXEC
            self._fd = os.open(self.path, flags, 0o600)
            self._write_all(encode_header(header))
        except OSError as exc:
            self._fail(exc)

    def write(self, records: Iterable[Record]) -> None:
        """Append a drained batch in one write, so a follower sees it at once."""
        if self._fd < 0:
            return
        data = b"".join(encode_record(r) for r in records)
        if not data:
            return
        try:
            self._write_all(data)
        except OSError as exc:
            self._fail(exc)

    def close(self) -> None:
        if self._fd >= 0:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = -1

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def _fail(self, exc: OSError) -> None:
        self.close()
        if not self.failed:
            self.failed = True
            reason = exc.strerror or str(exc)
            self._on_failure(
                f"mcpspy: cannot write the capture {self.path}: {reason}; "
                "forwarding goes on without it"
            )
