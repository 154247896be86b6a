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

from mcpspy.analysis import analyzer, reporter
from mcpspy.analysis.rules.framing import MULTILINE_MAX_LINES
from mcpspy.capture.reader import read_capture
from mcpspy.export import otlp_live
from mcpspy.export.otlp_live import OtlpSink
from tests.analysis.digest import FIXTURES
from tests.export.collector import running_collector
from tests.export.synthetic import CaptureBuilder

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


def test_findings_of_requests_the_analysis_forgot_go_on_the_session_span(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests never answered, with records lost between them (a sink that fell behind): the analysis
    forgets them past its bounds, and their findings (each lacks _meta) must not wait for a span for
    ever. Shrunk bounds: 5 pending a direction, 10 findings waiting; 60 requests in runs of 6."""
    monkeypatch.setattr(analyzer, "PENDING_BOUND", 5)
    monkeypatch.setattr(otlp_live, "FINDINGS_AWAITED", 10)
    builder = CaptureBuilder("forgotten", name="forgetful")
    builder.event("server-started", pid=4243)
    for id_ in range(1, 61):
        builder.line("c2s", {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": "t"}})
    records = read_capture(builder.write(tmp_path / "forgotten.jsonl"))
    warnings: list[str] = []
    with running_collector() as collector:
        sink = OtlpSink(records.header, collector.url, warnings.append)
        for start in range(0, 60, 6):
            sink(records.records[1 + start : 1 + start + 6])
            sink.skipped(1)  # records lost here: what is pending becomes unknown, set aside
        figures = sink.close()
        spans = collector.received.span_dicts()
    assert len(sink._by_seq) <= 10  # what still waits for a span that may come (a reply after a gap)
    session = next(span for span in spans if span["name"] == "mcpspy session")
    missing = [attrs for name, attrs in session["events"] if attrs.get("mcpspy.rule.id") == "meta.missing"]
    assert len(missing) >= 60 - 10 - 2 * 5  # forgotten: all but those still waiting, or pending
    assert figures["records_dropped"] == 10
