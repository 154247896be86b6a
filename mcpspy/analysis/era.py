"""Which revision's rules apply, and the rules of each era's opening.

Modern (2026-07-28): every request carries _meta protocolVersion and
clientCapabilities, and there is no handshake. Legacy: an answered
`initialize` switches the process to the 2024-11-05 .. 2025-11-25 rules, the
version in its result in force. The era is read from what this process
carries, never from having seen a probe.
"""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.model import Era, Exchange, ExchangeState, Kind, Message
from mcpspy.analysis.pairing import meta_of, params_of
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.schema import REVISIONS
from mcpspy.capture.records import Stream

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
LEGACY_REVISIONS = frozenset(REVISIONS[:4])
CACHEABLE = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    }
)
UNKNOWN, MODERN, LEGACY = Era.UNKNOWN, Era.MODERN, Era.LEGACY  # Enum class attributes are slow on 3.11
PENDING = ExchangeState.PENDING
RESPONSE = Kind.RESPONSE
C2S = Stream.C2S


def modern_version(request: Message) -> str | None:
    """The request's own revision, when it carries the per-request fields of 2026-07-28."""
    return meta_version(meta_of(request))


def meta_version(meta: dict[str, Any]) -> str | None:
    """``modern_version`` of the request whose _meta this is."""
    version = meta.get(META_VERSION)
    return version if isinstance(version, str) and META_CAPABILITIES in meta else None


