"""The live OTLP sink runs the lean analysis (no old message kept): its spans are the full analysis's.

Every fixture is fed to a sink on the lean analysis and to one on the full
analysis, each sending to a real OTLP receiver; the spans received must be the
same (ids aside: the trace and span ids are random, so a parent or a link is
named by its span's name). The lean analysis keeps its last messages only
(``reporter.RECENT_MESSAGES``, 1,024); shrunk here to 2, so that a fixture's
requests are long gone from it when their replies come and the sink answers
from the gist it kept of each (``model.exchanges.RequestGist``). A message
pretty-printed over several lines becomes one when its last line comes, its
first still among the last messages (at most ``MULTILINE_MAX_LINES`` lines, fewer
than ``RECENT_MESSAGES``): for the fixtures that have one (22 lines at most), 32.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcpspy.analysis import reporter
from mcpspy.analysis.rules.framing import MULTILINE_MAX_LINES
from mcpspy.capture.reader import read_capture
from mcpspy.export.otlp_live import OtlpSink
from tests.analysis.digest import FIXTURES
from tests.export.collector import running_collector

CAPTURES = sorted(FIXTURES.glob("*.jsonl"))


def received_spans(path: Path, lean: bool) -> list[dict[str, Any]]:
    capture = read_capture(path)
    warnings: list[str] = []
    with running_collector() as collector:
        sink = OtlpSink(capture.header, collector.url, warnings.append, lean=lean)
        sink(capture.records)
        figures = sink.close()
        spans = collector.received.span_dicts()
    assert warnings == [] and figures["not_sent"] == 0, (warnings, figures)
    names = {span["span_id"]: span["name"] for span in spans}
    for span in spans:  # ids are random: a parent and a link by name (a remote parent by its own id)
        span["parent"] = names.get(span["parent"], span["parent"] and span["trace_id"])
        span["links"] = [names.get(link, link) for link in span["links"]]
        del span["span_id"]
        if span["parent"] in names.values() or not span["parent"]:
            del span["trace_id"]
    return sorted(spans, key=repr)


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.stem)
def test_lean_spans_are_the_full_analysis_spans(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    full = received_spans(path, lean=False)
    monkeypatch.setattr(reporter, "RECENT_MESSAGES", 32 if "multiline" in path.stem else 2)
    assert received_spans(path, lean=True) == full
    assert full  # every fixture makes at least its session span


def test_a_pretty_printed_message_ends_while_its_first_line_is_kept() -> None:
    assert reporter.RECENT_MESSAGES > MULTILINE_MAX_LINES
