"""A pump: one stream's copy loop, a blocking loop on a worker thread.

    read -> stamp -> forward -> yield -> record

Once full reads with no newline add up to ``BULK_AFTER`` (a big line), the
pipes either side are widened and the pump reads up to ``fdio.BULK_READ`` at
once, without the yield, until a read is short or ends a line (``ReadSize``).
There, where both ends are pipes, the forward is ``tee(2)``: the kernel links
the bytes into the peer's pipe before the pump reads them out to record
(``fdio.tee_then_read``), no copy of them made to forward them.

The stamp (the chunk's place in the record order, and its time) comes the
moment the chunk is read, before it is forwarded: with the pumps running
concurrently, a fast server's reply could otherwise be numbered before the
request that caused it. The recording comes after the forward, and after the
peer the forward woke has had the CPU, so the capture's work stays off the
forwarding path; and it only hands the chunk to memory, encoded (``recording.py``):
the disk, ``--log`` and exports are the writer thread's, which never holds a
pump up (what it cannot keep up with is dropped and told as a capture-gap).
Blocking ``read``/``write`` on a thread of its own: the kernel wakes a
blocked reader the moment bytes land, which no event loop hop can beat.

Speed policy. Code that runs once a chunk is hot: this loop,
``recording.py``, ``capture/recorder.py``, ``capture/admission.py``'s fast
path, ``wire/splitter.py``, ``fdio.py``'s read and write, and the capture's
encoder and writer. Only there may code trade plainness for speed, and each trade says why beside it, with its
measurement: today the yield below, the stamp's lock taken without ``with``,
and ``LineBatch`` (kept with the records, made only by the recorder) left
unfrozen. Everywhere else the plain way is the way.
The yardstick is a bare forwarder in the same run (BENCHMARKS.md): mcpspy's
added latency is to stay within 1.5x the bare forwarder's, about 70 us a
round trip of two chunks on the 2-CPU reference machine, and recording a
chunk costs 10-20 us of CPU, so a microsecond a chunk is worth measuring. On
a loaded machine, count instructions rather than time them (callgrind over a
loop of ``Recording.stamp`` and ``Recording.chunk``): one chunk that is one
line costs about 32,000.
"""

from __future__ import annotations

import os
import select
from collections.abc import Callable
from dataclasses import dataclass

import trio

from mcpspy.capture.records import Stream
from mcpspy.proxy.fdio import BULK_READ, READ_SIZE, close_quietly, read_chunk, tee_then_read, widen_pipe
from mcpspy.proxy.heap import keep_freed
from mcpspy.proxy.recording import Recording

#: How long a line must run before its pump reads in bulk and widens the pipes. Under it a line
#: moves as before, so what a client can write to a server that stopped reading, before its write
#: blocks, stays as it was (``mcpspy check`` sees a server stuck inside its 1 MiB line so).
BULK_AFTER = 4 << 20


class ReadSize:
    """What a pump's next read takes: ``READ_SIZE``, or inside a big line ``fdio.BULK_READ``.

    A big line: full reads with no newline adding up to ``BULK_AFTER``. Then the pipes either side
    are widened to hold a bulk read (never shrunk), glibc keeps what the line frees
    (``proxy.heap``), and reads stay bulk until one is short or holds a newline. Both pumps use it
    (``inject_pump`` too).
    """

    __slots__ = ("_bulk", "_line_run", "_sink", "_source", "size")

    def __init__(self, source: int, sink: int | None) -> None:
        self._source, self._sink = source, sink
        self.size = READ_SIZE
        self._bulk = 0  # what a read takes inside a big line: 0 until the first one
        self._line_run = 0  # bytes of full reads in a row with no newline: how long the line is so far

    def after(self, data: bytes) -> None:
        """Take in what the last read gave."""
        if len(data) >= READ_SIZE and b"\n" not in data:
            # Full reads inside one line: a big line, once they add up to ``BULK_AFTER``. Not merely
            # full reads: pipelined small messages read in bulk held twice the memory (RSS 62 MiB
            # over 1,000,000 messages, not 32).
            self._line_run += len(data)
            if self.size == READ_SIZE and self._line_run >= BULK_AFTER:
                keep_freed()  # its MiBs reused from the heap (``proxy.heap``)
                self._bulk = self._bulk or self._widen()
                self.size = self._bulk
        else:
            self._line_run, self.size = 0, READ_SIZE

    def _widen(self) -> int:
        """Widen the pipes either side to ``BULK_READ``; what a read may take from now on."""
        if self._sink is not None:
            widen_pipe(self._sink)
        return max(READ_SIZE, min(BULK_READ, widen_pipe(self._source)))


@dataclass(frozen=True)
class Pump:
    """Copy ``source`` on through ``forward`` until end of stream, recording every chunk."""

    stream: Stream
    source: int  # read to its end, then closed
    forward: Callable[[bytes], None]  # raises OSError when the reader is gone
    on_forward_error: Callable[[OSError], None] | None = None  # then the pump goes on, recording only
    closes: int | None = None  # a destination fd the pump owns, closed at the end (the server's stdin)
    sink: int | None = None  # the fd ``forward`` writes to: widened for a big line, and teed to

    async def run(self, recording: Recording) -> None:
        """Until end of stream. Cancelled, the thread is abandoned with its fds, not waited for."""
        await trio.to_thread.run_sync(self.run_blocking, recording, abandon_on_cancel=True)

    def run_blocking(self, recording: Recording) -> None:
        forwarding = True
        teeing = self.sink is not None  # inside a big line, forward by tee(2) while the pipes allow it
        reads = ReadSize(self.source, self.sink)
        try:
            while True:
                teed: bytes | None = None
                if reads.size != READ_SIZE and teeing and forwarding:
                    select.select([self.source], [], [])  # input is there: stamped before it goes on
                    ticket, t = recording.stamp()
                    if (teed := self._tee(reads.size)) is None:  # nothing forwarded nor read
                        teeing = False
                    data = teed if teed is not None else read_chunk(self.source, reads.size)
                else:
                    data = read_chunk(self.source, reads.size)
                    ticket, t = recording.stamp()
                if data and forwarding and teed is None:
                    try:
                        self.forward(data)
                    except OSError as exc:
                        forwarding = False
                        if self.on_forward_error is not None:
                            self.on_forward_error(exc)
                    if reads.size == READ_SIZE:
                        # A write to a pipe wakes its reader on this CPU, expecting the writer to
                        # sleep next; this one records first. Yielding lets the woken peer run now
                        # instead of after the recording (added latency 1.56x -> 1.26x of a bare
                        # forwarder's). Not in the middle of a big line: the peer has a full pipe
                        # to work on, and a yield a chunk was 2,000 context switches a 64 MiB line.
                        os.sched_yield()
                recording.chunk(ticket, self.stream, t, data)
                if not data:
                    return
                reads.after(data)
        finally:
            close_quietly(self.source)
            if self.closes is not None:
                close_quietly(self.closes)

    def _tee(self, size: int) -> bytes | None:
        """``fdio.tee_then_read``; None where it cannot (not pipes: EINVAL; the peer gone: EPIPE),
        nothing forwarded nor read: the read and the forward that follow do as they would have."""
        assert self.sink is not None
        try:
            return tee_then_read(self.source, self.sink, size)
        except OSError:
            return None
