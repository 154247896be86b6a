"""The proxy's side of its sink process: ``--log`` and the live OTLP export run in a child of mcpspy.

Their analysis is Python work of the same size as the traffic; on a thread
of the proxy's it took the GIL from the pumps (a live collector's p99 was 30x
socat's, BENCHMARKS.md). So the proxy only hands bytes over: the capture
writer's ``tee`` gives this feed the records exactly as it stored them
(header first, redacted), and a child process (``proxy.sink_child``) reads
them as a live view reads a capture, analyses them and writes the log and the
spans. The proxy never waits on it:

- the feed is a pipe written without blocking; what the pipe cannot take
  waits here, up to ``HELD_LIMIT`` bytes, for a flusher thread that exists
  only while something waits; past the bound whole records are dropped,
  counted, and told to the child at their place (a ``capture-gap`` record
  with ``sink_skipped``), once the wait has drained to half;
- what the child says (its log lines with ``--log -``, its warnings) comes
  back on a second pipe and goes out through the shared stderr a whole line
  at a time, never inside a server's line.

At the end (``close``) the feed gets ``FEED_WAIT`` to drain while it makes
progress, then its end: the child finishes within its own deadlines
(``sink_child.EXIT_WAIT``); past ``CHILD_WAIT`` it is told to stop (it says what
it leaves), then killed. The child has a session of its own (a Ctrl-C at the
terminal is the proxy's to pass on, not the child's to die of) and is
excluded from the proxy's sweep of the server's leftovers (``run.py``): it is
stopped here, last. If mcpspy is SIGKILLed, the feed's end reaches the child
all the same, and it finishes within the same deadlines.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence

from mcpspy.proxy.fdio import close_quietly, read_chunk, widen_pipe

CHILD_MODULE = "mcpspy.proxy.sink_child"
PIPE_SIZE = 1 << 20  # the feed pipe's buffer (Linux's default maximum for an unprivileged process)
HELD_LIMIT = 16 << 20  # bytes held here while the pipe is full, past which records are dropped
RESUME_AT = HELD_LIMIT // 2
FEED_WAIT = 5.0  # at the end, how long what is held may take to reach the child while it moves
FEED_STALL = 1.0  # ... and how long it may not move (a child that stopped reading) before it is let go
CHILD_WAIT = 8.0  # then, how long the child has to finish (its own deadlines are shorter)
LAST_WORD_WAIT = 1.0  # told to stop (SIGTERM), how long it has to say what it leaves
WRITE_MAX = 512  # pieces per writev


def gap_record(count: int) -> bytes:
    """What the child reads where records were dropped before it (``sink_child`` tells its sinks)."""
    return b'{"seq":0,"t":0.0,"event":"capture-gap","sink_skipped":%d}\n' % count


def _ends_record(piece: bytes | memoryview) -> bool:
    return len(piece) > 0 and piece[-1] == 0x0A  # a record's encoding has no raw newline inside


def _newlines(piece: bytes | memoryview) -> int:
    return (piece if isinstance(piece, bytes) else bytes(piece)).count(b"\n")


class SinkProcess:
    """The child, its feed and its voice. ``__call__`` is the capture writer's tee (its thread)."""

    def __init__(
        self,
        options: Sequence[str],
        say: Callable[[bytes], None],
        warn: Callable[[str], None],
        pass_fds: Sequence[int] = (),
    ) -> None:
        """Start the child with ``options`` (``sink_child``'s command line); ``say`` writes its words."""
        self._say = say
        self._warn = warn
        feed_r, self._feed = os.pipe()
        voice_r, voice_w = os.pipe()
        widen_pipe(self._feed, PIPE_SIZE)  # a smaller pipe only means drops come sooner
        os.set_blocking(self._feed, False)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", CHILD_MODULE, *options],
                stdin=feed_r, stdout=voice_w, stderr=voice_w, pass_fds=tuple(pass_fds),
                start_new_session=True,
            )  # fmt: skip
        except BaseException:
            for fd in (self._feed, voice_r):
                close_quietly(fd)
            raise
        finally:
            close_quietly(feed_r)
            close_quietly(voice_w)
        self.pid = self.process.pid
        self._lock = threading.Condition()
        self._held: list[bytes | memoryview] = []  # what the pipe has not taken yet, in order
        self._held_size = 0
        self._open_record = False  # the last byte handed on is inside a record
        self._dropping = False
        self._dropped_open = False  # the last byte dropped is inside a record (drop up to its end)
        self._torn = False  # dropping began inside a record whose start was handed on: end it first
        self._skipped = 0  # records dropped and not yet told
        self.skipped_total = 0
        self._gone = False  # the child stopped reading for good (it exited): nothing more is fed
        self._closing = False
        self._flusher: threading.Thread | None = None
        self._voice = threading.Thread(
            target=self._relay, args=(voice_r,), name="mcpspy-sink-voice", daemon=True
        )
        self._voice.start()

    # --- the capture writer's thread: hand on, or hold, or drop; never wait

    def __call__(self, pieces: Sequence[bytes | memoryview]) -> None:
        with self._lock:
            if self._gone or self._closing or not pieces:
                return
            if self._dropping:
                self._resume_if_drained()
                if self._dropping:
                    self._drop(pieces)
                    return
            if self._held:
                self._hold(pieces)
                return
            written = self._write(pieces)
            if written < 0:
                return
            rest = self._rest(pieces, written)
            if written:
                self._open_record = not self._ends_record_at(pieces, written)
            self._hold(rest)

    def _write(self, pieces: Sequence[bytes | memoryview]) -> int:
        """Under the lock: bytes the pipe took now (0 when full); -1 when the child is gone."""
        try:
            return os.writev(self._feed, pieces[:WRITE_MAX])
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError:  # EPIPE: the child exited; what it missed is said at close
            self._gone = True
            return -1

    @staticmethod
    def _rest(pieces: Sequence[bytes | memoryview], written: int) -> list[bytes | memoryview]:
        rest: list[bytes | memoryview] = []
        for piece in pieces:
            if written >= len(piece):
                written -= len(piece)
                continue
            rest.append(bytes(piece[written:]) if written or isinstance(piece, memoryview) else piece)
            written = 0
        return rest

    @staticmethod
    def _ends_record_at(pieces: Sequence[bytes | memoryview], written: int) -> bool:
        """Whether the first ``written`` bytes of ``pieces`` end at a record's end."""
        for piece in pieces:
            if written <= len(piece):
                return written > 0 and piece[written - 1] == 0x0A
            written -= len(piece)
        return False

    def _hold(self, pieces: Sequence[bytes | memoryview]) -> None:
        """Under the lock: keep what the pipe did not take, or start dropping past the bound."""
        if not pieces:
            return
        size = sum(len(piece) for piece in pieces)
        if self._held_size + size > HELD_LIMIT:
            self._dropping = True
            self._torn = self._open_record
            self._drop(pieces)
            return
        self._held += [piece if isinstance(piece, bytes) else bytes(piece) for piece in pieces]
        self._held_size += size
        self._open_record = not _ends_record(pieces[-1])
        self._wake_flusher()

    def _wake_flusher(self) -> None:
        """Under the lock: the flusher thread, started the first time something is held."""
        if self._flusher is None:
            self._flusher = threading.Thread(target=self._flush, name="mcpspy-sink-feed", daemon=True)
            self._flusher.start()
        self._lock.notify_all()

    def _drop(self, pieces: Sequence[bytes | memoryview]) -> None:
        """Under the lock: whole records only; the count is what the child is told."""
        for piece in pieces:
            count = _newlines(piece)
            self._skipped += count
            self.skipped_total += count
            if len(piece):
                self._dropped_open = not _ends_record(piece)

    def _resume_if_drained(self, at_end: bool = False) -> None:
        """Under the lock: once half drained, at a record boundary, the child is told the gap."""
        if not self._dropping or (self._held_size > RESUME_AT and not at_end):
            return
        if self._dropped_open and not at_end:
            return  # in the middle of a dropped record: its end goes too
        if self._dropped_open:
            self._skipped += 1  # the end: the record never ended
            self.skipped_total += 1
        tell = (b"\n" if self._torn else b"") + gap_record(self._skipped)
        self._dropping = self._dropped_open = self._torn = False
        self._skipped = 0
        self._held.append(tell)
        self._held_size += len(tell)
        self._open_record = False
        self._wake_flusher()

    def _flush(self) -> None:
        """While something is held: wait until the pipe has room, hand on what fits."""
        poller = select.poll()
        poller.register(self._feed, select.POLLOUT)
        while True:
            with self._lock:
                while not self._held and not self._closing and not self._gone:
                    self._lock.wait()
                if self._gone or (self._closing and not self._held):
                    return
            poller.poll(100)  # ms; the pipe has room, or a look at whether we are done
            with self._lock:
                if self._gone:
                    return  # close() owns the fd now
                if not self._held:
                    continue
                written = self._write(self._held)
                if written < 0:
                    return
                self._held = self._rest(self._held, written)
                self._held_size -= written
                self._resume_if_drained()
                self._lock.notify_all()

    # --- the child's words: whole lines, through the shared stderr

    def _relay(self, fd: int) -> None:
        """Until the child's end: its words, whole lines at a time (read on, unsaid, once stderr is gone)."""
        rest, heard = b"", True
        try:
            while chunk := read_chunk(fd):
                end = chunk.rfind(b"\n")
                if end < 0:
                    rest += chunk
                    continue
                if heard:
                    heard = self._tell(rest + chunk[: end + 1])
                rest = chunk[end + 1 :]
            if rest and heard:
                self._tell(rest + b"\n")
        finally:
            close_quietly(fd)

    def _tell(self, data: bytes) -> bool:
        try:
            self._say(data)
        except OSError:
            return False
        return True

    # --- the end

    def close(self) -> None:
        """Hand on what is held (while it moves), end the feed, let the child finish; then stop it."""
        with self._lock:
            self._closing = True
            self._resume_if_drained(at_end=True)
            self._lock.notify_all()
        self._drain_held()
        with self._lock:
            left = self._held_size
            self._gone = True
        close_quietly(self._feed)
        if left:
            self._warn(
                f"mcpspy: {left:,} bytes of records never reached the --log/OTLP process (it stopped reading)"
            )
        self._finish_child()
        self._voice.join(LAST_WORD_WAIT)

    def _drain_held(self) -> None:
        deadline = time.monotonic() + FEED_WAIT
        progress, since = self._held_size, time.monotonic()
        while True:
            with self._lock:
                if not self._held or self._gone:
                    return
                self._lock.wait(0.02)
                held = self._held_size
            now = time.monotonic()
            if held != progress:
                progress, since = held, now
            if now > deadline or now - since > FEED_STALL:
                return

    def _finish_child(self) -> None:
        try:
            self.process.wait(CHILD_WAIT)
            return
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(OSError):
            self.process.send_signal(signal.SIGTERM)  # it says what it leaves, then exits
        try:
            self.process.wait(LAST_WORD_WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
