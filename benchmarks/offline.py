"""Offline figures, each run in a fresh interpreter that has mcpspy installed.

    python offline.py analysis CAPTURE   -> JSON: the analysis alone, messages/s
    python offline.py tui CAPTURE        -> JSON: the TUI's time to open the capture, and its
                                            worker's loop alone on the same capture (feed_*)
    python offline.py keys CAPTURE       -> JSON: how fast keys move the cursor while it loads

Prints one JSON object on stdout; ``{"skipped": "..."}`` when the piece it
measures has not landed yet (mcpspy.replay_policy, mcpspy.tui).
"""

from __future__ import annotations

import asyncio
import functools
import gc
import importlib
import json
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def measure_analysis(capture_path: Path) -> dict[str, Any]:
    """Read the capture, then feed every record to a fresh Analyzer and finish it."""
    try:
        from mcpspy.analysis.analyzer import Analyzer
        from mcpspy.replay_policy import open_capture
    except ImportError as error:
        return {"skipped": f"the analysis has not landed yet ({error})"}
    from mcpspy.capture.reader import read_capture

    try:  # the result definitions, handed to the analysis by its caller (before: read by the analysis)
        from mcpspy.analysis_data import result_schemas

        make_analyzer: Callable[[], Analyzer] = functools.partial(Analyzer, schemas=result_schemas())
    except ImportError:
        make_analyzer = Analyzer

    start = time.perf_counter()
    capture = read_capture(capture_path)
    read_seconds = time.perf_counter() - start

    def fed() -> tuple[Analyzer, float]:
        """A fresh Analyzer fed every record, then finished; the seconds it took."""
        start = time.perf_counter()
        analyzer = make_analyzer()
        for record in capture.records:
            analyzer.feed(record)
        analyzer.finish()
        return analyzer, time.perf_counter() - start

    def collections() -> list[int]:
        return [generation["collections"] for generation in gc.get_stats()]

    # With the collector on, as a library caller feeds it, from whatever state reading the capture left
    # it in; how many collections of each generation that took (a full one walks everything kept).
    counted = collections()
    analyzer, feed_seconds = fed()
    collected = [after - before for before, after in zip(counted, collections(), strict=True)]

    # The same with the cyclic GC paused, as every command that reads a capture whole runs it
    # (replay_policy.collector_paused); what the collector costs is the difference.
    gc.collect()
    gc.disable()
    try:
        paused_seconds = fed()[1]
    finally:
        gc.enable()
    gc.collect()

    start = time.perf_counter()
    replayed = open_capture(capture_path).analyzer
    replay_seconds = time.perf_counter() - start

    messages = len(analyzer.messages)
    if len(replayed.messages) != messages:
        return {"error": f"open_capture saw {len(replayed.messages)} messages, feed saw {messages}"}
    return {
        "messages": messages,
        "exchanges": len(analyzer.exchanges),
        "findings": len(analyzer.findings),
        "read_seconds": read_seconds,
        "feed_seconds": feed_seconds,
        "messages_per_s": messages / feed_seconds,
        "collections_while_fed": collected,  # generations 0, 1, 2
        "feed_collector_paused_seconds": paused_seconds,
        "messages_per_s_collector_paused": messages / paused_seconds,
        "replay_seconds": replay_seconds,
        "replay_messages_per_s": messages / replay_seconds,
    }


