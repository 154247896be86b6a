"""The check's text report: grouped by era, each failure with its line quoted, its fix, and its rules.

Every piece of server data (quoted lines, names inside sentences) goes through
``terminal.visible_line``/``visible_bytes``: a server's bytes never reach the
terminal as control sequences.
"""

from __future__ import annotations

from collections import Counter

from mcpspy.analysis.model import Finding
from mcpspy.check.catalogue import CHECKS, verdict_fix
from mcpspy.check.model import CheckRun, EraRun, Status, Verdict
from mcpspy.terminal import visible_bytes, visible_line

QUOTE = 120  # characters of a quoted line
SHOWN = 3  # problems, and kinds of finding, shown per check
PAD = " " * 8
LABEL = {Status.PASS: "pass", Status.WARN: "warn", Status.FAIL: "FAIL", Status.SKIP: "skip"}
ARROW = {"c2s": "client → server", "s2c": "server → client", "err": "server stderr"}


def render_check_text(run: CheckRun) -> str:
    out = [f"mcpspy check  {visible_line(' '.join(run.command))}"]
    for era_run in run.eras:
        out += ["", f"{era_run.era.title}   capture {visible_line(str(era_run.capture))}"]
        width = max(len(_name(v)) for v in era_run.verdicts)
        for verdict in era_run.verdicts:
            out.append(
                f"  {LABEL[verdict.status]}  {_name(verdict):<{width}}  {visible_line(verdict.message)}"
            )
            if verdict.status in (Status.FAIL, Status.WARN):
                out += _details(era_run, verdict)
    counts = Counter(v.status for v in run.verdicts)
    out += [
        "",
        f"{len(run.verdicts)} checks in {len(run.eras)} era(s): {counts[Status.PASS]} passed, "
        f"{counts[Status.FAIL]} failed, {counts[Status.WARN]} warned, {counts[Status.SKIP]} skipped",
        "open a session with `mcpspy view CAPTURE` or `mcpspy report CAPTURE`",
    ]
    return "\n".join(out) + "\n"


def _name(verdict: Verdict) -> str:
    return verdict.check_id + (f"[{visible_line(verdict.target)}]" if verdict.target else "")


def _notes(verdict: Verdict) -> str:
    """Info findings of a check that passed: legal, but worth a look."""
    if verdict.status is not Status.PASS or not verdict.findings:
        return ""
    counts = Counter(f.id for f in verdict.findings)
    return "  [info: " + ", ".join(f"{rule} ×{n}" if n > 1 else rule for rule, n in counts.items()) + "]"


def _details(era_run: EraRun, verdict: Verdict) -> list[str]:
    """What went wrong (each problem, and each kind of finding, with its line), then the fix."""
    out: list[str] = []
    quoted: set[int] = set()
    for problem in verdict.problems[:SHOWN]:
        if problem.sentence != verdict.message:  # the first one is often the message itself
            out.append(f"{PAD}{problem.severity.label}: {visible_line(problem.sentence)}")
        out += _quote(era_run, problem.seq, quoted)
    if len(verdict.problems) > SHOWN:
        out.append(f"{PAD}… and {len(verdict.problems) - SHOWN} more")
    by_rule: dict[str, list[Finding]] = {}
    for finding in sorted(verdict.findings, key=lambda f: -f.severity):
        by_rule.setdefault(finding.id, []).append(finding)
    for rule_id, group in list(by_rule.items())[:SHOWN]:
        first = group[0]
        times = f" ×{len(group)}" if len(group) > 1 else ""
        out.append(
            f"{PAD}finding {rule_id} ({first.severity.label}){times}: {visible_line(first.message)}"
            f" (see `mcpspy rules {rule_id}`)"
        )
        out += _quote(era_run, first.seq, quoted)
    if len(by_rule) > SHOWN:
        out.append(f"{PAD}… and {len(by_rule) - SHOWN} more kinds of finding")
    spec = CHECKS[verdict.check_id]
    out.append(f"{PAD}fix: {verdict_fix(verdict)}")
    if spec.conformance:
        out.append(f"{PAD}conformance suite: {', '.join(spec.conformance)}")
    return out


def _quote(era_run: EraRun, seq: int | None, quoted: set[int]) -> list[str]:
    """The line a problem or finding is about, quoted once, made safe for a terminal."""
    if seq is None or seq in quoted or seq not in era_run.raw_of:
        return []
    quoted.add(seq)
    line = era_run.line_of.get(seq, "?")
    stream = era_run.stream_of.get(seq, "")
    return [f"{PAD}  line {line} ({ARROW.get(stream, stream)}): {visible_bytes(era_run.raw_of[seq], QUOTE)}"]
