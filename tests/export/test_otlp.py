"""OTLP: report --format otlp (OTLP/JSON) and report --otlp-endpoint, received by a real collector."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import MCPSPY
from tests.export.collector import closed_port, running_collector
from tests.export.synthetic import PARENT_ID, TRACE_ID, mixed_capture

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
        assert a["mcpspy.session.id"] == "mixed-session"
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


def attributes_of(log: Any) -> dict[str, Any]:
    from tests.export.collector import attributes

    return attributes(log.attributes)


def test_otlp_headers_come_from_the_environment(tmp_path: Path) -> None:
    capture = mixed_capture(tmp_path / "mixed.jsonl")
    with running_collector() as collector:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url, "OTEL_EXPORTER_OTLP_HEADERS": "x-team=payments"}
        done = subprocess.run(
            [*MCPSPY, "report", str(capture), "--otlp-endpoint", "--out", str(tmp_path / "r.txt")],
            capture_output=True,
            text=True,
            timeout=120,
            env={**_env(), **env},
        )
        received = collector.received
    assert done.returncode == 1, done.stderr
    assert received.spans and all(h.get("x-team") == "payments" for h in received.headers)


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_otlp_json_file_matches_what_the_collector_gets(tmp_path: Path) -> None:
    capture = mixed_capture(tmp_path / "mixed.jsonl")
    out = tmp_path / "trace.otlp.jsonl"
    done = report(str(capture), "--format", "otlp", "--out", str(out))
    assert done.returncode == 1, done.stderr
    traces, logs = [orjson.loads(line) for line in out.read_bytes().splitlines()]
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
