"""One session's analysis as OpenTelemetry spans and log records (the MCP semantic conventions).

- One span per exchange, named ``{mcp.method.name} {target}`` (the tool or
  prompt); kind CLIENT for a request the client sent, SERVER for one the
  server sent (mcpspy sits at the client's edge); start and end are the
  capture's times. Attributes as the conventions name them, plus
  ``mcpspy.*`` ones; ``mcp.session.id`` is never set (it names the HTTP
  header, which stdio has not): ``mcpspy.session.id`` is, and the general
  ``session.id`` beside it (what Langfuse and Phoenix group by).
- A request whose ``params._meta`` carries ``traceparent`` (and
  ``tracestate``) is a child of that trace; any other exchange is a child
  of the session span, ``mcpspy session``, which covers the whole capture.
  With ``join`` (``--otlp-join``) such a request gets no span of ours: the
  caller's span is the operation, and the exchange (``mcpspy.exchange``)
  and its findings are log-record events in that span's context.
- With ``metrics`` each exchange, finding and the session end are also
  recorded as metrics (metrics.py).
- Each finding about an exchange's request or reply is a ``mcpspy.finding``
  event on its span; a finding about anything else (a stray line, the
  process, a reply to an unknown id, one raised after its span ended) is
  an event on the session span.
- Stray stdout text (a line, or text glued before a message) and stderr
  lines are log records in the session span's trace.
- The resource is the server: ``service.name`` from its serverInfo, else
  the session's name.

This module imports the SDK: import it only after ``otel.require_sdk()``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from opentelemetry import trace
from opentelemetry._logs import LogRecord, SeverityNumber
from opentelemetry.context import Context
from opentelemetry.sdk._logs import LoggerProvider, LogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from opentelemetry.trace import Link, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from mcpspy import __version__
from mcpspy.analysis.model import Exchange, Finding, Kind, Message, Severity
from mcpspy.capture.records import Header, Stream
from mcpspy.export.metrics import SessionMetrics
from mcpspy.model.exchanges import meta, outcome, parse_started, resource_uri, stray_text, target, text_field

SESSION_SPAN = "mcpspy session"
FINDING_EVENT = "mcpspy.finding"
EXCHANGE_EVENT = "mcpspy.exchange"
FINDING_SEVERITY = {
    Severity.INFO: SeverityNumber.INFO,
    Severity.WARNING: SeverityNumber.WARN,
    Severity.ERROR: SeverityNumber.ERROR,
}
PROPAGATOR = TraceContextTextMapPropagator()


def resource_for(header: Header, info: dict[str, Any]) -> Resource:
    attributes: dict[str, Any] = {
        "service.name": text_field(info, "name") or header.name,
        "service.instance.id": header.session,  # one server process is one session
        "process.command_args": list(header.command),
        "mcpspy.session.id": header.session,
    }
    if version := text_field(info, "version"):
        attributes["service.version"] = version
    return Resource.create(attributes)


def remote_parent(request: Message | None) -> Context | None:
    """The trace a request belongs to, from ``params._meta.traceparent``; None when absent or malformed."""
    fields = meta(request)
    carrier = {
        key: value for key in ("traceparent", "tracestate") if isinstance(value := fields.get(key), str)
    }
    if "traceparent" not in carrier:
        return None
    context = PROPAGATOR.extract(carrier)
    return context if trace.get_current_span(context).get_span_context().is_valid else None


def sampled(context: Context) -> bool:
    """Whether the caller recorded its span: an unsampled one is in no backend, nothing to join."""
    return bool(trace.get_current_span(context).get_span_context().trace_flags.sampled)


def finding_attributes(finding: Finding) -> dict[str, Any]:
    return {
        "mcpspy.rule.id": finding.id,
        "mcpspy.finding.severity": finding.severity.label,
        "mcpspy.capture.seq": finding.seq,
        "mcpspy.finding.message": finding.message,
    }


def exchange_attributes(
    exchange: Exchange, request: Message | None, reply: Message | None, protocol_version: str | None
) -> tuple[dict[str, Any], str | None, str | None]:
    """The conventions' attributes of an exchange, its ``error.type`` (None: it worked) and status text."""
    name_target = target(exchange, request)
    result = outcome(exchange, reply)
    attributes: dict[str, Any] = {
        "mcp.method.name": exchange.method,
        "network.transport": "pipe",
        "mcpspy.exchange.state": result.state,
        "mcpspy.capture.seq": exchange.request_seq,
    }
    if exchange.id is not None:
        attributes["jsonrpc.request.id"] = str(exchange.id)
    if version := exchange.version or protocol_version:
        attributes["mcp.protocol.version"] = version
    payload = request.payload if request is not None and isinstance(request.payload, dict) else {}
    if isinstance(jsonrpc := payload.get("jsonrpc"), str) and jsonrpc != "2.0":
        attributes["jsonrpc.protocol.version"] = jsonrpc
    if name_target is not None:
        key = "gen_ai.tool.name" if exchange.method == "tools/call" else "gen_ai.prompt.name"
        attributes[key] = name_target
    if exchange.method == "tools/call":
        attributes["gen_ai.operation.name"] = "execute_tool"
    if uri := resource_uri(exchange, request):
        attributes["mcp.resource.uri"] = uri
    if exchange.out_of_order:
        attributes["mcpspy.exchange.out_of_order"] = True
    error_type, description = None, None
    if result.state == "lost":  # whatever it carried, the client could not read it
        error_type, description = "lost", "the reply line reached the client unparseable"
    elif result.error_code is not None:
        error_type = str(result.error_code)
        attributes["rpc.response.status_code"] = error_type
        description = result.error_message
    elif reply is not None and reply.kind is Kind.ERROR_RESPONSE:
        error_type, description = "_OTHER", result.error_message
    elif result.tool_error:
        error_type = "tool_error"
    elif result.state in ("unanswered", "cancelled"):
        error_type = result.state
    if error_type is not None:
        attributes["error.type"] = error_type
    return attributes, error_type, description


