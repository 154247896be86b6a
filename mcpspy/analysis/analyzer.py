"""The analyzer: fed capture records one at a time, in the manner of h11.

``feed(record)`` returns what the record taught it (the classified message,
exchanges that changed, findings); ``check_pending(t)`` flags slow requests
at a time the caller chooses; ``finish()`` closes the books. No clock, no
I/O: the same records always give the same analysis, live or replayed.

This is the facade: framing reads each line (rules/framing.py), then the
families judge the JSON-RPC message it makes, in the order ``HOOKS`` gives
for its kind and pipe. It keeps no rule of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from mcpspy.analysis.jsonrpc import Parsed
from mcpspy.analysis.model import (
    AnalysisEvent,
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
from mcpspy.analysis.rules.envelope import Envelope
from mcpspy.analysis.rules.framing import Framing, classify_line
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

Hook = Callable[[Message], "bool | None"]
HookKey = tuple[Kind, Stream] | tuple[Kind, Stream, str]

# Who judges a JSON-RPC message, in order, by (kind, the pipe it came on), or by (kind, pipe, method)
# for the methods whose row differs. A hook is a family's method taking the message: its exchange is
# ``message.exchange`` (pairing opens a request's, and pairs a reply with its request's), and what a
# reply is judged by of its request is ``exchange.held`` (model.Held). A hook that returns True ends
# the row for that message: a reply that answers nothing, a 2026-07-28 server's cancel.
# 2026-07-28 traffic (the DIGEST rules: mrtr, subscriptions, deprecations, caching) is told apart by
# the era: each of those hooks asks rules/legacy.py's EraTracker (modern_request, modern_reply, ...).
_CLIENT_REQUEST = ["pairing.request", "progress.request", "requests.client_request"]
_SERVER_NOTIFICATION = [
    "requests.notification",
    "subscriptions.notification",
    "deprecations.server_notification",
    "caching.server_notification",
    "capabilities.server_notification",
]
_CANCEL = ["requests.notification", "subscriptions.cancel", "pairing.cancel"]
_PROGRESS = ["requests.notification", "progress.notification", "requests.progress"]
HOOKS: dict[HookKey, list[str]] = {
    (REQUEST, C2S): [
        *_CLIENT_REQUEST,
        "era.client_request",
        "modern.client_request",
        "capabilities.client_request",
        "mrtr.request",
        "subscriptions.request",
        "deprecations.client_request",
        "caching.request",
    ],
    (REQUEST, C2S, "initialize"): [
        *_CLIENT_REQUEST,
        "era.initialize",
        "capabilities.learn_client",
        "deprecations.initialize",
    ],
    (REQUEST, S2C): [
        "pairing.request",
        "progress.request",
        "era.server_request",
        "modern.server_request",
        "capabilities.server_request",
    ],
    (NOTIFICATION, C2S): [
        "requests.notification",
        "deprecations.client_notification",
        "era.client_notification",
    ],
    (NOTIFICATION, C2S, "notifications/cancelled"): _CANCEL,
    (NOTIFICATION, C2S, "notifications/progress"): [*_PROGRESS, "deprecations.client_notification"],
    (NOTIFICATION, S2C): _SERVER_NOTIFICATION,
    (NOTIFICATION, S2C, "notifications/cancelled"): _CANCEL,
    (NOTIFICATION, S2C, "notifications/progress"): _PROGRESS,
    (NOTIFICATION, S2C, "notifications/message"): [*_SERVER_NOTIFICATION, "logging.notification"],
    (RESPONSE, S2C): ["pairing.response"],  # then REPLIES, by its request's method
    (ERROR, S2C): ["envelope.idless_error", "pairing.response"],
    (RESPONSE, C2S): ["modern.client_response", "pairing.response"],
    (ERROR, C2S): ["modern.client_response", "envelope.idless_error", "pairing.response"],
}
# A reply that paired goes on by the method of the request it answers, with the hooks that judge
# that method's replies (a hook that would return at once for it is left out of its row).
_RESULT = ["modern.result", "mrtr.result"]  # a result to any client request but initialize
_CACHEABLE = [*_RESULT, "caching.result", "shapes.result", "pairing.release"]
REPLIES: dict[HookKey, list[str]] = {
    (RESPONSE, S2C): [*_RESULT, "shapes.result", "pairing.release"],
    (RESPONSE, S2C, "initialize"): [
        "era.initialize_answered",
        "modern.initialize_answered",
        "capabilities.learn_server",
        "shapes.result",
        "pairing.release",
    ],
    (RESPONSE, S2C, "server/discover"): [
        "modern.result",
        "capabilities.learn_server",
        "deprecations.discover_answered",
        "mrtr.result",
        "caching.result",
        "shapes.result",
        "pairing.release",
    ],
    (RESPONSE, S2C, "subscriptions/listen"): [
        "modern.result",
        "subscriptions.answered",
        "mrtr.result",
        "pairing.release",
    ],
    (RESPONSE, S2C, "resources/read"): [
        *_RESULT,
        "caching.result",
        "deprecations.read_result",
        "shapes.result",
        "pairing.release",
    ],
    (RESPONSE, S2C, "ping"): [*_RESULT, "modern.ping_result", "shapes.result", "pairing.release"],
    (RESPONSE, S2C, "tools/list"): [
        *_RESULT,
        "caching.result",
        "tool_schemas.result",
        "shapes.result",
        "pairing.release",
    ],
    (RESPONSE, S2C, "prompts/list"): _CACHEABLE,
    (RESPONSE, S2C, "resources/list"): _CACHEABLE,
    (RESPONSE, S2C, "resources/templates/list"): _CACHEABLE,
    (ERROR, S2C): [
        "era.initialize_answered",
        "modern.initialize_answered",
        "modern.error",
        "requests.client_error",
        "capabilities.learn_server",
        "subscriptions.answered",
        "deprecations.discover_answered",
        "deprecations.error",
        "caching.error",
        "pairing.release",
    ],
    (RESPONSE, C2S): ["shapes.result", "pairing.release"],  # the client answering the server
    (RESPONSE, C2S, "ping"): ["modern.ping_result", "shapes.result", "pairing.release"],
    (RESPONSE, C2S, "tools/list"): ["tool_schemas.result", "shapes.result", "pairing.release"],
    (ERROR, C2S): ["pairing.release"],
}
# Around every row: before, what the process's life learns; after, the _meta key names (an
# initialize result has set the revision by then).
BEFORE_EVERY_MESSAGE = ["lifecycle.protocol"]
AFTER_EVERY_MESSAGE = ["modern.meta_keys"]
# A message over the size parsed whole has no payload to judge (rules/framing.py): it is paired only.
UNREAD: dict[HookKey, list[str]] = {
    (REQUEST, C2S): ["pairing.request"],
    (REQUEST, S2C): ["pairing.request"],
    (RESPONSE, S2C): ["pairing.response", "pairing.release"],
    (RESPONSE, C2S): ["pairing.response", "pairing.release"],
    (ERROR, S2C): ["pairing.response", "pairing.release"],
    (ERROR, C2S): ["pairing.response", "pairing.release"],
}


def _by_value(key: HookKey) -> tuple[str, ...]:
    """A row's key as the dispatch looks it up: the values of its Kind and Stream (hot: see _protocol)."""
    return (key[0].value, key[1].value, *key[2:])


