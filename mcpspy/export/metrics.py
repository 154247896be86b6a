"""One session's metrics, as the OpenTelemetry MCP conventions name them, and a count of findings.

- ``mcp.client.operation.duration`` for a request the client sent: mcpspy
  sits at the client's edge, so the time from the request passing to its
  reply passing is what the client observed, the sender's side;
  ``mcp.server.operation.duration`` for a request the server sent (sampling,
  elicitation, roots): the client is then the receiver, and the same two
  passings bound its handling. Both histograms in seconds with the
  conventions' explicit buckets; an exchange is measured as its span is
  (an unanswered one to the session's end, with ``error.type``).
- ``mcp.client.session.duration``: the whole capture, once, at its end.
- ``mcpspy.finding.count``: findings by ``mcpspy.rule.id`` and severity.

The attributes are the span's, less the ones the conventions keep off
metrics (the request id, the resource URI: per call, not per kind of call).
This module imports the SDK: import it only after ``otel.require_sdk()``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from opentelemetry.metrics import Histogram
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import AggregationTemporality, MetricReader, MetricsData
from opentelemetry.sdk.resources import Resource

from mcpspy import __version__
from mcpspy.analysis.model import Finding

#: The conventions' ExplicitBucketBoundaries for every MCP duration histogram, in seconds.
DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
#: Span attributes the operation-duration metrics carry (low cardinality: one value per kind of call).
OPERATION_ATTRIBUTES = frozenset(
    {
        "mcp.method.name",
        "error.type",
        "gen_ai.tool.name",
        "gen_ai.prompt.name",
        "gen_ai.operation.name",
        "rpc.response.status_code",
        "mcp.protocol.version",
        "jsonrpc.protocol.version",
        "network.transport",
    }
)
#: A metric attribute's longest value: a series is held for the session's life (and the SDK keeps at most
#: 2,000 of them a metric, the rest in one marked ``otel.metric.overflow``), so a server's 1 MB "tool
#: name" must not be held 2,000 times over.
MAX_VALUE = 256
CLIENT_OPERATION = "mcp.client.operation.duration"
SERVER_OPERATION = "mcp.server.operation.duration"
CLIENT_SESSION = "mcp.client.session.duration"
FINDING_COUNT = "mcpspy.finding.count"


class SessionMetrics:
    """The instruments of one session, read by the reader given (an exporting one, or memory)."""

    def __init__(self, resource: Resource, reader: MetricReader) -> None:
        self.provider = MeterProvider(resource=resource, metric_readers=[reader], shutdown_on_exit=False)
        meter = self.provider.get_meter("mcpspy", __version__)

        def duration(name: str, description: str) -> Histogram:
            return meter.create_histogram(
                name, unit="s", description=description, explicit_bucket_boundaries_advisory=DURATION_BUCKETS
            )

        self.client_operation = duration(
            CLIENT_OPERATION, "The duration of an MCP request the client sent, from its sending to its reply."
        )
        self.server_operation = duration(
            SERVER_OPERATION, "The duration of an MCP request the server sent, from its arrival to the reply."
        )
        self.client_session = duration(
            CLIENT_SESSION, "The duration of the MCP session as observed at the client's edge."
        )
        self.findings = meter.create_counter(
            FINDING_COUNT, unit="{finding}", description="Protocol findings mcpspy raised, by rule."
        )

    def operation(self, client_sent: bool, seconds: float, span_attributes: Mapping[str, Any]) -> None:
        attributes = {k: clipped(v) for k, v in span_attributes.items() if k in OPERATION_ATTRIBUTES}
        histogram = self.client_operation if client_sent else self.server_operation
        histogram.record(max(0.0, seconds), attributes)

    def finding(self, finding: Finding) -> None:
        self.findings.add(
            1, {"mcpspy.rule.id": finding.id, "mcpspy.finding.severity": finding.severity.label}
        )

    def session(self, seconds: float, protocol_version: str | None) -> None:
        attributes = {"network.transport": "pipe"}
        if protocol_version:
            attributes["mcp.protocol.version"] = protocol_version
        self.client_session.record(max(0.0, seconds), attributes)


def clipped(value: Any) -> Any:
    return value[: MAX_VALUE - 1] + "…" if isinstance(value, str) and len(value) > MAX_VALUE else value


def preferred_temporality() -> AggregationTemporality:
    """What ``OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE`` asks for histograms and counters."""
    preference = os.environ.get("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "").strip().upper()
    if preference in ("DELTA", "LOWMEMORY"):
        return AggregationTemporality.DELTA
    return AggregationTemporality.CUMULATIVE


def restamped(data: MetricsData, start_ns: int, end_ns: int) -> MetricsData:
    """A finished session's metrics timed as the session was (not as the report ran).

    Each point then covers the capture, start to end, as its spans do; its temporality is the
    one the environment prefers (one export of a whole session is both cumulative and delta).
    """
    temporality = preferred_temporality()

    def metric(item: Any) -> Any:
        points = [
            dataclasses.replace(p, start_time_unix_nano=start_ns, time_unix_nano=end_ns)
            for p in item.data.data_points
        ]
        return dataclasses.replace(
            item, data=dataclasses.replace(item.data, data_points=points, aggregation_temporality=temporality)
        )

    return MetricsData(
        resource_metrics=[
            dataclasses.replace(
                rm,
                scope_metrics=[
                    dataclasses.replace(sm, metrics=[metric(m) for m in sm.metrics])
                    for sm in rm.scope_metrics
                ],
            )
            for rm in data.resource_metrics
        ]
    )
