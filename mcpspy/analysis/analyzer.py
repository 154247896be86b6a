"""The analyzer: fed capture records one at a time, in the manner of h11.

``feed(record)`` returns what the record taught it (the classified message,
exchanges that changed, findings); ``check_pending(t)`` flags slow requests
at a time the caller chooses; ``finish()`` closes the books. No clock, no
I/O: the same records always give the same analysis, live or replayed.

This is the facade: framing reads each line (rules/framing.py), then the
families judge the JSON-RPC message it makes, in the order hooks.py's ``HOOKS`` gives
for its kind and pipe. It keeps no rule of its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from mcpspy.analysis.hooks import (
    AFTER_EVERY_MESSAGE,
    HOOKS,
    MODERN_ONLY,
    REPLIES,
    UNREAD,
    Hook,
    HookKey,
)
from mcpspy.analysis.jsonrpc import CLEAN, ID_TYPES, Parsed
from mcpspy.analysis.message_fields import NO_FIELDS, fields_of, let_payload_go
from mcpspy.analysis.model import (
    AnalysisEvent,
    ClientRules,
    Era,
    Exchange,
    Finding,
    Kind,
    LifecycleSeen,
    Message,
    Severity,
)
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rules.caching import Caching
from mcpspy.analysis.rules.capabilities import Capabilities
from mcpspy.analysis.rules.capture_integrity import CaptureIntegrity
from mcpspy.analysis.rules.deprecations import Deprecations
from mcpspy.analysis.rules.envelope import Envelope, classify_message
from mcpspy.analysis.rules.framing import MAX_LINE_BYTES, Framing, classify_line
from mcpspy.analysis.rules.legacy import EraTracker
from mcpspy.analysis.rules.lifecycle import Lifecycle
from mcpspy.analysis.rules.modern import ModernRules
from mcpspy.analysis.rules.mrtr import Mrtr
from mcpspy.analysis.rules.pairing import Pairing
from mcpspy.analysis.rules.progress_logging import Logging, Progress
from mcpspy.analysis.rules.requests import Requests
from mcpspy.analysis.rules.shapes import Shapes
from mcpspy.analysis.rules.subscriptions import Subscriptions
from mcpspy.analysis.rules.tool_schemas import ToolSchemas
from mcpspy.analysis.schema import ResultSchemas
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Record, Stream

# Hot (every line is dispatched here): Enum members as module constants (speed policy: analysis/__init__.py).
REQUEST, NOTIFICATION, RESPONSE, STDERR = Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.STDERR
ERROR = Kind.ERROR_RESPONSE
C2S, S2C, ERR = Stream.C2S, Stream.S2C, Stream.ERR
LEGACY = Era.LEGACY
loads, JSONDecodeError = orjson.loads, orjson.JSONDecodeError
CR = 13  # a line that ends in a carriage return breaks a framing rule: classify_line reads it
CLEAN_REQUEST, CLEAN_NOTIFICATION, CLEAN_RESPONSE = CLEAN[REQUEST], CLEAN[NOTIFICATION], CLEAN[RESPONSE]
ABSENT = object()  # read_line: no value (a line not parsed, a message with no id)


def _by_value(key: HookKey) -> tuple[str, ...]:
    """A row's key as the dispatch looks it up: the values of its Kind and Stream (hot: see feed_read)."""
    return (key[0].value, key[1].value, *key[2:])


# A table of rows as the dispatch reads it: kind's value -> stream's value -> (the row, the rows of the
# methods whose row differs). Nested, not keyed by tuples: a tuple is built and hashed a lookup.
Rows = dict[str, dict[str, tuple[tuple[Hook, ...], dict[str, tuple[Hook, ...]]]]]


