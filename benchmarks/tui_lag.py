"""Capture-to-screen lag of `mcpspy watch`: `python benchmarks/tui_lag.py [LINES] [--all N ...]`.

The app follows a capture headless (Textual's run_test) while this script
appends one line at a time to it, at a known moment, a random 10-40 ms apart;
the lag is the time until the message list draws that line's row (its
render_line is watched). Prints one JSON object: p50, p95 and max in ms.

``--all N``: `watch --all` over N live sessions (captures whose header names
this process, so they are live), the lines appended to each in turn: the lag
of one view of many sessions. Several Ns are measured interleaved, round by
round, so a noisy machine weighs on each alike.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
from tui_capture import header  # beside this script

from mcpspy.capture.format import encode_header, encode_line
from mcpspy.capture.records import Stream
from mcpspy.tui.app import InspectorApp


async def measure(paths: list[Path], lines: int, every: bool = False) -> dict[str, Any]:
    """One session as `watch` shows it, or (``every``) the sessions of ``paths`` as `watch --all` does."""
    drawn: dict[tuple[int, int], float] = {}  # (origin, seq) -> when its row was first drawn
    app = InspectorApp(paths[0], live=True, session_dirs=[paths[0].parent], all_live=every)
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.message_list
        render_line = table.render_line

        def watched(y: int) -> Any:
            strip = render_line(y)
            index = round(table.scroll_y) + y - 1
            if 0 <= index < len(table.rows):
                drawn.setdefault(table.key(table.rows[index]), time.perf_counter())
            return strip

        table.render_line = watched  # type: ignore[method-assign]
        for _ in range(400):  # every session has joined
            if len(app.shown) == len(paths) and (not every or all(s.name for s in app.shown.values())):
                break
            await pilot.pause(0.05)
        origin_of = {s.path: origin for origin, s in app.shown.items()}
        lags = []
        captures = [path.open("ab") for path in paths]
        try:
            for n in range(lines):
                which = n % len(paths)
                seq = n // len(paths) + 1
                await asyncio.sleep(random.uniform(0.01, 0.04))
                data = orjson.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": [seq]})
                captures[which].write(encode_line(seq, seq / 100, Stream.S2C, data, True))
                captures[which].flush()
                appended = time.perf_counter()
                key = (origin_of.get(paths[which], 0), seq)
                while key not in drawn:
                    await asyncio.sleep(0.001)
                lags.append((drawn[key] - appended) * 1000)
        finally:
            for capture in captures:
                capture.close()
    lags.sort()
    return {
        "sessions": len(paths),
        "lines": lines,
        "p50_ms": round(statistics.median(lags), 1),
        "p95_ms": round(lags[int(len(lags) * 0.95) - 1], 1),
        "max_ms": round(lags[-1], 1),
    }


def live_captures(directory: Path, count: int) -> list[Path]:
    """``count`` empty captures whose proxy is this process: live while it runs."""
    paths = []
    for n in range(count):
        path = directory / f"live-{n:02}.jsonl"
        path.write_bytes(encode_header(replace(header(f"server{n:02}"), pid=os.getpid())))
        paths.append(path)
    return paths


def main(argv: list[str]) -> int:
    counts = [int(n) for n in argv[argv.index("--all") + 1 :]] if "--all" in argv else []
    rest = argv[: argv.index("--all")] if "--all" in argv else argv
    lines = int(rest[0]) if rest else 300
    if not counts:
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "live.jsonl"
            path.write_bytes(encode_header(header("lag")))
            print(json.dumps(asyncio.run(measure([path], lines))))
        return 0
    rounds = 3
    results: dict[int, list[float]] = {count: [] for count in counts}
    for _ in range(rounds):  # interleaved: each N measured once a round
        for count in counts:
            with tempfile.TemporaryDirectory() as scratch:
                result = asyncio.run(measure(live_captures(Path(scratch), count), lines // rounds, True))
            results[count].append(result["p50_ms"])
            results[count].append(result["p95_ms"])
            print(json.dumps(result), file=sys.stderr)
    summary = {
        f"{count} sessions": {
            "p50_ms": round(statistics.median(r[0::2]), 1),
            "p95_ms": round(statistics.median(r[1::2]), 1),
        }
        for count, r in results.items()
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
