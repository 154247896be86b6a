"""Offline figures, each run in a fresh interpreter that has mcpspy installed.

    python offline.py analysis CAPTURE   -> JSON: the analysis alone, messages/s
    python offline.py tui CAPTURE        -> JSON: the TUI's time to open the capture

Prints one JSON object on stdout; ``{"skipped": "..."}`` when the piece it
measures has not landed yet (mcpspy.analysis.replay, mcpspy.tui).
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import sys
import time
from pathlib import Path
from typing import Any


def measure_analysis(capture_path: Path) -> dict[str, Any]:
    """Read the capture, then feed every record to a fresh Analyzer and finish it."""
    try:
        from mcpspy.analysis.analyzer import Analyzer
        from mcpspy.analysis.replay import analyze_capture
    except ImportError as error:
        return {"skipped": f"the analysis has not landed yet ({error})"}
    from mcpspy.capture.reader import read_capture

    start = time.perf_counter()
    capture = read_capture(capture_path)
    read_seconds = time.perf_counter() - start

    start = time.perf_counter()
    analyzer = Analyzer()
    for record in capture.records:
        analyzer.feed(record)
    analyzer.finish()
    feed_seconds = time.perf_counter() - start

    start = time.perf_counter()
    _, replayed = analyze_capture(capture_path)
    replay_seconds = time.perf_counter() - start

    messages = len(analyzer.messages)
    if len(replayed.messages) != messages:
        return {"error": f"analyze_capture saw {len(replayed.messages)} messages, feed saw {messages}"}
    return {
        "messages": messages,
        "exchanges": len(analyzer.exchanges),
        "findings": len(analyzer.findings),
        "read_seconds": read_seconds,
        "feed_seconds": feed_seconds,
        "messages_per_s": messages / feed_seconds,
        "replay_seconds": replay_seconds,
        "replay_messages_per_s": messages / replay_seconds,
    }


def _find_app_factory() -> Any:
    """The TUI's App for one capture file, wherever mcpspy.tui keeps it."""
    for module_name in ("mcpspy.tui.app", "mcpspy.tui"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        from textual.app import App

        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, App) and value is not App:
                return value
    return None


async def _open_app(app_class: Any, capture_path: Path, expected: int) -> dict[str, Any]:
    """Start the app headless, wait until it has shown the capture's messages, and time that."""
    start = time.perf_counter()
    app = _construct(app_class, capture_path)
    async with app.run_test(size=(160, 50)) as pilot:
        mounted = time.perf_counter() - start
        deadline = time.monotonic() + 120
        loaded: int | None = -1
        while time.monotonic() < deadline:
            await pilot.pause()
            loaded = _messages_shown(app)
            if loaded is None or loaded >= expected:
                break
            await asyncio.sleep(0.01)
        seconds = time.perf_counter() - start
    result: dict[str, Any] = {"seconds": seconds, "mounted_seconds": mounted, "messages": expected}
    if loaded is not None:
        result["messages_shown"] = loaded
    return result


def _construct(app_class: Any, capture_path: Path) -> Any:
    for attempt in ({"path": capture_path}, {"capture": capture_path}, {"file": capture_path}):
        try:
            return app_class(**attempt)
        except TypeError:
            continue
    return app_class(capture_path)


def _messages_shown(app: Any) -> int | None:
    """How many messages the app's analysis holds, when it exposes one; None when unknown."""
    for holder in (app, getattr(app, "model", None), getattr(app, "session", None)):
        analyzer = getattr(holder, "analyzer", None)
        if analyzer is not None and hasattr(analyzer, "messages"):
            return len(analyzer.messages)
    return None


def measure_tui(capture_path: Path) -> dict[str, Any]:
    try:
        importlib.import_module("mcpspy.tui")
        app_class = _find_app_factory()
    except ImportError as error:
        return {"skipped": f"the TUI has not landed yet ({error})"}
    if app_class is None:
        return {"skipped": "the TUI has not landed yet (no App class in mcpspy.tui.app)"}
    from mcpspy.capture.reader import read_capture

    expected = sum(1 for r in read_capture(capture_path).records if hasattr(r, "stream"))
    return asyncio.run(_open_app(app_class, capture_path, expected))


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("analysis", "tui"):
        print(__doc__, file=sys.stderr)
        return 2
    measure = measure_analysis if argv[0] == "analysis" else measure_tui
    print(json.dumps(measure(Path(argv[1]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
