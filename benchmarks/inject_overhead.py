"""What --inject costs the traffic it leaves alone, and what its hook costs without it.

    python benchmarks/inject_overhead.py --before DIR [--rounds 5] [--requests 2000]

DIR holds the mcpspy package to compare against (``git archive BASE mcpspy |
tar -x -C DIR``). Rounds interleave five ways to run the echo server, so a
burst of load hits all alike; each figure is the median round of sequential
round trips (``harness.latency``), and the ratios are what to read:

- bare: ``bare_forwarder.py``, the yardstick;
- before: mcpspy from DIR (no --inject hook at all);
- after: this mcpspy, no --inject (the plain pumps, chosen once at start-up);
- inject-lines: --inject with a SPEC that never strikes but keeps the server's
  side a line at a time (``stdout.not-json@never/called#every``), the worst
  case for untouched traffic;
- inject-passthrough: --inject whose one SPEC struck at the first reply
  (``stdout.crlf#1``): afterwards both sides are passthrough, the client's
  requests still observed (for ``@METHOD``);
- lines-before: inject-lines with DIR's mcpspy, its engine before the change.

Besides the latency, each way's CPU time a round trip: the proxy process's (all
its threads) over a session of as many round trips, from /proc, which a loaded
machine disturbs far less than the clock (``cpu us``, the median round).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Session, latency, process_cpu, request
from shims import HERE, mcpspy_python


def echo_server() -> list[str]:
    return [sys.executable, str(HERE / "echo_server.py")]


def cpu_per_round_trip(command: list[str], env: dict[str, str], cwd: Path, count: int) -> float:
    """The command's own CPU time (all its threads, not its children) a sequential round trip, in us."""
    session = Session(command, env, cwd, timeout=60)
    try:
        session.handshake()
        before = process_cpu(session.proc.pid)  # `env VAR=... python` execs: the pid is the proxy's
        for i in range(1, count + 1):
            session.write(request(i))
            session.read_line()
        return (process_cpu(session.proc.pid) - before) / count * 1e6
    finally:
        session.close()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--before", required=True, metavar="DIR", help="a tree holding the mcpspy package to compare"
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="mcpspy-inject-bench-"))
    python = mcpspy_python()

    def mcpspy(*options: str, pythonpath: str | None = None) -> list[str]:
        capture = scratch / f"c-{len(list(scratch.glob('c-*')))}.jsonl"
        env = ["env", f"PYTHONPATH={pythonpath}"] if pythonpath else []
        return [*env, python, "-m", "mcpspy", "--capture", str(capture), *options, "--", *echo_server()]

    ways = {
        "bare": lambda: [sys.executable, str(HERE / "bare_forwarder.py"), *echo_server()],
        "before": lambda: mcpspy(pythonpath=str(Path(args.before).resolve())),
        "after": lambda: mcpspy(),
        "inject-lines": lambda: mcpspy("--inject", "stdout.not-json@never/called#every"),
        "inject-passthrough": lambda: mcpspy("--inject", "stdout.crlf#1"),
        "lines-before": lambda: mcpspy(
            "--inject", "stdout.not-json@never/called#every", pythonpath=str(Path(args.before).resolve())
        ),
    }
    env = dict(os.environ)
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, command in ways.items():
            rounds[name].append(latency(command(), env, scratch, args.requests))
            rounds[name][-1]["cpu_us"] = cpu_per_round_trip(command(), env, scratch, args.requests)
    figures = {
        name: {
            key: statistics.median(r[key] for r in taken) for key in ("p50_us", "p99_us", "mean_us", "cpu_us")
        }
        for name, taken in rounds.items()
    }
    bare = figures["bare"]
    before = figures["before"]
    print(
        f"{'':<20} {'p50 us':>9} {'p99 us':>9} {'mean us':>9}  {'mean/bare':>9}  {'mean/before':>11}"
        f"  {'cpu us':>7}"
    )
    for name, f in figures.items():
        print(
            f"{name:<20} {f['p50_us']:>9.1f} {f['p99_us']:>9.1f} {f['mean_us']:>9.1f}"
            f"  {f['mean_us'] / bare['mean_us']:>9.2f}  {f['mean_us'] / before['mean_us']:>11.3f}"
            f"  {f['cpu_us']:>7.1f}"
        )
    print(json.dumps({"rounds": args.rounds, "requests": args.requests, "figures": figures}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
