"""The scripted client's pipes: the proxy as a child process, driven by three threads.

A writer thread sends what the script queues (a write that blocks, because the
server stopped reading, blocks only that thread); a reader thread splits the
proxy's stdout into lines and messages as they come; a third drains stderr.
Every wait has a deadline (the step's, and the whole check's ``--max-time``),
so a silent or stuck server costs a timeout, never a hang.

What the server writes is hostile, so what is kept of it is bounded: per
step (a window), at most ``KEPT_LINES`` messages and ``KEPT_BYTES`` of them,
besides the replies to the requests of that step; the rest is counted. A line
longer than ``LINE_MAX`` is counted by its size and skipped to its newline,
never held. A window that gets more than ``FLOOD_LINES`` lines or
``FLOOD_BYTES`` bytes is a flood: the reader stops reading (the proxy, and so
the server, is held back by the full pipe rather than recording on) and the
script ends the era.

Lines are counted per stream: the n-th line sent is the n-th c2s line record
of the capture, and the n-th line read the n-th s2c one, because the proxy
records exactly what it forwards.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from mcpspy.capture.records import Stream
from mcpspy.check.model import Evidence
from mcpspy.wire.splitter import PART_AT, LineSplitter, LongLine

READ_SIZE = 1 << 16
STDERR_KEPT = 8192  # bytes of the proxy's stderr kept to explain a failure
MULTILINE_MAX = 500  # lines a pretty-printed message may span before they count as stray text
MULTILINE_BYTES = 1 << 20  # bytes a pretty-printed message may span before they count as stray text
MAX_ANSWERS = 100  # requests of the server's own that the client answers, at most
LINE_MAX = PART_AT  # 16 MiB, as the analysis parses whole: a longer line is counted and skipped
KEPT_LINES = 1000  # messages of one step kept (besides its replies); the rest are counted
KEPT_BYTES = 16 << 20  # bytes of those messages
FLOOD_LINES = 10_000  # lines in one step that make a flood
FLOOD_BYTES = 64 << 20  # bytes in one step that make a flood (an endless line among them)


def id_key(value: Any) -> bytes:
    """Ids as dict keys: any JSON value, so that an echoed object id can be found too."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


@dataclass(frozen=True, slots=True)
class Received:
    """A message (or a line that is none) the server wrote, at the line it started on."""

    evidence: Evidence
    t: float
    payload: Any  # the parsed JSON value; None when the line is not JSON
    size: int  # bytes of the line(s)
    owner: str | None = None  # for a reply without an id: the probe that may have caused it

    @property
    def is_reply(self) -> bool:
        p = self.payload
        return isinstance(p, dict) and ("result" in p or "error" in p) and "method" not in p

    @property
    def anonymous(self) -> bool:
        """A reply with no id, or a null one: it cannot be paired with a request."""
        return self.is_reply and self.payload.get("id") is None

    @property
    def error_code(self) -> Any:
        error = self.payload.get("error") if isinstance(self.payload, dict) else None
        return error.get("code") if isinstance(error, dict) else None


class LineAssembler:
    """Lines into messages, leniently: a glued prefix or a pretty-printed message is still read.

    The script needs the replies to go on; the passive analysis says what was wrong
    with how they were framed.
    """

    def __init__(self) -> None:
        self._group: list[bytes] = []
        self._group_start = 0
        self._group_size = 0

    def line(self, ordinal: int, data: bytes) -> list[tuple[int, Any, bytes]]:
        """(ordinal, payload, raw) for each message or stray line this line completes."""
        body = data[:-1] if data.endswith(b"\r") else data
        if self._group:
            self._group.append(body)
            self._group_size += len(body) + 1
            if body.rstrip()[-1:] in (b"}", b"]"):  # only such a line can end a message: join only then
                joined = b"\n".join(self._group)
                payload = _loads(joined)
                if payload is not None:
                    self._group = []
                    return [(self._group_start, payload, joined)]
            alone = _loads(body)  # inside a message, a line may parse alone ("3,"): still a fragment
            small = len(self._group) < MULTILINE_MAX and self._group_size < MULTILINE_BYTES
            if small and not isinstance(alone, dict | list):
                return []
            stray, self._group = self._group[:-1], []
            out = [(self._group_start + i, None, raw) for i, raw in enumerate(stray)]
            return out + self.line(ordinal, data)
        payload = _loads(body)
        if payload is not None:
            return [(ordinal, payload, body)]
        start = body.find(b"{")
        if start > 0:
            glued = _loads(body[start:])
            if isinstance(glued, dict):
                return [(ordinal, glued, body)]
        if body.lstrip()[:1] in (b"{", b"["):
            self._group, self._group_start, self._group_size = [body], ordinal, len(body)
            return []
        return [(ordinal, None, body)]

    def close(self) -> list[tuple[int, Any, bytes]]:
        group, self._group = self._group, []
        return [(self._group_start + i, None, raw) for i, raw in enumerate(group)]


