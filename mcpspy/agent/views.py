"""What an agent is handed about a session, a message, an exchange, a finding: plain JSON objects.

mcpspy's own words (catalogue sentences, states, numbers) are top-level fields;
whatever came off the wire is under ``captured`` only (agent/untrusted.py). A
finding's sentence is its rule's summary, which refers to the line it is about
by seq; the line itself and the occurrence's specifics (which quote ids,
names, text from the wire) are captured fields.
"""

from __future__ import annotations

from typing import Any

from mcpspy.agent.untrusted import CAPTURED, captured, cut, text, value_text
from mcpspy.analysis.context_cost import context_cost
from mcpspy.analysis.model import Exchange, Finding, Kind, Message, Severity
from mcpspy.analysis.sources import public_source
from mcpspy.capture.sessions import SessionInfo
from mcpspy.model.summary import NEVER_ANSWERED, Summary, exchange_state

DEFAULT_MAX_BYTES = 400  # of each captured line, unless the caller sets another
QUOTE_BYTES = 300  # of the line a finding quotes


def message_uri(session: str, seq: int) -> str:
    return f"mcpspy://session/{session}/message/{seq}"


def message_object(session: str, message: Message, max_bytes: int) -> dict[str, Any]:
    """One line: where and what it is, its size, and its captured text cut at ``max_bytes``."""
    line, was_cut = cut(message.raw, max_bytes)
    out: dict[str, Any] = {
        "seq": message.seq,
        "t": round(message.t, 6),
        "dir": message.stream.value,
        "kind": message.kind.value,
        "bytes": message.size,
        "cut": was_cut,
        "flags": sorted({f.id for f in message.findings}),
    }
    if was_cut:
        out["rest"] = message_uri(session, message.seq)  # the whole line, as a resource
    if message.exchange is not None:
        out["exchange_seq"] = message.exchange.request_seq
    out |= captured(
        method=text(message.method) if message.method is not None else None,
        id=value_text(message.id) if message.id is not None else None,
        line=line,
    )
    return out


def finding_object(finding: Finding, summary: Summary) -> dict[str, Any]:
    rule = finding.rule
    quoted = summary.message_at(finding.seq)
    line = cut(quoted.raw, QUOTE_BYTES)[0] if quoted is not None else None
    return {
        "rule": rule.id,
        "severity": rule.severity.label,
        "seq": finding.seq,
        "related_seq": finding.related_seq,
        "sentence": f"{rule.summary} (seq {finding.seq}; its line is captured.line)",
        "fix": rule.fix,
        "source": public_source(rule.source),
    } | captured(detail=text(finding.message), line=line)


def session_id(info: SessionInfo) -> str:
    """The session's id as mcpspy's own words use it: made safe, for a capture file may be crafted."""
    return text(info.session)


def session_head(info: SessionInfo) -> dict[str, Any]:
    """mcpspy's facts about a session (its header's, made safe: a capture file may be crafted), and its
    name and command as captured."""
    header = info.header
    return {
        "id": session_id(info),
        "live": info.live,
        "started": text(header.started),
        "path": text(str(info.path)),
    } | captured(name=text(header.name), command=[text(arg) for arg in header.command])


def report_object(info: SessionInfo, summary: Summary, at_least: Severity, limit: int) -> dict[str, Any]:
    """The session's report for an agent: header, counts, the findings worst first (``limit`` of them)."""
    a = summary.analyzer
    chosen = [f for f in summary.findings if f.severity >= at_least]
    cost = context_cost(a.exchanges, a.message)
    head = session_head(info) | {"duration_s": summary.duration, "exit": summary.exit, "era": a.era.value}
    if a.protocol_version is not None:  # the version as the wire said it
        head[CAPTURED]["protocol_version"] = text(a.protocol_version)
    return {
        "session": head,
        "counts": summary.counts,
        "findings_total": len(chosen),
        "by_severity": {sev.label: sum(f.severity is sev for f in summary.findings) for sev in Severity},
        "never_answered": sum(ex.state in NEVER_ANSWERED for ex in a.exchanges),
        "tools_list_tokens": cost.tools.tokens,
        "findings": [finding_object(f, summary) for f in chosen[:limit]],
    }


def exchange_object(session: str, exchange: Exchange, summary: Summary, max_bytes: int) -> dict[str, Any]:
    """One exchange: its request, progress, cancel, reply, late replies, timings and findings."""
    at = summary.message_at
    request = at(exchange.request_seq)
    reply = at(exchange.reply_seq) if exchange.reply_seq is not None else None
    cancel = at(exchange.cancel_seq) if exchange.cancel_seq is not None else None
    token = request.meta.get("progressToken") if request is not None else None
    progress: list[Message] = []
    late: list[Message] = []
    for m in summary.analyzer.messages:
        if m.seq <= exchange.request_seq:
            continue
        if (
            token is not None
            and m.kind is Kind.NOTIFICATION
            and m.method == "notifications/progress"
            and m.stream is not exchange.stream
            and m.params.get("progressToken") == token
        ):
            progress.append(m)
        elif (
            m.kind in (Kind.RESPONSE, Kind.ERROR_RESPONSE)
            and m.seq != exchange.reply_seq
            and any(f.related_seq == exchange.request_seq for f in m.findings)
        ):
            late.append(m)
    related = {exchange.request_seq, exchange.reply_seq, exchange.cancel_seq, *(m.seq for m in late)}
    findings = [f for f in summary.findings if f.seq in related or f.related_seq == exchange.request_seq]

    def shown(m: Message | None) -> dict[str, Any] | None:
        return None if m is None else message_object(session, m, max_bytes)

    return {
        "request_seq": exchange.request_seq,
        "dir": exchange.stream.value,
        "state": exchange_state(exchange),
        "latency_ms": None if exchange.latency is None else round(exchange.latency * 1000.0, 3),
        "request": shown(request),
        "progress": [message_object(session, m, max_bytes) for m in progress[:20]],
        "progress_total": len(progress),
        "cancel": shown(cancel),
        "reply": shown(reply),
        "late_replies": [message_object(session, m, max_bytes) for m in late],
        "findings": [finding_object(f, summary) for f in findings],
    } | captured(method=text(exchange.method), id=value_text(exchange.id))
