"""After an era's run: its capture read back, the passive findings routed, the end judged, statuses settled.

Findings are the server's when they are about what it wrote (or about a
request it never answered); the client's own findings are the probes, sent on
purpose. A finding goes to the check whose window holds its line; framing
findings go to ``framing.stdout``; what is left, to ``session.findings``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import orjson

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import Finding, Severity
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.capture.reader import Capture
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Stream
from mcpspy.check.client import LINE_MAX
from mcpspy.check.model import EraRun, Evidence, Problem, Status, Verdict
from mcpspy.check.script import Script
from mcpspy.model.summary import build_summary

E, W = Severity.ERROR, Severity.WARNING
#: Findings about a request that are its receiver's doing: the server's when the request is the client's.
UNANSWERED = frozenset(
    {RuleId.PAIRING_UNANSWERED, RuleId.PAIRING_SLOW, RuleId.PAIRING_SERVER_REQUEST_UNANSWERED}
)
ROUTED_BY_RULE = {RuleId.LIFECYCLE_NO_EXIT_ON_EOF: "eof.exit"}


class Lines:
    """The capture's line records, by stream and position (what Evidence names)."""

    def __init__(self, capture: Capture) -> None:
        self.by_stream: dict[Stream, list[LineRecord]] = {Stream.C2S: [], Stream.S2C: [], Stream.ERR: []}
        self.line_of: dict[int, int] = {}
        self.events: list[LifecycleRecord] = []
        for index, record in enumerate(capture.records):
            self.line_of[record.seq] = index + 2  # line 1 is the header
            if isinstance(record, LineRecord):
                self.by_stream[record.stream].append(record)
            else:
                self.events.append(record)

    def seq(self, evidence: Evidence) -> int | None:
        records = self.by_stream[evidence.stream]
        return records[evidence.ordinal].seq if evidence.ordinal < len(records) else None

    def event(self, event: Event) -> LifecycleRecord | None:
        return next((e for e in self.events if e.event is event), None)


def judge(script: Script, path: Path, capture: Capture, analyzer: Analyzer) -> EraRun:
    lines = Lines(capture)
    verdicts = list(script.verdicts)
    verdicts.append(framing_verdict(script, lines))
    verdicts.append(flood_verdict(script))
    verdicts += eof_verdicts(script, lines)
    session = Verdict("session.findings", script.era, Status.PASS, "")
    verdicts.append(session)
    for verdict in verdicts:
        verdict.problems = [
            replace(p, seq=lines.seq(p.evidence)) if p.evidence else p for p in verdict.problems
        ]
        seqs = [lines.seq(e) for e in verdict.evidence] + [p.seq for p in verdict.problems]
        verdict.seqs = sorted({s for s in seqs if s is not None} | set(verdict.pinned))
    excused = {(rule, lines.seq(evidence)) for rule, evidence in script.excused}
    findings = [f for f in analyzer.findings if server_side(f) and (f.id, f.seq) not in excused]
    route(findings, verdicts, session, script.stopped_by)
    others = len(session.findings)
    session.message = f"{others} other finding(s) in the session" if others else "no other findings"
    for verdict in verdicts:
        verdict.settle()
    counted = [f for v in verdicts if v.status is not Status.SKIP for f in v.findings]
    summary = build_summary(capture, path, analyzer)
    ours = {id(f) for f in counted}
    summary = replace(summary, findings=[f for f in summary.findings if id(f) in ours])
    records = [r for stream in lines.by_stream.values() for r in stream]
    raw_of = {r.seq: r.data for r in records}
    stream_of = {r.seq: r.stream.value for r in records}
    return EraRun(script.era, path, verdicts, summary.findings, summary, lines.line_of, raw_of, stream_of)


def server_side(finding: Finding) -> bool:
    """About what the server wrote, or about a request of the check's that it left unanswered."""
    if finding.stream is Stream.C2S:
        return finding.id in UNANSWERED
    return finding.id not in UNANSWERED  # a server's request the check's client did not answer


def route(
    findings: list[Finding], verdicts: list[Verdict], session: Verdict, stopped_by: Verdict | None
) -> None:
    """Each finding to one check: by rule, else the check whose problem or window holds its line."""
    by_id = {v.check_id: v for v in verdicts}
    by_seq: dict[int, Verdict] = {}
    for verdict in verdicts:  # a step inside another comes later: its lines are its own
        if verdict.check_id not in ("framing.stdout", "session.findings"):
            for seq in verdict.seqs:
                by_seq[seq] = verdict
    for verdict in verdicts:  # a line that a check's problem names is that check's above all
        for problem in verdict.problems:
            if problem.seq is not None:
                by_seq[problem.seq] = verdict
    seqs_of = {id(v): set(v.seqs) for v in verdicts}  # a set per verdict: a flood routes 10^5 findings
    for finding in findings:
        if finding.id.startswith("stdout."):
            target = by_id["framing.stdout"]
        elif finding.id in ROUTED_BY_RULE and ROUTED_BY_RULE[finding.id] in by_id:
            target = by_id[ROUTED_BY_RULE[finding.id]]
        elif finding.id is RuleId.LIFECYCLE_CRASH_IN_FLIGHT and stopped_by is not None:
            target = stopped_by
        else:
            target = by_seq.get(finding.seq) or by_seq.get(finding.related_seq or -1) or session
        target.findings.append(finding)
        if finding.seq not in seqs_of[id(target)]:
            seqs_of[id(target)].add(finding.seq)
            target.seqs.append(finding.seq)