class SessionTracer:
    """Spans and log records of one session, handed to the processors given (export, or memory)."""

    def __init__(
        self,
        header: Header,
        resource: Resource,
        span_processor: SpanProcessor,
        log_processor: LogRecordProcessor | None,
        metrics: SessionMetrics | None = None,
        join: bool = False,
    ) -> None:
        self.header = header
        self.metrics = metrics
        self.join = join  # --otlp-join: no span of ours for a request that names its caller's span
        self.started_ns = int(parse_started(header.started).timestamp() * 1e6) * 1000
        self.tracer_provider = TracerProvider(resource=resource, sampler=ALWAYS_ON, shutdown_on_exit=False)
        self.tracer_provider.add_span_processor(span_processor)
        self.logger_provider = LoggerProvider(resource=resource, shutdown_on_exit=False)
        if log_processor is not None:  # None: log records are not wanted (OTEL_LOGS_EXPORTER=none)
            self.logger_provider.add_log_record_processor(log_processor)
        self.tracer = self.tracer_provider.get_tracer("mcpspy", __version__)
        self.logger = self.logger_provider.get_logger("mcpspy", __version__)
        self.session_span = self.tracer.start_span(
            SESSION_SPAN,
            kind=SpanKind.INTERNAL,
            start_time=self.started_ns,
            attributes={
                "mcpspy.session.id": header.session,
                "session.id": header.session,
                "network.transport": "pipe",
            },
        )
        self.session_context = trace.set_span_in_context(self.session_span)
        self.spans = 0  # exchange spans made
        self.joined = 0  # exchanges given to their caller's span as events (--otlp-join)
        self.logs = 0  # log records made

    def ns(self, t: float) -> int:
        return self.started_ns + round(t * 1e9)

    def exchange(
        self,
        exchange: Exchange,
        request: Message | None,
        reply: Message | None,
        end_t: float,
        findings: Iterable[Finding],
        protocol_version: str | None,
        times: dict[int, float],
    ) -> None:
        """One finished exchange as a span (joined: as events on its caller's span).

        ``times`` gives each finding's time by seq.
        """
        name_target = target(exchange, request)
        attributes, error_type, description = exchange_attributes(exchange, request, reply, protocol_version)
        attributes["mcpspy.session.id"] = attributes["session.id"] = self.header.session
        end_t = max(end_t, exchange.sent_t)
        client_sent = exchange.stream is Stream.C2S
        findings = list(findings)
        if self.metrics is not None:
            self.metrics.operation(client_sent, end_t - exchange.sent_t, attributes)
            for finding in findings:
                self.metrics.finding(finding)
        parent = remote_parent(request)
        if parent is not None and self.join and sampled(parent):
            self._joined(parent, exchange, attributes, error_type, description, end_t, findings, times)
            return
        span = self.tracer.start_span(
            f"{exchange.method} {name_target}" if name_target else exchange.method,
            context=parent or self.session_context,
            kind=SpanKind.CLIENT if client_sent else SpanKind.SERVER,
            attributes=attributes,
            links=[Link(self.session_span.get_span_context())] if parent is not None else (),
            start_time=self.ns(exchange.sent_t),
        )
        for finding in findings:
            t = times.get(finding.seq, exchange.sent_t)
            span.add_event(FINDING_EVENT, finding_attributes(finding), timestamp=self.ns(t))
        if error_type is not None:
            span.set_status(Status(StatusCode.ERROR, description))
        span.end(end_time=self.ns(end_t))
        self.spans += 1

    def _joined(
        self,
        parent: Context,
        exchange: Exchange,
        attributes: dict[str, Any],
        error_type: str | None,
        description: str | None,
        end_t: float,
        findings: list[Finding],
        times: dict[int, float],
    ) -> None:
        """``--otlp-join``: the caller's span is the exchange's; what mcpspy knows goes to it as events.

        Another process's span cannot be changed, and a second span of the same id is no span at
        all, so the exchange and its findings are log records in the caller's span's context (the
        form OpenTelemetry gives an event on a span it did not make).
        """
        attributes["mcpspy.exchange.duration"] = end_t - exchange.sent_t
        severity = SeverityNumber.INFO if error_type is None else SeverityNumber.WARN
        self._log(parent, end_t, attributes, severity, EXCHANGE_EVENT, description)
        for finding in findings:
            t = times.get(finding.seq, exchange.sent_t)
            severity = FINDING_SEVERITY[finding.severity]
            self._log(parent, t, finding_attributes(finding), severity, FINDING_EVENT)
        self.joined += 1

    def _log(
        self,
        context: Context,
        t: float,
        attributes: dict[str, Any],
        severity: SeverityNumber,
        event: str | None = None,
        body: str | None = None,
    ) -> None:
        self.logs += 1
        self.logger.emit(
            LogRecord(
                timestamp=self.ns(t),
                observed_timestamp=self.ns(t),
                context=context,
                event_name=event,
                severity_number=severity,
                severity_text=severity.name,
                body=body,
                attributes=attributes,
            )
        )

    def session_finding(self, finding: Finding, t: float) -> None:
        if self.metrics is not None:
            self.metrics.finding(finding)
        self.session_span.add_event(FINDING_EVENT, finding_attributes(finding), timestamp=self.ns(t))

    def stray_text(self, message: Message) -> None:
        """A log record for what is not protocol: a stderr line (INFO), stray stdout text (WARN)."""
        data = stray_text(message)
        if data is None:
            return
        if message.kind is Kind.STDERR:
            severity, iostream = SeverityNumber.INFO, "stderr"
        else:
            severity, iostream = SeverityNumber.WARN, "stdout"
        attributes = {
            "log.iostream": iostream,
            "mcpspy.capture.seq": message.seq,
            "mcpspy.message.kind": message.kind.value,
            "mcpspy.session.id": self.header.session,
        }
        body = data.decode("utf-8", "backslashreplace")
        self._log(self.session_context, message.t, attributes, severity, body=body)

    def finish(self, end_t: float, era: str, protocol_version: str | None) -> None:
        """End the session span (and record the session's duration)."""
        self.session_span.set_attribute("mcpspy.era", era)
        if protocol_version:
            self.session_span.set_attribute("mcp.protocol.version", protocol_version)
        if self.metrics is not None:
            self.metrics.session(end_t, protocol_version)
        self.session_span.end(end_time=self.ns(end_t))
