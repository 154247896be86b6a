"""Requests as their senders wait on them (request.*, version.*): timers, missing ids, rejected versions.

A client gives up on a request after its own timeout (60 s by default in the
common SDKs) unless progress resets the timer, and progress can only name a
request that carried a progressToken. A request's method sent without an id
is a notification that nobody answers. A version the server rejected must be
followed by a retry in a version the server listed, or the session is over.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from typing import Any

from mcpspy.analysis.jsonrpc import shown, valid_id
from mcpspy.analysis.message_fields import META_VERSION, error_code_of, error_of
from mcpspy.analysis.model import ClientRules, Exchange, ExchangeState, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId

CLIENT_TIMEOUT = 60.0  # seconds: the TypeScript SDK's default request timeout, which most clients keep
# Every method of the ClientRequest and ServerRequest unions, in every revision's schema.json
# (tests/analysis/test_exchange_rules.py reads them again from the spec when it is at hand).
REQUEST_METHODS = frozenset(
    {
        "completion/complete",
        "elicitation/create",
        "initialize",
        "logging/setLevel",
        "ping",
        "prompts/get",
        "prompts/list",
        "resources/list",
        "resources/read",
        "resources/subscribe",
        "resources/templates/list",
        "resources/unsubscribe",
        "roots/list",
        "sampling/createMessage",
        "server/discover",
        "subscriptions/listen",
        "tasks/cancel",
        "tasks/get",
        "tasks/list",
        "tasks/result",
        "tools/call",
        "tools/list",
    }
)
UNSUPPORTED_VERSION = -32022
WAITING = (ExchangeState.PENDING, ExchangeState.LOST)  # a lost reply leaves the client's timer running
ORPHANS_KEPT = 64  # progress notifications that named no token, remembered for the sentence


def carried_version(request: Message) -> str | None:
    """The protocol version a client request asks for: initialize's param, else its _meta's."""
    params = request.params
    version = params.get("protocolVersion") if request.method == "initialize" else None
    if version is None:
        version = request.meta.get(META_VERSION)
    return version if isinstance(version, str) else None


class Requests:
    """``clients``: the profiles whose timeouts a request is held to (None: the common 60 s)."""

    def __init__(self, out: Reporter, clients: Sequence[ClientRules] | None = None) -> None:
        self._out = out
        # Without profiles, the common 60 s; with them, the shortest timeout among the named clients.
        timed = sorted((c for c in clients or () if c.timeout_s is not None), key=lambda c: c.timeout_s or 0)
        self._clients = timed if clients is not None else None
        self._timeout = timed[0].timeout_s or CLIENT_TIMEOUT if timed else CLIENT_TIMEOUT
        self._untimed: deque[Exchange] = deque()  # client requests without a progressToken, sent in order
        self._tokens: set[str | int] = set()  # the progressTokens client requests carried
        self._orphans: deque[int] = deque(maxlen=ORPHANS_KEPT)  # seqs of progress naming none of them
        self._rejected: tuple[Exchange, list[str]] | None = None  # awaiting a retry
        self._named = False  # the current run of rejections has its finding already

    # --- what the analyzer hands over

    def notification(self, message: Message) -> None:
        if message.method in REQUEST_METHODS:
            self._out.find(
                RuleId.REQUEST_SENT_AS_NOTIFICATION,
                message.seq,
                message.stream,
                f"{message.method} was sent without an id: a notification, which nobody answers",
            )

    def progress(self, message: Message) -> None:
        """A server's progress that no client request's token can carry."""
        token: Any = message.params.get("progressToken")
        if not (valid_id(token) and token in self._tokens):
            self._orphans.append(message.seq)

    def client_request(self, message: Message) -> None:
        exchange = message.exchange
        assert exchange is not None  # pairing opened it
        token: Any = message.meta.get("progressToken")
        if token is not None and valid_id(token):  # most requests carry none: no call then
            self._tokens.add(token)
        elif not exchange.long_lived:
            self._untimed.append(exchange)
        if self._rejected is not None:
            self._retry(message)

    def client_error(self, reply: Message) -> None:
        """An error to a client request: a rejected version (with the server's list) awaits a retry.

        -32022 in 2026-07-28; an initialize error with data.supported before it (the 2025 lifecycle's
        example). With no list the server is at fault instead (error.unsupported-version-data).
        """
        exchange = reply.exchange
        if exchange is None:
            return
        if error_code_of(reply) != UNSUPPORTED_VERSION and exchange.method != "initialize":
            return
        data = error_of(reply).get("data")
        supported = data.get("supported") if isinstance(data, dict) else None
        if not isinstance(supported, list):
            return
        listed = [v for v in supported if isinstance(v, str)]
        if exchange.version in listed:  # the server contradicts itself: no retry can help
            return  # (error.unsupported-version-inconsistent tells it)
        self._rejected = (exchange, listed)

    # --- the passing of time and the end

    def check(self, t: float) -> None:
        """Flag each client request without a token still awaited past the shortest client timeout."""
        clients = self._clients
        if clients is not None and not clients:
            return  # no named client has a known timeout
        waiting, timeout = self._untimed, self._timeout
        while waiting:
            oldest = waiting[0]
            if oldest.state not in WAITING:
                waiting.popleft()
                continue
            if t - oldest.sent_t < timeout:
                break  # in sending order: every later request is younger
            waiting.popleft()
            orphans = [seq for seq in self._orphans if seq > oldest.request_seq]
            meanwhile = (
                f"; the server's progress meanwhile (seq {', '.join(map(str, orphans[:3]))}) could not "
                "name it"
                if orphans
                else ""
            )
            if clients is None:
                self._out.find(
                    RuleId.REQUEST_NO_PROGRESS_TOKEN,
                    oldest.request_seq,
                    oldest.stream,
                    f"{oldest.method} (id {shown(oldest.id)}) carried no progressToken and waited "
                    f"{timeout:g}s for its reply, when clients time out{meanwhile}",
                )
                continue
            gone = [c.title for c in clients if (c.timeout_s or 0) <= timeout]
            who = gone[0] if len(gone) == 1 else ", ".join(gone[:-1]) + " and " + gone[-1]
            self._out.find(
                RuleId.REQUEST_NO_PROGRESS_TOKEN,
                oldest.request_seq,
                oldest.stream,
                f"{oldest.method} (id {shown(oldest.id)}) carried no progressToken and waited "
                f"{timeout:g}s for its reply: {who} give{'s' if len(gone) == 1 else ''} up after "
                f"{timeout:g}s{meanwhile}",
            )

    @property
    def timeout(self) -> float:
        """How long a client request without a token may wait before ``check`` flags it."""
        return self._timeout

    def oldest_watched(self) -> float:
        """When the oldest request ``check`` still watches was sent (perhaps answered since); inf."""
        return self._untimed[0].sent_t if self._untimed else math.inf

    def finish(self) -> None:
        if self._rejected is not None and not self._named:
            exchange, listed = self._rejected
            offered = f" (it lists {shown(listed)})"
            self._out.find(
                RuleId.VERSION_REJECTED_NOT_RETRIED,
                exchange.request_seq,
                exchange.stream,
                f"the server rejected the version of {exchange.method} (id {shown(exchange.id)}){offered} "
                "and the client never retried",
                related_seq=exchange.reply_seq,
            )

    def _retry(self, message: Message) -> None:
        assert self._rejected is not None
        version = carried_version(message)
        if version is None:
            return  # no version asked for: not a retry
        exchange, listed = self._rejected
        self._rejected = None
        if version in listed:
            self._named = False
            return
        if not self._named:
            self._named = True
            self._out.find(
                RuleId.VERSION_REJECTED_NOT_RETRIED,
                message.seq,
                message.stream,
                f"the client retried with {shown(version)}, which the server did not list "
                f"(it lists {shown(listed)} at seq {exchange.reply_seq})",
                related_seq=exchange.reply_seq,
            )
