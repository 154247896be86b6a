"""The analysis's public vocabulary: what views (report, TUI, log) consume.

Everything here is plain data. ``Analyzer.feed(record)`` (analysis/analyzer.py)
returns a list of ``AnalysisEvent``s built from these types.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from mcpspy.analysis.rule_ids import RuleId
from mcpspy.capture.records import Stream


class Severity(enum.IntEnum):
    """Ordered so that ``max()`` gives the worst."""

    INFO = 1  # legal, but worth seeing
    WARNING = 2  # breaks a SHOULD, or almost surely a bug
    ERROR = 3  # breaks a MUST / MUST NOT

    @property
    def label(self) -> str:
        return self.name.lower()

    @property
    def mark(self) -> str:
        """One character for a column of counts or a row: the same in every view."""
        return _SEVERITY_MARKS[self]


_SEVERITY_MARKS = {Severity.ERROR: "\u2716", Severity.WARNING: "\u25b2", Severity.INFO: "\u00b7"}


class Kind(enum.Enum):
    """What one line is."""

    REQUEST = "request"
    NOTIFICATION = "notification"
    RESPONSE = "response"
    ERROR_RESPONSE = "error"
    INVALID = "invalid"  # JSON, but not a JSON-RPC message (or a batch)
    NOT_JSON = "not-json"
    STDERR = "stderr"


class Era(enum.Enum):
    UNKNOWN = "unknown"
    MODERN = "2026-07-28"  # per-request _meta, no handshake
    LEGACY = "legacy"  # `initialize` handshake, 2024-11-05 .. 2025-11-25


class ExchangeState(enum.Enum):
    PENDING = "pending"
    ANSWERED = "answered"
    ERROR = "error"
    CANCELLED = "cancelled"  # a notifications/cancelled was sent for it
    UNANSWERED = "unanswered"  # never answered: the session ended, or the server exited
    # The reply was written, but its line reached the requester unparseable (text glued before it):
    # the requester still waits, so it counts as pending until a cancel or the session's end.
    LOST = "lost"
    # Pending when records went missing (a capture gap, a --log that fell behind): its reply may be
    # among them, so it is neither owed one nor counted as never answered.
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the findings catalogue."""

    id: RuleId  # stable, public: "stdout.not-json"
    severity: Severity
    summary: str  # one sentence for a person
    source: str  # where the spec says so
    bad: str = ""  # an example that breaks the rule
    good: str = ""  # the same, done right
    fix: str = ""  # one sentence: what to change so the rule holds


class Repeats:
    """The lines a once-per-session finding stands for (a rule that fires on every line): a tally.

    Mutable inside a frozen Finding: the analysis counts on as lines come; each
    line's Message carries the same Finding, so every line stays reachable from it.
    """

    __slots__ = ("count", "last_seq", "seqs")

    def __init__(self, seq: int, keep_seqs: bool) -> None:
        self.count = 1
        self.last_seq = seq
        self.seqs: list[int] | None = [seq] if keep_seqs else None  # every line's seq (not in lean mode)

    def add(self, seq: int) -> None:
        self.count += 1
        self.last_seq = seq
        if self.seqs is not None:
            self.seqs.append(seq)


@dataclass(frozen=True, slots=True)
class ClientRules:
    """What one real client does with what a server sends, as data the caller hands the analysis.

    mcpspy/clients builds these from its profiles; the analysis only reads them.
    """

    name: str  # the profile's name: "cursor"
    title: str  # for a sentence: "Cursor"
    drops: frozenset[str]  # tool-schema constructs (rules/tool_schemas.py CONSTRUCTS) that cost the tool
    keeps: frozenset[str]  # constructs it is known to keep (perhaps degraded)
    timeout_s: float | None = None  # its default request timeout; None when it has none or it is unknown
    progress_resets: bool | None = None  # whether progress for the request's token resets that timeout


@dataclass(frozen=True, slots=True)
class Finding:
    rule: Rule
    seq: int  # the record it is about (the first line, for a once-per-session finding)
    stream: Stream | None
    sentence: str  # the sentence for this occurrence, with its specifics
    related_seq: int | None = None  # e.g. the request a stray reply points back to
    # Set for a rule that is one finding per session and direction; mutable, so not compared.
    repeats: Repeats | None = field(default=None, compare=False)
    # Judged by client profiles (a tool schema): the profiles that drop the tool, and the severity
    # that follows (error when one does, info when none does). None: the rule's own severity holds.
    dropped_by: tuple[str, ...] | None = None
    judged: Severity | None = None
    injected: bool = False  # provoked by mcpspy --inject: never counted as the server's

    @property
    def id(self) -> RuleId:
        return self.rule.id

    @property
    def count(self) -> int:
        """How many lines this finding is about (1 unless it is once per session)."""
        return self.repeats.count if self.repeats is not None else 1

    @property
    def last_seq(self) -> int:
        return self.repeats.last_seq if self.repeats is not None else self.seq

    @property
    def seqs(self) -> list[int]:
        """Every line it is about, in order (a lean analysis keeps only the first and last)."""
        repeats = self.repeats
        if repeats is None:
            return [self.seq]
        if repeats.seqs is not None:
            return list(repeats.seqs)
        return [self.seq] if repeats.count == 1 else [self.seq, repeats.last_seq]

    @property
    def message(self) -> str:
        """The sentence, with how many lines it stands for when more than one."""
        repeats = self.repeats
        if repeats is None or repeats.count == 1:
            return self.sentence
        return f"{self.sentence} ({repeats.count} lines like it, seq {self.seq} to {repeats.last_seq})"

    @property
    def severity(self) -> Severity:
        return self.judged if self.judged is not None else self.rule.severity


