"""Capture-to-screen lag of `mcpspy watch`: `python benchmarks/tui_lag.py [LINES]`.

The app follows a capture headless (Textual's run_test) while this script
appends one line at a time to it, at a known moment, a random 10-40 ms apart;
the lag is the time until the message list draws that line's row (its
render_line is watched). Prints one JSON object: p50, p95 and max in ms.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
from tui_capture import header  # beside this script

from mcpspy.capture.format import encode_header, encode_line
from mcpspy.capture.records import Stream
from mcpspy.tui.app import InspectorApp


async def measure(path: Path, lines: int) -> dict[str, Any]:
    drawn: dict[int, float] = {}  # seq -> when its row was first drawn
    app = InspectorApp(path, live=True)
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.message_list
        render_line = table.render_line

        def watched(y: int) -> Any:
            strip = render_line(y)
            index = round(table.scroll_y) + y - 1
            if 0 <= index < len(table.rows):
                drawn.setdefault(table.rows[index].seq, time.perf_counter())
            return strip

        table.render_line = watched  # type: ignore[method-assign]
        await pilot.pause(0.2)
        lags = []
        with path.open("ab") as capture:
            for seq in range(1, lines + 1):
                await asyncio.sleep(random.uniform(0.01, 0.04))
                data = orjson.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": [seq]})
                capture.write(encode_line(seq, seq / 100, Stream.S2C, data, True))
                capture.flush()
                appended = time.perf_counter()
                while seq not in drawn:
                    await asyncio.sleep(0.001)
                lags.append((drawn[seq] - appended) * 1000)
    lags.sort()
    return {
        "lines": lines,
        "p50_ms": round(statistics.median(lags), 1),
        "p95_ms": round(lags[int(len(lags) * 0.95) - 1], 1),
        "max_ms": round(lags[-1], 1),
    }


def main(argv: list[str]) -> int:
    lines = int(argv[0]) if argv else 300
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "live.jsonl"
        path.write_bytes(encode_header(header("lag")))
        print(json.dumps(asyncio.run(measure(path, lines))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