def read_line(record: LineRecord, make: Callable[..., Message] = Message) -> tuple[Message, Parsed | None]:
    """A line on its own, with no history: its message, and what its reading says (None for stderr).

    ``make``: what makes the message from its fields, by position (a viewer that listed a message
    before reading its line reads it into that one: tui/listed.py).

    Hot (every line): a request, notification or result that breaks no rule on its own is read here
    in one pass (``classify_line``, ``classify_message`` and ``fields_of`` cost about 400 ns a
    message more), and what its reading says is the one Parsed of its kind (``jsonrpc.CLEAN``: no
    problem; its fields are the message's); any other line is read by them.
    tests/analysis/test_read_line.py holds this reading == theirs.
    """
    stream, data = record.stream, record.data
    if stream is ERR:
        message = make(
            record.seq,
            record.t,
            stream,
            STDERR,
            data,
            record.terminated,
            None,
            None,
            None,
            None,
            NO_FIELDS,
            NO_FIELDS,
        )
        return message, None
    parsed, payload, glued = None, ABSENT, None
    if len(data) <= MAX_LINE_BYTES:  # else read from its ends: classify_line's
        try:
            payload = loads(data)
        except JSONDecodeError:
            pass
        if type(payload) is dict and data[-1] != CR and payload.get("jsonrpc") == "2.0":
            params = payload.get("params", NO_FIELDS)
            method = payload.get("method")
            msg_id = payload.get("id", ABSENT)
            if type(params) is not dict:
                pass
            elif type(method) is str:
                meta = params.get("_meta", NO_FIELDS)
                if msg_id is ABSENT:
                    kind, msg_id, parsed = NOTIFICATION, None, CLEAN_NOTIFICATION
                elif type(msg_id) in ID_TYPES and not method.startswith("notifications/"):
                    kind, parsed = REQUEST, CLEAN_REQUEST
            elif type(msg_id) in ID_TYPES and "method" not in payload and "error" not in payload:
                result = payload.get("result")
                if type(result) is dict:
                    kind, meta, parsed = RESPONSE, result.get("_meta", NO_FIELDS), CLEAN_RESPONSE
    if parsed is None:  # any other line: read in full (a value parsed is not parsed again)
        if payload is ABSENT or data[-1] == CR:
            parsed = classify_line(data, stream)
        else:
            parsed = classify_message(payload, [])
        kind, payload, msg_id, method = parsed.kind, parsed.payload, parsed.id, parsed.method
        glued = parsed.glued_prefix
        params, meta = fields_of(kind, payload)
    elif type(meta) is not dict:
        meta = NO_FIELDS
    message = make(
        record.seq,
        record.t,
        stream,
        kind,
        data,
        record.terminated,
        payload,
        msg_id,
        method,
        glued,
        params,
        meta,
    )
    return message, parsed


# Records fed between two checks for slow requests when none can be due: the answered requests the
# checks' queues may hold meanwhile (they drop them from their heads as they check).
CHECK_EVERY = 1024
RECENT_EXCHANGES = 4096  # lean mode: answered requests remembered per direction (late and duplicate replies)
# Lean mode: requests kept pending per direction; past it the oldest become unknown. What keeps the
# proxy and its children under 160 MiB with 1,000,000 requests each way never answered and a live OTLP
# sink, whose process keeps about 500 bytes a pending request (BENCHMARKS.md: 25,000 gave 183 MiB).
PENDING_BOUND = 10_000