@dataclass(slots=True)  # not frozen: one a request, where frozen costs 6x to make (1.9 us, not 0.3)
class Held:
    """What the rules read of a request when its reply comes: a few fields, never the message.

    Kept on the request's Exchange until its first reply (rules/pairing.py), so that a
    pending request costs the lean analysis these fields, not its line and parsed payload
    (and nothing when they are all empty: one Held is shared then). Never changed once made.
    """

    requested: Any  # initialize's params.protocolVersion (None for any other method)
    meta_version: Any  # _meta's protocolVersion, as sent
    capabilities: Any  # _meta's clientCapabilities, as sent
    task: bool  # params has "task": a task-augmented request, answered with a CreateTaskResult
    name: Any  # params.name (tools/call, prompts/get)
    uri: Any  # params.uri (resources/read)
    cursor: Any  # params.cursor (a page of a list)
    retry: bool  # params has inputResponses or requestState (a multi round-trip retry)


NOTHING_HELD = Held(None, None, None, False, None, None, None, False)


@dataclass(slots=True)
class Exchange:
    """A request and what became of it. Mutable: the analysis updates it as replies land."""

    request_seq: int
    stream: Stream  # the direction the request travelled
    id: Any  # str or int, as sent
    method: str
    sent_t: float
    reply_seq: int | None = None
    reply_t: float | None = None
    state: ExchangeState = ExchangeState.PENDING
    out_of_order: bool = False  # replied while an older request of its direction was pending
    cancel_seq: int | None = None
    long_lived: bool = False  # subscriptions/listen: open for the life of the process
    version: str | None = None  # the 2026-07-28 revision a client request carried in its _meta
    held: Held | None = None  # what its reply is judged with, until the reply comes

    @property
    def latency(self) -> float | None:
        return None if self.reply_t is None else self.reply_t - self.sent_t


@dataclass(slots=True)
class Message:
    """One observed line, classified.

    Made for every line, its first twelve fields by position (keywords cost 2,000 instructions a
    line more, in the dict the interpreter builds for them: analysis/__init__.py).
    """

    seq: int
    t: float
    stream: Stream
    kind: Kind
    raw: bytes  # the line without its newline
    terminated: bool
    # The parsed JSON value, when it parsed (else None). A retained analysis lets it go once the message
    # is analysed, and reads it again from ``raw`` when asked (message_fields.LeanMessage): the same value.
    payload: Any
    id: Any  # the JSON-RPC id, if any
    method: str | None  # a response carries its request's method
    glued_prefix: bytes | None  # stray text before a JSON message on the same line
    # Read once, as the line is read (message_fields.fields_of), for every rule that reads them: the
    # params object, and the _meta object (a response's: its result's); each {} when absent or not one.
    params: dict[str, Any]
    meta: dict[str, Any]
    exchange: Exchange | None = None
    # Its findings, in the order raised; until the first, the one empty tuple, not a list of its own
    # (a list a line cost the garbage collector about 2,000 instructions a message: BENCHMARKS.md).
    findings: list[Finding] | tuple[()] = ()
    injected: dict[str, Any] | None = None  # written by mcpspy --inject: its ``injected`` record's fields

    @property
    def size(self) -> int:
        return len(self.raw) + (1 if self.terminated else 0)

    @property
    def severity(self) -> Severity | None:
        return max((f.severity for f in self.findings), default=None)


# --- events returned by Analyzer.feed / Analyzer.finish / Analyzer.check_pending


# Not frozen: one a line (and one a reply), where frozen costs twice as much to make (0.6 us, not 0.3).
# Never changed once made.
@dataclass(slots=True)
class MessageSeen:
    message: Message


@dataclass(slots=True)
class ExchangeUpdated:
    """An exchange changed state: answered, cancelled, unanswered."""

    exchange: Exchange


@dataclass(frozen=True, slots=True)
class FindingRaised:
    """A finding; also attached to its Message when it is about a line."""

    finding: Finding


@dataclass(frozen=True, slots=True)
class LifecycleSeen:
    seq: int
    t: float
    event: str
    details: dict[str, Any]


AnalysisEvent = MessageSeen | ExchangeUpdated | FindingRaised | LifecycleSeen
