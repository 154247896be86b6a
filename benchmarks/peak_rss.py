"""Peak RSS of the proxy under a line it cannot hold, and how long its capture takes to finish.

    python benchmarks/peak_rss.py              1 GiB line with no newline, of "x" and of NUL bytes
    python benchmarks/peak_rss.py --mib 256    a smaller line
    PYTHONPATH=/path/to/other/tree python benchmarks/peak_rss.py   the same for another tree

The server writes the line and exits; mcpspy forwards it to /dev/null and
records it to a capture on disk. The peak is the kernel's: ``ru_maxrss`` of
mcpspy from ``wait4`` (its own peak, or a descendant's if larger: here
``head``/``tr``, a few MiB). Also printed: the capture's size, what it says
it dropped (``capture-gap``), and how long mcpspy took to exit after the
server did (the drain at exit). A benchmark, not a test: figures only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

SERVERS = {
    "x": "head -c {size} /dev/zero | tr '\\0' x",  # text: one byte stored per byte
    "nul": "head -c {size} /dev/zero",  # NUL: stored as \\u0000, six bytes per byte
}


def run_once(kind: str, size: int, scratch: Path) -> dict[str, float | int | str]:
    capture = scratch / f"{kind}.jsonl"
    command = [sys.executable, "-m", "mcpspy", "--capture", str(capture), "--exit-grace", "600", "--"]
    command += ["sh", "-c", SERVERS[kind].format(size=size) + "; echo exited >&2"]
    started = time.perf_counter()
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    server_done = 0.0
    for line in proc.stderr:  # the server's stderr passes through: "exited" when it is done
        if line.strip() == b"exited":
            server_done = time.perf_counter()
    _, status, usage = os.wait4(proc.pid, 0)
    ended = time.perf_counter()
    proc.returncode = os.waitstatus_to_exitcode(status)
    lost = parts = 0
    last = ""
    with capture.open("rb") as f:
        for raw in f:
            if raw.startswith(b'{"seq"') and b'"event"' in raw[:80]:
                record = orjson.loads(raw)
                last = record["event"]
                if last == "capture-gap":
                    lost += record.get("bytes", 0)
            elif raw.startswith(b'{"part"'):
                parts += 1
    figure: dict[str, float | int | str] = {
        "line": kind,
        "mib": size >> 20,
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "seconds": round(ended - started, 2),
        "exit_after_server_s": round(ended - server_done, 3) if server_done else -1.0,
        "capture_mib": round(capture.stat().st_size / 2**20, 1),
        "parts": parts,
        "lost_mib": round(lost / 2**20, 1),
        "last_record": last,
        "exit": proc.returncode,
    }
    capture.unlink()
    return figure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mib", type=int, default=1024, help="the line's size (default 1024: 1 GiB)")
    parser.add_argument(
        "--kind", choices=sorted(SERVERS), action="append", help="which line(s) (default both)"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mcpspy-rss-") as scratch:
        for kind in args.kind or sorted(SERVERS, reverse=True):
            print(orjson.dumps(run_once(kind, args.mib << 20, Path(scratch))).decode(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
