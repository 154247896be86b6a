"""The proxy's sinks under a flood of unanswered requests: forwarding time and the memory of every process.

    python benchmarks/sink_load.py                       # 1,000,000 requests each way, 1 round
    python benchmarks/sink_load.py --requests 200000 --rounds 3 --shapes plain,log
    python benchmarks/sink_load.py --rate 40000 --shapes log,otlp   # paced: the sink analyses all

A fake client (benchmarks/harness.py) writes ``--requests`` tools/call requests
as fast as the pipe takes them through ``mcpspy --capture FILE [SINK] -- cat``:
`cat` sends every request back, so the server has sent as many requests as the
client and none is ever answered (each direction's pending requests grow). The
shapes, interleaved round by round (the machine is noisy):

- ``plain``: no sink; ``log``: ``--log FILE``; ``otlp``: ``--otlp-endpoint URL``
  with a local collector that answers (tests/export/collector.py).

Printed, never asserted (one JSON object): ``forward_s`` (first request written
to the last echo read), ``exit_s`` (to the proxy's exit once stdin closed), and
the resident memory of mcpspy and every process it started (the server, the
sink's child, the watchdog), sampled together every 20 ms: the peak of their
RSS sum, and each one's own peak; the peak of their PSS sum (a page two of
them share, the watchdog's forked heap or the interpreter's code, counted
once); ``records_skipped``, the records mcpspy said its sink skipped (0: the
sink analysed every one). A flood outruns the sink's process, which then
skips records (counted, said); ``--rate`` paces the client so that it need not.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from harness import Session, flood_then_close, pss_bytes, rss_bytes  # noqa: E402

SHAPES = ("plain", "log", "otlp")


def process_tree(root: int) -> list[int]:
    """``root`` and every live process whose parent chain leads to it, from /proc."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
    tree, todo = [root], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            tree.append(child)
            todo.append(child)
    return tree


