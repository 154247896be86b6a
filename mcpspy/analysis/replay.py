"""Analyse a whole capture file: what `report`, `sessions` and the benchmarks use."""

from __future__ import annotations

import os

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.capture.reader import Capture, read_capture


def analyze_capture(
    path: str | os.PathLike[str], slow_after: float = 30.0, conclude: bool = True
) -> tuple[Capture, Analyzer]:
    """Replay a capture; ``conclude=False`` for a live one, whose pending requests may yet be answered."""
    capture = read_capture(path)
    analyzer = Analyzer(slow_after=slow_after)
    for record in capture.records:
        analyzer.feed(record)
    if conclude:
        if capture.records:
            analyzer.check_pending(capture.records[-1].t)
        analyzer.finish()
    return capture, analyzer
