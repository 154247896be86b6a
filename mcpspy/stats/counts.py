"""The figures of one capture (what the cache keeps), and their sum over many sessions.

One capture gives, per method and per tool: calls, JSON-RPC error replies,
tool errors (a tools/call result with ``isError: true``), unanswered requests,
and its reply latencies. Latencies are kept as a histogram of values rounded
to three significant digits (in microseconds), so a cached entry stays small
whatever the session's length and percentiles stay within 0.5%.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpspy.analysis.model import ExchangeState
from mcpspy.capture.cache import is_count, is_counts
from mcpspy.model.exchanges import outcome, server_info, target
from mcpspy.replay_policy import open_capture

#: Bump when ``capture_figures`` changes shape: cached entries of another version are recomputed.
FIGURES_VERSION = 1
LOST = ExchangeState.LOST  # a reply the client could not parse: no answer to it, and no latency
NEVER_SEEN = (ExchangeState.UNANSWERED, LOST)


def rounded_us(seconds: float) -> int:
    """Microseconds to three significant digits: 5.0 ms stays 5000, 123.456 ms becomes 123000."""
    us = max(0, round(seconds * 1e6))
    return int(float(f"{us:.3g}")) if us >= 1000 else us


def capture_figures(path: Path) -> dict[str, Any]:
    """One capture replayed (``open_capture``: a live one is not concluded) and counted."""
    opened = open_capture(path)
    capture, analyzer = opened.capture, opened.analyzer
    methods: dict[str, dict[str, Any]] = {}
    tools: dict[str, dict[str, Any]] = {}
    for exchange in analyzer.exchanges:
        request = analyzer.message(exchange.request_seq)
        reply = analyzer.message(exchange.reply_seq) if exchange.reply_seq is not None else None
        result = outcome(exchange, reply)
        rows = [methods.setdefault(exchange.method, new_row())]
        if exchange.method == "tools/call" and (tool := target(exchange, request)) is not None:
            rows.append(tools.setdefault(tool, new_row()))
        for row in rows:
            row["calls"] += 1
            row["errors"] += result.error_code is not None or result.error_message is not None
            row["tool_errors"] += result.tool_error
            row["unanswered"] += exchange.state in NEVER_SEEN
            if exchange.latency is not None and not exchange.long_lived and exchange.state is not LOST:
                key = str(rounded_us(exchange.latency))
                row["latency_us"][key] = row["latency_us"].get(key, 0) + 1
    header = capture.header
    return {
        "server": server_info(analyzer).get("name") or header.name,
        "session": header.session,
        "started": header.started,
        "messages": len(analyzer.messages),
        "findings": dict(Counter(f.severity.label for f in analyzer.findings)),
        "methods": methods,
        "tools": tools,
    }


def valid_figures(value: Any) -> bool:
    """Whether a cached value is what ``capture_figures`` gives (``by_server`` reads it unchecked)."""
    if not isinstance(value, dict) or not all(isinstance(value.get(k), str) for k in ("server", "session")):
        return False
    if not is_count(value.get("messages")) or not is_counts(value.get("findings")):
        return False
    rows = [value.get("methods"), value.get("tools")]
    return all(isinstance(r, dict) and all(_valid_row(row) for row in r.values()) for r in rows)


def _valid_row(row: Any) -> bool:
    return (
        isinstance(row, dict)
        and all(is_count(row.get(k)) for k in ("calls", "errors", "tool_errors", "unanswered"))
        and is_counts(row.get("latency_us"), numbered=True)
    )


def new_row() -> dict[str, Any]:
    return {"calls": 0, "errors": 0, "tool_errors": 0, "unanswered": 0, "latency_us": {}}


@dataclass
class Row:
    """Calls and failures of one method or tool of one server, over the sessions counted."""

    name: str
    calls: int = 0
    errors: int = 0
    tool_errors: int = 0
    unanswered: int = 0
    latency_us: Counter[int] = field(default_factory=Counter)
    sessions: int = 0  # sessions that called it
    failed_sessions: int = 0  # ... and saw it fail at least once

    def add(self, figures: dict[str, Any]) -> None:
        self.calls += figures["calls"]
        self.errors += figures["errors"]
        self.tool_errors += figures["tool_errors"]
        self.unanswered += figures["unanswered"]
        self.latency_us.update({int(k): v for k, v in figures["latency_us"].items()})
        self.sessions += 1
        self.failed_sessions += bool(figures["errors"] or figures["tool_errors"])

    @property
    def flaky(self) -> bool:
        """Failed in some sessions and not in others."""
        return 0 < self.failed_sessions < self.sessions

    def percentile_ms(self, fraction: float) -> float | None:
        """Nearest rank over the histogram: always a latency that was measured (to 3 digits)."""
        total = sum(self.latency_us.values())
        if not total:
            return None
        rank = max(1, math.ceil(fraction * total))
        seen = 0
        for value in sorted(self.latency_us):
            seen += self.latency_us[value]
            if seen >= rank:
                return value / 1000.0
        return None

    def as_json(self, key: str) -> dict[str, Any]:
        return {
            key: self.name,
            "calls": self.calls,
            "errors": self.errors,
            "tool_errors": self.tool_errors,
            "unanswered": self.unanswered,
            "p50_ms": self.percentile_ms(0.5),
            "p95_ms": self.percentile_ms(0.95),
            "p99_ms": self.percentile_ms(0.99),
            "sessions": self.sessions,
            "failed_sessions": self.failed_sessions,
        }


@dataclass
class ServerStats:
    name: str
    sessions: int = 0
    methods: dict[str, Row] = field(default_factory=dict)
    tools: dict[str, Row] = field(default_factory=dict)

    def add(self, figures: dict[str, Any]) -> None:
        self.sessions += 1
        for method, row in figures["methods"].items():
            self.methods.setdefault(method, Row(method)).add(row)
        for tool, row in figures["tools"].items():
            self.tools.setdefault(tool, Row(tool)).add(row)

    @property
    def flaky(self) -> list[Row]:
        return [row for _, row in sorted(self.tools.items()) if row.flaky]


def by_server(all_figures: list[dict[str, Any]]) -> list[ServerStats]:
    servers: dict[str, ServerStats] = {}
    for figures in all_figures:
        servers.setdefault(figures["server"], ServerStats(figures["server"])).add(figures)
    return [servers[name] for name in sorted(servers)]
