"""The JSON report's object, for CI and scripts. Its shape is public and versioned.

``mcpspy report --json`` prints it; HAR and check's JSON embed it::

    {
      "report_version": 1,
      "session": {"id", "name", "file", "command": [...], "cwd", "started" (ISO 8601 UTC),
                  "duration_s" (float|null), "exit": {"code"|"signal": ...}|null,
                  "mcpspy", "problems": [str]},
      "era": "2026-07-28" | "legacy" | "unknown",
      "protocol_version": str | null,
      "counts": {"c2s"|"s2c"|"err": {"request"|"notification"|"response"|"error"|
                 "invalid"|"not-json"|"stderr": int}},
      "latency": {METHOD: {"count", "p50_ms", "p95_ms", "max_ms"}},
      "context_cost": {"token_estimate" (how tokens are estimated), "tools_list_bytes",
                       "tools_list_tokens", "per_tool": [{"name", "bytes", "tokens"}] (listing
                       order), "prompts_list_bytes", "prompts_list_tokens", "resources_list_bytes",
                       "resources_list_tokens", "tool_results": {"count", "bytes", "tokens", "max_bytes"}},
      "findings": [{"id", "severity" ("error"|"warning"|"info"), "seq", "line" (of the capture
                    file), "stream" ("c2s"|"s2c"|"err"|null), "message", "summary", "fix" (one
                    sentence: what to change), "source" (the spec's public pages, with the
                    section), "source_links" ([url]), "related_seq" (int|null), "count" (the lines
                    it stands for: a rule that fires on every line is one finding per session
                    and direction), "last_seq" (of the last of them), "seqs" ([int], each of
                    them), "dropped_by" ([profile name]|null: for a tool-schema finding, the
                    clients of --clients that drop the tool; null where no profile judges it)}],
      "exchanges": [{"method", "id", "direction" ("c2s"|"s2c"), "request_seq", "reply_seq",
                     "latency_ms" (float|null), "state", "out_of_order", "cancel_seq"}],
      "never_answered": int (exchanges pending, unanswered or lost: no reply their sender read),
      "injected": [{"fault", "spec", "seq" (the first line it wrote, or null), "record_seq" (its
                    ``injected`` record), "stream", "id" (JSON text of the id struck, or null),
                    "reaction" (carried-on|cancelled|retried|answered|wrong-reply|ignored|quiet|
                    gave-up|restarted: ``inject.reactions``), "reaction_seq", "reaction_after_s",
                    "reaction_detail", "findings" ([id]: what it provoked)}]  (only with --inject),
      "unmatched": [{"fault", "spec", "where"}]  (SPECs that never struck; only with --inject)
    }

Every finding has ``"injected"``: true for one an injection provoked (listed
after the server's, and counted nowhere: not in ``report --fail-on``, not in
``sessions`` or ``stats``).

``state`` is one of answered, error, pending, cancelled, out-of-order,
unanswered, lost (a reply whose line reached the client unparseable), unknown
(pending when records went missing: its reply may have been among them).
Findings are worst first; exchanges are in send order. Fields may be added
within version 1; none is removed or changes meaning.
"""

from __future__ import annotations

import functools
from typing import Any

from mcpspy.analysis.context_cost import context_cost
from mcpspy.analysis.sources import public_source, source_links
from mcpspy.inject.reactions import Reaction
from mcpspy.model.summary import NEVER_ANSWERED, Summary, exchange_state, provoked_by

REPORT_VERSION = 1


#: A rule's source, made public once per run, not once per finding (a flood brings 10^5 findings).
_public_source = functools.lru_cache(maxsize=1024)(public_source)
_source_links = functools.lru_cache(maxsize=1024)(lambda source: tuple(source_links(source)))


def report_object(summary: Summary) -> dict[str, Any]:
    header = summary.capture.header
    a = summary.analyzer
    report: dict[str, Any] = {
        "report_version": REPORT_VERSION,
        "session": {
            "id": header.session,
            "name": header.name,
            "file": str(summary.path),
            "command": list(header.command),
            "cwd": header.cwd,
            "started": header.started,
            "duration_s": summary.duration,
            "exit": summary.exit,
            "mcpspy": header.mcpspy,
            "problems": list(summary.capture.problems),
        },
        "era": a.era.value,
        "protocol_version": a.protocol_version,
        "counts": summary.counts,
        "latency": {
            row.method: {
                "count": row.count,
                "p50_ms": round(row.p50_ms, 3),
                "p95_ms": round(row.p95_ms, 3),
                "max_ms": round(row.max_ms, 3),
            }
            for row in summary.latency
        },
        "context_cost": context_cost(a.exchanges, a.message).as_json(),
        "findings": [
            {
                "id": f.id,
                "severity": f.severity.label,
                "seq": f.seq,
                "line": summary.line_of.get(f.seq),
                "stream": f.stream.value if f.stream else None,
                "message": f.message,
                "summary": f.rule.summary,
                "fix": f.rule.fix,
                "source": _public_source(f.rule.source),
                "source_links": list(_source_links(f.rule.source)),
                "related_seq": f.related_seq,
                "count": f.count,
                "last_seq": f.last_seq,
                "seqs": f.seqs,
                "dropped_by": list(f.dropped_by) if f.dropped_by is not None else None,
                "injected": f.injected,
            }
            for f in (*summary.findings, *summary.injected_findings)
        ],
        "exchanges": [
            {
                "method": ex.method,
                "id": ex.id,
                "direction": ex.stream.value,
                "request_seq": ex.request_seq,
                "reply_seq": ex.reply_seq,
                "latency_ms": None if ex.latency is None else round(ex.latency * 1000.0, 3),
                "state": exchange_state(ex),
                "out_of_order": ex.out_of_order,
                "cancel_seq": ex.cancel_seq,
            }
            for ex in a.exchanges
        ],
        "never_answered": sum(ex.state in NEVER_ANSWERED for ex in a.exchanges),
    }
    if summary.injected or summary.unmatched:
        report["injected"] = [injected_object(summary, r) for r in summary.injected]
        report["unmatched"] = [
            {"fault": u.fault, "spec": u.spec, "where": u.where} for u in summary.unmatched
        ]
    return report


def injected_object(summary: Summary, reaction: Reaction) -> dict[str, Any]:
    """One injection of ``report --json``'s ``injected`` list."""
    inj = reaction.injection
    return {
        "fault": inj.fault,
        "spec": inj.spec,
        "seq": inj.altered,
        "record_seq": inj.seq,
        "stream": inj.stream,
        "id": inj.id,
        "reaction": reaction.reaction,
        "reaction_seq": reaction.seq,
        "reaction_after_s": None if reaction.after is None else round(reaction.after, 3),
        "reaction_detail": reaction.detail,
        "findings": [f.id for f in provoked_by(summary, reaction)],
    }
