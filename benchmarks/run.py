"""mcpspy's benchmarks, side by side with a bare forwarder and the peers, in one run.

    python benchmarks/run.py            the full run (a few minutes), updates BENCHMARKS.md
    python benchmarks/run.py --quick    the same figures on fewer messages, under a minute
    python benchmarks/run.py --smoke    tiny sizes: only proves every figure is produced

Every figure is taken on this machine in this run, so the ratios against the
bare forwarder are what to read: absolute times move with the machine's load.
Results go to benchmarks/results/latest.json (or --json PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import BenchError, big_line, latency, throughput
from report import render_markdown, render_table, update_benchmarks_md
from shims import (
    BARE,
    DIRECT,
    HERE,
    MCPSPY,
    PEERS,
    SOCAT,
    Shim,
    ensure_peers,
    ensure_socat,
    mcpspy_python,
    peer_env,
)

Figure = dict[str, Any]


@dataclass(frozen=True)
class Sizes:
    latency_requests: int
    latency_rounds: int
    throughput_messages: int
    big_line_bytes: int
    big_line_rounds: int
    memory_messages: int
    capture_messages: int  # messages (requests + answers) in the capture the offline figures read
    peer_budget_s: float  # a peer slower than this on the full count is measured on a tenth of it
    otlp_rounds: int  # mcpspy without a sink, with a live collector, with a dead one: interleaved rounds
    otlp_requests: int
    # unanswered requests each way through `mcpspy --log` / `--otlp-endpoint` (sink_load.py)
    sink_requests: int


FULL = Sizes(5_000, 5, 100_000, 64 * 2**20, 5, 1_000_000, 100_000, 60.0, 5, 2_000, 1_000_000)  # otlp: its own
QUICK = Sizes(1_000, 1, 20_000, 16 * 2**20, 1, 200_000, 20_000, 8.0, 1, 500, 50_000)
SMOKE = Sizes(200, 1, 2_000, 1 * 2**20, 1, 20_000, 2_000, 3.0, 1, 100, 3_000)


def echo_server() -> list[str]:
    return [sys.executable, str(HERE / "echo_server.py")]


def attempt(what: Callable[[], Figure]) -> Figure:
    """A figure, or the reason it could not be taken."""
    try:
        return what()
    except (BenchError, OSError) as error:
        return {"error": str(error)}


def run_latency(shims: list[Shim], sizes: Sizes, env: dict[str, str], scratch: Path) -> dict[str, Figure]:
    """Rounds interleaved across the shims, so a burst of load hits all of them alike; median round."""
    rounds: dict[str, list[Figure]] = {s.name: [] for s in shims}
    for _ in range(sizes.latency_rounds):
        for shim in shims:
            if rounds[shim.name] and "error" in rounds[shim.name][-1]:
                continue
            command = shim.wrap(echo_server(), scratch)
            rounds[shim.name].append(attempt(partial(latency, command, env, scratch, sizes.latency_requests)))
    figures: dict[str, Figure] = {}
    for name, taken in rounds.items():
        failed = [f for f in taken if "error" in f]
        if failed:
            figures[name] = failed[0]
            continue
        figures[name] = {
            "requests": sizes.latency_requests,
            "rounds": len(taken),
            "p50_us": statistics.median(f["p50_us"] for f in taken),
            "p99_us": statistics.median(f["p99_us"] for f in taken),
            "mean_us": statistics.median(f["mean_us"] for f in taken),
        }
    return figures


def run_throughput(shims: list[Shim], sizes: Sizes, env: dict[str, str], scratch: Path) -> dict[str, Figure]:
    figures: dict[str, Figure] = {}
    count = sizes.throughput_messages
    for shim in shims:
        measure = partial(throughput, shim.wrap(echo_server(), scratch), env, scratch)
        if shim.peer:
            probe = attempt(partial(measure, count // 10))
            if "error" in probe or probe["seconds"] * 10 > sizes.peer_budget_s:
                probe["note"] = (
                    f"measured on {count // 10:,} messages: {count:,} would exceed the time budget"
                )
                figures[shim.name] = probe
                continue
        figures[shim.name] = attempt(partial(measure, count))
    return figures


def run_big_line(shims: list[Shim], sizes: Sizes, env: dict[str, str], scratch: Path) -> dict[str, Figure]:
    """One huge line through `cat`, alone and behind each shim, rounds interleaved across the shims.

    ``seconds`` is the best round (the line's own cost, the least disturbed by the machine's other
    work), ``median_s`` the median round: on a loaded machine one round of a shim can take 10x;
    ``cpu_s`` the median round's CPU time of the shim and cat (``harness.big_line``).
    """
    cat = [shutil.which("cat") or "cat"]
    rounds: dict[str, list[Figure]] = {s.name: [] for s in shims}
    for _ in range(sizes.big_line_rounds):
        for shim in shims:
            taken = rounds[shim.name]
            if taken and "error" in taken[-1]:
                continue
            taken.append(
                attempt(partial(big_line, shim.wrap(cat, scratch), env, scratch, sizes.big_line_bytes))
            )
            for capture in scratch.glob("mcpspy-*.jsonl"):
                taken[-1]["capture_gap"] = b'"event":"capture-gap"' in capture.read_bytes()
                capture.unlink()  # 128 MiB a round: the next round writes to an empty scratch
    figures: dict[str, Figure] = {}
    for name, taken in rounds.items():
        failed = [f for f in taken if "error" in f]
        figure = failed[0] if failed else dict(taken[0])
        if not failed:
            figure["seconds"] = min(f["seconds"] for f in taken)
            figure["median_s"] = statistics.median(f["seconds"] for f in taken)
            figure["cpu_s"] = statistics.median(f["cpu_s"] for f in taken)
            if any("capture_gap" in f for f in taken):  # a capture that dropped the line did less work
                figure["capture_gap_rounds"] = sum(bool(f.get("capture_gap")) for f in taken)
                del figure["capture_gap"]
            figure["mib_per_s"] = figure["bytes"] / 2**20 / figure["seconds"]
            figure["rounds"] = len(taken)
            # in order: round i of each shim ran together
            figure["rounds_s"] = [round(f["seconds"], 4) for f in taken]
        figures[big_name(name)] = figure
    return figures


STEPS = ("latency", "throughput", "big_line", "memory", "offline", "otlp", "sinks")
# The results of a step measured for mcpspy alone (the others have a figure a shim)
ALONE = ("memory", "analysis", "tui", "otlp", "sinks")
SINK_MEMORY_MIB = 160  # issue 28: mcpspy and every process it starts, with --log and with a live OTLP sink


def before_shim(tree: Path) -> Shim:
    """mcpspy from another checkout (``git worktree add DIR main``), for before/after in one run."""
    pythonpath = f"PYTHONPATH={tree.resolve()}"

    def wrap(server: list[str], scratch: Path) -> list[str]:
        return ["env", pythonpath, *MCPSPY.wrap(server, scratch)]

    return Shim("mcpspy-before", wrap, note=f"mcpspy --capture FILE -- CMD, from {tree}")


def big_name(shim_name: str) -> str:
    """The big-line figure's key: `cat` alone is the direct case."""
    return "cat" if shim_name == "direct" else shim_name


