"""Exporters that count what reached the collector, and give up at a deadline (for a quick exit).

Each export also has an overall deadline (``Deadline``): the SDK's timeout is
per read, so a collector that trickles its answer (a byte a second) would
hold an export, and the processor's shutdown at exit, for as long as it likes.

The SDK's batch processors drop silently when their queue is full and log
failures; these wrappers keep the numbers mcpspy reports in its one warning.
This module imports the SDK: import it only after ``otel.require_sdk()``.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from opentelemetry.sdk._logs import ReadableLogRecord
from opentelemetry.sdk._logs.export import LogRecordExporter, LogRecordExportResult
from opentelemetry.sdk.metrics.export import MetricExporter, MetricExportResult, MetricsData
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

BEST_EFFORT_LOGGERS = ("._log_exporter", ".metric_exporter")
OS_ERROR = re.compile(r"\[Errno \d+\] [^'\")\]]+")
Result = TypeVar("Result")


class Deadline:
    """Runs one export at a time on a thread of its own and waits for it at most ``seconds``.

    An export still running then is left to finish on its thread (the process's end takes it
    with it); until it has, the next exports fail at once rather than pile up behind it.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._stuck: threading.Thread | None = None

    def run(self, export: Callable[[], Result]) -> Result | None:
        """``export()``'s result, or None when it did not return in time (or one before it still runs)."""
        if self._stuck is not None and self._stuck.is_alive():
            return None
        result: list[Result] = []
        thread = threading.Thread(target=lambda: result.append(export()), name="mcpspy-export", daemon=True)
        thread.start()
        thread.join(self.seconds)
        if thread.is_alive():
            self._stuck = thread
            return None
        return result[0] if result else None


class Tally(logging.Handler):
    """What was sent and what failed, and the exporter's last word on why (it speaks through logging)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.sent = 0
        self.failed = 0
        self.reason = ""
        self.give_up_at: float | None = None  # monotonic: past it, exports fail at once
        self._lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.endswith(BEST_EFFORT_LOGGERS):  # the log and metric exporters speak for themselves
            return
        message = record.getMessage()
        if "already shutdown" in message:  # our own abort at exit (otlp_live), not the collector's doing
            return
        if errno := OS_ERROR.search(message):  # "[Errno 111] Connection refused": the cause, said plainly
            self.reason = errno.group()
        elif not OS_ERROR.match(self.reason):
            self.reason = message[:200]

    def count(self, sent: int = 0, failed: int = 0) -> None:
        with self._lock:
            self.sent += sent
            self.failed += failed

    def given_up(self) -> bool:
        return self.give_up_at is not None and time.monotonic() >= self.give_up_at


class CountedSpanExporter(SpanExporter):
    def __init__(self, inner: Any, tally: Tally, deadline: Deadline) -> None:
        self.inner = inner
        self.tally = tally
        self.deadline = deadline

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self.tally.given_up():
            self.tally.count(failed=len(spans))
            return SpanExportResult.FAILURE
        result = self.deadline.run(lambda: self.inner.export(spans))
        if result is None:
            self.tally.reason = f"no answer within {self.deadline.seconds:g} s"
            result = SpanExportResult.FAILURE
        ok = result is SpanExportResult.SUCCESS
        self.tally.count(sent=len(spans) if ok else 0, failed=0 if ok else len(spans))
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class CountedLogExporter(LogRecordExporter):
    def __init__(self, inner: Any, tally: Tally, deadline: Deadline) -> None:
        self.inner = inner
        self.tally = tally
        self.deadline = deadline

    def export(self, batch: Sequence[ReadableLogRecord]) -> LogRecordExportResult:
        if self.tally.given_up():
            self.tally.count(failed=len(batch))
            return LogRecordExportResult.FAILURE
        result = self.deadline.run(lambda: self.inner.export(batch)) or LogRecordExportResult.FAILURE
        ok = result is LogRecordExportResult.SUCCESS
        self.tally.count(sent=len(batch) if ok else 0, failed=0 if ok else len(batch))
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class CountedMetricExporter(MetricExporter):
    """Counts exports (not points): the metrics are best effort, as the log records are."""

    def __init__(self, inner: Any, tally: Tally, deadline: Deadline) -> None:
        # the reader asks the exporter for its temporality (OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE)
        super().__init__(inner._preferred_temporality, inner._preferred_aggregation)
        self.inner = inner
        self.tally = tally
        self.deadline = deadline

    def export(
        self, metrics_data: MetricsData, timeout_millis: float = 10_000, **kwargs: Any
    ) -> MetricExportResult:
        if self.tally.given_up():
            self.tally.count(failed=1)
            return MetricExportResult.FAILURE
        result = self.deadline.run(lambda: self.inner.export(metrics_data)) or MetricExportResult.FAILURE
        ok = result is MetricExportResult.SUCCESS
        self.tally.count(sent=1 if ok else 0, failed=0 if ok else 1)
        return result

    def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        return True
