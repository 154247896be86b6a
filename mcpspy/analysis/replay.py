"""Analyse a whole capture file: what `report`, `sessions` and the benchmarks use."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.capture.reader import Capture, read_capture

FREEZE_AFTER = 20_000  # records analysed in one go: worth keeping out of later garbage collections


@contextmanager
def collector_paused(records: int) -> Iterator[None]:
    """No cyclic garbage collection while a capture is fed (as the TUI loader does).

    The analysis of a big capture is millions of long-lived objects; each full
    collection would walk them all again (a quarter of the replay time). After a
    big capture they are frozen, else the first collection would walk them once more.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            if records >= FREEZE_AFTER:
                gc.freeze()
            gc.enable()


def analyze_capture(
    path: str | os.PathLike[str], slow_after: float = 30.0, conclude: bool = True
) -> tuple[Capture, Analyzer]:
    """Replay a capture; ``conclude=False`` for a live one, whose pending requests may yet be answered."""
    capture = read_capture(path)
    analyzer = Analyzer(slow_after=slow_after)
    with collector_paused(len(capture.records)):
        for record in capture.records:
            analyzer.feed(record)
        if conclude:
            if capture.records:
                analyzer.check_pending(capture.records[-1].t)
            analyzer.finish()
    return capture, analyzer
