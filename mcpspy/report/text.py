"""The plain-text report: what a person reads first, in a terminal or a CI log.

Every string that came from the capture (names, the command, methods, the
sentences that quote lines) goes through ``visible_line``: one line each, no
control character reaches the terminal.
"""

from __future__ import annotations

from collections import Counter

from mcpspy.analysis.context_cost import context_cost
from mcpspy.analysis.model import Finding, Severity
from mcpspy.analysis.sources import public_source
from mcpspy.model.summary import NEVER_ANSWERED, Summary, exchange_state, exit_text, provoked_by
from mcpspy.terminal import visible_line as v

SHOWN_PER_RULE = 5  # findings of one rule listed one by one; past it, one line counts the rest
SHOWN_UNANSWERED = 20


def render_text(summary: Summary) -> str:
    header = summary.capture.header
    a = summary.analyzer
    out: list[str] = []
    duration = "unknown" if summary.duration is None else f"{summary.duration:.3f}s"
    out.append(f"session   {v(header.session)}  ({v(header.name)})")
    out.append(f"file      {v(str(summary.path))}")
    out.append(f"command   {v(' '.join(header.command))}")
    out.append(f"started   {v(header.started)}   duration {duration}   exit {exit_text(summary.exit)}")
    out.append(f"era       {a.era.value}   protocol {v(a.protocol_version or 'unknown')}")
    for problem in summary.capture.problems:
        out.append(f"note      {v(problem)}")

    out.append("")
    out.append("messages")
    for stream, kinds in summary.counts.items():
        parts = "  ".join(f"{kind} {n}" for kind, n in kinds.items())
        out.append(f"  {stream:<4} {parts}")
    if not summary.counts:
        out.append("  none")

    if summary.latency:
        out.append("")
        methods = [v(row.method) for row in summary.latency]
        width = max(len(method) for method in methods)
        out.append(f"latency   {'method':<{width}}  {'n':>5}  {'p50':>9}  {'p95':>9}  {'max':>9}")
        for row, method in zip(summary.latency, methods, strict=True):
            out.append(
                f"          {method:<{width}}  {row.count:>5}  {row.p50_ms:>7.1f}ms"
                f"  {row.p95_ms:>7.1f}ms  {row.max_ms:>7.1f}ms"
            )

    out.extend(context_lines(summary))

    out.append("")
    if not summary.findings:
        out.append("findings  none")
    for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
        group = [f for f in summary.findings if f.severity is severity]
        if not group:
            continue
        out.append(f"{severity.label}s ({len(group)})")
        shown: Counter[str] = Counter()
        elided: dict[str, list[Finding]] = {}
        for f in group:
            shown[f.id] += 1
            if shown[f.id] > SHOWN_PER_RULE:
                elided.setdefault(f.id, []).append(f)
                continue
            line = summary.line_of.get(f.seq)
            where = f"seq {f.seq}" + (f" (line {line})" if line else "")
            stream = f" {f.stream.value}" if f.stream else ""
            out.append(f"  {where:<20}{stream:<5} {f.id}: {v(f.message)}")
        for rule_id, rest in elided.items():
            out.append(
                f"  … and {len(rest):,} more {rule_id} (seq {rest[0].seq} to {rest[-1].seq}; "
                "every one in `mcpspy report --json`)"
            )

    out += _fixes(summary)
    out += injected_lines(summary)

    open_ones = [ex for ex in a.exchanges if ex.state in NEVER_ANSWERED]
    if open_ones:
        out.append("")
        out.append(f"never answered ({len(open_ones)})")
        for ex in open_ones[:SHOWN_UNANSWERED]:
            out.append(
                f"  seq {ex.request_seq:<6} {ex.stream.arrow} id={v(repr(ex.id))} {v(ex.method)}"
                f"  {exchange_state(ex)}, sent at {ex.sent_t:.3f}s"
            )
        if len(open_ones) > SHOWN_UNANSWERED:
            out.append(
                f"  … and {len(open_ones) - SHOWN_UNANSWERED:,} more (every one in `mcpspy report --json`)"
            )
    return "\n".join(out) + "\n"


def injected_lines(summary: Summary) -> list[str]:
    """--inject: each injection, how the client took it, what it provoked; SPECs that never struck."""
    out: list[str] = []
    if summary.injected:
        out += ["", f"injected ({len(summary.injected)}): made by mcpspy --inject, not the server's"]
        for r in summary.injected:
            inj = r.injection
            where = f"seq {inj.altered}" if inj.altered is not None else f"rec {inj.seq}"
            after = "" if r.after is None else f" after {r.after:.3f}s"
            provoked = ", ".join(dict.fromkeys(f.id for f in provoked_by(summary, r)))
            out.append(f"  {where:<10} {v(inj.spec):<40} {r.reaction:<11} {v(r.detail)}{after}")
            if provoked:
                out.append(f"  {'':<10} provoked: {provoked}")
    if summary.injected_findings:
        out += ["", f"findings provoked by injections ({len(summary.injected_findings)}, not counted)"]
        for f in summary.injected_findings:
            out.append(f"  seq {f.seq:<16} {f.severity.label:<8} {f.id} [injected]: {v(f.message)}")
    for u in summary.unmatched:
        out.append(f"unmatched --inject {v(u.spec)}: never struck (it waited for {v(u.where)})")
    return out


def _fixes(summary: Summary) -> list[str]:
    """Once per rule found, worst first: what to change, and the spec's public page that says so."""
    rules = {f.id: f.rule for f in sorted(summary.findings, key=lambda f: -f.severity)}
    if not rules:
        return []
    out = ["", "how to fix"]
    for rule in rules.values():
        out.append(f"  {rule.id}: {rule.fix or rule.summary}")
        out.append(f"    {public_source(rule.source)}")
    return out


def context_lines(summary: Summary) -> list[str]:
    """What the lists and tool results cost a model's context, and the five dearest tools."""
    a = summary.analyzer
    cost = context_cost(a.exchanges, a.message)
    shown = [(kind, listing) for kind, listing in cost.lists.items() if listing.seen]
    if not shown and not cost.tool_results:
        return []
    out = ["", "context cost (tokens estimated as bytes / 4)"]
    for kind, listing in shown:
        out.append(_cost_row(f"{kind}/list", f"{len(listing.items)} {kind}", listing.bytes, listing.tokens))
    results = cost.tool_results
    if results:
        size, tokens = sum(r.bytes for r in results), sum(r.tokens for r in results)
        out.append(_cost_row("tools/call", f"{len(results)} results", size, tokens))
    dearest = cost.most_expensive_tools()
    if dearest:
        out.append("  most expensive tools")
        for tool in dearest:
            name = v(tool.name)
            name = name if len(name) <= 28 else name[:27] + "…"
            out.append(_cost_row(f"  {name}", "", tool.bytes, tool.tokens))
    return out


def _cost_row(label: str, count: str, size: int, tokens: int) -> str:
    return f"  {label:<30} {count:>12} {size:>10,} B  ~{tokens:,} tok"
