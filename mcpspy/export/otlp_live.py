"""`mcpspy --otlp-endpoint URL -- CMD`: each exchange sent to a collector as it completes.

A sink of the proxy's sink process (``proxy.sink_child``), never of the
proxy itself: called with each run of records the process read from the
proxy's feed, it only queues them (a bounded queue, in records and bytes)
and returns. Its own thread replays them through the one replay policy and
makes the spans (spans.py); the SDK's batch processors send them over
OTLP/HTTP from their threads.

When the collector is down or slow, or the queue is full, records and spans
are dropped and counted (the analysis judges no pairing across records it
missed), and ``close()`` says so in one warning line (the exporter's own log
lines are kept off stderr). Log records (stray and stderr lines) and metrics
(metrics.py: exported every ``OTEL_METRIC_EXPORT_INTERVAL``, 60 s, and at
close) are best effort and not warned about: Jaeger and Langfuse take traces
only (``OTEL_LOGS_EXPORTER=none`` / ``OTEL_METRICS_EXPORTER=none`` leave them out).
``close(timeout)`` gives the collector up to ``timeout`` to take the last
spans, none when it has already failed, then returns.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from mcpspy.analysis.analyzer import PENDING_BOUND
from mcpspy.analysis.model import (
    AnalysisEvent,
    Exchange,
    ExchangeState,
    ExchangeUpdated,
    Finding,
    FindingRaised,
    Kind,
    Message,
    MessageSeen,
)
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.capture.records import Header, LifecycleRecord, LineBatch, Record, Recorded, as_records
from mcpspy.export.otel import bounded_session, check_endpoint, require_sdk, signal_url, signal_wanted
from mcpspy.model.exchanges import (
    RequestGist,
    reply_or_end,
    request_gist,
    request_of_gist,
    server_info_of,
    stray_text,
)
from mcpspy.replay_policy import Replay

if TYPE_CHECKING:
    from mcpspy.export.counted import CountedMetricExporter, Tally
    from mcpspy.export.metrics import SessionMetrics
    from mcpspy.export.spans import SessionTracer

# Records waiting for the analysis thread, past which batches are dropped: a burst of 20,000 (a client
# that pipelines 10,000 requests while the SDK starts) is taken whole; 5,000 held ~8 MiB less under a
# flood, but dropped a sixth of a 6,000-record burst (benchmarks/sink_load.py --requests 3000).
MAX_QUEUED_RECORDS = 20_000
MAX_QUEUED_BYTES = 64 << 20
MAX_HELD = 1_000  # stray lines and session findings held until the server has said its name
# The lean analysis keeps no old message: what the spans read of a request is kept (its gist) while it
# is awaited, for at most this many (the analysis sets aside requests past 10,000 pending a way; the rest
# is room for requests no reply can pair, a duplicate or invalid id, which are never completed).
REQUESTS_RECALLED = 50_000
# Findings about awaited requests wait here for their span, for at most as many requests as one
# direction's analysis can still pair (pending, and set aside at a gap: PENDING_BOUND each); past it
# the oldest go on the session span (a request the analysis forgot gets no span of its own).
FINDINGS_AWAITED = 2 * PENDING_BOUND
GISTS_SHARED = 4_096  # distinct gists kept to be shared (a traceparent makes every gist its own)
MULTILINE = (RuleId.STDIN_MULTILINE_JSON, RuleId.STDOUT_MULTILINE_JSON)
EMITTED_KEPT = 16_384  # the last spans made, by request seq: a late reply (to a cancel) makes no second
SPAN_QUEUE = 4_096  # the SDK batch processor's queue
EXPORT_TIMEOUT = 2.0  # seconds one export may take, its retries included (the SDK's: per read)
EXPORT_DEADLINE = EXPORT_TIMEOUT + 1.0  # ... and whatever the collector does (counted.Deadline)
CLOSE_WAIT = 4.0  # at close: the analysis thread's last records, then the collector's last spans

Batch = Sequence[Recorded | Record]
Queued = Batch | int | None  # records; an int where that many are missing; None: the end


def batch_size(batch: Batch) -> tuple[int, int]:
    """Records and bytes in a batch, cheaply (no record objects are made)."""
    records = size = 0
    for item in batch:
        if isinstance(item, LineBatch):
            records += len(item.lines)
            size += sum(map(len, item.lines))
        else:
            records += 1
            size += len(item.data) if not isinstance(item, LifecycleRecord) else 64
    return records, size


class OtlpSink:
    """Queue on the caller's thread; replay and export on others. Never raises into the proxy."""

    def __init__(
        self,
        header: Header,
        endpoint: str | None,
        warn: Callable[[str], None],
        join: bool = False,
        lean: bool = True,
    ) -> None:
        """``lean``: the lean analysis (``Replay(retain=False)``), whose memory stays bounded however
        long the session; the spans are the same (tests/export/test_otlp_lean.py)."""
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        from mcpspy.export.counted import (
            CountedLogExporter,
            CountedMetricExporter,
            CountedSpanExporter,
            Deadline,
            Tally,
        )

        self.header = header
        self.join = join
        self._warn = warn
        self.replay = Replay(retain=not lean)
        self.tally: Tally = Tally()  # spans
        self.log_tally: Tally = Tally()  # log records: best effort (Jaeger and Langfuse take only traces)
        self.metric_tally: Tally = Tally()  # metric exports: best effort too
        logging.getLogger("opentelemetry.exporter").addHandler(self.tally)
        spans = OTLPSpanExporter(
            endpoint=signal_url(endpoint, "traces"), timeout=EXPORT_TIMEOUT, session=bounded_session()
        )
        self.target = str(getattr(spans, "_endpoint", endpoint or "the collector"))
        self._exporters: list[Any] = [spans]
        self.span_processor = BatchSpanProcessor(
            CountedSpanExporter(spans, self.tally, Deadline(EXPORT_DEADLINE)),
            max_queue_size=SPAN_QUEUE,
            schedule_delay_millis=500,
        )
        self.log_processor: BatchLogRecordProcessor | None = None
        if signal_wanted("logs"):
            logs = OTLPLogExporter(
                endpoint=signal_url(endpoint, "logs"), timeout=EXPORT_TIMEOUT, session=bounded_session()
            )
            self._exporters.append(logs)
            self.log_processor = BatchLogRecordProcessor(
                CountedLogExporter(logs, self.log_tally, Deadline(EXPORT_DEADLINE)),
                max_queue_size=SPAN_QUEUE,
                schedule_delay_millis=500,
            )
        self.metric_exporter: CountedMetricExporter | None = None
        if signal_wanted("metrics"):
            metrics = OTLPMetricExporter(
                endpoint=signal_url(endpoint, "metrics"), timeout=EXPORT_TIMEOUT, session=bounded_session()
            )
            self._exporters.append(metrics)
            self.metric_exporter = CountedMetricExporter(
                metrics, self.metric_tally, Deadline(EXPORT_DEADLINE)
            )
        self.metrics: SessionMetrics | None = None
        self.tracer: SessionTracer | None = None
        self.dropped_records = 0
        self._info: dict[str, Any] = {}
        self._held_messages: deque[Message] = deque(maxlen=MAX_HELD)  # stray text until the tracer exists
        self._held_findings: deque[Finding] = deque(maxlen=MAX_HELD)
        self._by_seq: dict[int, list[Finding]] = {}  # findings about pending exchanges' messages
        self._emitted: dict[int, float] = {}  # request seq -> its time, of the last EMITTED_KEPT spans made
        # Lean: the gist of each request awaited (or lost), by seq, until its span is made.
        self._requests: dict[int, RequestGist] = {}
        self._gists: dict[RequestGist, RequestGist] = {}
        self._queue: deque[Queued] = deque()
        self._queued = (0, 0)
        self._ready = threading.Condition()
        self._failed: BaseException | None = None
        self._stop_at: float | None = None  # set by close: past it, what is still queued is dropped
        self._thread = threading.Thread(target=self._run, name="mcpspy-otlp", daemon=True)
        self._thread.start()

    # --- the recording thread's side: queue, count, return

    def __call__(self, batch: Batch) -> None:
        records, size = batch_size(batch)
        with self._ready:
            queued_records, queued_bytes = self._queued
            if queued_records + records > MAX_QUEUED_RECORDS or queued_bytes + size > MAX_QUEUED_BYTES:
                self._missing(records)
                return
            self._queued = (queued_records + records, queued_bytes + size)
            self._queue.append(batch)
            self._ready.notify()

    def skipped(self, count: int) -> None:
        """Records lost before they reached us (the proxy's feed dropped them): counted, and told in order."""
        with self._ready:
            self._missing(count)

    def _missing(self, count: int) -> None:
        """Under the lock: ``count`` records will never come; the analysis hears of it at their place."""
        self.dropped_records += count
        if self._queue and isinstance(self._queue[-1], int):
            self._queue[-1] += count
        else:
            self._queue.append(count)
            self._ready.notify()

    # --- the analysis thread

    def _run(self) -> None:
        try:
            while True:
                with self._ready:
                    while not self._queue:
                        self._ready.wait()
                    batch = self._queue.popleft()
                    if isinstance(batch, int):
                        # what was pending is unknown now, no span yet: a reply after the gap still
                        # pairs it and makes its span then (one never answered gets none: a known limit)
                        self.replay.analyzer.records_missing()
                        continue
                    if batch is not None:
                        records, size = batch_size(batch)
                        self._queued = (self._queued[0] - records, self._queued[1] - size)
                if batch is None:
                    break
                if self._stop_at is not None and time.monotonic() > self._stop_at:
                    self.dropped_records += records  # closing, and still behind: the rest is not analysed
                    continue
                self._feed(batch)
            self._handle(self.replay.conclude())
            tracer = self._tracer()
            analyzer = self.replay.analyzer
            tracer.finish(self.replay.last_t, analyzer.era.value, analyzer.protocol_version)
        except Exception as exc:  # the proxy must go on whatever the export does
            self._failed = exc

    def _feed(self, batch: Batch) -> None:
        for record in as_records(batch):
            self._handle(self.replay.feed(record))
        self._handle(self.replay.caught_up())  # concluded once the proxy's last record is in

    def _handle(self, events: list[AnalysisEvent]) -> None:
        updated = {id(e.exchange) for e in events if isinstance(e, ExchangeUpdated)}
        for event in events:
            if isinstance(event, MessageSeen):
                self._seen(event.message)
            elif isinstance(event, FindingRaised):
                self._finding(event.finding, updated)
        for event in events:
            if isinstance(event, ExchangeUpdated) and event.exchange.state is not ExchangeState.PENDING:
                self._completed(event.exchange)

    def _recall(self, message: Message) -> None:
        """Lean: keep what the spans read of a request (the analysis keeps only its last messages)."""
        if message.kind is Kind.REQUEST and message.exchange is not None and not self.replay.analyzer.retain:
            gist = request_gist(message)
            gist = self._gists.setdefault(gist, gist)  # the same tool called again: one gist
            if len(self._gists) > GISTS_SHARED:
                self._gists.clear()
            self._requests[message.seq] = gist
            if len(self._requests) > REQUESTS_RECALLED:
                del self._requests[next(iter(self._requests))]

    def _seen(self, message: Message) -> None:
        self._recall(message)
        if not self._info and (info := server_info_of(message)) is not None:
            self._info = info
        if stray_text(message) is not None:
            if self.tracer is None:
                self._held_messages.append(message)
            else:
                self.tracer.stray_text(message)

    def _finding(self, finding: Finding, updated: set[int]) -> None:
        message = self.replay.analyzer.message(finding.seq)
        if message is not None and finding.id in MULTILINE:  # its first line became the message just now
            self._recall(message)
        exchange = message.exchange if message is not None else None
        if message is None:  # lean, an old message: a request awaited, its span not made yet?
            awaited = finding.seq in self._requests and finding.seq not in self._emitted
        else:
            awaited = (
                exchange is not None
                and exchange.request_seq not in self._emitted
                and (exchange.state is ExchangeState.PENDING or id(exchange) in updated)
            )
        if not awaited:
            self._session_finding(finding)
            return
        if finding.seq not in self._by_seq and len(self._by_seq) >= FINDINGS_AWAITED:
            for forgotten in self._by_seq.pop(next(iter(self._by_seq))):
                self._session_finding(forgotten)
        self._by_seq.setdefault(finding.seq, []).append(finding)

    def _session_finding(self, finding: Finding) -> None:
        if self.tracer is None:
            self._held_findings.append(finding)
        else:
            self.tracer.session_finding(finding, self._time_of(finding.seq))

    def _completed(self, exchange: Exchange) -> None:
        if exchange.request_seq in self._emitted:
            return  # a reply after its cancel: the span was made at the cancel
        self._emitted[exchange.request_seq] = exchange.sent_t
        if len(self._emitted) > EMITTED_KEPT:
            del self._emitted[next(iter(self._emitted))]
        analyzer = self.replay.analyzer
        request = analyzer.message(exchange.request_seq)
        gist = self._requests.get(exchange.request_seq)
        if gist is not None and exchange.state is not ExchangeState.LOST:  # still awaited when lost
            del self._requests[exchange.request_seq]
        if request is None and gist is not None:
            request = request_of_gist(exchange, gist)
        reply = analyzer.message(exchange.reply_seq) if exchange.reply_seq is not None else None
        findings = self._by_seq.pop(exchange.request_seq, [])
        if exchange.reply_seq is not None:
            findings += self._by_seq.pop(exchange.reply_seq, [])
        times = {m.seq: m.t for m in (request, reply) if m is not None}
        end = reply_or_end(exchange, analyzer, self.replay.last_t)
        self._tracer().exchange(exchange, request, reply, end, findings, analyzer.protocol_version, times)

    def _tracer(self) -> SessionTracer:
        """Made at the first span, when the server has usually said its name (serverInfo)."""
        if self.tracer is None:
            from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

            from mcpspy.export.metrics import SessionMetrics
            from mcpspy.export.spans import SessionTracer, resource_for

            resource = resource_for(self.header, self._info)
            if self.metric_exporter is not None:  # every OTEL_METRIC_EXPORT_INTERVAL (60 s), and at close
                self.metrics = SessionMetrics(resource, PeriodicExportingMetricReader(self.metric_exporter))
            self.tracer = SessionTracer(
                self.header, resource, self.span_processor, self.log_processor, self.metrics, self.join
            )
            for message in self._held_messages:
                self.tracer.stray_text(message)
            for finding in self._held_findings:
                self.tracer.session_finding(finding, self._time_of(finding.seq))
            self._held_messages.clear()
            self._held_findings.clear()
        return self.tracer

    def _time_of(self, seq: int) -> float:
        message = self.replay.analyzer.message(seq)
        if message is not None:
            return message.t
        return self._emitted.get(seq, self.replay.last_t)  # a request whose span is made

    # --- the end

    def close(self, timeout: float = CLOSE_WAIT) -> dict[str, int]:
        """Finish the analysis, give a working collector the rest to take the last spans, say what was lost.

        Never longer than ``timeout`` (half for the analysis, the rest for the collector): a
        collector that trickles its answers holds nobody past it (its export is left running).
        """
        deadline = time.monotonic() + timeout
        self._stop_at = time.monotonic() + timeout / 2
        with self._ready:
            self._queue.append(None)
            self._ready.notify()
        self._thread.join(timeout / 2)
        self.tally.give_up_at = time.monotonic() if self.tally.failed else deadline
        self.log_tally.give_up_at = self.metric_tally.give_up_at = self.tally.give_up_at
        flush = threading.Thread(target=self._shut_down, name="mcpspy-otlp-flush", daemon=True)
        flush.start()
        flush.join(max(0.0, deadline - time.monotonic()))
        if flush.is_alive():
            self._abort_exports()  # wakes an exporter waiting to retry; one stuck in a read is left
        logging.getLogger("opentelemetry.exporter").removeHandler(self.tally)
        figures = self.figures()
        self._say_losses(figures)
        return figures

    def _shut_down(self) -> None:
        try:
            self.span_processor.shutdown()  # type: ignore[no-untyped-call]
            if self.log_processor is not None:
                self.log_processor.shutdown()  # type: ignore[no-untyped-call]
            if self.metrics is not None and not self.tally.failed:  # a failing collector gets no more
                self.metrics.provider.shutdown()  # the last collection, exported
        except Exception:
            pass  # counted: what was not sent shows in the figures

    def _abort_exports(self) -> None:
        for exporter in self._exporters:
            try:
                exporter.shutdown()  # wakes an exporter waiting to retry
            except Exception:
                pass

    def figures(self) -> dict[str, int]:
        tracer = self.tracer
        made = 0 if tracer is None else tracer.spans + 1  # and the session span
        logs = 0 if tracer is None else tracer.logs
        return {
            "spans": made,
            "sent": self.tally.sent,
            "not_sent": max(0, made - self.tally.sent),
            "joined": 0 if tracer is None else tracer.joined,
            "log_records": logs,
            "log_records_sent": self.log_tally.sent,
            "metric_exports_sent": self.metric_tally.sent,
            "records_dropped": self.dropped_records,
        }

    def _say_losses(self, figures: dict[str, int]) -> None:
        lost = []
        if figures["not_sent"]:
            lost.append(f"{figures['not_sent']} of {figures['spans']} spans not sent")
        if figures["records_dropped"]:
            lost.append(f"{figures['records_dropped']} records not analysed (the export fell behind)")
        if self._failed is not None:
            lost.append(f"the export stopped: {self._failed}")
        if lost:
            reason = f" ({self.tally.reason})" if self.tally.reason else ""
            self._warn(f"mcpspy: OTLP export to {self.target}: {'; '.join(lost)}{reason}")


def open_otlp_sink(
    endpoint: str | None, header: Header, warn: Callable[[str], None], join: bool = False
) -> OtlpSink | None:
    """The live sink, or None (and one warning) when the extra is missing or the URL is unusable.

    ``endpoint`` None or "": ``OTEL_EXPORTER_OTLP_ENDPOINT`` (else http://localhost:4318), as the SDK does.
    ``join``: ``--otlp-join`` (spans.py).
    """
    problem = check_endpoint(endpoint)
    if problem is None:
        try:
            require_sdk()
            return OtlpSink(header, endpoint, warn, join)
        except ImportError as exc:
            problem = str(exc)
    warn(f"mcpspy: --otlp-endpoint: {problem}; forwarding without it")
    return None
