"""Peak RSS and time of the proxy with `--log` over many messages, against the same run without it.

    .venv/bin/python benchmarks/log_memory.py               # 1,000,000 messages (500,000 requests)
    .venv/bin/python benchmarks/log_memory.py --messages 200000

A fake client (benchmarks/harness.py) writes tools/call requests as fast as the
pipe takes them through `mcpspy --capture FILE [--log FILE] -- echo_server.py`
and reads every answer back. Printed, never asserted:

- ``forward_s``: first request written to last answer read (what the client feels);
- ``exit_s``: first request written to the proxy's exit after stdin closed (the log drained);
- ``vmhwm_mib``: the proxy's peak RSS (VmHWM from /proc, the last value seen before it exits);
- the ratios of the `--log` run to the plain one.

    .venv/bin/python benchmarks/log_memory.py --offline CAPTURE   # the --log sink alone, full vs lean

feeds a capture's records to the `--log` sink (in batches of 64, as the proxy
drains them) once with the full analysis and once with the lean one, each in a
fresh process: CPU seconds (steadier than wall time on a shared machine) and
how far the peak RSS rose above the records read up front (``sink_peak_mib``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Session, flood_then_close

HERE = Path(__file__).resolve().parent


def vmhwm_kib(pid: int) -> int:
    """The peak resident set size of a process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class PeakWatcher:
    """Reads VmHWM every few milliseconds until the process is gone; keeps the last value seen."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.01):
            self.peak_kib = max(self.peak_kib, vmhwm_kib(self.pid))

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak_kib


def one_run(requests: int, log: bool, scratch: Path) -> dict[str, Any]:
    capture, log_file = scratch / "bench.jsonl", scratch / "bench.log"
    for path in (capture, log_file):
        path.unlink(missing_ok=True)
    command = [sys.executable, "-m", "mcpspy", "--capture", str(capture)]
    command += ["--log", str(log_file)] if log else []
    command += ["--", sys.executable, str(HERE / "echo_server.py")]
    env = {**os.environ, "HOME": str(scratch), "XDG_STATE_HOME": str(scratch / "state")}
    session = Session(command, env, scratch, timeout=600)
    watcher = PeakWatcher(session.proc.pid)
    try:
        session.handshake()
        forward_s, exit_s, code = flood_then_close(session, requests)
    finally:
        peak = watcher.stop()
        if session.proc.poll() is None:
            session.proc.kill()
        session.close()
    log_lines = 0
    if log:
        with log_file.open("rb") as lines:
            log_lines = sum(1 for _ in lines)
    return {
        "log": log,
        "messages": 2 * requests,
        "exit_code": code,
        "forward_s": round(forward_s, 2),
        "exit_s": round(exit_s, 2),
        "vmhwm_mib": round(peak / 1024, 1),
        "log_lines": log_lines,
    }


OFFLINE = """
import resource, sys, time
from mcpspy.capture.reader import read_capture
from mcpspy.proxy.log import LogSink
from mcpspy.replay_policy import Replay
records = list(read_capture(sys.argv[1]).records)
sink = LogSink(lambda data: None, print, show_stderr=True)
sink.replay = Replay(retain=sys.argv[2] == "full")
loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.process_time()
for i in range(0, len(records), 64):
    sink(records[i : i + 64])
cpu = time.process_time() - start
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - loaded
print(len(records), round(cpu, 2), round(grown / 1024, 1))
"""


def offline(capture: str) -> dict[str, Any]:
    """The --log sink alone over ``capture``, full then lean, each in a fresh process."""
    figures: dict[str, Any] = {}
    for mode in ("full", "lean"):
        command = [sys.executable, "-c", OFFLINE, capture, mode]
        records, cpu, rss = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()
        figures[mode] = {"records": int(records), "cpu_s": float(cpu), "sink_peak_mib": float(rss)}
    figures["lean_over_full"] = {
        "cpu_x": round(figures["lean"]["cpu_s"] / figures["full"]["cpu_s"], 2),
        "sink_peak_x": round(
            figures["lean"]["sink_peak_mib"] / max(figures["full"]["sink_peak_mib"], 0.1), 2
        ),
    }
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--messages", type=int, default=1_000_000, help="requests + answers (default 1,000,000)"
    )
    parser.add_argument("--offline", metavar="CAPTURE", help="only the --log sink over CAPTURE, full vs lean")
    args = parser.parse_args(argv)
    if args.offline:
        print(json.dumps(offline(args.offline), indent=2))
        return 0
    requests = args.messages // 2
    with tempfile.TemporaryDirectory(prefix="mcpspy-logmem-") as tmp:
        scratch = Path(tmp)
        plain = one_run(requests, log=False, scratch=scratch)
        logged = one_run(requests, log=True, scratch=scratch)
    ratios = {
        "forward_x": round(logged["forward_s"] / plain["forward_s"], 2),
        "exit_x": round(logged["exit_s"] / plain["exit_s"], 2),
        "vmhwm_x": round(logged["vmhwm_mib"] / plain["vmhwm_mib"], 2),
    }
    print(json.dumps({"without_log": plain, "with_log": logged, "log_over_plain": ratios}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