async def _open_app(capture_path: Path, expected: int) -> dict[str, Any]:
    """Start the inspector headless on the capture and time it until every message is in its list."""
    from mcpspy.tui.app import InspectorApp

    children_start = _children_cpu()
    start, cpu_start, ui_cpu_start = time.perf_counter(), time.process_time(), time.thread_time()
    app = InspectorApp(capture_path, live=False)
    first_rows: float | None = None
    listed: float | None = None
    listed_cpu: float | None = None
    async with app.run_test(size=(160, 50)) as pilot:
        mounted = time.perf_counter() - start
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (app.loaded and len(app.rows) >= expected):
            if first_rows is None and app.rows:
                first_rows = time.perf_counter() - start
            if listed is None and len(app.rows) >= expected:
                listed, listed_cpu = time.perf_counter() - start, time.process_time() - cpu_start
            await asyncio.sleep(0.005)
        await pilot.pause()  # the list drawn with the last batch
        seconds = time.perf_counter() - start
        cpu, ui_cpu = time.process_time() - cpu_start, time.thread_time() - ui_cpu_start
        shown = app.message_list.row_text(app.message_list.cursor)
    return {
        "seconds": seconds,
        # CPU to the same point, what a loaded machine does not inflate: the process, and the UI
        # thread (Textual, the panes, this loop); the rest is the worker's
        "cpu_seconds": cpu,
        "ui_cpu_seconds": ui_cpu,
        # the analysis child's (a finished capture of more than a slice: tui/analysis_child.py)
        "child_cpu_seconds": _children_cpu() - children_start,
        "mounted_seconds": mounted,  # a small capture is whole at the first look
        "first_rows_seconds": first_rows if first_rows is not None else seconds,
        "listed_seconds": listed if listed is not None else seconds,
        "listed_cpu_seconds": listed_cpu if listed_cpu is not None else cpu,
        "messages": expected,
        "messages_shown": len(app.rows),
        "last_row": shown.strip(),
    }


def _children_cpu() -> float:
    """CPU seconds of this process's children that have been reaped."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _feed_alone(capture_path: Path) -> dict[str, Any]:
    """The app's reading side with no app: its worker's loop, stepped to the end in this thread,
    analysing in this thread too (no child): the analysis chain the child runs, and the listing.

    What the app's figures are measured against: the app costs what it adds to these.
    """
    from mcpspy.replay_policy import pause_collector
    from mcpspy.tui.loader import CaptureFeed

    resume_collector = pause_collector()  # as the app does
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        feed = CaptureFeed(capture_path, live=False, in_child=False)
    except TypeError:  # a tree from before the analysis child
        feed = CaptureFeed(capture_path, live=False)
    listed: float | None = None
    listed_cpu = 0.0
    messages = 0
    while not feed.done:
        messages += len(feed.step().messages)
        if listed is None and feed.reader.at_end:
            listed, listed_cpu = time.perf_counter() - start, time.process_time() - cpu_start
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    feed.close()
    resume_collector(messages)
    return {
        "feed_listed_seconds": listed,
        "feed_listed_cpu_seconds": listed_cpu,
        "feed_seconds": seconds,
        "feed_cpu_seconds": cpu,
    }


def measure_tui(capture_path: Path) -> dict[str, Any]:
    try:
        importlib.import_module("mcpspy.tui.app")
    except ImportError as error:
        return {"skipped": f"the TUI has not landed yet ({error})"}
    from mcpspy.capture.reader import read_capture

    expected = sum(1 for r in read_capture(capture_path).records if hasattr(r, "stream"))
    figures = asyncio.run(_open_app(capture_path, expected))
    try:
        figures.update(_feed_alone(capture_path))
    except (ImportError, AttributeError, TypeError):  # a tree whose loader is not this one
        pass
    return figures


async def _keys_while_loading(capture_path: Path) -> dict[str, Any]:
    """Press j/g every 50 ms while the capture loads; time each until the cursor has moved."""
    from mcpspy.tui.app import InspectorApp

    app = InspectorApp(capture_path, live=False)
    lags: list[float] = []
    async with app.run_test(size=(160, 50)):
        table = app.message_list
        while not app.loaded:
            await asyncio.sleep(0.05)
            before = table.cursor
            pressed = time.perf_counter()
            app.simulate_key("g" if before else "j")
            while table.cursor == before and not app.loaded:
                await asyncio.sleep(0.001)
            if table.cursor != before:
                lags.append((time.perf_counter() - pressed) * 1000)
    lags.sort()
    if not lags:
        return {"skipped": "the capture loaded before a key could be pressed"}
    return {
        "keys": len(lags),
        "p50_ms": round(lags[len(lags) // 2], 1),
        "p95_ms": round(lags[int(len(lags) * 0.95)], 1),
        "max_ms": round(lags[-1], 1),
    }


def main(argv: list[str]) -> int:
    measures = {
        "analysis": measure_analysis,
        "tui": measure_tui,
        "keys": lambda path: asyncio.run(_keys_while_loading(path)),
    }
    if len(argv) != 2 or argv[0] not in measures:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(measures[argv[0]](Path(argv[1]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
