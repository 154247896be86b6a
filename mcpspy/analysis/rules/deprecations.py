"""What 2026-07-28 removed, retired or deprecated (deprecated.*, error.*, logging.*, resource.*).

Removed methods (logging/setLevel, resources/subscribe, ...), deprecated
features (roots, sampling, logging: still in the spec, not to be adopted),
error codes retired, undefined or reserved, a resources/read answered with
nothing, and the per-request log level that replaced logging/setLevel.
Server requests (sampling/createMessage, roots/list as JSON-RPC requests)
are rules/modern.py's direction.server-request; ping is its ping.modern.
"""

from __future__ import annotations

from mcpspy.analysis.jsonrpc import shown
from mcpspy.analysis.message_fields import (
    META_CAPABILITIES,
    error_code_of,
    error_of,
    result_of,
    result_type_of,
)
from mcpspy.analysis.model import Era, Exchange, ExchangeState, Kind, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.legacy import EraTracker
from mcpspy.analysis.rules.progress_logging import LOG_LEVELS
from mcpspy.analysis.rules.subscriptions import SUBSCRIPTION_ID

LOG_LEVEL = "io.modelcontextprotocol/logLevel"
# Removed in 2026-07-28 (changelog Major 2, 4-6, Minor 11), with what replaced each.
REMOVED_REQUESTS = {
    "logging/setLevel": "the per-request _meta io.modelcontextprotocol/logLevel",
    "resources/subscribe": "subscriptions/listen with resourceSubscriptions",
    "resources/unsubscribe": "cancelling the subscriptions/listen",
    "tasks/result": "tasks/get polling (io.modelcontextprotocol/tasks extension)",
    "tasks/list": "nothing (the tasks extension has no list)",
}
REMOVED_CLIENT_NOTIFICATIONS = {
    "notifications/initialized": "nothing (there is no handshake)",
    "notifications/roots/list_changed": "nothing (roots travel in inputRequests)",
}
REMOVED_SERVER_NOTIFICATIONS = {"notifications/elicitation/complete": "the client's retry (MRTR)"}
# Server notifications a 2026-07-28 client cannot send: its ClientNotification union is cancelled alone.
SERVER_ONLY_NOTIFICATIONS = frozenset(
    {
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/message",
        "notifications/subscriptions/acknowledged",
    }
)
DEPRECATED_CAPABILITIES = ("roots", "sampling")  # SEP-2577; logging is the server's
RETIRED = {-32002: "resource not found is -32602 now", -32042: "URL elicitation goes through MRTR now"}
HEADER_MISMATCH, MISSING_CAPABILITY, UNSUPPORTED_VERSION = -32020, -32021, -32022
JSONRPC_DEFINED = frozenset({-32700, -32600, -32601, -32602, -32603})
# Hot (every client request): Enum members as module constants (speed policy: analysis/__init__.py).
LEGACY = Era.LEGACY


