"""Where the rule families put what they learn: findings and changed exchanges."""

from __future__ import annotations

from collections import deque

from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.model import (
    AnalysisEvent,
    Exchange,
    ExchangeUpdated,
    Finding,
    FindingRaised,
    Message,
    MessageSeen,
    Repeats,
    Severity,
)
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.capture.records import Stream

RECENT_MESSAGES = 1024  # lean mode: the messages a finding can still be attached to, by seq
# Rules that fire on every line of a misbehaving peer: one finding per session and direction, with a tally.
ONCE_PER_SESSION = frozenset({RuleId.STDOUT_CRLF, RuleId.STDIN_CRLF, RuleId.CACHE_MISSING_TTL})


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
        self._recent: deque[int] = deque()
        self._once: dict[tuple[RuleId, Stream | None], Finding] = {}  # the ONCE_PER_SESSION findings so far

    def message(self, message: Message) -> None:
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
        self,
        rule: RuleId,
        seq: int,
        stream: Stream | None,
        sentence: str,
        related_seq: int | None = None,
        dropped_by: tuple[str, ...] | None = None,
        judged: Severity | None = None,
    ) -> None:
        """Raise ``rule`` about record ``seq``; ``sentence`` says what this occurrence is.

        A ONCE_PER_SESSION rule raises once per direction; later lines add to its tally
        and carry the same finding (no new event: it is the finding already raised).
        """
        if rule in ONCE_PER_SESSION:
            first = self._once.get((rule, stream))
            if first is not None and first.repeats is not None:
                first.repeats.add(seq)
                target = self.by_seq.get(seq)
                if target is not None:
                    target.findings.append(first)
                return
            finding = Finding(RULES[rule], seq, stream, sentence, related_seq, Repeats(seq, self.retain))
            self._once[(rule, stream)] = finding
        else:
            finding = Finding(RULES[rule], seq, stream, sentence, related_seq, None, dropped_by, judged)
        self.finding_counts[finding.severity] += 1
        if self.retain:
            self.findings.append(finding)
        target = self.by_seq.get(seq)
        if target is not None:
            target.findings.append(finding)
        self.events.append(FindingRaised(finding))
