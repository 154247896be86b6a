"""Exporters that count what reached the collector, and give up at a deadline (for a quick exit).

The SDK's batch processors drop silently when their queue is full and log
failures; these wrappers keep the numbers mcpspy reports in its one warning.
This module imports the SDK: import it only after ``otel.require_sdk()``.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Sequence
from typing import Any

from opentelemetry.sdk._logs import ReadableLogRecord
from opentelemetry.sdk._logs.export import LogRecordExporter, LogRecordExportResult
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

OS_ERROR = re.compile(r"\[Errno \d+\] [^'\")\]]+")


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
        message = record.getMessage()
        if "logs batch" in message:  # the (best effort) log exporter's words
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
    def __init__(self, inner: Any, tally: Tally) -> None:
        self.inner = inner
        self.tally = tally

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self.tally.given_up():
            self.tally.count(failed=len(spans))
            return SpanExportResult.FAILURE
        result: SpanExportResult = self.inner.export(spans)
        ok = result is SpanExportResult.SUCCESS
        self.tally.count(sent=len(spans) if ok else 0, failed=0 if ok else len(spans))
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class CountedLogExporter(LogRecordExporter):
    def __init__(self, inner: Any, tally: Tally) -> None:
        self.inner = inner
        self.tally = tally

    def export(self, batch: Sequence[ReadableLogRecord]) -> LogRecordExportResult:
        if self.tally.given_up():
            self.tally.count(failed=len(batch))
            return LogRecordExportResult.FAILURE
        result: LogRecordExportResult = self.inner.export(batch)
        ok = result is LogRecordExportResult.SUCCESS
        self.tally.count(sent=len(batch) if ok else 0, failed=0 if ok else len(batch))
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