def read_line(record: LineRecord) -> tuple[Message, Parsed | None]:
    """A line on its own, with no history: its message, and what its reading says (None for stderr)."""
    if record.stream is ERR:
        return Message(record.seq, record.t, record.stream, STDERR, record.data, record.terminated), None
    parsed = classify_line(record.data, record.stream)
    message = Message(
        record.seq,
        record.t,
        record.stream,
        parsed.kind,
        record.data,
        record.terminated,
        parsed.payload,
        parsed.id,
        parsed.method,
        glued_prefix=parsed.glued_prefix,
    )
    return message, parsed


RECENT_EXCHANGES = 4096  # lean mode: answered requests remembered per direction (late and duplicate replies)
PENDING_BOUND = 100_000  # lean mode: requests kept pending per direction; past it the oldest become unknown


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
    """

    def __init__(
        self, slow_after: float = 30.0, retain: bool = True, schemas: ResultSchemas | None = None
    ) -> None:
        self.slow_after = slow_after
        self.retain = retain
        recent = None if retain else RECENT_EXCHANGES
        bound = None if retain else PENDING_BOUND
        self._out = out = Reporter(retain)
        self._framing = Framing(out)
        self._era = era = EraTracker(out, bound)
        self._pairing = pairing = Pairing(out, era, recent, bound)
        self._modern = ModernRules(out, era)
        self._capabilities = Capabilities(out, era)
        self._progress = Progress(out, recent, pairing.is_pending)
        self._lifecycle = Lifecycle(out, pairing)
        self._capture = CaptureIntegrity(out, pairing)  # what the capture says it lost
        self._requests = Requests(out)
        tool_schemas = ToolSchemas(out, era)
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

        def hooks(names: list[str]) -> tuple[Hook, ...]:
            return tuple(
                getattr(families[family], method) for family, method in (n.split(".") for n in names)
            )

        # Keyed by the members' values: a str keeps its hash, an Enum member's hash is a Python call.
        self._hooks = {_by_value(key): hooks(names) for key, names in HOOKS.items()}
        self._replies = {_by_value(key): hooks(names) for key, names in REPLIES.items()}
        self._unread = {_by_value(key): hooks(names) for key, names in UNREAD.items()}
        self._before = hooks(BEFORE_EVERY_MESSAGE)
        self._after = hooks(AFTER_EVERY_MESSAGE)
        self.lifecycle: list[LifecycleSeen] = []  # every process event, in order (exports place them)
        self._finished = False

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

    def feed(self, record: Record) -> list[AnalysisEvent]:
        if isinstance(record, LifecycleRecord):
            self._out.events = []
            seen = LifecycleSeen(record.seq, record.t, record.event.value, dict(record.details))
            if self.retain:
                self.lifecycle.append(seen)
            self._out.events.append(seen)
            if record.event is Event.INJECTED:
                self._injected(record.details)
            self._lifecycle.event(record)
            self._capture.event(record)
            return self._out.events
        return self.feed_read(*read_line(record))

    def feed_read(self, message: Message, parsed: Parsed | None) -> list[AnalysisEvent]:
        """A line that ``read_line`` has read already (a viewer lists lines before analysing them)."""
        self._out.events = []
        if parsed is None:  # stderr: listed, never judged (a failed start quotes its last lines)
            self._out.message(message)
            self._lifecycle.stderr(message)
        else:
            carried = self._framing.line(message, parsed)
            if carried is not None:
                self._protocol(carried)
        return self._out.events

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

    def records_missing(self) -> None:
        """Records between the last fed and the next never came (a --log that fell behind)."""
        self._pairing.gap()

    def check_pending(self, t: float) -> list[AnalysisEvent]:
        self._out.events = []
        self._pairing.check_pending(t, self.slow_after)
        self._requests.check(t)
        return self._out.events

    def finish(self) -> list[AnalysisEvent]:
        self._out.events = []
        if not self._finished:
            self._finished = True
            for stream in (C2S, S2C):
                self._framing.flush(stream)
            self._pairing.finish()
            self._requests.finish()
        return self._out.events

    def _protocol(self, message: Message) -> None:
        """A JSON-RPC message, to the families in the order of its row of ``HOOKS``."""
        for hook in self._before:
            hook(message)
        kind = message.kind
        kind_value, stream = kind._value_, message.stream._value_
        if message.payload is None:  # an oversized line, read from its ends (rules/framing.py)
            for hook in self._unread.get((kind_value, stream), ()):
                hook(message)
            return
        hooks = self._hooks
        row = hooks.get((kind_value, stream, message.method or "")) or hooks[kind_value, stream]
        for hook in row:
            if hook(message):
                break
        else:
            exchange = message.exchange
            if exchange is not None and (
                kind is RESPONSE or kind is ERROR
            ):  # paired: by its request's method
                replies = self._replies
                for hook in replies.get((kind_value, stream, exchange.method)) or replies[kind_value, stream]:
                    hook(message)
        for hook in self._after:
            hook(message)
