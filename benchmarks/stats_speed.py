"""`mcpspy stats` and `mcpspy sessions` over 1,000 small captures, cold and cached.

    python benchmarks/stats_speed.py [--sessions N] [--exchanges M]

Writes N captures of M tools/call exchanges each into a fresh sessions
directory, then times each command as a subprocess: stats with no cache
(cold), stats again (every capture's figures from the cache), and sessions
(which replays every capture today; the lead may put it on the same cache).
Prints one JSON object of seconds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mcpspy.capture.cache import cache_dir  # noqa: E402
from tests.export.synthetic import write_calls  # noqa: E402


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, timeout=1800)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--exchanges", type=int, default=10)
    args = parser.parse_args()
    mcpspy = [sys.executable, "-m", "mcpspy"]
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "sessions"
        home.mkdir()
        for i in range(args.sessions):
            plan = [(f"tool_{j % 3}", "tool" if (i + j) % 17 == 0 else "ok") for j in range(args.exchanges)]
            write_calls(
                home / f"20261201T{i:06d}.000Z-bench-{i}.jsonl", f"bench-{i}", plan, name=f"srv{i % 5}"
            )
        stats = [*mcpspy, "stats", "--home", str(home), "--json"]
        shutil.rmtree(cache_dir(home), ignore_errors=True)
        results = {
            "sessions": args.sessions,
            "exchanges_each": args.exchanges,
            "stats_cold_s": timed(stats),
            "stats_cached_s": timed(stats),
            "sessions_s": timed([*mcpspy, "sessions", "--home", str(home)]),
        }
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