class EraTracker:
    def __init__(self, out: Reporter) -> None:
        self._out = out
        self.era = UNKNOWN
        self.protocol_version: str | None = None
        self.supported_versions: list[str] | None = None
        self._meta_missing: set[int] = set()  # request seqs flagged meta.missing
        self._held: list[Message] = []  # requests without _meta while initialize is unanswered
        self._initialize: Exchange | None = None
        self._initialize_ok = False  # an initialize got a result in this process
        self._initialized_sent = False
        self._initialized_flagged = False

    @property
    def handshake_open(self) -> bool:
        """A legacy handshake is under way or done, and the client has not sent initialized yet."""
        return (
            self._initialize is not None
            and not self._initialized_sent
            and (self._initialize_ok or self._initialize.state is PENDING)
        )

    def revision(self, request: Message, version: str | None) -> str | None:
        """The revision whose schema the exchange this request opens is held to.

        ``version`` is the request's ``modern_version``, which the caller has already read.
        """
        if self.era is LEGACY:
            if self.protocol_version in LEGACY_REVISIONS:
                return self.protocol_version
            if request.method == "initialize":  # its result named no known revision: the one asked for
                requested = params_of(request).get("protocolVersion")
                return requested if isinstance(requested, str) else None
            return None
        return version if request.stream is C2S else None

    # --- what the client sends

    def client_request(self, message: Message, exchange: Exchange, version: str | None) -> None:
        """``version`` is the request's ``modern_version``."""
        method = message.method or ""
        if method == "initialize":
            if self._initialize_ok:
                self._out.find(
                    "legacy.reinitialize",
                    message.seq,
                    message.stream,
                    f"a second initialize (id {message.id!r}); the first was answered at seq "
                    f"{self._initialize.reply_seq if self._initialize else '?'}",
                )
            self._initialize = exchange
            return
        if version is not None:
            if self.era is UNKNOWN:
                self.era = MODERN
                self.protocol_version = version
        elif self.era is LEGACY:
            if not self._initialized_sent and not self._initialized_flagged and method != "ping":
                self._initialized_flagged = True
                self._out.find(
                    "legacy.initialized-missing",
                    message.seq,
                    message.stream,
                    f"{method} was sent before notifications/initialized",
                )
        elif self._initialize is not None and self._initialize.state is PENDING:
            self._held.append(message)
        else:
            self._flag_meta_missing(message)
        if method == "ping" and self.era is MODERN:
            self._out.find("ping.modern", message.seq, message.stream, "ping was removed in 2026-07-28")

    def client_notification(self, message: Message) -> None:
        if message.method != "notifications/initialized":
            return
        initialize = self._initialize
        if initialize is not None and not self._initialize_ok:
            when = (
                "before initialize was answered"
                if initialize.state is PENDING
                else f"after initialize failed (seq {initialize.reply_seq})"
            )
            self._out.find(
                "legacy.initialized-early",
                message.seq,
                message.stream,
                f"notifications/initialized was sent {when}",
                related_seq=initialize.request_seq,
            )
        self._initialized_sent = True

    def client_response(self, message: Message) -> None:
        if self.era is MODERN:
            self._out.find(
                "direction.client-response",
                message.seq,
                message.stream,
                "the client wrote a response on stdin; in 2026-07-28 clients send none",
            )

    # --- what the server sends

    def server_request(self, message: Message) -> None:
        method = message.method or ""
        if self.era is MODERN:
            self._out.find(
                "direction.server-request",
                message.seq,
                message.stream,
                f"the server sent a {method} request; in 2026-07-28 servers send no requests",
            )
        elif method != "ping" and self.handshake_open:
            self._out.find(
                "legacy.server-early-request",
                message.seq,
                message.stream,
                f"the server sent {method} (id {message.id!r}) before the client's notifications/initialized",
            )

    def reply(
        self, exchange: Exchange, message: Message, code: Any, request: Message | None, version: str | None
    ) -> None:
        """Rules on a server's reply to a client request; ``version`` is the request's ``modern_version``."""
        result = message.payload.get("result")
        if exchange.method == "initialize":
            self._initialize_answered(message, result, request)
            return
        if code == -32022:
            data = message.payload["error"].get("data")
            if not (isinstance(data, dict) and isinstance(data.get("supported"), list)):
                self._out.find(
                    "error.unsupported-version-data",
                    message.seq,
                    message.stream,
                    "-32022 without data.supported: the client cannot pick a version to retry with",
                )
        elif isinstance(code, int) and -32019 <= code <= -32000 and self.era is not LEGACY:
            self._out.find(
                "jsonrpc.deprecated-error-code",
                message.seq,
                message.stream,
                f"error code {code} is in the pre-MCP range -32000..-32019",
            )
        if exchange.request_seq in self._meta_missing:
            self._check_not_rejected(exchange, message)
        if self.era is LEGACY or message.kind is not RESPONSE or not isinstance(result, dict):
            return
        if version is not None:
            self._modern_result(exchange, message, result, version)

    def _modern_result(
        self, exchange: Exchange, message: Message, result: dict[str, Any], version: str
    ) -> None:
        if exchange.method == "server/discover" and isinstance(result.get("supportedVersions"), list):
            self.supported_versions = [v for v in result["supportedVersions"] if isinstance(v, str)]
        if self.supported_versions is not None and version not in self.supported_versions:
            self._out.find(
                "version.unlisted",
                message.seq,
                message.stream,
                f"the server answered a {version} request but lists only "
                f"{', '.join(self.supported_versions)}",
            )
        if "resultType" not in result:
            self._out.find(
                "result.missing-result-type",
                message.seq,
                message.stream,
                f"the {exchange.method} result has no resultType",
            )
        if (
            exchange.method in CACHEABLE
            and result.get("resultType", "complete") == "complete"
            and not ("ttlMs" in result and "cacheScope" in result)
        ):
            missing = " and ".join(k for k in ("ttlMs", "cacheScope") if k not in result)
            self._out.find(
                "cache.missing-ttl",
                message.seq,
                message.stream,
                f"the {exchange.method} result has no {missing}",
            )

    def _initialize_answered(self, message: Message, result: Any, request: Message | None) -> None:
        held, self._held = self._held, []
        if message.kind is RESPONSE and isinstance(result, dict):
            self.era = LEGACY
            self._initialize_ok = True
            version = result.get("protocolVersion")
            self.protocol_version = version if isinstance(version, str) else None
            requested = params_of(request).get("protocolVersion") if request is not None else None
            self._check_negotiated(message, version, requested)
            for early in held:
                if early.method != "ping":
                    self._out.find(
                        "legacy.early-request",
                        early.seq,
                        early.stream,
                        f"{early.method} (id {early.id!r}) was sent before initialize was "
                        f"answered (seq {message.seq})",
                    )
            return
        if self.era is UNKNOWN:  # a modern server rejected initialize: the process is modern
            self.era = MODERN
        for request_held in held:
            self._flag_meta_missing(request_held)

    def _check_negotiated(self, message: Message, version: Any, requested: Any) -> None:
        if not isinstance(version, str) or version == requested:
            return
        if version not in LEGACY_REVISIONS:
            self._out.find(
                "legacy.version-unknown",
                message.seq,
                message.stream,
                f"the server chose protocol version {version!r}, which the client did not ask for "
                f"({requested!r}) and is no revision with an initialize handshake",
            )
        else:
            self._out.find(
                "legacy.version-changed",
                message.seq,
                message.stream,
                f"the client asked for {requested!r}; the server chose {version!r}",
            )

    def _flag_meta_missing(self, message: Message) -> None:
        self._meta_missing.add(message.seq)
        self._out.find(
            "meta.missing",
            message.seq,
            message.stream,
            f"{message.method} (id {message.id!r}) has no _meta protocolVersion and "
            "clientCapabilities; a 2026-07-28 server must reject it with -32602",
        )
        exchange = message.exchange
        if exchange is not None and exchange.reply_seq is not None:
            self._check_not_rejected(exchange, self._out.by_seq[exchange.reply_seq])

    def _check_not_rejected(self, exchange: Exchange, reply: Message) -> None:
        if reply.kind is RESPONSE:
            self._out.find(
                "meta.not-rejected",
                reply.seq,
                reply.stream,
                f"the server answered {exchange.method} (id {exchange.id!r}), which had no _meta, "
                "instead of rejecting it with -32602",
                related_seq=exchange.request_seq,
            )
