"""The check's vocabulary: statuses, verdicts, and what one era's run produced.

A verdict is about one check in one era. Its status comes from its problems
(the script's own judgement, each with a severity) and from the passive
analysis's findings routed to it: an error makes it ``fail``, a warning
``warn``. ``skip`` is set on purpose, with the reason in ``message``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mcpspy.analysis.model import Finding, Severity
from mcpspy.capture.records import Stream

if TYPE_CHECKING:  # the analysis is imported once the servers have been started
    from mcpspy.model.summary import Summary


class Status(enum.Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


class Era(enum.Enum):
    """The two ways a client opens a stdio session, one server process each."""

    MODERN = "modern"  # 2026-07-28: per-request _meta, no handshake
    LEGACY = "legacy"  # initialize handshake, 2024-11-05 .. 2025-11-25

    @property
    def title(self) -> str:
        return "modern (2026-07-28)" if self is Era.MODERN else "legacy (initialize)"


STATUS_OF: dict[Severity, Status] = {Severity.ERROR: Status.FAIL, Severity.WARNING: Status.WARN}


@dataclass(frozen=True, slots=True)
class Evidence:
    """A line of the session, by stream and position on it: the i-th line we sent or received.

    The i-th line on a stream is the i-th line record of that stream in the capture,
    since the proxy records exactly what it forwards; ``seq`` is filled in from it.
    """

    stream: Stream
    ordinal: int


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing the script found wrong, with how bad it is."""

    severity: Severity
    sentence: str
    evidence: Evidence | None = None  # the line that shows it, when there is one
    seq: int | None = None  # that line's capture record (filled in when the era is judged)


@dataclass
class Verdict:
    """One check in one era."""

    check_id: str
    era: Era
    status: Status
    message: str  # one sentence: what was seen
    target: str | None = None  # what a repeated check is about: a tool's name
    evidence: list[Evidence] = field(default_factory=list)  # every line the check sent or saw
    problems: list[Problem] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # of the passive analysis, routed here
    seqs: list[int] = field(default_factory=list)  # the evidence, as capture records
    pinned: list[int] = field(default_factory=list)  # records named directly (lifecycle events)
    conformance: tuple[str, ...] | None = None  # the suite's checks this run met, when they depend on it

    @property
    def worst(self) -> Severity | None:
        severities = [p.severity for p in self.problems] + [f.severity for f in self.findings]
        return max(severities, default=None)

    def settle(self) -> None:
        """Status from problems and findings (a skip stays a skip); a message if none was set."""
        if not self.message and self.problems:
            self.message = self.problems[0].sentence
        if self.status is Status.SKIP:
            return
        worst = self.worst
        self.status = STATUS_OF.get(worst, Status.PASS) if worst is not None else Status.PASS


@dataclass
class EraRun:
    """What one era's server process gave: verdicts, its capture, and its passive findings."""

    era: Era
    capture: Path
    verdicts: list[Verdict]
    findings: list[Finding]  # the server's that count (not about our own probes, nor in a skipped check)
    summary: Summary  # the report's view of the capture, its findings restricted to ``findings``
    line_of: dict[int, int] = field(default_factory=dict)  # seq -> line number in the capture file
    raw_of: dict[int, bytes] = field(default_factory=dict)  # seq -> the line's bytes
    stream_of: dict[int, str] = field(default_factory=dict)  # seq -> "c2s", "s2c" or "err"
    answered: bool = False  # the server replied to at least one request
    timed_out: bool = False  # the check's --max-time ran out before this era was done
    flooded: bool = False  # the server flooded its stdout (robust.flood failed): the era was ended
    start_error: str | None = None  # the proxy could not start the server


@dataclass
class CheckRun:
    """The whole check: every era's run, and the command that was checked."""

    command: tuple[str, ...]
    eras: list[EraRun]
    timeout: float
    max_time: float

    @property
    def verdicts(self) -> list[Verdict]:
        return [v for run in self.eras for v in run.verdicts]

    def check_of(self) -> dict[int, Verdict]:
        """id(finding) -> the verdict it was routed to."""
        return {id(f): v for v in self.verdicts for f in v.findings}

    def failed(self, threshold: Severity | None) -> bool:
        """Whether something at or above ``threshold`` failed (never, for None)."""
        if threshold is None:
            return False
        bad = {Status.FAIL} if threshold is Severity.ERROR else {Status.FAIL, Status.WARN}
        return any(v.status in bad for v in self.verdicts)
