"""Write a capture file; never let a failure stop the traffic.

The file is created 0600, never through a symlink (``capture.private``), and
written in batches, each with as few system calls as it takes (``os.writev``
of the encoded pieces, no joined copy). Credentials are redacted as the line
records are encoded (``capture.redact``), so they never reach the disk. When
a write fails (an unwritable directory, a full disk) the writer says so once,
through ``on_failure``, and from then on drops records: forwarding goes on.

A ``tee`` (the proxy's sink process, ``proxy.sink_process``) is handed the
same encoded bytes, header first, after each write: whatever reads the
capture live reads exactly what was stored, redacted, even when the file
cannot be written.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from mcpspy.capture.format import (
    encode_batch,
    encode_header,
    encode_line,
    encode_lines,
    encode_part_pieces,
    encode_recorded,
)
from mcpspy.capture.private import create_in, open_named_capture, private_dir_fd
from mcpspy.capture.records import Header, LineBatch, LinePart, Recorded, Stream
from mcpspy.capture.redact import DEFAULT_POLICY, RedactionPolicy, Redactor, StreamedRedaction
from mcpspy.wire.splitter import LongLine

WRITE_AT = 1 << 20  # encoded bytes gathered before a write
MAX_PARTS = 512  # pieces per writev, under every system's IOV_MAX

#: Takes a run of encoded records (whole records, or pieces of one long record), never blocks.
Tee = Callable[[Sequence[bytes | memoryview]], None]


class CaptureWriter:
    def __init__(
        self,
        path: Path,
        on_failure: Callable[[str], None],
        redaction: RedactionPolicy = DEFAULT_POLICY,
        tee: Tee | None = None,
    ) -> None:
        self.path = path
        self.tee = tee
        self.redaction = redaction
        self._redactor = Redactor(redaction.keys) if redaction.enabled else None
        self._streamed = StreamedRedaction(self._redactor) if self._redactor is not None else None
        self._on_failure = on_failure
        self._fd = -1
        self.failed = False
        # How long the disk made no progress: the caller sets ``writing_since`` when it starts
        # writing; each write that completes moves it on and keeps the longest stretch between them
        # (``longest_stall``, seconds). ``proxy.recording`` reads both to tell a stalled disk from a
        # burst larger than its buffer.
        self.writing_since: float | None = None
        self.longest_stall = 0.0

    @property
    def redactor(self) -> Callable[[bytes], bytes | None] | None:
        """How this capture redacts a line (None: it does not), for records that quote lines."""
        return None if self._redactor is None else self._redactor.redact

    def open(self, header: Header, private_dir: bool, overwrite: bool = False) -> None:
        """Create the capture and write its header.

        ``private_dir``: the file goes into the sessions directory, created
        0700 when missing. ``overwrite``: an existing ``--capture`` file of the
        user's may be replaced. Raises CaptureRefused, before anything is
        written, for a place mcpspy must not write to; any other failure is
        reported through ``on_failure`` and forwarding goes on.
        """
        try:
            if private_dir:
                dir_fd = private_dir_fd(self.path.parent)
                try:
                    self._fd = create_in(dir_fd, self.path.name)
                finally:
                    os.close(dir_fd)
            else:
                self._fd = open_named_capture(self.path, overwrite)
        except OSError as exc:
            self._fail(exc)
        self._out([encode_header(header, self.redaction.header())])

    def write_line(self, seq: int, t: float, stream: Stream, line: bytes) -> None:
        """Append one line record (the proxy's common case)."""
        if self._fd >= 0:
            try:
                self._write_all(encode_line(seq, t, stream, line, redactor=self._redactor))
            except OSError as exc:
                self._fail(exc)

    def write_recorded(self, recorded: Sequence[Recorded]) -> None:
        """Append what the recorder drained: one write for a few records, a few for a long line."""
        if (self._fd < 0 and self.tee is None) or not recorded:
            return
        if len(recorded) == 1 and type(item := recorded[0]) is LineBatch and type(item.lines[0]) is bytes:
            # the common case: the short lines of one chunk
            self._out([item.encoded or encode_lines(item, self._redactor)])
            return
        parts: list[bytes | memoryview] = []
        size = 0
        for part in encode_recorded(recorded, self._redactor, self._streamed):
            parts.append(part)
            size += len(part)
            if size >= WRITE_AT or len(parts) >= MAX_PARTS:
                self._out(parts)
                parts, size = [], 0
        if parts:
            self._out(parts)

    def encode_ahead(self, recorded: list[Recorded]) -> int:
        """Encode short lines and streamed lines' parts now, on the caller's thread; the writer then
        only writes. Parts are replaced in ``recorded`` by parts that carry their encoding.

        The proxy's pumps call it after their forward, in record order: a writer thread that encodes
        holds the GIL while a later round trip waits for it (BENCHMARKS.md, the capture writer's
        p99), and a writer that encoded a 64 MiB line's parts fell behind the pumps by more than the
        buffer holds. A streamed line's end is encoded here too, after its parts: its redaction
        (``StreamedRedaction``) goes part by part, in order. Returns the bytes the encodings add to
        what the lines held (``capture.admission`` counts them): a part's own data is let go.
        """
        if self._fd < 0 and self.tee is None:
            return 0
        redactor, streamed, encoded = self._redactor, self._streamed, 0
        for i, item in enumerate(recorded):
            if type(item) is LineBatch:
                first = item.lines[0]
                if type(first) is bytes:
                    item.encoded = data = encode_lines(item, redactor)
                elif type(first) is LongLine and first.parts:
                    item.encoded = data = b"".join(encode_batch(item, redactor, streamed))
                else:  # a line of 1-16 MiB held in pieces: the writer encodes it piece by piece, uncopied
                    continue
                encoded += len(data)
            elif type(item) is LinePart:  # ``data`` is let go: its encoding stands for it
                pieces = encode_part_pieces(item, streamed)
                recorded[i] = LinePart(item.stream, item.t, item.index, b"", pieces, len(item.data))
                encoded += sum(map(len, pieces)) - len(item.data)
        return encoded

    def close(self) -> None:
        if self._fd >= 0:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = -1

    def _out(self, parts: list[bytes | memoryview]) -> None:
        """Write the pieces to the file while it works, then hand them to the tee."""
        if self._fd >= 0:
            try:
                self._writev(parts)
            except OSError as exc:
                self._fail(exc)
            if (since := self.writing_since) is not None:
                self.writing_since = now = time.monotonic()
                self.longest_stall = max(self.longest_stall, now - since)
        if self.tee is not None:
            self.tee(parts)

    def _write_all(self, data: bytes | memoryview) -> None:
        written = os.write(self._fd, data)  # the common case: one write takes it all
        if written < len(data):
            view = memoryview(data)[written:]
            while view:
                view = view[os.write(self._fd, view) :]

    def _writev(self, parts: list[bytes | memoryview]) -> None:
        if len(parts) == 1:
            self._write_all(parts[0])
            return
        written = os.writev(self._fd, parts)
        if written < sum(map(len, parts)):  # a short write: finish piece by piece
            for part in parts:
                if written >= len(part):
                    written -= len(part)
                    continue
                self._write_all(memoryview(part)[written:])
                written = 0

    def _fail(self, exc: OSError) -> None:
        self.close()
        if not self.failed:
            self.failed = True
            reason = exc.strerror or str(exc)
            self._on_failure(
                f"mcpspy: cannot write the capture {self.path}: {reason}; forwarding goes on without it"
            )
