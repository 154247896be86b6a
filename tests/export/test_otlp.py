"""OTLP: report --format otlp (OTLP/JSON) and report --otlp-endpoint, received by a real collector."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcpspy.export.metrics import DURATION_BUCKETS
from tests.conftest import MCPSPY
from tests.export.collector import Received, attributes, closed_port, running_collector
from tests.export.synthetic import PARENT_ID, TRACE_ID, CaptureBuilder, mixed_capture, request, result

CLIENT, SERVER, INTERNAL = 3, 2, 1  # SpanKind in OTLP's numbering
ERROR = 2  # Status.code


def report(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MCPSPY, "report", *args], capture_output=True, text=True, timeout=120)


def by_target(spans: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in spans}


def check_mixed_spans(spans: list[dict[str, Any]]) -> None:
    """The spans of mixed_capture, as the MCP semantic conventions name them."""
    exchange_spans = [s for s in spans if "mcp.method.name" in s["attributes"]]
    assert len(exchange_spans) == 8  # one per exchange
    assert [s["name"] for s in spans if s["name"] == "mcpspy session"] == ["mcpspy session"]
    named = by_target(exchange_spans)
    assert set(named) == {
        "server/discover",
        "tools/call search",
        "tools/call lookup",
        "prompts/get triage",
        "resources/read",
        "tools/call slow",
    }
    assert all(s["kind"] == CLIENT for s in exchange_spans)
    for s in exchange_spans:
        a = s["attributes"]
        assert a["network.transport"] == "pipe"
        assert a["mcp.protocol.version"] == "2026-07-28"
        assert isinstance(a["jsonrpc.request.id"], str)
        assert a["mcpspy.session.id"] == a["session.id"] == "mixed-session"
        assert "mcp.session.id" not in a  # 2026-07-28 forbids it on stdio
        assert s["resource"]["service.name"] == "helpdesk-srv"
        assert s["resource"]["service.version"] == "2.1"
    calls = {s["attributes"]["jsonrpc.request.id"]: s for s in exchange_spans}
    ok, tool_error, rpc_error = calls["2"], calls["3"], calls["4"]
    assert ok["attributes"]["gen_ai.tool.name"] == "search"
    assert ok["attributes"]["gen_ai.operation.name"] == "execute_tool"
    assert "error.type" not in ok["attributes"] and ok["status"][0] != ERROR
    assert tool_error["attributes"]["error.type"] == "tool_error" and tool_error["status"][0] == ERROR
    assert rpc_error["attributes"]["error.type"] == "-32603"
    assert rpc_error["attributes"]["rpc.response.status_code"] == "-32603"
    assert rpc_error["status"] == (ERROR, "backend down")
    assert calls["6"]["attributes"]["gen_ai.prompt.name"] == "triage"
    assert "gen_ai.operation.name" not in calls["6"]["attributes"]
    assert calls["7"]["attributes"]["mcp.resource.uri"] == "file:///kb/faq.md"
    assert calls["8"]["attributes"]["error.type"] == "unanswered"
    assert round((ok["end"] - ok["start"]) / 1e6, 3) == 5.0  # the capture's latency, in ns
    traced = calls["5"]
    assert (traced["trace_id"], traced["parent"]) == (TRACE_ID, PARENT_ID)
    session = by_target(spans)["mcpspy session"]
    assert traced["links"] == [session["span_id"]]
    assert ok["parent"] == session["span_id"] and ok["trace_id"] == session["trace_id"]
    # the stray line's finding is not about an exchange: an event on the session span
    session_rules = [e[1]["mcpspy.rule.id"] for e in session["events"] if e[0] == "mcpspy.finding"]
    assert "stdout.not-json" in session_rules
    # the unanswered request's finding sits on its span
    slow_rules = [e[1]["mcpspy.rule.id"] for e in calls["8"]["events"]]
    assert slow_rules and all(e[0] == "mcpspy.finding" for e in calls["8"]["events"])
    assert all(e[1]["mcpspy.capture.seq"] > 0 for e in calls["8"]["events"])


def test_report_sends_one_span_per_exchange_to_a_collector(tmp_path: Path) -> None:
    capture = mixed_capture(tmp_path / "mixed.jsonl")
    with running_collector() as collector:
        done = report(
            str(capture), "--format", "json", "--otlp-endpoint", collector.url, "--out", str(tmp_path / "r")
        )
        received = collector.received
    assert done.returncode == 1, done.stderr  # findings at error: the exit code is report's as ever
    assert done.stderr == ""
    check_mixed_spans(received.span_dicts())
    bodies = sorted((log.body.string_value, attributes_of(log)["log.iostream"]) for log in received.logs)
    assert bodies == [("listening on stdio", "stderr"), ("server ready", "stdout")]
    check_mixed_metrics(received, capture)


def check_mixed_metrics(received: Received, capture: Path) -> None:
    """The metrics of mixed_capture: one duration per exchange, by kind of call; findings by rule."""
    points = received.histogram_points("mcp.client.operation.duration")
    assert all(p["unit"] == "s" and p["bounds"] == list(DURATION_BUCKETS) for p in points)
    assert all(sum(p["buckets"]) == p["count"] for p in points)
    by_kind = {
        (
            p["attributes"]["mcp.method.name"],
            p["attributes"].get("gen_ai.tool.name"),
            p["attributes"].get("error.type"),
        ): p
        for p in points
    }
    assert {key: p["count"] for key, p in by_kind.items()} == {
        ("server/discover", None, None): 1,
        ("tools/call", "search", None): 2,  # ids 2 and 5: one kind of call, one point
        ("tools/call", "search", "tool_error"): 1,
        ("tools/call", "lookup", "-32603"): 1,
        ("prompts/get", None, None): 1,
        ("resources/read", None, None): 1,
        ("tools/call", "slow", "unanswered"): 1,
    }
    ok = by_kind[("tools/call", "search", None)]
    assert ok["sum"] == pytest.approx(0.005 + 0.001)  # the two latencies, as captured
    assert ok["buckets"][0] == 2  # both under 10 ms
    assert by_kind[("tools/call", "lookup", "-32603")]["attributes"]["rpc.response.status_code"] == "-32603"
    assert by_kind[("prompts/get", None, None)]["attributes"]["gen_ai.prompt.name"] == "triage"
    assert all("jsonrpc.request.id" not in p["attributes"] for p in points)  # per call: spans only
    assert all("mcp.resource.uri" not in p["attributes"] for p in points)
    assert all(p["resource"]["service.name"] == "helpdesk-srv" for p in points)
    findings = orjson.loads(report(str(capture), "--json").stdout)["findings"]
    counted = {
        p["attributes"]["mcpspy.rule.id"]: p["value"] for p in received.sum_points("mcpspy.finding.count")
    }
    assert counted == dict(Counter(f["id"] for f in findings)) and counted
    assert all(
        p["monotonic"] and p["unit"] == "{finding}" for p in received.sum_points("mcpspy.finding.count")
    )
    (session,) = received.histogram_points("mcp.client.session.duration")
    assert session["count"] == 1 and session["attributes"]["network.transport"] == "pipe"
    # timed as the session was, not as the report ran: 2026-12-01T10:00:00Z to its last record
    assert session["start"] == 1796119200 * 10**9 and session["time"] - session["start"] == pytest.approx(
        session["sum"] * 1e9
    )


def attributes_of(log: Any) -> dict[str, Any]:
    return attributes(log.attributes)


def report_to_collector(tmp_path: Path, env: dict[str, str]) -> tuple[int, str, Received]:
    """``report --otlp-endpoint`` (no URL) of mixed_capture, the collector's URL and ``env`` in the environment."""
    capture = mixed_capture(tmp_path / "mixed.jsonl")
    with running_collector() as collector:
        done = subprocess.run(
            [*MCPSPY, "report", str(capture), "--otlp-endpoint", "--out", str(tmp_path / "r.txt")],
            capture_output=True,
            text=True,
            timeout=120,
            env={**_env(), "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url, **env},
        )
        return done.returncode, done.stderr, collector.received


def test_otlp_headers_come_from_the_environment(tmp_path: Path) -> None:
    langfuse = "Authorization=Basic cGstbGY6c2stbGY=,x-langfuse-ingestion-version=4"  # as its docs write it
    returncode, stderr, received = report_to_collector(tmp_path, {"OTEL_EXPORTER_OTLP_HEADERS": langfuse})
    assert returncode == 1, stderr
    assert received.spans and all(
        h.get("authorization") == "Basic cGstbGY6c2stbGY=" and h.get("x-langfuse-ingestion-version") == "4"
        for h in received.headers
    )
    assert sorted(set(received.paths)) == ["/v1/logs", "/v1/metrics", "/v1/traces"]


def test_a_traces_only_backend_gets_traces_only(tmp_path: Path) -> None:
    """OTEL_LOGS_EXPORTER=none and OTEL_METRICS_EXPORTER=none, as for Jaeger or Langfuse."""
    env = {"OTEL_LOGS_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}
    returncode, stderr, received = report_to_collector(tmp_path, env)
    assert returncode == 1, stderr
    assert received.paths == ["/v1/traces"] and received.spans


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_otlp_json_file_matches_what_the_collector_gets(tmp_path: Path) -> None:
    capture = mixed_capture(tmp_path / "mixed.jsonl")
    out = tmp_path / "trace.otlp.jsonl"
    done = report(str(capture), "--format", "otlp", "--out", str(out))
    assert done.returncode == 1, done.stderr
    traces, logs, metrics = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    spans = []
    for rs in traces["resourceSpans"]:
        resource = {a["key"]: next(iter(a["value"].values())) for a in rs["resource"]["attributes"]}
        for ss in rs["scopeSpans"]:
            assert ss["scope"]["name"] == "mcpspy"
            for s in ss["spans"]:
                assert len(s["traceId"]) == 32 and int(s["traceId"], 16)  # hex, as OTLP/JSON wants
                attrs = {a["key"]: next(iter(a["value"].values())) for a in s.get("attributes", [])}
                spans.append(
                    {
                        "name": s["name"],
                        "kind": s["kind"],
                        "trace_id": s["traceId"],
                        "span_id": s["spanId"],
                        "parent": s.get("parentSpanId", ""),
                        "start": int(s["startTimeUnixNano"]),
                        "end": int(s["endTimeUnixNano"]),
                        "attributes": attrs,
                        "events": [
                            (
                                e["name"],
                                {a["key"]: _int(next(iter(a["value"].values()))) for a in e["attributes"]},
                            )
                            for e in s.get("events", [])
                        ],
                        "status": (s["status"].get("code", 0), s["status"].get("message", "")),
                        "links": [link["spanId"] for link in s.get("links", [])],
                        "resource": resource,
                    }
                )
    check_mixed_spans(spans)
    assert len(logs["resourceLogs"][0]["scopeLogs"][0]["logRecords"]) == 2
    # the metrics line is an ExportMetricsServiceRequest: the collector's own decoder takes it
    check_mixed_metrics(decoded_metrics(metrics), capture)


def decoded_metrics(line: dict[str, Any]) -> Received:
    """An OTLP/JSON metrics line read back as an ExportMetricsServiceRequest, as a collector would."""
    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

    received = Received()
    for rm in ParseDict(line, ExportMetricsServiceRequest()).resource_metrics:
        for sm in rm.scope_metrics:
            received.metrics += [(attributes(rm.resource.attributes), m) for m in sm.metrics]
    return received


def test_a_request_the_server_sent_is_the_server_operation(tmp_path: Path) -> None:
    """sampling/createMessage, asked by the server and answered by the client: the client is the receiver."""
    b = CaptureBuilder("sampling-session")
    b.line("c2s", request(1, "tools/list"))
    b.line("s2c", result(1, tools=[]), dt=0.002)
    b.line("s2c", request(7, "sampling/createMessage", messages=[], maxTokens=5))
    b.line("c2s", result(7, role="assistant", content={"type": "text", "text": "hi"}, model="m"), dt=0.3)
    capture = b.write(tmp_path / "sampling.jsonl")
    out = tmp_path / "s.otlp.jsonl"
    done = report(str(capture), "--format", "otlp", "--out", str(out))
    assert done.returncode in (0, 1), done.stderr
    received = decoded_metrics(orjson.loads(out.read_bytes().splitlines()[-1]))
    (server,) = received.histogram_points("mcp.server.operation.duration")
    assert server["attributes"]["mcp.method.name"] == "sampling/createMessage"
    assert server["sum"] == pytest.approx(0.3) and server["buckets"][DURATION_BUCKETS.index(0.5)] == 1
    (client,) = received.histogram_points("mcp.client.operation.duration")
    assert client["attributes"]["mcp.method.name"] == "tools/list"
    assert client["sum"] == pytest.approx(0.002)


def _int(value: Any) -> Any:
    return int(value) if isinstance(value, str) and value.isdigit() else value


def test_a_dead_collector_is_one_line_and_exit_2(tmp_path: Path) -> None:
    capture = mixed_capture(tmp_path / "mixed.jsonl")
    done = report(
        str(capture), "--otlp-endpoint", f"http://127.0.0.1:{closed_port()}", "--out", str(tmp_path / "r")
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "OTLP export of 9 spans" in done.stderr, done.stderr
    done = report(str(capture), "--otlp-endpoint", "ftp://collector", "--out", str(tmp_path / "r"))
    assert done.returncode == 2 and "not an http(s) URL" in done.stderr


@pytest.mark.parametrize("form", [["--format", "otlp"], ["--otlp-endpoint", "http://127.0.0.1:4318"]])
def test_without_the_extra_one_line_names_it(tmp_path: Path, form: list[str]) -> None:
    capture = mixed_capture(tmp_path / "mixed.jsonl")
    script = (
        "import sys; sys.modules['opentelemetry'] = None\n"  # as if the otel extra were not installed
        "from mcpspy.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "report", str(capture), *form],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert (
        done.stderr.strip().splitlines() == [done.stderr.strip()]
        and "pip install 'mcpspy[otel]'" in done.stderr
    ), done.stderr
    assert done.stdout == ""


def test_a_huge_tool_name_is_clipped_in_the_metrics(tmp_path: Path) -> None:
    """A series lives as long as the session: its attributes are bounded (the span keeps the name whole)."""
    b = CaptureBuilder("huge-name")
    huge = "t" * 100_000
    b.exchange(1, huge)
    out = tmp_path / "huge.otlp.jsonl"
    done = report(str(b.write(tmp_path / "huge.jsonl")), "--format", "otlp", "--out", str(out))
    assert done.returncode in (0, 1), done.stderr
    (point,) = decoded_metrics(orjson.loads(out.read_bytes().splitlines()[-1])).histogram_points(
        "mcp.client.operation.duration"
    )
    name = point["attributes"]["gen_ai.tool.name"]
    assert len(name) == 256 and name.startswith("ttt") and name.endswith("…")