def _loads(data: bytes) -> Any:
    """JSON, or None; invalid UTF-8 is read with replacement characters (the analysis flags it)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        return orjson.loads(data.decode("utf-8", "replace"))
    except orjson.JSONDecodeError:
        return None


@dataclass(frozen=True, slots=True)
class Flood:
    """More than a step may take: where it came, and how much of it had been read."""

    window: str  # the step during which it came
    first: int  # the ordinal of the window's first stdout line
    lines: int
    size: int  # bytes, those of a line with no end yet among them
    unended: int  # bytes of the line that had no newline yet

    @property
    def sentence(self) -> str:
        if self.unended > FLOOD_BYTES // 2:
            what = f"one line of {_mib(self.unended)} with no end yet"
        else:
            what = f"{self.lines} lines ({_mib(self.size)})"
        return f"the server flooded its stdout: {what} during {self.window}, none of it asked for"


def _mib(size: int) -> str:
    if size >= 1 << 20:
        return f"{size / (1 << 20):.1f} MiB"
    return f"{size / 1024:.1f} KiB" if size >= 1024 else f"{size} bytes"


@dataclass
class Window:
    """What one step read: counted always, kept up to the bounds."""

    name: str
    first: int  # the ordinal of its first stdout line
    lines: int = 0
    size: int = 0
    kept_size: int = 0
    dropped: int = 0  # messages read but not kept


class Driver:
    """One proxy process and the client end of its pipes."""

    def __init__(self, argv: Sequence[str], max_time: float | None = None) -> None:
        self.proc = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0
        )
        self.t0 = time.monotonic()
        self.max_time = max_time
        self.deadline = self.t0 + max_time if max_time is not None else float("inf")
        self.received: list[Received] = []  # the current step's messages, up to the bounds
        self.stdout_closed = threading.Event()
        self.stdout_closed_after: float | None = None  # seconds from start to the server's stdout closing
        self.stdin_drained = threading.Event()
        self.flood: Flood | None = None  # set once: the reader has stopped reading
        self.replies_seen = 0  # replies of any kind, in all
        self.dropped = 0  # messages read but not kept, in all
        self.long_lines: list[int] = []  # the sizes of the lines over LINE_MAX, skipped
        self.busiest: tuple[int, int, str] = (0, 0, "")  # the most lines (and bytes) one step read
        self._window = Window("the start", 0)
        self._wanted: set[bytes] = set()  # ids whose replies the current step waits for
        self._sent_lines = 0
        self._lines_read = 0
        self._replies: dict[bytes, Received] = {}
        self._owner: str | None = None
        self._send_lock = threading.Lock()
        #: How the client answers a request the server sends (legacy servers may ping, or ask for roots);
        #: None: it does not answer (a 2026-07-28 client writes no responses).
        self.answer_server_request: Callable[[dict[str, Any]], bytes] | None = None
        self._answers_left = MAX_ANSWERS
        self._cond = threading.Condition()
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self._stderr = bytearray()
        self._threads = [
            threading.Thread(target=self._write_loop, name="check-writer", daemon=True),
            threading.Thread(target=self._read_loop, name="check-reader", daemon=True),
            threading.Thread(target=self._drain_stderr, name="check-stderr", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    # --- the steps' windows

    def begin_window(self, name: str) -> None:
        """A new step: what the last one kept is let go, and the counts start again."""
        with self._cond:
            self._note_busiest()
            self._window = Window(name, self._lines_read)
            self.received = []
            self._replies = {}
            self._wanted = set()

    def want(self, request_id: Any) -> None:
        """Keep the reply with this id (only replies to the current step's requests are kept)."""
        with self._cond:
            self._wanted.add(id_key(request_id))

    @property
    def out_of_time(self) -> bool:
        return time.monotonic() >= self.deadline

    @property
    def time_left(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    # --- sending

    def send(self, lines: Sequence[bytes]) -> list[Evidence]:
        """Queue lines to go out in one write (pipelined); each is framed with a newline."""
        with self._send_lock:  # the reader thread sends too: answers to the server's own requests
            evidence = [Evidence(Stream.C2S, self._sent_lines + i) for i in range(len(lines))]
            self._sent_lines += len(lines)
            self._outbox.put(b"".join(line + b"\n" for line in lines))
        return evidence

    def expect_anonymous(self, owner: str) -> None:
        """Replies without an id from now on are put down to ``owner`` (a probe that may cause one)."""
        with self._cond:
            self._owner = owner

    def close_stdin(self) -> None:
        """End of file for the server, once everything queued has been written."""
        self._outbox.put(None)

    # --- waiting

    @property
    def lines_read(self) -> int:
        """How many stdout lines have come so far: where a step's window starts or ends."""
        with self._cond:
            return self._lines_read

    @property
    def lines_sent(self) -> int:
        return self._sent_lines

    def reply(self, request_id: Any) -> Received | None:
        with self._cond:
            return self._replies.get(id_key(request_id))

    def wait_replies(self, ids: Sequence[Any], timeout: float) -> dict[bytes, Received]:
        """The replies to ``ids`` that came within ``timeout`` seconds (all of them, at best).

        The wait ends early when the server has gone, has flooded, or the check's time is up.
        """
        keys = [id_key(i) for i in ids]
        deadline = min(time.monotonic() + timeout, self.deadline)
        with self._cond:
            self._wanted.update(keys)
            while True:
                missing = [k for k in keys if k not in self._replies]
                left = deadline - time.monotonic()
                if not missing or left <= 0 or self.stdout_closed.is_set() or self.flood is not None:
                    return {k: self._replies[k] for k in keys if k in self._replies}
                self._cond.wait(left)

    def wait_until(self, ready: Callable[[], bool], timeout: float) -> bool:
        """Wait (bounded as wait_replies is) until ``ready()``, called under the lock, holds."""
        deadline = min(time.monotonic() + timeout, self.deadline)
        with self._cond:
            while not ready():
                left = deadline - time.monotonic()
                if left <= 0 or self.stdout_closed.is_set() or self.flood is not None:
                    return ready()
                self._cond.wait(left)
            return True

    def wait_reply(self, request_id: Any, timeout: float) -> Received | None:
        return self.wait_replies([request_id], timeout).get(id_key(request_id))

    def wait_exit(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def no_reply_reason(self, waited: float) -> str:
        """Why a request went unanswered: the wait ran out, or the server had gone (and when)."""
        if self.flood is not None:
            return f"no reply: {self.flood.sentence}"
        if self.stdout_closed_after is None:
            if self.out_of_time:
                return f"no reply before the check's time ran out (--max-time {self.max_time:g})"
            return f"no reply in {waited:g}s"
        code = self.wait_exit(1.0)  # the proxy exits with the server's code right after its stdout ends
        exited = "closed its stdout" if code is None else f"exited (code {code})"
        return f"no reply: the server {exited} {self.stdout_closed_after:.1f}s after it started"

    def stop(self) -> None:
        """Make sure the proxy (and so the server) is gone: SIGTERM, then SIGKILL."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            if self.wait_exit(3.0) is None:  # after a flood: the proxy is held back by the unread pipe
                self.proc.kill()
                self.proc.wait()
        for thread in self._threads[1:]:
            thread.join(2.0)
        if self.proc.stdout is not None:
            self.proc.stdout.close()  # only now: a proxy whose client stopped reading records on
        with self._cond:
            self._note_busiest()

    @property
    def stderr_tail(self) -> str:
        with self._cond:
            return bytes(self._stderr).decode("utf-8", "replace")

    # --- the threads

    def _write_loop(self) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        fd = stdin.fileno()
        try:
            while (data := self._outbox.get()) is not None:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            self.stdin_drained.set()  # before the close that delivers the EOF, which may end the proxy
        except OSError:
            pass  # the proxy has gone: what follows is judged from the capture
        finally:
            stdin.close()
            self.stdin_drained.set()

    def _read_loop(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        fd, splitter, assembler = stdout.fileno(), LineSplitter(LINE_MAX), LineAssembler()
        skipped = 0  # bytes of the unended line taken out and let go: it is over LINE_MAX
        try:
            while chunk := os.read(fd, READ_SIZE):
                t = time.monotonic() - self.t0
                lines = splitter.feed(chunk)
                with self._cond:
                    self._window.size += len(chunk)
                for line in lines:
                    if isinstance(line, LongLine) and line.parts:  # over LINE_MAX: counted, never held
                        self._deliver(assembler.close(), t)
                        self._skip(skipped + len(line))
                        skipped = 0
                    else:
                        self._deliver(assembler.line(self._lines_read, bytes(line)), t, counted=1)
                skipped += sum(map(len, splitter.take_parts()))
                if self._flooded(skipped + splitter.pending):
                    return  # stdout stays open, unread: the proxy waits on the full pipe till it is stopped
        except OSError:
            pass
        t = time.monotonic() - self.t0
        tail = splitter.close()
        if isinstance(tail, LongLine) and tail.parts:
            self._deliver(assembler.close(), t)
            self._skip(skipped + len(tail))
        elif tail is not None:
            self._deliver(assembler.line(self._lines_read, bytes(tail)), t, counted=1)
        self._deliver(assembler.close(), t)
        with self._cond:
            self.stdout_closed_after = t
            self.stdout_closed.set()
            self._cond.notify_all()

    def _flooded(self, unended: int) -> bool:
        with self._cond:
            window = self._window
            if window.lines <= FLOOD_LINES and window.size <= FLOOD_BYTES:
                return False
            self.flood = Flood(window.name, window.first, window.lines, window.size, unended)
            self._cond.notify_all()
            return True

    def _skip(self, size: int) -> None:
        with self._cond:
            self.long_lines.append(size)
            self._lines_read += 1
            self._window.lines += 1

    def _note_busiest(self) -> None:
        window = self._window
        if (window.lines, window.size) > self.busiest[:2]:
            self.busiest = (window.lines, window.size, window.name)
        self.dropped += window.dropped
        window.dropped = 0

    def _deliver(self, items: list[tuple[int, Any, bytes]], t: float, counted: int = 0) -> None:
        with self._cond:
            self._lines_read += counted
            window = self._window
            window.lines += counted
            for ordinal, payload, raw in items:
                message = Received(Evidence(Stream.S2C, ordinal), t, payload, len(raw))
                if message.is_reply:
                    self.replies_seen += 1
                    if message.anonymous:
                        message = Received(message.evidence, t, payload, len(raw), self._owner)
                    else:
                        key = id_key(payload.get("id"))
                        if key in self._wanted:  # a reply to this step's request: always kept
                            self._replies.setdefault(key, message)
                            continue
                if len(self.received) < KEPT_LINES and window.kept_size + len(raw) <= KEPT_BYTES:
                    self.received.append(message)
                    window.kept_size += len(raw)
                else:
                    window.dropped += 1
            self._cond.notify_all()
        answer = self.answer_server_request
        for _, payload, _ in items:
            if answer is None or not (isinstance(payload, dict) and "method" in payload and "id" in payload):
                continue
            if self._answers_left > 0:  # bounded: a server that takes each answer for a request would loop
                self._answers_left -= 1
                self.send([answer(payload)])

    def _drain_stderr(self) -> None:
        stderr = self.proc.stderr
        assert stderr is not None
        try:
            while chunk := os.read(stderr.fileno(), READ_SIZE):
                with self._cond:
                    self._stderr += chunk
                    del self._stderr[:-STDERR_KEPT]
        except OSError:
            pass
        finally:
            stderr.close()
