"""The check's text report: grouped by era, each failure with its line quoted, its fix, and its rules.

Every piece of server data (quoted lines, names inside sentences) goes through
``terminal.visible_line``/``visible_bytes``: a server's bytes never reach the
terminal as control sequences.
"""

from __future__ import annotations

from collections import Counter

from mcpspy.check.catalogue import CHECKS
from mcpspy.check.model import CheckRun, EraRun, Status, Verdict
from mcpspy.terminal import visible_bytes, visible_line

QUOTE = 120  # characters of a quoted line
SHOWN = 3  # problems and findings shown per check
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
    pad = " " * 8
    out: list[str] = []
    quoted: set[int] = set()
    problems = [p for p in verdict.problems if p.sentence != verdict.message or p.evidence is not None]
    for problem in problems[:SHOWN]:
        if problem.sentence != verdict.message:
            out.append(f"{pad}{problem.severity.label}: {visible_line(problem.sentence)}")
        out += _quote(era_run, problem.seq, quoted, pad)
    if len(problems) > SHOWN:
        out.append(f"{pad}… and {len(problems) - SHOWN} more")
    spec = CHECKS[verdict.check_id]
    if verdict.problems:
        out.append(f"{pad}fix: {spec.fix}")
        if spec.conformance:
            out.append(f"{pad}conformance suite: {', '.join(spec.conformance)}")
    for finding in verdict.findings[:SHOWN]:
        if finding.severity.label == "info":
            continue
        out.append(
            f"{pad}finding {finding.id} ({finding.severity.label}): {visible_line(finding.message)}"
            f"  — see `mcpspy rules {finding.id}`"
        )
        out += _quote(era_run, finding.seq, quoted, pad)
    if len(verdict.findings) > SHOWN:
        out.append(f"{pad}… and {len(verdict.findings) - SHOWN} more findings")
    return out


def _quote(era_run: EraRun, seq: int | None, quoted: set[int], pad: str) -> list[str]:
    if seq is None or seq in quoted or seq not in era_run.raw_of:
        return []
    quoted.add(seq)
    line = era_run.line_of.get(seq, "?")
    stream = era_run.stream_of.get(seq, "")
    return [f"{pad}  line {line} ({ARROW.get(stream, stream)}): {visible_bytes(era_run.raw_of[seq], QUOTE)}"]
