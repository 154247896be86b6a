"""A pump: one stream's copy loop, a blocking loop on a worker thread.

    read -> stamp -> forward -> yield -> record

Once full reads with no newline add up to ``BULK_AFTER`` (a big line), the
pipes either side are widened and the pump reads up to ``fdio.BULK_READ`` at
once, without the yield, until a read is short or ends a line.

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
from collections.abc import Callable
from dataclasses import dataclass

import trio

from mcpspy.capture.records import Stream
from mcpspy.proxy.fdio import BULK_READ, READ_SIZE, close_quietly, read_chunk, widen_pipe
from mcpspy.proxy.heap import keep_freed
from mcpspy.proxy.recording import Recording

#: How long a line must run before its pump reads in bulk and widens the pipes. Under it a line
#: moves as before, so what a client can write to a server that stopped reading, before its write
#: blocks, stays as it was (``mcpspy check`` sees a server stuck inside its 1 MiB line so).
BULK_AFTER = 4 << 20


@dataclass(frozen=True)
class Pump:
    """Copy ``source`` on through ``forward`` until end of stream, recording every chunk."""

    stream: Stream
    source: int  # read to its end, then closed
    forward: Callable[[bytes], None]  # raises OSError when the reader is gone
    on_forward_error: Callable[[OSError], None] | None = None  # then the pump goes on, recording only
    closes: int | None = None  # a destination fd the pump owns, closed at the end (the server's stdin)
    sink: int | None = None  # the fd ``forward`` writes to, widened with ``source`` for a big line

    async def run(self, recording: Recording) -> None:
        """Until end of stream. Cancelled, the thread is abandoned with its fds, not waited for."""
        await trio.to_thread.run_sync(self.run_blocking, recording, abandon_on_cancel=True)

    def run_blocking(self, recording: Recording) -> None:
        forwarding = True
        size = READ_SIZE
        bulk = 0  # what a read takes inside a big line: 0 until the first one
        line_run = 0  # bytes of full reads in a row with no newline: how long the line is so far
        try:
            while True:
                data = read_chunk(self.source, size)
                ticket, t = recording.stamp()
                if data and forwarding:
                    try:
                        self.forward(data)
                    except OSError as exc:
                        forwarding = False
                        if self.on_forward_error is not None:
                            self.on_forward_error(exc)
                    if size == READ_SIZE:
                        # A write to a pipe wakes its reader on this CPU, expecting the writer to
                        # sleep next; this one records first. Yielding lets the woken peer run now
                        # instead of after the recording (added latency 1.56x -> 1.26x of a bare
                        # forwarder's). Not in the middle of a big line: the peer has a full pipe
                        # to work on, and a yield a chunk was 2,000 context switches a 64 MiB line.
                        os.sched_yield()
                recording.chunk(ticket, self.stream, t, data)
                if not data:
                    return
                if len(data) >= READ_SIZE and b"\n" not in data:
                    # Full reads inside one line: a big line, once they add up to ``BULK_AFTER``.
                    # Not merely full reads: pipelined small messages read in bulk held twice the
                    # memory (RSS 62 MiB over 1,000,000 messages, not 32).
                    line_run += len(data)
                    if size == READ_SIZE and line_run >= BULK_AFTER:
                        keep_freed()  # its MiBs reused from the heap (``proxy.heap``)
                        bulk = bulk or self._widen()
                        size = bulk
                else:
                    line_run, size = 0, READ_SIZE
        finally:
            close_quietly(self.source)
            if self.closes is not None:
                close_quietly(self.closes)

    def _widen(self) -> int:
        """Widen the pipes either side to ``BULK_READ``; what a read may take from now on."""
        if self.sink is not None:
            widen_pipe(self.sink)
        return max(READ_SIZE, min(BULK_READ, widen_pipe(self.source)))