def framing_verdict(script: Script, lines: Lines) -> Verdict:
    count = len(lines.by_stream[Stream.S2C])
    return Verdict("framing.stdout", script.era, Status.PASS, f"{count} line(s) on stdout")


def flood_verdict(script: Script) -> Verdict:
    """robust.flood: no step got more than the client keeps reading (client.FLOOD_LINES, FLOOD_BYTES)."""
    d = script.d
    verdict = Verdict("robust.flood", script.era, Status.PASS, "")
    flood = d.flood
    if flood is not None:
        verdict.message = f"{flood.sentence}; the check stopped reading and ended it"
        verdict.problems.append(Problem(E, verdict.message, Evidence(Stream.S2C, flood.first)))
        return verdict
    lines, size, name = d.busiest
    verdict.message = f"at most {lines} line(s) ({size} bytes) in one step" + (f" ({name})" if name else "")
    if d.long_lines:
        verdict.message += (
            f"; {len(d.long_lines)} line(s) over {LINE_MAX >> 20} MiB skipped (the longest "
            f"{max(d.long_lines)} bytes)"
        )
    if d.dropped:
        verdict.message += f"; {d.dropped} message(s) counted but not kept"
    return verdict


def eof_verdicts(script: Script, lines: Lines) -> list[Verdict]:
    """eof.exit and eof.quiet, from the lifecycle records the proxy wrote."""
    exit_v = Verdict("eof.exit", script.era, Status.PASS, "")
    quiet = Verdict("eof.quiet", script.era, Status.PASS, "")
    cut = script.cut() if script.cut_short else None
    if cut is not None:
        why = f"not run: {cut}"
        return [
            Verdict("eof.exit", script.era, Status.SKIP, why),
            Verdict("eof.quiet", script.era, Status.SKIP, why),
        ]
    closed = lines.event(Event.STDIN_CLOSED)
    exited = lines.event(Event.SERVER_EXITED)
    if exited is not None and "error" in exited.details:
        why = f"the server could not be started: {exited.details['error']}"
        return [
            Verdict("eof.exit", script.era, Status.SKIP, why),
            Verdict("eof.quiet", script.era, Status.SKIP, why),
        ]
    how = _exit_text(exited)
    # Not delivered: the server stopped reading, and a close the proxy recorded came only once
    # mcpspy had signalled it (its pump reads on after a failed write), whichever it wrote first.
    if closed is None or not script.eof_delivered or (exited is not None and exited.seq < closed.seq):
        why = f"the server exited ({how}) before its stdin was closed"
        if not script.eof_delivered:
            why = f"the server stopped reading its stdin, so it never saw its end; mcpspy ended it ({how})"
        exit_v.status = quiet.status = Status.SKIP
        exit_v.message = quiet.message = why
        return [exit_v, quiet]
    terminated = lines.event(Event.GRACE_EXPIRED) is not None
    if exited is None:
        exit_v.message = "the server's exit was not recorded"
        exit_v.problems.append(Problem(W, exit_v.message))
    elif terminated:
        exit_v.message = f"still running after stdin closed; mcpspy ended it ({how})"
    else:
        exit_v.message = f"exited {max(0.0, exited.t - closed.t):.3f}s after stdin closed ({how})"
    exit_v.pinned = [s for s in (closed.seq, exited.seq if exited else None) if s is not None]
    owed = {orjson.dumps(s) for s in script.sent_ids}
    # After EOF: read once the script had closed stdin, or recorded after the proxy noted the close
    # (the proxy notes it once its pump has ended, which can be after a quick server's last words).
    after = [
        (n, r)
        for n, r in enumerate(lines.by_stream[Stream.S2C])
        if r.seq > closed.seq or (script.eof_ordinal is not None and n >= script.eof_ordinal)
    ]
    for ordinal, record in after:
        problem = _after_eof(record.data, owed, Evidence(Stream.S2C, ordinal))
        if problem is not None:
            quiet.problems.append(problem)
    quiet.message = (
        f"{len(quiet.problems)} line(s) of the server's own on stdout after stdin closed"
        if quiet.problems
        else f"nothing but owed replies on stdout after stdin closed ({len(after)} line(s))"
    )
    return [exit_v, quiet]


def _after_eof(data: bytes, owed: set[bytes], evidence: Evidence) -> Problem | None:
    """A stray line after EOF is an error; a message that is no owed reply, a warning."""
    try:
        payload = orjson.loads(data)
    except orjson.JSONDecodeError:
        return Problem(E, "a line that is not JSON came after stdin closed", evidence)
    is_reply = isinstance(payload, dict) and "id" in payload and "method" not in payload
    if is_reply and orjson.dumps(payload.get("id")) in owed:
        return None
    return Problem(W, "a message that answers no request came after stdin closed", evidence)


def _exit_text(exited: LifecycleRecord | None) -> str:
    if exited is None:
        return "exit not recorded"
    if "signal" in exited.details:
        return f"signal {exited.details['signal']}"
    return f"code {exited.details.get('code', '?')}"
