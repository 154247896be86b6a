"""Analyse a whole capture file: what `report`, `sessions` and the benchmarks use."""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.capture.reader import Capture, read_capture

FREEZE_AFTER = 20_000  # records analysed in one go: worth keeping out of later garbage collections


@contextmanager
def collector_paused() -> Iterator[Callable[[int], None]]:
    """No cyclic garbage collection while a capture is analysed; yields the call that resumes it.

    A 100,000-message capture becomes millions of long-lived objects (messages, parsed
    payloads), and each full collection would walk them all again: a third of the
    replay time, and pauses of half a second on a viewer's UI thread. After a big
    capture they are frozen (kept out of later collections: they live as long as the
    analysis), else the first collection would walk them all once more.
    """
    paused = gc.isenabled()
    gc.disable()

    def resume(messages: int) -> None:
        nonlocal paused
        if paused:
            if messages >= FREEZE_AFTER:
                gc.freeze()
            gc.enable()
            paused = False

    try:
        yield resume
    finally:
        resume(0)


def analyze_capture(
    path: str | os.PathLike[str], slow_after: float = 30.0, conclude: bool = True
) -> tuple[Capture, Analyzer]:
    """Replay a capture; ``conclude=False`` for a live one, whose pending requests may yet be answered."""
    capture = read_capture(path)
    analyzer = Analyzer(slow_after=slow_after)
    with collector_paused() as resume_collector:
        for record in capture.records:
            analyzer.feed(record)
        if conclude:
            if capture.records:
                analyzer.check_pending(capture.records[-1].t)
            analyzer.finish()
        resume_collector(len(capture.records))
    return capture, analyzer
