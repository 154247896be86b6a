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
    Kind,
    Message,
    MessageSeen,
    Severity,
)
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.capture.records import Stream

REPLIES = (Kind.RESPONSE, Kind.ERROR_RESPONSE)
RECENT_MESSAGES = 1024  # lean mode: the messages a finding can still be attached to, by seq


class Reporter:
    """Shared by the Analyzer's rule families; ``events`` is what the current feed() returns.

    ``retain=False`` (lean, for the proxy's ``--log``) keeps no history: counts
    instead of the message and finding lists, and ``by_seq`` only for the last
    ``RECENT_MESSAGES`` messages, and the replies among older ones while
    ``holding`` (rules/legacy.py holds requests until initialize is answered, then
    reads their replies). No rule looks further back otherwise: what a reply is
    judged by of its request is kept on the request's Exchange (model.Held).
    """

    def __init__(self, retain: bool = True) -> None:
        self.retain = retain
        self.messages: list[Message] = []
        self.exchanges: list[Exchange] = []  # every request's, in sending order (none when lean)
        self.findings: list[Finding] = []
        self.events: list[AnalysisEvent] = []
        self.by_seq: dict[int, Message] = {}
        self.message_count = 0
        self.finding_counts: dict[Severity, int] = dict.fromkeys(Severity, 0)
        self.hold = False  # lean mode: keep the replies in by_seq while set (rules/legacy.py)
        # --inject: the records an injection wrote or struck; findings about them are its own, not the
        # server's (kept apart in ``injected_findings``, counted nowhere). After one that ends the
        # session (a crash, a cut line), every finding is.
        self.injected_seqs: set[int] = set()
        self.injected_all = False
        self.injected_findings: list[Finding] = []
        self.injected_lines: dict[int, dict[str, Any]] = {}  # seq -> the injection that wrote that line
        self._recent: deque[int] = deque()
        self._kept: list[int] = []  # lean mode: replies kept past the recent ones while holding

    def message(self, message: Message) -> None:
        if self.injected_lines:
            message.injected = self.injected_lines.pop(message.seq, None)
        self.message_count += 1
        self.by_seq[message.seq] = message
        if self.retain:
            self.messages.append(message)
        else:
            recent, by_seq = self._recent, self.by_seq
            recent.append(message.seq)
            if self._kept and not self.hold:
                for seq in self._kept:
                    by_seq.pop(seq, None)
                self._kept = []
            while len(recent) > RECENT_MESSAGES:
                seq = recent.popleft()
                old = by_seq.get(seq)  # a capture may repeat a seq: never assume it is there
                if self.hold and old is not None and old.kind in REPLIES:
                    self._kept.append(seq)
                else:
                    by_seq.pop(seq, None)
        self.events.append(MessageSeen(message))

    def holding(self, hold: bool) -> None:
        """Whether to keep the replies among messages older than the recent ones (lean mode)."""
        self.hold = hold

    def opened(self, exchange: Exchange) -> None:
        if self.retain:
            self.exchanges.append(exchange)

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