class Deprecations:
    def __init__(self, out: Reporter, era: EraTracker) -> None:
        self._out = out
        self._era = era
        self._noted: set[str] = set()  # deprecated features already reported in this process
        self._modern_reply: int | None = None  # a DiscoverResult or -32022 answered server/discover here
        # Client requests that set a log level, oldest first, with the level's rank in LOG_LEVELS.
        self._log_level: list[tuple[Exchange, int]] = []

    def _removed(self, message: Message, instead: str) -> None:
        self._out.find(
            RuleId.DEPRECATED_REMOVED_METHOD,
            message.seq,
            message.stream,
            f"{message.method} was removed in 2026-07-28; use {instead}",
        )

    def _feature(self, message: Message, feature: str, how: str) -> None:
        if feature in self._noted:
            return
        self._noted.add(feature)
        self._out.find(
            RuleId.DEPRECATED_FEATURE,
            message.seq,
            message.stream,
            f"{how}: {feature} is deprecated in 2026-07-28 (SEP-2577); new implementations should not "
            "adopt it",
        )

    def client_request(self, message: Message) -> None:
        """A client request that carries 2026-07-28 _meta."""
        exchange = message.exchange
        if exchange is None or exchange.version is None or self._era.era is LEGACY:  # modern_request, inline
            return
        instead = REMOVED_REQUESTS.get(message.method or "")
        if instead is not None:
            self._removed(message, instead)
        meta = message.meta
        capabilities = meta.get(META_CAPABILITIES)
        # Not on server/discover: a dual-era client's probe says what it would use, before the era is known.
        if isinstance(capabilities, dict) and capabilities and message.method != "server/discover":
            for name in DEPRECATED_CAPABILITIES:
                if name in capabilities:
                    self._feature(message, name, f"the client declares the {name} capability")
        if LOG_LEVEL in meta:
            level = meta[LOG_LEVEL]
            if level in LOG_LEVELS:
                self._log_level.append((exchange, LOG_LEVELS.index(level)))
            else:
                self._out.find(
                    RuleId.LOGGING_INVALID_LOG_LEVEL,
                    message.seq,
                    message.stream,
                    f"_meta {LOG_LEVEL} is {shown(level)}, not one of {', '.join(LOG_LEVELS)}",
                )

    def discover_answered(self, reply: Message) -> None:
        """A 2026-07-28 server/discover answered: a DiscoverResult or -32022 says the server is modern."""
        exchange = reply.exchange
        if exchange is None or exchange.method != "server/discover" or not self._era.modern_reply(exchange):
            return
        if reply.kind is Kind.RESPONSE or error_code_of(reply) == UNSUPPORTED_VERSION:
            self._modern_reply = reply.seq

    def initialize(self, message: Message) -> None:
        """An initialize sent after the server showed it is modern: a fallback the client must not make."""
        if self._modern_reply is not None:
            self._out.find(
                RuleId.ERA_FALLBACK_AFTER_MODERN_REPLY,
                message.seq,
                message.stream,
                f"initialize after server/discover got a 2026-07-28 answer (seq {self._modern_reply}); the "
                "client should retry with a version from supportedVersions, not fall back",
                related_seq=self._modern_reply,
            )

    def client_notification(self, message: Message) -> None:
        """A client notification of a 2026-07-28 process with no legacy handshake under way."""
        if not self._era.modern_client:
            return
        instead = REMOVED_CLIENT_NOTIFICATIONS.get(message.method or "")
        if instead is not None:
            self._removed(message, instead)
        elif message.method in SERVER_ONLY_NOTIFICATIONS:
            self._out.find(
                RuleId.DIRECTION_CLIENT_NOTIFICATION,
                message.seq,
                message.stream,
                f"the client sent {message.method}, a server notification; a 2026-07-28 client sends "
                "only notifications/cancelled",
            )
        elif message.method == "notifications/progress":
            self._out.find(
                RuleId.PROGRESS_CLIENT_SENT,
                message.seq,
                message.stream,
                "the client sent notifications/progress; in 2026-07-28 only the server reports progress",
            )

    def server_notification(self, message: Message) -> None:
        """A server notification of a 2026-07-28 process."""
        if not self._era.modern:
            return
        method = message.method or ""
        instead = REMOVED_SERVER_NOTIFICATIONS.get(method)
        if instead is not None:
            self._removed(message, instead)
        if method != "notifications/message":
            return
        self._feature(message, "logging", "the server sends notifications/message")
        if SUBSCRIPTION_ID in message.meta:
            self._out.find(
                RuleId.LOGGING_ON_SUBSCRIPTION,
                message.seq,
                message.stream,
                "notifications/message carries a subscriptionId; log messages are request-scoped and "
                "never travel on a subscriptions/listen stream",
            )
            return
        waiting = self._log_level = [w for w in self._log_level if w[0].state is ExchangeState.PENDING]
        if not waiting:
            self._out.find(
                RuleId.LOGGING_NO_LOG_LEVEL,
                message.seq,
                message.stream,
                f"notifications/message while no request in flight set _meta {LOG_LEVEL}",
            )
            return
        level, lowest = message.params.get("level"), min(rank for _, rank in waiting)
        if level in LOG_LEVELS and LOG_LEVELS.index(level) < lowest:
            self._out.find(
                RuleId.LOGGING_BELOW_LEVEL,
                message.seq,
                message.stream,
                f"a {level} message, below {LOG_LEVELS[lowest]}, the lowest level a request in flight set",
            )

    def read_result(self, message: Message) -> None:
        """A complete resources/read result: a resource that does not exist is -32602, never nothing."""
        exchange = message.exchange
        if exchange is None or exchange.method != "resources/read" or not self._era.modern_reply(exchange):
            return
        result = result_of(message)
        if isinstance(result, dict) and result_type_of(result) == "complete" and result.get("contents") == []:
            self._out.find(
                RuleId.RESOURCE_EMPTY_CONTENTS,
                message.seq,
                message.stream,
                "resources/read returned empty contents; a missing resource is answered with -32602",
            )

    def error(self, message: Message) -> None:
        """An error answering a client request that carried 2026-07-28 _meta."""
        exchange = message.exchange
        if exchange is None or not self._era.modern_reply(exchange):
            return
        code = error_code_of(message)
        if code is None:
            return
        seq, stream = message.seq, message.stream
        if code in RETIRED:
            self._out.find(
                RuleId.ERROR_RETIRED_CODE,
                seq,
                stream,
                f"error code {code} is retired in 2026-07-28: {RETIRED[code]}",
            )
        elif -32099 <= code <= -32023:
            self._out.find(
                RuleId.ERROR_UNDEFINED_CODE,
                seq,
                stream,
                f"error code {code} is in -32020..-32099, reserved for the MCP spec, which defines only "
                "-32020, -32021 and -32022 there",
            )
        elif -32768 <= code <= -32100 and code not in JSONRPC_DEFINED:
            self._out.find(
                RuleId.ERROR_RESERVED_CODE,
                seq,
                stream,
                f"error code {code} is in JSON-RPC's reserved -32768..-32000 but is none of its defined "
                "codes",
            )
        elif code == HEADER_MISMATCH:
            self._out.find(
                RuleId.ERROR_HEADER_MISMATCH_ON_STDIO,
                seq,
                stream,
                "HeaderMismatch (-32020) is about HTTP headers; stdio has no header layer",
            )
        elif code == MISSING_CAPABILITY:
            data = error_of(message).get("data")
            required = data.get("requiredCapabilities") if isinstance(data, dict) else None
            if not isinstance(required, dict):
                self._out.find(
                    RuleId.ERROR_MISSING_CAPABILITY_DATA,
                    seq,
                    stream,
                    f"-32021 without data.requiredCapabilities (data is {shown(data)}): the client cannot "
                    "tell which capability to declare",
                    related_seq=exchange.request_seq,
                )
