"""What a capture holds: a header, then line and lifecycle records. Pure data."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from mcpspy.wire.splitter import LineData, line_bytes


class Stream(enum.StrEnum):
    """Which pipe a line travelled on, by the name a capture gives it."""

    C2S = "c2s"  # client -> server: the server's stdin
    S2C = "s2c"  # server -> client: the server's stdout
    ERR = "err"  # the server's stderr

    @property
    def arrow(self) -> str:
        return {"c2s": "→", "s2c": "←", "err": "!"}[self.value]


# Each stream by its name in a capture: not Stream(name), an Enum lookup by value that runs Python code.
STREAM_OF = {stream.value: stream for stream in Stream}


class Event(enum.Enum):
    """Things that happen to the processes rather than on the pipes."""

    SERVER_STARTED = "server-started"  # pid
    STDIN_CLOSED = "stdin-closed"  # the client closed its end; the server's stdin is closed
    SIGNAL_FORWARDED = "signal-forwarded"  # signal
    GRACE_EXPIRED = "grace-expired"  # still running `grace` seconds after stdin closed
    SERVER_TERMINATED = "server-terminated"  # mcpspy sent SIGTERM
    SERVER_KILLED = "server-killed"  # mcpspy sent SIGKILL
    SERVER_EXITED = "server-exited"  # code, or signal
    CLIENT_GONE = "client-gone"  # writing to the client's stdout failed
    PROXY_STOPPED = "proxy-stopped"  # exit code of mcpspy
    CAPTURE_GAP = "capture-gap"  # records dropped to keep forwarding: lines, bytes, first, last, parts
    INJECTED = "injected"  # --inject altered the traffic: fault, spec, altered (seq), before, after
    CAPTURE_TORN = "capture-torn"  # never written: a reader's note that the capture ends inside a record


@dataclass(frozen=True, slots=True)
class Header:
    """The first record of every capture."""

    format: str
    session: str
    started: str  # ISO 8601, UTC
    command: tuple[str, ...]
    name: str
    cwd: str
    mcpspy: str
    pid: int
    escaped: tuple[str, ...] = ()  # the fields where bytes that were not UTF-8 are stored as \xNN


@dataclass(slots=True)  # not frozen: one a line read, where frozen costs 3x to make (1.3 us, not 0.4)
class LineRecord:
    """One line seen on one stream, without its newline. Never changed once made (not frozen: above)."""

    seq: int
    t: float  # seconds since the session started (monotonic clock)
    stream: Stream
    data: bytes
    terminated: bool = True

    @property
    def wire(self) -> bytes:
        """The bytes exactly as they were forwarded."""
        return self.data + b"\n" if self.terminated else self.data

    @property
    def size(self) -> int:
        return len(self.data) + (1 if self.terminated else 0)


@dataclass(frozen=True, slots=True)
class LifecycleRecord:
    """A process event; ``details`` carries pid, code, signal or byte counts."""

    seq: int
    t: float
    event: Event
    details: dict[str, int | str | float] = field(default_factory=dict)


Record = LineRecord | LifecycleRecord


@dataclass(frozen=True, slots=True)
class LinePart:
    """A piece of a line still open, recorded before the line ends (``wire.splitter.PART_AT``).

    It has no seq: the line gets its seq when it ends, like every line. Readers
    join the parts of a stream to the line record that ends them.
    """

    stream: Stream
    t: float
    index: int  # 1, 2, ... within its line
    data: bytes  # b"" once encoded (``encoded``), which then stands for it
    # Its capture record, encoded by the pump that handed it in (proxy/recording.py) so that the
    # writer thread only writes it (in pieces: a plain part's data is one, uncopied), and the data's
    # size, ``data`` being let go then; None and 0 until then. Not part of what the part is.
    encoded: tuple[bytes, ...] | None = field(default=None, compare=False, repr=False)  # to write in a row
    encoded_size: int = field(default=0, compare=False, repr=False)

    @property
    def size(self) -> int:
        """Its bytes on the wire."""
        return len(self.data) if self.encoded is None else self.encoded_size


@dataclass(slots=True)  # not frozen: made once a chunk recorded, where frozen costs 25% more (callgrind)
class LineBatch:
    """The line records one chunk completed: one stream, one time, seqs from ``first_seq`` on.

    What the proxy records on its hot path: one object a chunk, not one a line.
    """

    first_seq: int
    t: float
    stream: Stream
    lines: Sequence[LineData]  # only the first can be a LongLine (the line held over)
    terminated: bool = True  # False only for a stream's unterminated last line
    # Its capture bytes, encoded by the thread that handed it in (proxy/recording.py), so the writer
    # thread only writes them; None until then. Not part of what the batch is.
    encoded: bytes | None = field(default=None, compare=False, repr=False)

    def records(self) -> list[LineRecord]:
        seq, t, stream, terminated = self.first_seq, self.t, self.stream, self.terminated
        return [
            LineRecord(seq + i, t, stream, line_bytes(line), terminated) for i, line in enumerate(self.lines)
        ]


#: What the recorder hands out: runs of line records, lifecycle records, and parts of long lines.
Recorded = LineBatch | LifecycleRecord | LinePart


def as_records(recorded: Sequence[Recorded | Record]) -> list[Record]:
    """The records a view analyses: parts are left out (a streamed line comes whole, as its edges)."""
    out: list[Record] = []
    for item in recorded:
        if isinstance(item, LineBatch):
            out += item.records()
        elif not isinstance(item, LinePart):
            out.append(item)  # a lifecycle record (or a Record some caller already made)
    return out
