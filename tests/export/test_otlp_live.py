"""The live OTLP sink: fed a real recorded session, and fed 100,000 records with the collector gone."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from opentelemetry._logs import SeverityNumber

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Header, LineBatch, Record
from mcpspy.export.otlp_live import OtlpSink, open_otlp_sink
from mcpspy.replay_policy import open_capture
from tests.conftest import REPO
from tests.export.collector import attributes, closed_port, running_collector
from tests.export.synthetic import TRACE_ID, CaptureBuilder, big_capture, call, reply

PY_CLIENT = [sys.executable, str(REPO / "tests" / "clients" / "py_client.py")]
PY_SERVER = [sys.executable, str(REPO / "tests" / "clients" / "servers" / "py_server.py")]


def recorded_sdk_session(tmp_path: Path) -> Path:
    """The real Python SDK client calling `add` on the real SDK server, through the real proxy."""
    capture = tmp_path / "sdk.jsonl"
    proxy = [sys.executable, "-m", "mcpspy", "--capture", str(capture), "--"]
    done = subprocess.run(
        [*PY_CLIENT, "add", '{"a": 2, "b": 3}', "--", *proxy, *PY_SERVER],
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return capture


def feed(sink: OtlpSink, records: list[Record], batch: int) -> float:
    """Hand the records in as the proxy would, ``batch`` at a time; the seconds the hand-ins took."""
    start = time.perf_counter()
    for i in range(0, len(records), batch):
        sink(records[i : i + batch])
    return time.perf_counter() - start


def test_a_real_session_gives_one_span_per_exchange(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    path = recorded_sdk_session(tmp_path)
    opened = open_capture(path)
    capture, analyzer = opened.capture, opened.analyzer
    warnings: list[str] = []
    with running_collector() as collector:
        sink = open_otlp_sink(collector.url, capture.header, warnings.append)
        assert sink is not None
        feed(sink, capture.records, batch=2)
        figures = sink.close()
        spans = collector.received.span_dicts()
    assert warnings == [] and figures["not_sent"] == 0 and figures["records_dropped"] == 0
    exchange_spans = [s for s in spans if "mcp.method.name" in s["attributes"]]
    assert sorted(s["attributes"]["mcp.method.name"] for s in exchange_spans) == sorted(
        ex.method for ex in analyzer.exchanges
    )
    assert {"initialize", "tools/list", "tools/call"} <= {
        s["attributes"]["mcp.method.name"] for s in exchange_spans
    }
    call = next(s for s in exchange_spans if s["attributes"]["mcp.method.name"] == "tools/call")
    assert call["name"] == "tools/call add"
    assert call["attributes"]["gen_ai.tool.name"] == "add"
    assert call["attributes"]["gen_ai.operation.name"] == "execute_tool"
    assert call["attributes"]["mcp.protocol.version"] == analyzer.protocol_version  # the negotiated one
    assert call["resource"]["service.name"] == "mcpspy-test"  # the server's serverInfo name
    assert call["end"] > call["start"]
    assert capfd.readouterr().err == ""  # nothing of the SDK's on stderr (the client's log)


def test_the_sink_keeps_up_with_the_collector_down(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    capture = read_capture(big_capture(tmp_path / "big.jsonl", 100_000))
    records = capture.records
    assert len(records) > 100_000
    warnings: list[str] = []
    sink = open_otlp_sink(f"http://127.0.0.1:{closed_port()}", capture.header, warnings.append)
    assert sink is not None
    feed(sink, records, batch=1)  # how fast it takes them is benchmarks/otlp_overhead.py's to say
    figures = sink.close()  # returns, with the collector down: nothing waits on it for ever
    assert len(warnings) == 1, warnings
    assert figures["sent"] == 0
    assert figures["not_sent"] == figures["spans"] > 0 and figures["log_records_sent"] == 0
    lost = figures["not_sent"]
    assert f"{lost} of {lost} spans not sent" in warnings[0]
    if figures["records_dropped"]:
        assert f"{figures['records_dropped']} records not analysed" in warnings[0]
    assert capfd.readouterr().err == ""


def test_batches_as_the_proxy_hands_them_in(tmp_path: Path) -> None:
    """The recorder's LineBatch runs are taken as they are, and everything arrives."""
    capture = read_capture(big_capture(tmp_path / "small.jsonl", 200))
    batches: list[list[LineBatch | Record]] = []
    for record in capture.records:
        if hasattr(record, "data"):
            batches.append([LineBatch(record.seq, record.t, record.stream, (record.data,))])
        else:
            batches.append([record])
    with running_collector() as collector:
        sink = open_otlp_sink(collector.url, capture.header, pytest.fail)
        assert sink is not None
        for batch in batches:
            sink(batch)
        figures = sink.close()
        spans = collector.received.span_dicts()
    assert figures["not_sent"] == 0
    assert len([s for s in spans if s["name"].startswith("tools/call")]) == 100


def test_unusable_endpoint_is_one_warning_and_no_sink() -> None:
    warnings: list[str] = []
    header = Header("1.0", "s", "2026-12-01T10:00:00.000Z", ("x",), "x", "/", "0.1.0", 1)
    assert open_otlp_sink("localhost:4318", header, warnings.append) is None
    assert len(warnings) == 1 and "not an http(s) URL" in warnings[0]


def test_join_needs_a_sampled_well_formed_caller(tmp_path: Path) -> None:
    """Joined: the sampled caller's span gets events; an unsampled or malformed traceparent keeps mcpspy's span."""
    b = CaptureBuilder("join-session")
    sampled_parent, unsampled_parent = "1" * 16, "2" * 16
    for id_, traceparent in (
        (1, f"00-{TRACE_ID}-{sampled_parent}-01"),
        (2, f"00-{TRACE_ID}-{unsampled_parent}-00"),
        (3, f"00-{'0' * 32}-{sampled_parent}-01"),  # an all-zero trace id: invalid
        (4, "\u202e<script>"),
    ):
        b.line("c2s", call(id_, f"tool{id_}", extra_meta={"traceparent": traceparent}))
        b.line("s2c", reply(id_, "tool" if id_ == 1 else "ok"))
    capture = read_capture(b.write(tmp_path / "join.jsonl"))
    with running_collector() as collector:
        sink = open_otlp_sink(collector.url, capture.header, pytest.fail, join=True)
        assert sink is not None
        feed(sink, capture.records, batch=3)
        figures = sink.close()
        spans = collector.received.span_dicts()
        logs = collector.received.logs
    assert figures["joined"] == 1 and figures["not_sent"] == 0
    assert sorted(s["name"] for s in spans) == [
        "mcpspy session",
        "tools/call tool2",
        "tools/call tool3",
        "tools/call tool4",
    ]
    (event,) = [log for log in logs if log.event_name == "mcpspy.exchange"]
    assert (event.trace_id.hex(), event.span_id.hex()) == (TRACE_ID, sampled_parent)
    assert attributes(event.attributes)["error.type"] == "tool_error"
    assert event.severity_number == SeverityNumber.WARN.value
