"""What every report view shows, computed once from a capture and its analysis.

The text, JSON and Markdown views only format a ``Summary``; the figures
(counts, latency percentiles, exchange states) are decided here, in one place.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import Exchange, ExchangeState, Finding, Message, Severity
from mcpspy.capture.reader import Capture
from mcpspy.capture.records import Event, LifecycleRecord, Stream
from mcpspy.inject.reactions import Reaction, reactions, unmatched
from mcpspy.inject.record import Injection

#: Requests whose sender never read a reply: none yet, none ever, or one that reached it unparseable.
NEVER_ANSWERED = (ExchangeState.PENDING, ExchangeState.UNANSWERED, ExchangeState.LOST)


@dataclass(frozen=True, slots=True)
class Latency:
    """Reply times of one method, in milliseconds."""

    method: str
    count: int
    p50_ms: float
    p95_ms: float
    max_ms: float


@dataclass
class Summary:
    capture: Capture
    path: Path
    analyzer: Analyzer
    duration: float | None
    exit: dict[str, Any] | None  # server-exited details: code, or signal
    counts: dict[str, dict[str, int]]  # stream -> kind -> number of messages
    latency: list[Latency]
    findings: list[Finding]  # worst first, then in seq order
    line_of: dict[int, int] = field(default_factory=dict)  # seq -> line number in the capture file
    # --inject: each injection and how the client took it; the SPECs that never struck; the findings
    # the injections provoked (never among ``findings``, never in ``worst``).
    injected: list[Reaction] = field(default_factory=list)
    unmatched: list[Injection] = field(default_factory=list)
    injected_findings: list[Finding] = field(default_factory=list)

    @property
    def worst(self) -> Severity | None:
        return max((f.severity for f in self.findings), default=None)

    def message_at(self, seq: int) -> Message | None:
        return self._by_seq.get(seq)

    def __post_init__(self) -> None:
        self._by_seq = {m.seq: m for m in self.analyzer.messages}


def percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile: always a value that was actually measured."""
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[rank - 1]


def exchange_state(exchange: Exchange) -> str:
    """The report's state word: an out-of-order reply is called so, whatever it carried."""
    if exchange.out_of_order and exchange.state in (ExchangeState.ANSWERED, ExchangeState.ERROR):
        return "out-of-order"
    return exchange.state.value


def latencies(exchanges: list[Exchange]) -> list[Latency]:
    by_method: dict[str, list[float]] = {}
    for ex in exchanges:
        if ex.latency is not None and not ex.long_lived and ex.state is not ExchangeState.LOST:
            by_method.setdefault(ex.method, []).append(ex.latency * 1000.0)
    rows = []
    for method, values in sorted(by_method.items()):
        values.sort()
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        rows.append(Latency(method, len(values), p50, p95, values[-1]))
    return rows


def build_summary(capture: Capture, path: Path, analyzer: Analyzer) -> Summary:
    """Gather the figures every view prints."""
    duration: float | None = None
    exit_details: dict[str, Any] | None = None
    line_of: dict[int, int] = {}
    for index, record in enumerate(capture.records):
        line_of[record.seq] = index + 2  # line 1 is the header
        duration = record.t if duration is None else max(duration, record.t)
        if isinstance(record, LifecycleRecord) and record.event is Event.SERVER_EXITED:
            exit_details = dict(record.details)
    counts: dict[str, dict[str, int]] = {}
    tally = Counter((m.stream.value, m.kind.value) for m in analyzer.messages)
    for stream in Stream:
        kinds = {kind: n for (s, kind), n in sorted(tally.items()) if s == stream.value}
        if kinds:
            counts[stream.value] = kinds
    findings = sorted(analyzer.findings, key=lambda f: (-f.severity, f.seq))
    any_injected = _any_injected(capture)
    return Summary(
        capture=capture,
        path=path,
        analyzer=analyzer,
        duration=duration,
        exit=exit_details,
        counts=counts,
        latency=latencies(analyzer.exchanges),
        findings=findings,
        line_of=line_of,
        injected=reactions(capture.records) if any_injected else [],
        unmatched=unmatched(capture.records) if any_injected else [],
        injected_findings=sorted(analyzer.injected_findings, key=lambda f: (-f.severity, f.seq)),
    )


def _any_injected(capture: Capture) -> bool:
    return any(isinstance(r, LifecycleRecord) and r.event is Event.INJECTED for r in capture.records)


def provoked_by(summary: Summary, reaction: Reaction) -> list[Finding]:
    """The findings one injection provoked: about a line it wrote, or the request it struck."""
    seqs = set(reaction.injection.seqs)
    struck = _struck_request(summary, reaction.injection)
    if struck is not None:
        seqs.add(struck)
    return [f for f in summary.injected_findings if f.seq in seqs or f.related_seq in seqs]


def _struck_request(summary: Summary, injection: Injection) -> int | None:
    """The client request (its seq) whose reply the injection struck: the last one of that id before it."""
    if injection.id is None:
        return None
    found = None
    for exchange in summary.analyzer.exchanges:
        if exchange.request_seq > injection.seq:
            break
        if exchange.stream is Stream.C2S and orjson.dumps(exchange.id).decode() == injection.id:
            found = exchange.request_seq
    return found


def exit_text(details: dict[str, Any] | None) -> str:
    if details is None:
        return "not recorded"
    if "signal" in details:
        return f"signal {details['signal']}"
    if "code" in details:
        return f"code {details['code']}"
    return ", ".join(f"{k}={v}" for k, v in details.items())
