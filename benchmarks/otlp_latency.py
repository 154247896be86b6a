"""Added latency of the live OTLP export through the real proxy: none, a live collector, a dead one.

    python benchmarks/otlp_latency.py [--rounds N] [--requests N]

Sequential round trips to benchmarks/echo_server.py through `mcpspy`, through
`mcpspy --otlp-endpoint URL` with a local OTLP/HTTP receiver, and with URL a
closed port; the three interleaved round by round (the machine is noisy), then
the medians of each round's p50 and p99, and the median over the rounds of
each round's ratio to the proxy without a sink (``x_none``: a burst of load
hits the three shapes of a round alike). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.harness import latency  # noqa: E402
from benchmarks.shims import peer_env  # noqa: E402
from tests.export.collector import closed_port, running_collector  # noqa: E402

ROUNDS, REQUESTS = 5, 2000  # the defaults: BENCHMARKS.md's table is made with them


def measure(rounds: int, requests: int) -> dict[str, Any]:
    """The three shapes interleaved round by round; medians, ratios to no sink, and each round's figures."""
    load = os.getloadavg()[0]
    scratch = Path(tempfile.mkdtemp(prefix="mcpspy-otlp-lat-"))
    env = peer_env(scratch)
    server = [sys.executable, str(REPO / "benchmarks" / "echo_server.py")]
    dead = f"http://127.0.0.1:{closed_port()}"
    results: dict[str, list[dict[str, float]]] = {"none": [], "live": [], "dead": []}
    try:
        with running_collector() as collector:
            shapes = {
                "none": [],
                "live": ["--otlp-endpoint", collector.url],
                "dead": ["--otlp-endpoint", dead],
            }
            for round_ in range(rounds):
                for name, options in shapes.items():
                    capture = scratch / f"{name}-{round_}.jsonl"
                    command = [
                        sys.executable,
                        "-m",
                        "mcpspy",
                        "--capture",
                        str(capture),
                        *options,
                        "--",
                        *server,
                    ]
                    results[name].append(latency(command, env, scratch, requests))
                    capture.unlink(missing_ok=True)
            spans = len(collector.received.spans)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    summary: dict[str, dict[str, Any]] = {
        name: {
            "p50_us": statistics.median(r["p50_us"] for r in runs),
            "p99_us": statistics.median(r["p99_us"] for r in runs),
        }
        for name, runs in results.items()
    }
    for name in ("live", "dead"):
        summary[name]["x_none"] = {
            key: round(
                statistics.median(
                    r[key] / n[key] for r, n in zip(results[name], results["none"], strict=True)
                ),
                2,
            )
            for key in ("p50_us", "p99_us")
        }
    by_round = {
        name: [(round(r["p50_us"]), round(r["p99_us"])) for r in runs] for name, runs in results.items()
    }
    return {"rounds": rounds, "requests": requests, "load_at_start": load,
            "median": summary, "p50_p99_by_round": by_round, "spans": spans}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--requests", type=int, default=REQUESTS)
    args = parser.parse_args()
    print(json.dumps(measure(args.rounds, args.requests), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
