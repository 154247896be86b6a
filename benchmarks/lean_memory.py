"""The lean analysis (--log, the live OTLP sink) under a flood of requests nobody answers.

    .venv/bin/python benchmarks/lean_memory.py [REQUESTS]     # default 300,000 each way

Feeds ``Replay(retain=False)`` what `mcpspy --log FILE -- cat` would record: a
legacy initialize and REQUESTS tools/call requests, each echoed back by `cat` as
a server request, so nothing is ever answered, then concludes. Prints the RSS
rise above the start by tenth of the run, the peak (at the conclusion, which
calls the kept requests unanswered) and CPU seconds. Figures only, never asserted.
"""

from __future__ import annotations

import resource
import sys
import time

from mcpspy.capture.records import LineRecord, Stream
from mcpspy.replay_policy import Replay

INITIALIZE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    b'"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
)


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main(requests: int) -> None:
    replay = Replay(retain=False)
    start_rss, seq, marks = rss_mib(), 0, []
    for stream in (Stream.C2S, Stream.S2C):
        seq += 1
        replay.feed(LineRecord(seq, seq * 1e-5, stream, INITIALIZE))
    cpu = time.process_time()
    for i in range(1, requests + 1):
        data = (
            b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"n":%d}}}'
            % (
                i,
                i,
            )
        )
        for stream in (Stream.C2S, Stream.S2C):
            seq += 1
            replay.feed(LineRecord(seq, seq * 1e-5, stream, data))
        if i % max(1, requests // 10) == 0:
            marks.append(round(rss_mib() - start_rss, 1))
    replay.conclude()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - start_rss
    print(f"{requests:,} each way: RSS rise by tenth (MiB) {marks}; peak rise {peak:.1f} MiB", end="")
    print(f"; CPU {time.process_time() - cpu:.1f} s; {replay.analyzer.message_count:,} messages")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300_000)
