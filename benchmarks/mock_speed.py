"""How fast `mcpspy mock --timing fast` answers, next to benchmarks/echo_server.py, in one run.

    python benchmarks/mock_speed.py              100,000 requests, best of 3 rounds
    python benchmarks/mock_speed.py --quick      20,000 requests, 1 round
    python benchmarks/mock_speed.py --json PATH  the figures as JSON too

First a session is recorded: the throughput client of benchmarks/harness.py
(initialize, then N small tools/call requests written as fast as the pipe
takes them) against echo_server.py through `mcpspy --capture`. Then the same
client, with the same N requests, measures the echo server alone and the mock
of that capture: each request matches its recorded twin (method and params),
so the mock answers every one, with the recorded reply and the request's id.
Rounds alternate between the two, so load on the machine hits both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import throughput
from shims import HERE, mcpspy_python


def echo_server() -> list[str]:
    return [sys.executable, str(HERE / "echo_server.py")]


def record(count: int, env: dict[str, str], scratch: Path) -> Path:
    """The session the mock answers from: the benchmark's own traffic, recorded by the proxy."""
    capture = scratch / "recorded.jsonl"
    throughput(
        [mcpspy_python(), "-m", "mcpspy", "--capture", str(capture), "--", *echo_server()],
        env,
        scratch,
        count,
    )
    return capture


def measure(count: int, rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mcpspy-mock-bench-") as tmp:
        scratch = Path(tmp)
        env = {**os.environ, "MCPSPY_HOME": str(scratch / "sessions")}
        capture = record(count, env, scratch)
        commands = {
            "echo_server": echo_server(),
            "mock_fast": [mcpspy_python(), "-m", "mcpspy", "mock", str(capture), "--timing", "fast"],
        }
        taken: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, command in commands.items():
                taken[name].append(throughput(command, env, scratch, count)["messages_per_s"])
        return {
            "requests": count,
            "rounds": rounds,
            "capture_bytes": capture.stat().st_size,
            **{f"{name}_per_s": max(values) for name, values in taken.items()},
            "all_rounds_per_s": taken,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="20,000 requests, one round")
    parser.add_argument(
        "--requests", type=int, help="how many requests (default 100,000; 20,000 with --quick)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the figures here")
    args = parser.parse_args(argv)
    count = args.requests or (20_000 if args.quick else 100_000)
    figures = measure(count, 1 if args.quick else 3)
    echo, mock = figures["echo_server_per_s"], figures["mock_fast_per_s"]
    print(f"requests                         {count:>10,}  (best of {figures['rounds']})")
    print(f"echo_server.py                   {echo:>10,.0f} answers/s")
    print(f"mcpspy mock --timing fast        {mock:>10,.0f} answers/s  ({mock / echo:.2f}x the echo server)")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
