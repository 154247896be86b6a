"""The live OTLP sink inside the real proxy: the real SDK client and server, a real collector."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from mcpspy.export.metrics import DURATION_BUCKETS
from mcpspy.replay_policy import open_capture
from tests.export.collector import attributes, closed_port, running_collector
from tests.export.test_otlp_live import PY_CLIENT, PY_SERVER

TRACED_CLIENT = [sys.executable, str(Path(__file__).parent / "traced_client.py")]


def client_through_proxy(
    tmp_path: Path,
    endpoint: str,
    client: list[str] = PY_CLIENT,
    *options: str,
    env: dict[str, str] | None = None,
) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    capture = tmp_path / "live.jsonl"
    # an SDK client starts its server with a few safe variables only: the rest is given as a client's
    # config gives it (its server entry's "env"), here by env(1) in front of the proxy
    given = ["env", *(f"{k}={v}" for k, v in env.items())] if env else []
    proxy = [
        *given,
        sys.executable,
        "-m",
        "mcpspy",
        "--capture",
        str(capture),
        "--otlp-endpoint",
        endpoint,
        *options,
    ]
    done = subprocess.run(
        [*client, "add", '{"a": 2, "b": 3}', "--", *proxy, "--", *PY_SERVER],
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    return done, capture


def test_the_proxy_sends_each_exchange_live(tmp_path: Path) -> None:
    with running_collector() as collector:
        done, capture = client_through_proxy(tmp_path, collector.url)
        received = collector.received
        spans = received.span_dicts()
    assert done.returncode == 0, done.stderr
    analyzer = open_capture(capture).analyzer
    methods = sorted(
        s["attributes"]["mcp.method.name"] for s in spans if "mcp.method.name" in s["attributes"]
    )
    assert methods == sorted(ex.method for ex in analyzer.exchanges)
    assert any(s["name"] == "tools/call add" for s in spans)
    session = capture_session_id(capture)
    assert all(s["attributes"]["session.id"] == session for s in spans)  # Langfuse groups by it
    assert all(s["attributes"]["mcpspy.session.id"] == session for s in spans)
    # the metrics, from the same session: one duration per exchange the client sent
    points = received.histogram_points("mcp.client.operation.duration")
    assert sum(p["count"] for p in points) == len(analyzer.exchanges) > 0
    assert all(p["unit"] == "s" and p["bounds"] == list(DURATION_BUCKETS) for p in points)
    assert all(len(p["buckets"]) == len(DURATION_BUCKETS) + 1 for p in points)
    call = [p for p in points if p["attributes"].get("gen_ai.tool.name") == "add"]
    assert len(call) == 1 and call[0]["count"] == 1
    assert call[0]["attributes"] == {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "add",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": analyzer.protocol_version,
        "network.transport": "pipe",
    }
    span = next(s for s in spans if s["name"] == "tools/call add")
    assert call[0]["sum"] == pytest.approx((span["end"] - span["start"]) / 1e9)  # the span's own duration
    assert received.histogram_points("mcp.server.operation.duration") == []  # the server asked nothing
    assert [p["count"] for p in received.histogram_points("mcp.client.session.duration")] == [1]
    counted = {
        p["attributes"]["mcpspy.rule.id"]: p["value"] for p in received.sum_points("mcpspy.finding.count")
    }
    assert counted == dict(Counter(f.id for f in analyzer.findings))


def capture_session_id(capture: Path) -> str:
    return str(open_capture(capture).capture.header.session)


def test_join_puts_mcpspy_on_the_clients_own_spans(tmp_path: Path) -> None:
    """The SDK client traces its calls and names its span in _meta; mcpspy adds to it, with no span of its own."""
    with running_collector() as collector:
        done, capture = client_through_proxy(
            tmp_path, collector.url, [*TRACED_CLIENT, collector.url], "--otlp-join"
        )
        received = collector.received
        spans = received.span_dicts()
    assert done.returncode == 0, done.stderr
    client_spans = {s["span_id"]: s for s in spans if s["resource"]["service.name"] == "traced-client"}
    ours = [s for s in spans if s["resource"]["service.name"] != "traced-client"]
    call = next(s for s in client_spans.values() if s["attributes"].get("mcp.method.name") == "tools/call")
    assert [s["name"] for s in ours] == ["mcpspy session"]  # every request was traced: all joined
    events = [log for log in received.logs if log.event_name == "mcpspy.exchange"]
    analyzer = open_capture(capture).analyzer
    assert len(events) == len(analyzer.exchanges)
    for event in events:  # each on its request's own client span
        span = client_spans[event.span_id.hex()]
        assert event.trace_id.hex() == span["trace_id"]
        assert attributes(event.attributes)["mcp.method.name"] == span["attributes"]["mcp.method.name"]
    on_call = next(e for e in events if e.span_id.hex() == call["span_id"])
    a = attributes(on_call.attributes)
    assert a["gen_ai.tool.name"] == "add" and a["session.id"] == capture_session_id(capture)
    assert a["mcpspy.exchange.duration"] > 0
    # metrics do not depend on spans: the call is measured all the same
    assert any(
        p["attributes"].get("gen_ai.tool.name") == "add"
        for p in received.histogram_points("mcp.client.operation.duration")
    )


def test_a_dead_collector_costs_the_client_nothing_but_one_line(tmp_path: Path) -> None:
    done, _ = client_through_proxy(tmp_path, f"http://127.0.0.1:{closed_port()}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == b'["add"]'  # the client got its answers
    ours = [line for line in done.stderr.decode().splitlines() if line.startswith("mcpspy:")]
    assert len(ours) == 1 and "spans not sent" in ours[0] and "Connection refused" in ours[0], ours


def test_a_traces_only_collector_costs_no_warning(tmp_path: Path) -> None:
    """Jaeger and Langfuse answer 404 to logs and metrics: best effort, so the spans' export is all that is told."""
    datadog = {"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "dd-protocol=otlp,dd-api-key=k123"}  # per signal
    with running_collector(paths=("/v1/traces",)) as collector:
        done, capture = client_through_proxy(tmp_path, collector.url, env=datadog)
        received = collector.received
    assert done.returncode == 0, done.stderr
    traces = [h for h, path in zip(received.headers, received.paths, strict=True) if path == "/v1/traces"]
    assert traces and all(h.get("dd-api-key") == "k123" and h.get("dd-protocol") == "otlp" for h in traces)
    assert "/v1/metrics" in received.paths  # tried, refused
    assert (
        len(received.span_dicts()) == len(open_capture(capture).analyzer.exchanges) + 1
    )  # and the session's
    assert [line for line in done.stderr.decode().splitlines() if line.startswith("mcpspy:")] == []