class Analyzer:
    """``retain=False`` is the lean mode of the proxy's ``--log``: no history, the same findings.

    It keeps what pairing and the rules need (pending requests as their Exchange
    and what their replies are judged by, never their messages; the last
    ``RECENT_EXCHANGES`` answered ones of each direction, the progress tokens of
    those) and counts instead of lists: ``messages``, ``findings``, ``exchanges``
    and ``lifecycle`` stay empty, ``message_count`` and ``finding_counts`` say how
    many. The differences, by design: a reply (or a progress notification, or a
    cancel) about a request answered more than ``RECENT_EXCHANGES`` requests ago is
    judged as if that request were unknown; and past ``PENDING_BOUND`` pending
    requests a direction the oldest become unknown (pairing.pending-limit says how
    many), so memory stays bounded whatever the traffic.

    ``schemas``: the result definitions the caller hands in (mcpspy/analysis_data.py
    reads the packaged ones); without them no result shape is checked.

    ``events=False``: for a caller that reads the analysis's state, never what each call
    returns (a capture replayed whole): no event is made, every call returns an empty list.
    ``seen=False``: no MessageSeen, for a caller that has each line already (it fed them: the
    TUI's analysis child); a MessageSeen a line is a tenth of the analysis's instructions.
    """

    def __init__(
        self,
        slow_after: float = 30.0,
        retain: bool = True,
        schemas: ResultSchemas | None = None,
        clients: Sequence[ClientRules] | None = None,
        events: bool = True,
        seen: bool = True,
    ) -> None:
        self.slow_after = slow_after
        self.retain = retain
        recent = None if retain else RECENT_EXCHANGES
        bound = None if retain else PENDING_BOUND
        self._out = out = Reporter(retain, events, seen)
        self._framing = Framing(out)
        self._era = era = EraTracker(out, bound)
        self._pairing = pairing = Pairing(out, era, recent, bound)
        self._modern = ModernRules(out, era, bound)
        self._capabilities = Capabilities(out, era)
        self._progress = Progress(out, recent, pairing.is_pending)
        self._lifecycle = Lifecycle(out, pairing)
        self._capture = CaptureIntegrity(out, pairing)  # what the capture says it lost
        self._requests = Requests(out, clients)
        tool_schemas = ToolSchemas(out, era, clients)
        families: dict[str, object] = {
            "envelope": Envelope(out),
            "pairing": pairing,
            "era": era,
            "modern": self._modern,
            "capabilities": self._capabilities,
            "progress": self._progress,
            "logging": Logging(out),
            "requests": self._requests,
            "lifecycle": self._lifecycle,
            "mrtr": Mrtr(out, era),
            "subscriptions": Subscriptions(out, era),
            "deprecations": Deprecations(out, era),
            "caching": Caching(out, era),
            "tool_schemas": tool_schemas,
            "shapes": Shapes(out, era, tool_schemas, schemas),
        }

        def hooks(names: list[str], legacy: bool = False) -> tuple[Hook, ...]:
            """The row's hooks bound to their families; in a legacy process, without the MODERN_ONLY."""
            return tuple(
                getattr(families[family], method)
                for family, method in (n.split(".") for n in names if not (legacy and n in MODERN_ONLY))
            )

        def rows(table: dict[HookKey, list[str]], legacy: bool) -> Rows:
            # Keyed by the members' values: a str keeps its hash, an Enum member's hash is a Python call.
            nested: Rows = {}
            for key, names in sorted(table.items(), key=lambda item: len(item[0])):  # each pipe's row first
                kind, stream, *method = _by_value(key)
                by_pipe = nested.setdefault(kind, {})
                if method:
                    by_pipe[stream][1][method[0]] = hooks(names, legacy)
                else:
                    by_pipe[stream] = (hooks(names, legacy), {})
            return nested

        self._rows = (rows(HOOKS, False), rows(REPLIES, False))
        self._legacy_rows = (rows(HOOKS, True), rows(REPLIES, True))
        self._unread = {_by_value(key): hooks(names) for key, names in UNREAD.items()}
        self._after = hooks(AFTER_EVERY_MESSAGE)
        self.lifecycle: list[LifecycleSeen] = []  # every process event, in order (exports place them)
        self._finished = False
        # check_pending's shortcut: no request sent at or after _watched_since can be slow until
        # _soonest seconds after it (inf: none watched); a check looks again every CHECK_EVERY calls.
        self._soonest = min(slow_after, self._requests.timeout)
        self._watched_since = math.inf
        self._unchecked = 0

    # --- public API

    @property
    def messages(self) -> list[Message]:
        return self._out.messages

    @property
    def findings(self) -> list[Finding]:
        return self._out.findings

    @property
    def exchanges(self) -> list[Exchange]:
        return self._out.exchanges

    @property
    def message_count(self) -> int:
        return self._out.message_count

    @property
    def finding_counts(self) -> dict[Severity, int]:
        return self._out.finding_counts

    @property
    def era(self) -> Era:
        return self._era.era

    @property
    def protocol_version(self) -> str | None:
        return self._era.protocol_version

    @property
    def supported_versions(self) -> list[str] | None:
        return self._modern.supported_versions

    @property
    def server_capabilities(self) -> dict[str, Any] | None:
        """From the initialize or server/discover result; None until one is seen."""
        return self._capabilities.server

    @property
    def client_capabilities(self) -> dict[str, Any] | None:
        """From the initialize params (legacy); None otherwise."""
        return self._capabilities.client

    @property
    def pending(self) -> list[Exchange]:
        return self._pairing.pending

    def message(self, seq: int) -> Message | None:
        return self._out.by_seq.get(seq)

    def found(self) -> list[Message]:
        """From now on, every message a finding is attached to, appended to the list returned.

        For a caller that mirrors the analysis elsewhere (tui/analysis_child.py): a once-per-session
        finding is attached to each later line it stands for with no event, and a finding may be
        about a line fed long before (the first line of a pretty-printed message).
        """
        if self._out.found is None:
            self._out.found = []
        return self._out.found

    def feed(self, record: Record) -> list[AnalysisEvent]:
        if isinstance(record, LifecycleRecord):
            self._out.events = []
            seen = LifecycleSeen(record.seq, record.t, record.event.value, dict(record.details))
            if self.retain:
                self.lifecycle.append(seen)
            if self._out.listening:
                self._out.events.append(seen)
            if record.event is Event.INJECTED:
                self._injected(record.details)
            self._lifecycle.event(record)
            self._capture.event(record)
            self._look_next_time()  # a capture-gap made the pending unknown (rules/capture_integrity.py)
            return self._out.events
        return self.feed_read(*read_line(record))

    def feed_read(self, message: Message, parsed: Parsed | None) -> list[AnalysisEvent]:
        """A line that ``read_line`` has read already (a viewer lists lines before analysing them).

        The line is framed (rules/framing.py); the JSON-RPC message it completes goes to the families
        in the order of its row of ``HOOKS``, walked here rather than in a method of its own: every
        line comes this way (speed policy, analysis/__init__.py).
        """
        out = self._out
        out.events = []
        if parsed is None:  # stderr: listed, never judged (a failed start quotes its last lines)
            out.message(message)
            self._lifecycle.stderr(message)
            return out.events
        carried = self._framing.line(message, parsed)
        if carried is not None:
            kind = carried.kind
            if kind is REQUEST and carried.t < self._watched_since:
                self._watched_since = carried.t  # check_pending watches it from now on
            kind_value, stream = kind._value_, carried.stream._value_
            if carried.payload is None:  # an oversized line, read from its ends (rules/framing.py)
                for hook in self._unread.get((kind_value, stream), ()):
                    hook(carried)
            else:
                hooks, replies = self._legacy_rows if self._era.era is LEGACY else self._rows
                row, by_method = hooks[kind_value][stream]
                for hook in by_method.get(carried.method or "", row) if by_method else row:
                    if hook(carried):
                        break
                else:
                    exchange = carried.exchange
                    # A reply that paired goes on by its request's method.
                    if exchange is not None and (kind is RESPONSE or kind is ERROR):
                        row, by_method = replies[kind_value][stream]
                        for hook in by_method.get(exchange.method, row) if by_method else row:
                            hook(carried)
                        exchange.held = None  # judged: Pairing.release, inline (hooks.py's REPLIES)
                for hook in self._after:
                    hook(carried)
        if self.retain:
            let_payload_go(message)
        return out.events

    def _injected(self, details: dict[str, Any]) -> None:
        """An ``injected`` record (``mcpspy --inject``): what it wrote, and the request it struck, are its."""
        out = self._out
        altered, lines = details.get("altered"), details.get("lines", 0)
        if type(altered) is int and type(lines) is int:
            seqs = range(altered, altered + max(1, min(lines, 1 << 20)))
            out.injected_seqs.update(seqs)
            out.injected_lines.update(dict.fromkeys(seqs, details))
        ident = details.get("id")
        if isinstance(ident, str) and details.get("request"):
            for exchange in self._pairing.in_flight(C2S):
                if orjson.dumps(exchange.id).decode() == ident:
                    out.injected_seqs.add(exchange.request_seq)
        if details.get("ends"):
            out.injected_all = True

    @property
    def injected_findings(self) -> list[Finding]:
        """Findings an injection provoked (``--inject``): never among ``findings``, never counted."""
        return self._out.injected_findings

    def records_missing(self) -> list[AnalysisEvent]:
        """Records between the last fed and the next never came (a --log that fell behind).

        The events: what was pending is now unknown (ExchangeUpdated), for the sink to say.
        """
        self._out.events = []
        self._pairing.gap()
        self._look_next_time()
        return self._out.events

    def _look_next_time(self) -> None:
        """The next ``check_pending`` looks: what a gap made unknown is dropped from its queues then,
        before a reply can make it awaited again (lost), as a check at every call would drop it."""
        self._unchecked = CHECK_EVERY

    def check_pending(self, t: float) -> list[AnalysisEvent]:
        """Flag the requests that have waited too long by ``t``.

        Called before every record: when no request watched can have waited long enough
        (the oldest was sent less than the shortest wait before ``t``), it looks no further.
        """
        events = self._out.events = []
        if t - self._watched_since < self._soonest and self._unchecked < CHECK_EVERY:
            self._unchecked += 1
            return events
        self._unchecked = 0
        self._pairing.check_pending(t, self.slow_after)
        self._requests.check(t)
        self._watched_since = min(self._pairing.oldest_watched(), self._requests.oldest_watched())
        return events

    def finish(self) -> list[AnalysisEvent]:
        self._out.events = []
        if not self._finished:
            self._finished = True
            for stream in (C2S, S2C):
                self._framing.flush(stream)
            self._pairing.finish()
            self._requests.finish()
        return self._out.events
