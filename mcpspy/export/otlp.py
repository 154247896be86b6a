"""`mcpspy report --format otlp` and `--otlp-endpoint`: a finished session as OTLP traces and logs.

``--format otlp`` prints OTLP/JSON as JSON Lines: one
``ExportTraceServiceRequest`` line (``{"resourceSpans": ...}``), one
``ExportLogsServiceRequest`` line (``{"resourceLogs": ...}``) when the
session had stray or stderr lines, then one ``ExportMetricsServiceRequest``
line (``{"resourceMetrics": ...}``): the form the OpenTelemetry Collector's
``otlpjsonfile`` receiver reads and its ``file`` exporter writes. Ids are
hex and enums integers, as the OTLP/JSON encoding requires.
``--otlp-endpoint URL`` sends the same over OTLP/HTTP (protobuf) to a collector; the log
records and metrics best effort (Jaeger and Langfuse take traces only).

The spans and metrics are made by the SDK from the one replay (spans.py and
metrics.py say what they hold) and encoded by the OTLP exporter's own encoders;
the metrics' points are timed as the session was (metrics.restamped).
"""

from __future__ import annotations

import base64
import logging
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import orjson

from mcpspy.export.otel import bounded_session, check_endpoint, require_sdk, signal_url, signal_wanted
from mcpspy.model.exchanges import reply_or_end, server_info
from mcpspy.model.summary import Summary

if TYPE_CHECKING:
    from mcpspy.analysis.model import Finding
    from mcpspy.export.spans import SessionTracer

SEND_TIMEOUT = 5.0  # seconds the exporter may spend (with its retries) on one request, the SDK's: per read
SEND_DEADLINE = SEND_TIMEOUT + 1.0  # ... and whatever the collector does (counted.Deadline)
ID_FIELDS = frozenset({"traceId", "spanId", "parentSpanId"})


def trace_session(
    summary: Summary, span_processor: Any, log_processor: Any, metric_reader: Any = None
) -> SessionTracer:
    """Replay's analysis -> spans, log records and metrics, handed to the processors and the reader."""
    from mcpspy.export.metrics import SessionMetrics
    from mcpspy.export.spans import SessionTracer, resource_for

    analyzer = summary.analyzer
    header = summary.capture.header
    resource = resource_for(header, server_info(analyzer))
    metrics = SessionMetrics(resource, metric_reader) if metric_reader is not None else None
    tracer = SessionTracer(header, resource, span_processor, log_processor, metrics)
    end_t = summary.duration or 0.0
    times = {m.seq: m.t for m in analyzer.messages}
    times.update((event.seq, event.t) for event in analyzer.lifecycle)
    by_seq: dict[int, list[Finding]] = defaultdict(list)
    for finding in analyzer.findings:
        by_seq[finding.seq].append(finding)
    for exchange in analyzer.exchanges:
        request = analyzer.message(exchange.request_seq)
        reply = analyzer.message(exchange.reply_seq) if exchange.reply_seq is not None else None
        findings = by_seq.pop(exchange.request_seq, [])
        if exchange.reply_seq is not None:
            findings += by_seq.pop(exchange.reply_seq, [])
        end = reply_or_end(exchange, analyzer, end_t)
        tracer.exchange(exchange, request, reply, end, findings, analyzer.protocol_version, times)
    for seq, findings in sorted(by_seq.items()):
        for finding in findings:
            tracer.session_finding(finding, times.get(seq, 0.0))
    for message in analyzer.messages:
        tracer.stray_text(message)
    tracer.finish(end_t, analyzer.era.value, analyzer.protocol_version)
    return tracer


def collect(summary: Summary) -> tuple[list[Any], list[Any], Any]:
    """The session's spans, log records and metrics (``MetricsData``), made in memory."""
    require_sdk()
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from mcpspy.export.metrics import restamped

    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()  # type: ignore[no-untyped-call]
    reader = InMemoryMetricReader()
    tracer = trace_session(summary, SimpleSpanProcessor(spans), SimpleLogRecordProcessor(logs), reader)
    metrics = reader.get_metrics_data()
    end_ns = tracer.ns(summary.duration or 0.0)
    metrics = restamped(metrics, tracer.started_ns, end_ns) if metrics is not None else None
    return list(spans.get_finished_spans()), list(logs.get_finished_logs()), metrics


def hex_ids(value: Any) -> Any:
    """OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping gives base64."""
    if isinstance(value, dict):
        return {
            key: base64.b64decode(item).hex() if key in ID_FIELDS and isinstance(item, str) else hex_ids(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [hex_ids(item) for item in value]
    return value


def otlp_json(spans: list[Any], logs: list[Any], metrics: Any = None) -> str:
    from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.exporter.otlp.proto.common.metrics_encoder import encode_metrics
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    requests = [encode_spans(spans)] + ([encode_logs(logs)] if logs else [])
    requests += [encode_metrics(metrics)] if metrics is not None else []
    lines = [orjson.dumps(hex_ids(MessageToDict(r, use_integers_for_enums=True))) for r in requests]
    return b"\n".join(lines).decode() + "\n"


def render_otlp(summary: Summary) -> str:
    return otlp_json(*collect(summary))


class _Reasons(logging.Handler):
    """Keeps what the exporter said about a failure, to give the user one line instead."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def send_report(summary: Summary, endpoint: str) -> str | None:
    """Send the session to a collector over OTLP/HTTP; the one line to show when it failed, else None.

    ``endpoint`` "" uses ``OTEL_EXPORTER_OTLP_ENDPOINT`` (else http://localhost:4318), as the SDK does;
    ``OTEL_EXPORTER_OTLP_HEADERS`` is honoured the same way.
    """
    if (problem := check_endpoint(endpoint)) is not None:
        return problem
    spans, logs, metrics = collect(summary)
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    from mcpspy.export.counted import Deadline

    reasons = _Reasons()
    exporter_log = logging.getLogger("opentelemetry.exporter")
    exporter_log.addHandler(reasons)
    deadline = Deadline(SEND_DEADLINE)  # the SDK's timeout is per read: a trickling answer never trips it
    try:
        span_exporter = OTLPSpanExporter(
            endpoint=signal_url(endpoint, "traces"), timeout=SEND_TIMEOUT, session=bounded_session()
        )
        target = getattr(span_exporter, "_endpoint", "the collector")
        result = deadline.run(lambda: span_exporter.export(spans))
        if result is None:
            return (
                f"OTLP export of {len(spans)} spans to {target} failed: no answer within {SEND_DEADLINE:g} s"
            )
        if result is not SpanExportResult.SUCCESS:
            return f"OTLP export of {len(spans)} spans to {target} failed: {last_reason(reasons)}"
        # best effort: Jaeger and Langfuse take traces only, and refuse the rest
        if logs and signal_wanted("logs"):
            log_exporter = OTLPLogExporter(
                endpoint=signal_url(endpoint, "logs"), timeout=SEND_TIMEOUT, session=bounded_session()
            )
            deadline.run(lambda: log_exporter.export(logs))
        if metrics is not None and signal_wanted("metrics"):
            metric_exporter = OTLPMetricExporter(
                endpoint=signal_url(endpoint, "metrics"), timeout=SEND_TIMEOUT, session=bounded_session()
            )
            deadline.run(lambda: metric_exporter.export(metrics))
    finally:
        exporter_log.removeHandler(reasons)
    return None


def last_reason(reasons: _Reasons) -> str:
    return reasons.messages[-1] if reasons.messages else "no reason given"