def capture_of(command: list[str]) -> Path:
    return Path(command[command.index("--capture") + 1])


def run_memory(sizes: Sizes, env: dict[str, str], scratch: Path) -> Figure:
    """mcpspy's RSS sampled from /proc while a million messages go through it."""
    command = MCPSPY.wrap(echo_server(), scratch)
    figure = attempt(lambda: throughput(command, env, scratch, sizes.memory_messages))
    capture_of(command).unlink(missing_ok=True)
    if "error" not in figure:
        growth = figure["rss_peak_mib"] - figure["rss_at_10pct_mib"]
        figure["growth_after_10pct_mib"] = growth
        figure["flat"] = growth <= max(8.0, 0.25 * figure["rss_at_10pct_mib"])
    return figure


def run_offline(sizes: Sizes, env: dict[str, str], scratch: Path) -> tuple[Figure, Figure]:
    """A capture of ``capture_messages`` messages made by mcpspy, then analysed and opened offline."""
    command = MCPSPY.wrap(echo_server(), scratch)
    made = attempt(lambda: throughput(command, env, scratch, sizes.capture_messages // 2))
    if "error" in made:
        return made, made
    capture = capture_of(command)
    results: list[Figure] = []
    for what in ("analysis", "tui"):
        done = subprocess.run(
            [mcpspy_python(), str(HERE / "offline.py"), what, str(capture)],
            capture_output=True, text=True, env=env, cwd=scratch, timeout=600, check=False,
        )  # fmt: skip
        try:
            figure: Figure = json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            figure = {"error": f"exit {done.returncode}: {done.stderr.strip()[-400:]}"}
        figure["capture_bytes"] = capture.stat().st_size
        results.append(figure)
    return results[0], results[1]


def figure_of(script: str, args: list[str], env: dict[str, str], scratch: Path) -> Figure:
    """A benchmark script's one JSON object, or why there is none."""
    done = subprocess.run(
        [mcpspy_python(), str(HERE / script), *args],
        capture_output=True, text=True, env=env, cwd=scratch, timeout=1800, check=False,
    )  # fmt: skip
    try:
        figure: Figure = json.loads(done.stdout)
    except ValueError:
        figure = {"error": f"exit {done.returncode}: {done.stderr.strip()[-400:]}"}
    return figure


def run_otlp(sizes: Sizes, env: dict[str, str], scratch: Path) -> Figure:
    """benchmarks/otlp_latency.py: mcpspy's round trips with no sink, a live collector and a dead one."""
    args = ["--rounds", str(sizes.otlp_rounds), "--requests", str(sizes.otlp_requests)]
    return figure_of("otlp_latency.py", args, env, scratch)


def run_sinks(sizes: Sizes, env: dict[str, str], scratch: Path) -> Figure:
    """benchmarks/sink_load.py: the peak memory of mcpspy and its processes, ``--log`` and a live OTLP sink,
    under ``sink_requests`` requests each way never answered."""
    args = ["--requests", str(sizes.sink_requests), "--shapes", "log,otlp"]
    return figure_of("sink_load.py", args, env, scratch)


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def by_round(big: dict[str, Figure], name: str, other: str) -> list[float] | None:
    """The big line's time over ``other``'s, round by round (each pair ran one after the other), sorted:
    the spread of the ratio, which the best rounds' ratio alone does not show."""
    mine, theirs = big.get(name, {}).get("rounds_s"), big.get(other, {}).get("rounds_s")
    if not mine or not theirs:
        return None
    return sorted(round(a / b, 3) for a, b in zip(mine, theirs, strict=False) if b)


def compare(results: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ratios of every shim against the bare forwarder, and mcpspy's targets."""
    lat, thr, big = results["latency"], results["throughput"], results["big_line"]

    def num(figures: dict[str, Figure], name: str, key: str) -> float | None:
        value = figures.get(name, {}).get(key)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def added(name: str, key: str) -> float | None:
        shim, direct = num(lat, name, key), num(lat, "direct", key)
        return None if shim is None or direct is None else max(shim - direct, 0.0)

    ratios: dict[str, Any] = {}
    for name in dict.fromkeys([*lat, *("direct" if n == "cat" else n for n in big)]):
        ratios[name] = {
            "latency_p50": ratio(num(lat, name, "p50_us"), num(lat, "bare", "p50_us")),
            "latency_p99": ratio(num(lat, name, "p99_us"), num(lat, "bare", "p99_us")),
            "added_p50_us": added(name, "p50_us"),
            "added_p99_us": added(name, "p99_us"),
            "added_latency_p50": ratio(added(name, "p50_us"), added("bare", "p50_us")),
            "added_latency_p99": ratio(added(name, "p99_us"), added("bare", "p99_us")),
            "throughput": ratio(num(thr, name, "messages_per_s"), num(thr, "bare", "messages_per_s")),
            "big_line_vs_cat": ratio(num(big, big_name(name), "seconds"), num(big, "cat", "seconds")),
            "big_line_vs_socat": ratio(num(big, big_name(name), "seconds"), num(big, "socat", "seconds")),
            "big_line_vs_socat_by_round": by_round(big, big_name(name), "socat"),
        }  # fmt: skip
    mine = ratios.get("mcpspy", {})

    def check(value: float | None, ok: Callable[[float], bool]) -> bool | None:
        return None if value is None else ok(value)

    targets = {
        "latency_p50 <= 1.5x bare": check(mine.get("latency_p50"), lambda v: v <= 1.5),
        "latency_p99 <= 1.5x bare": check(mine.get("latency_p99"), lambda v: v <= 1.5),
        "added_latency_p50 <= 1.5x bare": check(mine.get("added_latency_p50"), lambda v: v <= 1.5),
        "added_latency_p99 <= 1.5x bare": check(mine.get("added_latency_p99"), lambda v: v <= 1.5),
        "throughput >= 0.5x bare": check(mine.get("throughput"), lambda v: v >= 0.5),
        "64 MiB line <= 3x cat": check(mine.get("big_line_vs_cat"), lambda v: v <= 3.0),
        "64 MiB line <= 1.15x socat": check(mine.get("big_line_vs_socat"), lambda v: v <= 1.15),
        "memory flat": results["memory"].get("flat"),
    }
    for shape in ("live", "dead"):
        times = results.get("otlp", {}).get("median", {}).get(shape, {}).get("x_none", {})
        for key in ("p50", "p99"):
            targets[f"{key} with a {shape} OTLP collector <= 1.2x no sink"] = check(
                times.get(f"{key}_us"), lambda v: v <= 1.2
            )
    for shape, what in (("log", "--log"), ("otlp", "a live OTLP sink")):
        peak = results.get("sinks", {}).get("median", {}).get(shape, {}).get("peak_total_mib")
        targets[f"memory with {what} <= {SINK_MEMORY_MIB} MiB"] = check(peak, lambda v: v <= SINK_MEMORY_MIB)
    return ratios, targets


def machine() -> dict[str, Any]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_avg_at_start": os.getloadavg()[0],
        "date_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="fewer messages, under a minute")
    size.add_argument("--smoke", action="store_true", help="tiny sizes: only proves every figure is produced")
    parser.add_argument(
        "--json", metavar="PATH", help="where to write the results (default: results/latest.json)"
    )
    parser.add_argument("--no-peers", action="store_true", help="measure only direct, bare, socat and mcpspy")
    parser.add_argument(
        "--install-peers",
        action="store_true",
        help="create benchmarks/.peers-venv if missing, and install socat (as root, with apt-get)",
    )
    parser.add_argument(
        "--update-md", action="store_true", help="rewrite BENCHMARKS.md's table (default on full runs)"
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=STEPS,
        metavar="STEP",
        help=f"run only this step (repeatable; one of {', '.join(STEPS)}); BENCHMARKS.md is left alone",
    )
    parser.add_argument(
        "--before",
        metavar="DIR",
        help="also measure the mcpspy package in DIR (a checkout), as the row mcpspy-before",
    )
    parser.add_argument(
        "--big-line-rounds", type=int, metavar="N", help="rounds of the 64 MiB line (default: 5; quick: 1)"
    )
    args = parser.parse_args(argv)
    sizes = SMOKE if args.smoke else QUICK if args.quick else FULL
    if args.big_line_rounds:
        sizes = replace(sizes, big_line_rounds=args.big_line_rounds)
    mode = "smoke" if args.smoke else "quick" if args.quick else "full"
    install = args.install_peers or (mode == "full" and not args.no_peers)

    results: dict[str, Any] = {"mode": mode, "machine": machine(), "sizes": asdict(sizes)}
    skipped = {p.name: "not asked (--no-peers)" for p in PEERS} if args.no_peers else ensure_peers(install)
    socat_words = [*echo_server(), shutil.which("cat") or "cat"]
    if (socat_missing := ensure_socat(args.install_peers or mode == "full", socat_words)) is not None:
        skipped[SOCAT.name] = socat_missing
    everyone = [
        DIRECT,
        BARE,
        SOCAT,
        MCPSPY,
        *([before_shim(Path(args.before))] if args.before else []),
        *PEERS,
    ]
    shims = [s for s in everyone if s.name not in skipped]
    results["shims"] = {s.name: s.note for s in everyone}

    scratch = Path(tempfile.mkdtemp(prefix="mcpspy-bench-"))
    env = peer_env(scratch)
    try:
        steps: list[tuple[str, Callable[[], Any]]] = [
            ("latency", lambda: run_latency(shims, sizes, env, scratch)),
            ("throughput", lambda: run_throughput(shims, sizes, env, scratch)),
            ("big_line", lambda: run_big_line(shims, sizes, env, scratch)),
            ("memory", lambda: run_memory(sizes, env, scratch)),
            ("offline", lambda: run_offline(sizes, env, scratch)),
            ("otlp", lambda: run_otlp(sizes, env, scratch)),
            ("sinks", lambda: run_sinks(sizes, env, scratch)),
        ]
        for key, step in steps:
            if args.only and key not in args.only:
                continue
            started = time.perf_counter()
            print(f"[{mode}] {key} ...", file=sys.stderr, flush=True)
            value = step()
            if key == "offline":
                results["analysis"], results["tui"] = value
            else:
                results[key] = value
            print(
                f"[{mode}] {key} done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for name, note in skipped.items():
        for key in ("latency", "throughput", "big_line"):
            results.setdefault(key, {})[name] = {"skipped": note}
    for key in ("latency", "throughput", "big_line"):
        results.setdefault(key, {})
    for key in ALONE:
        results.setdefault(key, {"skipped": "not asked (--only)"})
    results["ratios"], results["targets"] = compare(results)

    print(render_table(results))
    out = Path(args.json) if args.json else HERE / "results" / "latest.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    if args.update_md or (mode == "full" and not args.only and not args.before):
        update_benchmarks_md(HERE.parent / "BENCHMARKS.md", render_markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
