"""Wall time of `mcpspy check --era both` against the demo server and server-everything.

    .venv/bin/python benchmarks/check_time.py [--runs N]

Each run is the real command, from process start to exit, with its report on
a pipe. The load average is printed with the figures, since the check starts
four processes at once (two proxies, two servers) and a busy machine shows;
"cpu s" (the median CPU time of the check and all it started) does not depend
on the load (on idle cores, the wall time can be no less than it divided by their number).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEMO = [sys.executable, "-m", "mcpspy.demo.server"]


def everything() -> list[str] | None:
    for base in (REPO / ".ci" / "clients", REPO / "tests" / "clients"):
        path = base / "node_modules" / ".bin" / "mcp-server-everything"
        if path.exists() and shutil.which("node"):
            return [str(path)]
    return None


def time_check(server: list[str], home: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of the check and every process it started, and the exit code."""
    argv = [sys.executable, "-m", "mcpspy", "check", "--era", "both", "--home", str(home), "--", *server]
    before = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False, cwd=REPO, env=env)
    elapsed = time.perf_counter() - started
    if done.returncode == 2:
        raise SystemExit(f"check could not run: {done.stderr.decode(errors='replace').strip()}")
    return elapsed, _children_cpu() - before, done.returncode


def _children_cpu() -> float:
    """CPU time of waited-for descendants (the check waits for its proxies, which wait for the servers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per server (default: 5)")
    args = parser.parse_args()
    servers = {"demo": DEMO}
    node_server = everything()
    if node_server is not None:
        servers["server-everything"] = node_server
    print(f"cpus {os.cpu_count()}   load average before {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'server':<18} {'runs':>4} {'min s':>7} {'median s':>9} {'max s':>7} {'cpu s':>7}  exit")
    with tempfile.TemporaryDirectory(prefix="mcpspy-check-time-") as home:
        # As installed: with bytecode (a warm-up run compiles it into a private cache, whatever
        # PYTHONDONTWRITEBYTECODE says), not compiling every module in every process on every run.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(home) / "pycache")
        for name, server in servers.items():
            time_check(server, Path(home), env)
            times, cpu, codes = [], [], set()
            for _ in range(args.runs):
                elapsed, used, code = time_check(server, Path(home), env)
                times.append(elapsed)
                cpu.append(used)
                codes.add(code)
            print(
                f"{name:<18} {len(times):>4} {min(times):>7.2f} {statistics.median(times):>9.2f}"
                f" {max(times):>7.2f} {statistics.median(cpu):>7.2f}  {','.join(map(str, sorted(codes)))}"
            )
    if node_server is None:
        print("server-everything: skipped (run .ci/clients/install.sh; node is needed)")
    print(f"load average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
