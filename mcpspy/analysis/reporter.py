"""Where the rule families put what they learn: findings and changed exchanges."""

from __future__ import annotations

from collections import deque
from typing import Any

from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.model import (
    AnalysisEvent,
    Exchange,
    ExchangeUpdated,
    Finding,
    FindingRaised,
    Message,
    MessageSeen,
    Severity,
)
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.capture.records import Stream

RECENT_MESSAGES = 1024  # lean mode: the messages a finding can still be attached to, by seq


class Reporter:
    """Shared by the Analyzer's rule families; ``events`` is what the current feed() returns.

    ``retain=False`` (lean, for the proxy's ``--log``) keeps no history: counts
    instead of the message and finding lists, and ``by_seq`` only for the last
    ``RECENT_MESSAGES`` messages (all of them while ``hold`` is set: a rule that
    will look further back says so). No rule looks further back otherwise: a
    pending request's message is kept by the Analyzer itself.
    """

    def __init__(self, retain: bool = True) -> None:
        self.retain = retain
        self.messages: list[Message] = []
        self.findings: list[Finding] = []
        self.events: list[AnalysisEvent] = []
        self.by_seq: dict[int, Message] = {}
        self.message_count = 0
        self.finding_counts: dict[Severity, int] = dict.fromkeys(Severity, 0)
        self.hold = False  # lean mode: evict nothing from by_seq while set (rules/legacy.py)
        # --inject: the records an injection wrote or struck; findings about them are its own, not the
        # server's (kept apart in ``injected_findings``, counted nowhere). After one that ends the
        # session (a crash, a cut line), every finding is.
        self.injected_seqs: set[int] = set()
        self.injected_all = False
        self.injected_findings: list[Finding] = []
        self.injected_lines: dict[int, dict[str, Any]] = {}  # seq -> the injection that wrote that line
        self._recent: deque[int] = deque()

    def message(self, message: Message) -> None:
        if self.injected_lines:
            message.injected = self.injected_lines.pop(message.seq, None)
        self.message_count += 1
        self.by_seq[message.seq] = message
        if self.retain:
            self.messages.append(message)
        else:
            recent = self._recent
            recent.append(message.seq)
            if not self.hold:
                while len(recent) > RECENT_MESSAGES:
                    self.by_seq.pop(recent.popleft(), None)
        self.events.append(MessageSeen(message))

    def updated(self, exchange: Exchange) -> None:
        self.events.append(ExchangeUpdated(exchange))

    def find(
        self, rule: RuleId, seq: int, stream: Stream | None, sentence: str, related_seq: int | None = None
    ) -> None:
        """Raise ``rule`` about record ``seq``; ``sentence`` says what this occurrence is."""
        if self.injected_all or (
            self.injected_seqs and (seq in self.injected_seqs or related_seq in self.injected_seqs)
        ):
            finding = Finding(RULES[rule], seq, stream, sentence, related_seq, injected=True)
            if self.retain:
                self.injected_findings.append(finding)
        else:
            finding = Finding(RULES[rule], seq, stream, sentence, related_seq)
            self.finding_counts[finding.severity] += 1
            if self.retain:
                self.findings.append(finding)
        target = self.by_seq.get(seq)
        if target is not None:
            target.findings.append(finding)
        self.events.append(FindingRaised(finding))
