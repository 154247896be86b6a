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
    Repeats,
    Severity,
)
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.capture.records import Stream

REPLIES = (Kind.RESPONSE, Kind.ERROR_RESPONSE)
RECENT_MESSAGES = 1024  # lean mode: the messages a finding can still be attached to, by seq
# Rules that fire on every line of a misbehaving peer: one finding per session and direction, with a tally.
ONCE_PER_SESSION = frozenset({RuleId.STDOUT_CRLF, RuleId.STDIN_CRLF, RuleId.CACHE_MISSING_TTL})


class Reporter:
    """Shared by the Analyzer's rule families; ``events`` is what the current feed() returns.

    ``retain=False`` (lean, for the proxy's ``--log``) keeps no history: counts
    instead of the message and finding lists, and ``by_seq`` only for the last
    ``RECENT_MESSAGES`` messages, and the replies among older ones while
    ``holding`` (rules/legacy.py holds requests until initialize is answered, then
    reads their replies). No rule looks further back otherwise: what a reply is
    judged by of its request is kept on the request's Exchange (model.Held).
    """

    def __init__(self, retain: bool = True, events: bool = True, seen: bool = True) -> None:
        self.retain = retain
        self.listening = events  # False: a caller that reads none; no event is made
        self.seeing = events and seen  # False: no MessageSeen (a caller that has each line already)
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
        self._once: dict[tuple[RuleId, Stream | None], Finding] = {}  # the ONCE_PER_SESSION findings so far
        self._kept: list[int] = []  # lean mode: replies kept past the recent ones while holding
        # Every message a finding is attached to, as attached, for a caller that asks (Analyzer.found).
        self.found: list[Message] | None = None

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
        if self.seeing:
            self.events.append(MessageSeen(message))

    def holding(self, hold: bool) -> None:
        """Whether to keep the replies among messages older than the recent ones (lean mode)."""
        self.hold = hold

    def opened(self, exchange: Exchange) -> None:
        if self.retain:
            self.exchanges.append(exchange)

    def updated(self, exchange: Exchange) -> None:
        if self.listening:
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
        if self.injected_all or (
            self.injected_seqs and (seq in self.injected_seqs or related_seq in self.injected_seqs)
        ):
            finding = Finding(RULES[rule], seq, stream, sentence, related_seq, injected=True)
            if self.retain:
                self.injected_findings.append(finding)
        else:
            if rule in ONCE_PER_SESSION:
                first = self._once.get((rule, stream))
                if first is not None and first.repeats is not None:
                    first.repeats.add(seq)
                    target = self.by_seq.get(seq)
                    if target is not None:
                        self._attach(target, first)
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
            self._attach(target, finding)
        if self.listening:
            self.events.append(FindingRaised(finding))

    def _attach(self, message: Message, finding: Finding) -> None:
        """Add a finding to a message's: a list of its own once it has one (model.Message.findings)."""
        findings = message.findings
        if isinstance(findings, list):
            findings.append(finding)
        else:
            message.findings = [finding]
        if self.found is not None:
            self.found.append(message)
