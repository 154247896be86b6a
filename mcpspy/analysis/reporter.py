"""Where the rule families put what they learn: findings and changed exchanges."""

from __future__ import annotations

from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.model import (
    AnalysisEvent,
    Exchange,
    ExchangeUpdated,
    Finding,
    FindingRaised,
    Message,
    MessageSeen,
)
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.capture.records import Stream


class Reporter:
    """Shared by the Analyzer's rule families; ``events`` is what the current feed() returns."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.findings: list[Finding] = []
        self.events: list[AnalysisEvent] = []
        self.by_seq: dict[int, Message] = {}

    def message(self, message: Message) -> None:
        self.messages.append(message)
        self.by_seq[message.seq] = message
        self.events.append(MessageSeen(message))

    def updated(self, exchange: Exchange) -> None:
        self.events.append(ExchangeUpdated(exchange))

    def find(
        self, rule: RuleId, seq: int, stream: Stream | None, sentence: str, related_seq: int | None = None
    ) -> None:
        """Raise ``rule`` about record ``seq``; ``sentence`` says what this occurrence is."""
        finding = Finding(RULES[rule], seq, stream, sentence, related_seq)
        self.findings.append(finding)
        target = self.by_seq.get(seq)
        if target is not None:
            target.findings.append(finding)
        self.events.append(FindingRaised(finding))
