"""Profile mcpspy under one benchmark workload with py-spy, and print where the time goes.

    python benchmarks/profile.py latency|throughput|big-line [--count N] [--rate HZ] [--gil]

py-spy is not a dependency of mcpspy: install it into the venv that runs this
(`pip install py-spy`) or into benchmarks/.peers-venv. The script starts
mcpspy in front of the echo server (or `cat` for the big line), attaches
py-spy to it by pid, drives the workload with the benchmark harness, then
prints the top functions by self and inclusive share of all samples (idle
samples included unless --gil), and the split by thread. The raw stacks stay
in the scratch directory, whose path is printed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import PING, Session, request
from shims import HERE, MCPSPY, peer_env


def py_spy() -> str:
    for candidate in (Path(sys.executable).parent / "py-spy", HERE / ".peers-venv" / "bin" / "py-spy"):
        if candidate.exists():
            return str(candidate)
    found = shutil.which("py-spy")
    if found is None:
        sys.exit("py-spy not found: pip install py-spy (into this venv or benchmarks/.peers-venv)")
    return found


def drive(workload: str, session: Session, count: int) -> None:
    import threading

    if workload == "big-line":  # five lines of `count` MiB (default 64) through cat
        session.write(PING)
        session.read_line()
        head, tail = b'{"jsonrpc":"2.0","method":"bench/echo","params":{"data":"', b'"}}\n'
        line = head + b"x" * ((count or 64) * 2**20 - len(head) - len(tail)) + tail
        for _ in range(5):
            writer = threading.Thread(target=session.write, args=(line,), daemon=True)
            started = time.perf_counter()
            writer.start()
            session.count_lines(1)
            print(f"  one line: {time.perf_counter() - started:.3f} s")
            writer.join()
        return
    count = count or (20_000 if workload == "latency" else 500_000)
    if workload == "latency":
        session.handshake()
        for i in range(1, count + 1):
            session.write(request(i))
            session.read_line()
    else:
        session.handshake()
        blocks = [
            b"".join(request(i) for i in range(s, min(s + 1000, count + 1)))
            for s in range(1, count + 1, 1000)
        ]
        writer = threading.Thread(target=session.write_many, args=(blocks,), daemon=True)
        writer.start()
        session.count_lines(count)
        writer.join()


def summarise(raw: Path, top: int) -> None:
    """py-spy's raw format: one `frame;frame;...;leaf count` line per distinct stack."""
    self_time: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    threads: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        count = int(n)
        frames = stack.split(";")
        total += count
        threads[frames[0]] += count
        names = [f.rsplit(" (", 1)[0] + " (" + f.rsplit(" (", 1)[-1].split(":")[0] for f in frames[1:]]
        if names:
            self_time[names[-1]] += count
        for name in set(names):
            inclusive[name] += count
    print(f"{total} samples")
    for title, counter in (("threads", threads), ("self", self_time), ("inclusive", inclusive)):
        print(f"\n{title}:")
        for name, count in counter.most_common(top):
            print(f"  {100 * count / total:5.1f}%  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("workload", choices=["latency", "throughput", "big-line"])
    parser.add_argument("--count", type=int, default=0, help="requests (or MiB for the big line)")
    parser.add_argument("--rate", type=int, default=250)
    parser.add_argument("--gil", action="store_true", help="only samples holding the GIL")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="mcpspy-profile-"))
    env = peer_env(scratch)
    server = ["cat"] if args.workload == "big-line" else [sys.executable, str(HERE / "echo_server.py")]
    command = MCPSPY.wrap(server, scratch)
    raw = scratch / "profile.raw"
    spy_options = ["--threads", "--idle", "-r", str(args.rate), "-f", "raw", "-o", str(raw)]
    if args.gil:
        spy_options.append("--gil")
    session = Session(command, env, scratch, timeout=120)
    spy = subprocess.Popen(
        [py_spy(), "record", "-p", str(session.proc.pid), *spy_options],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    time.sleep(1.0)  # py-spy attaches
    try:
        started = time.perf_counter()
        drive(args.workload, session, args.count)
        print(f"workload took {time.perf_counter() - started:.2f} s")
    finally:
        session.close()
        spy.send_signal(signal.SIGINT)
        spy.wait(timeout=30)
    if raw.exists():
        summarise(raw, args.top)
    print(f"\nraw stacks: {raw}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