def role_of(pid: int, root: int, root_cmdline: bytes) -> str | None:
    """What a process of mcpspy's tree is: mcpspy, its sink process, its watchdog (a fork of mcpspy's,
    with its command line), or the server (named by its command); None once it has exited."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    words = [word for word in cmdline.split(b"\0") if word]
    if not words:
        return None  # a zombie
    if pid == root:
        return "mcpspy"
    if b"mcpspy.proxy.sink_child" in words:
        return "sink process"
    if cmdline == root_cmdline:
        return "watchdog"
    return f"server ({Path(words[0].decode(errors='replace')).name})"


class TreeSampler:
    """Every ``interval`` s: the RSS (and PSS) of each process of the tree, and their sums."""

    def __init__(self, root: int, interval: float = 0.02) -> None:
        self.root = root
        self.interval = interval
        self.peak_total = 0
        self.peak_total_pss = 0
        self.peaks: dict[int, tuple[str, int]] = {}  # pid: its role, its peak RSS
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            total = total_pss = 0
            try:  # read at each sample: just after its start it may not be readable yet
                root_cmdline = Path(f"/proc/{self.root}/cmdline").read_bytes()
            except OSError:
                root_cmdline = b""
            for pid in process_tree(self.root):
                rss = rss_bytes(pid)
                total += rss
                total_pss += pss_bytes(pid)
                role, peak = self.peaks.get(pid, ("", 0))
                if (now := role_of(pid, self.root, root_cmdline)) is not None and (now != role or rss > peak):
                    # a fork of mcpspy's before its exec looks like the watchdog: its peak starts again
                    self.peaks[pid] = (now, rss)
            self.samples += 1
            self.peak_total = max(self.peak_total, total)
            self.peak_total_pss = max(self.peak_total_pss, total_pss)

    def stop(self) -> dict[str, Any]:
        self._stop.set()
        self._thread.join()
        by_process: dict[str, float] = {}
        for pid, (role, peak) in self.peaks.items():
            by_process[role if role not in by_process else f"{role} {pid}"] = round(peak / 2**20, 1)
        return {"peak_total_mib": round(self.peak_total / 2**20, 1),
                "peak_total_pss_mib": round(self.peak_total_pss / 2**20, 1), "samples": self.samples,
                "peak_by_process_mib": by_process}  # fmt: skip


SKIPPED = (
    re.compile(rb"--log skipped ([\d,]+) records"),  # in the log itself
    re.compile(rb"([\d,]+) records not analysed"),  # on stderr, the OTLP sink's last word
)


def records_skipped(*texts: bytes) -> int:
    """Records mcpspy said its sink could not take (0: it analysed every one)."""
    return sum(
        int(found.replace(b",", b""))
        for text in texts
        for pattern in SKIPPED
        for found in pattern.findall(text)
    )


def one_run(shape: str, requests: int, scratch: Path, collector_url: str, rate: float) -> dict[str, Any]:
    capture, log_file = scratch / f"{shape}.jsonl", scratch / f"{shape}.log"
    for path in (capture, log_file):
        path.unlink(missing_ok=True)
    sink = {"plain": [], "log": ["--log", str(log_file)], "otlp": ["--otlp-endpoint", collector_url]}[shape]
    command = [sys.executable, "-m", "mcpspy", "--capture", str(capture), *sink, "--", "cat"]
    env = {**os.environ, "HOME": str(scratch), "XDG_STATE_HOME": str(scratch / "state")}
    session = Session(command, env, scratch, timeout=1800)
    sampler = TreeSampler(session.proc.pid)
    try:
        forward_s, exit_s, code = flood_then_close(session, requests, rate)
    finally:
        memory = sampler.stop()
        if session.proc.poll() is None:
            session.proc.kill()
        session.proc.wait()
        said = session.stderr_path.read_bytes()
        session.close()
    log = log_file.read_bytes() if log_file.exists() else b""
    log_lines = log.count(b"\n")
    skipped = records_skipped(log, said)
    capture.unlink(missing_ok=True)
    return {"shape": shape, "exit_code": code, "forward_s": round(forward_s, 2), "exit_s": round(exit_s, 2),
            "log_lines": log_lines, "records_skipped": skipped, **memory}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--requests", type=int, default=1_000_000, help="requests each way (default 1,000,000)"
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--rate",
        type=float,
        default=0,
        help="requests a second the client writes (default: as fast as the pipe takes them); "
        "slow enough, and the sink's process analyses every record",
    )
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated, of: plain, log, otlp")
    args = parser.parse_args(argv)
    shapes = [s for s in args.shapes.split(",") if s]
    if unknown := set(shapes) - set(SHAPES):
        parser.error(f"unknown shape(s): {', '.join(sorted(unknown))}")
    from tests.export.collector import running_collector

    runs: dict[str, list[dict[str, Any]]] = {shape: [] for shape in shapes}
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="mcpspy-sinkload-") as tmp, running_collector() as collector:
        for _ in range(args.rounds):
            for shape in shapes:
                runs[shape].append(one_run(shape, args.requests, Path(tmp), collector.url, args.rate))
                print(json.dumps(runs[shape][-1]), file=sys.stderr, flush=True)
    summary = {
        shape: {
            "forward_s": statistics.median(r["forward_s"] for r in taken),
            "exit_s": statistics.median(r["exit_s"] for r in taken),
            "peak_total_mib": max(r["peak_total_mib"] for r in taken),
            "peak_total_pss_mib": max(r["peak_total_pss_mib"] for r in taken),
        }
        for shape, taken in runs.items()
    }
    if "plain" in summary:
        for figures in summary.values():
            figures["forward_x_plain"] = round(figures["forward_s"] / summary["plain"]["forward_s"], 2)
    result = {"requests_each_way": args.requests, "rate": args.rate or None, "rounds": args.rounds,
              "load_at_start": load,
              "median": summary, "runs": runs}  # fmt: skip
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
