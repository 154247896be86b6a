"""The 2026-07-28 rules: per-request _meta (meta.*), results (result.*, cache.*, version.*),
directions (direction.*, ping.*) and error codes (error.*, jsonrpc.deprecated-error-code).

They hold in a process that is not legacy (rules/legacy.py decides the era);
a result is held to the revision its own request carried in _meta.
"""

from __future__ import annotations

import re
from typing import Any

from mcpspy.analysis.jsonrpc import shown
from mcpspy.analysis.message_fields import (
    META_CAPABILITIES,
    error_code_of,
    error_of,
    result_of,
)
from mcpspy.analysis.model import Era, Exchange, Kind, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.legacy import EraTracker

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
UNSUPPORTED_VERSION = -32022
METHOD_NOT_FOUND = -32601
RETIRED_RESOURCE_NOT_FOUND = -32002  # in a 2026-07-28 exchange: error.retired-code (rules/deprecations.py)
RESULT_TYPES = ("complete", "input_required")
# [prefix/]name: dot-separated labels (a letter first, a letter or digit last, hyphens between), a slash,
# then a name that begins and ends with a letter or digit (2025-06-18 basic/index.mdx, _meta).
_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
META_KEY = re.compile(rf"(?:{_LABEL}(?:\.{_LABEL})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?")
KEY_FORMAT_SINCE = "2025-06-18"  # the first revision to define the key format
GOOD_KEYS_KEPT = 4096  # keys seen well-formed, so each key's pattern runs once (bounded: any may be sent)
GOOD_KEY_LENGTH = 256  # longer keys are checked each time, never kept
# Hot (meta_keys reads every message, result every reply): Enum members as module constants
# (speed policy: analysis/__init__.py).
UNKNOWN, MODERN, LEGACY = Era.UNKNOWN, Era.MODERN, Era.LEGACY


class ModernRules:
    def __init__(self, out: Reporter, era: EraTracker, bound: int | None = None) -> None:
        """``bound`` (lean mode): at most that many requests remembered as flagged meta.missing, the
        newest (pairing sets older ones aside, unpaired: no reply of theirs is judged)."""
        self._out = out
        self._era = era
        self._bound = bound
        self.supported_versions: list[str] | None = None  # from the server/discover result
        self._extensions = False  # the server/discover result advertised extensions (new result types)
        self._meta_missing: dict[int, None] = {}  # request seqs flagged meta.missing, oldest first
        # discover.not-implemented: a -32601 to a 2026-07-28 server/discover; a result to another request.
        self._discover_refused: int | None = None
        self._served: int | None = None
        self._discover_flagged = False
        self._good_keys: set[str] = set()

    # --- any message

    def meta_keys(self, message: Message) -> None:
        """The keys of a message's _meta (params' or result's), in 2025-06-18 and later."""
        meta, era = message.meta, self._era
        if not meta or (
            era.era is UNKNOWN or (era.era is LEGACY and (era.protocol_version or "") < KEY_FORMAT_SINCE)
        ):
            return
        good = self._good_keys
        if good.issuperset(meta):  # every key seen well-formed before: the usual message, in one C call
            return
        bad = []
        for key in meta:
            if key in good:
                continue
            if META_KEY.fullmatch(key):
                if len(good) >= GOOD_KEYS_KEPT:
                    good.clear()
                if len(key) <= GOOD_KEY_LENGTH:
                    good.add(key)
            else:
                bad.append(key)
        if bad:
            self._out.find(
                RuleId.META_KEY_FORMAT,
                message.seq,
                message.stream,
                f"_meta key{'s' if len(bad) > 1 else ''} {', '.join(shown(k) for k in bad[:3])}"
                f"{f' (and {len(bad) - 3} more)' if len(bad) > 3 else ''} not of the form [prefix/]name",
            )

    # --- what the client sends

    def meta_missing(self, request: Exchange, why: str = "") -> None:
        """A request of a process that is not legacy came without _meta (rules/legacy.py says which)."""
        self._meta_missing[request.request_seq] = None
        if self._bound is not None and len(self._meta_missing) > self._bound:
            del self._meta_missing[next(iter(self._meta_missing))]
        self._out.find(
            RuleId.META_MISSING,
            request.request_seq,
            request.stream,
            f"{request.method} (id {shown(request.id)}) has no _meta protocolVersion and "
            f"clientCapabilities{' (' + why + ')' if why else ''}; a 2026-07-28 server must reject it "
            "with -32602",
        )
        if request.reply_seq is not None:  # held, and answered meanwhile (a lean Reporter kept the reply)
            reply = self._out.by_seq.get(request.reply_seq)
            if reply is not None and reply.kind is Kind.RESPONSE:
                self._not_rejected(request, reply)

    def initialize_answered(self, message: Message) -> None:
        """The requests held while initialize was pending, when its answer made the process modern."""
        released, self._era.released = self._era.released, []
        for held in released:
            self.meta_missing(held)

    def client_request(self, message: Message) -> None:
        """Any client request but initialize (rules/legacy.py has said whether it lacks _meta)."""
        exchange = message.exchange
        assert exchange is not None  # pairing opened it
        if self._era.lacks_meta:
            self.meta_missing(exchange)
        if exchange.version is not None:
            capabilities = message.meta.get(META_CAPABILITIES)
            if not isinstance(capabilities, dict):  # present, as null or a non-object (issue 17)
                self.meta_missing(exchange, f"its clientCapabilities is {shown(capabilities)}, not an object")
        if message.method == "ping" and self._era.era is MODERN:
            self._out.find(RuleId.PING_MODERN, message.seq, message.stream, "ping was removed in 2026-07-28")

    def ping_result(self, reply: Message) -> None:
        """A legacy ping's result is empty (``_meta`` aside); 2026-07-28 has no ping to answer."""
        if reply.exchange is None or reply.exchange.method != "ping":
            return
        result = result_of(reply)
        if self._era.era is MODERN or not isinstance(result, dict):
            return
        extra = sorted(key for key in result if key != "_meta")
        if extra:
            self._out.find(
                RuleId.PING_NON_EMPTY_RESULT,
                reply.seq,
                reply.stream,
                f"ping was answered with {', '.join(shown(key) for key in extra[:5])} in its result; it must "
                "be empty",
            )

    def client_response(self, message: Message) -> None:
        if self._era.era is MODERN:
            self._out.find(
                RuleId.DIRECTION_CLIENT_RESPONSE,
                message.seq,
                message.stream,
                "the client wrote a response on stdin; in 2026-07-28 clients send none",
            )

    # --- what the server sends

    def server_request(self, message: Message) -> None:
        if self._era.era is MODERN:
            self._out.find(
                RuleId.DIRECTION_SERVER_REQUEST,
                message.seq,
                message.stream,
                f"the server sent a {message.method or ''} request; in 2026-07-28 servers send no requests",
            )

    def error(self, message: Message) -> None:
        """An error that answered a client request other than initialize."""
        exchange = message.exchange
        if exchange is None or exchange.method == "initialize":
            return
        self._meta_missing.pop(exchange.request_seq, None)  # answered: never asked about again
        code = error_code_of(message)
        if code == UNSUPPORTED_VERSION:
            data = error_of(message).get("data")
            if not (isinstance(data, dict) and isinstance(data.get("supported"), list)):
                self._out.find(
                    RuleId.ERROR_UNSUPPORTED_VERSION_DATA,
                    message.seq,
                    message.stream,
                    "-32022 without data.supported: the client cannot pick a version to retry with",
                )
            else:
                self._unsupported_inconsistent(exchange, message, data)
        elif code == METHOD_NOT_FOUND and exchange.method == "server/discover" and self._modern(exchange):
            self._discover_refused = message.seq
            self._discover_missing(message)
        elif (
            code is not None
            and -32019 <= code <= -32000
            and self._era.era is not LEGACY
            and not (code == RETIRED_RESOURCE_NOT_FOUND and exchange.version is not None)
        ):
            self._out.find(
                RuleId.JSONRPC_DEPRECATED_ERROR_CODE,
                message.seq,
                message.stream,
                f"error code {code} is in the pre-MCP range -32000..-32019",
            )

    def result(self, message: Message) -> None:
        """A result that answered a client request other than initialize."""
        exchange = message.exchange
        if exchange is None or exchange.method == "initialize":
            return
        if exchange.request_seq in self._meta_missing:
            del self._meta_missing[exchange.request_seq]  # an exchange is answered once
            self._not_rejected(exchange, message)
        payload, version = message.payload, exchange.version
        result = payload.get("result") if isinstance(payload, dict) else None  # result_of, inline
        if version is None or not isinstance(result, dict) or self._era.era is LEGACY:
            return
        # A 2026-07-28 result (in this method rather than one of its own: every reply comes this way).
        method = exchange.method
        if method != "server/discover" and self._served is None:
            self._served = message.seq
            self._discover_missing(message)
        if method == "server/discover" and isinstance(result.get("supportedVersions"), list):
            self.supported_versions = [v for v in result["supportedVersions"] if isinstance(v, str)]
            capabilities = result.get("capabilities")
            self._extensions = isinstance(capabilities, dict) and bool(capabilities.get("extensions"))
        if self.supported_versions is not None and version not in self.supported_versions:
            self._out.find(
                RuleId.VERSION_UNLISTED,
                message.seq,
                message.stream,
                f"the server answered a {version} request but lists only "
                f"{', '.join(self.supported_versions)}",
            )
        result_type = result.get("resultType")
        if result_type not in RESULT_TYPES:
            self._result_type(exchange, message, result_type, "resultType" in result)
        if (
            method in CACHEABLE
            # The answer to an MRTR retry, like the input_required before it, is not cached.
            and not (exchange.held is not None and exchange.held.retry)
            and result_type in (None, "complete")  # absent (or null) reads as complete
            and not ("ttlMs" in result and "cacheScope" in result)
        ):
            missing = " and ".join(k for k in ("ttlMs", "cacheScope") if k not in result)
            self._out.find(
                RuleId.CACHE_MISSING_TTL,
                message.seq,
                message.stream,
                f"the {method} result has no {missing}",
            )

    def _modern(self, exchange: Exchange) -> bool:
        return exchange.version is not None and self._era.era is not LEGACY

    def _discover_missing(self, message: Message) -> None:
        """A server that serves 2026-07-28 requests but answers server/discover with -32601 (once).

        A legacy server does the same to a dual-era client's probe (section 0): that
        process goes legacy, so its later results are not 2026-07-28 ones.
        """
        if self._discover_refused is None or self._served is None or self._discover_flagged:
            return
        self._discover_flagged = True
        self._out.find(
            RuleId.DISCOVER_NOT_IMPLEMENTED,
            message.seq,
            message.stream,
            f"the server answered server/discover with -32601 (seq {self._discover_refused}) but serves "
            f"2026-07-28 requests (a result at seq {self._served}); it must implement server/discover",
        )

    def _unsupported_inconsistent(self, exchange: Exchange, message: Message, data: dict[str, Any]) -> None:
        """A -32022 whose data.requested is not what was asked, or whose supported list has it."""
        asked = exchange.held.meta_version if exchange.held is not None else None
        if not isinstance(asked, str):
            return
        problems = []
        requested = data.get("requested")
        if isinstance(requested, str) and requested != asked:
            problems.append(f"data.requested is {shown(requested)}, but the request asked {shown(asked)}")
        if asked in data["supported"]:
            problems.append(f"data.supported lists {shown(asked)}, the version it refuses")
        if problems:
            self._out.find(
                RuleId.ERROR_UNSUPPORTED_VERSION_INCONSISTENT,
                message.seq,
                message.stream,
                "-32022 contradicts itself: " + "; ".join(problems),
            )

    def _result_type(self, exchange: Exchange, message: Message, result_type: Any, present: bool) -> None:
        """resultType is required and a string; null is no value (issue 17: it was taken as present)."""
        if result_type is None:
            self._out.find(
                RuleId.RESULT_MISSING_RESULT_TYPE,
                message.seq,
                message.stream,
                f"the {exchange.method} result's resultType is null"
                if present
                else f"the {exchange.method} result has no resultType",
            )
        elif not isinstance(result_type, str):
            self._out.find(
                RuleId.RESULT_TYPE_INVALID,
                message.seq,
                message.stream,
                f"the {exchange.method} result's resultType is {shown(result_type)}, not a string",
            )
        elif result_type not in RESULT_TYPES and not self._extensions:
            self._out.find(
                RuleId.RESULT_TYPE_UNKNOWN,
                message.seq,
                message.stream,
                f"the {exchange.method} result's resultType is {shown(result_type)}: not complete or "
                "input_required, and the server advertised no extensions that could define it",
            )

    def _not_rejected(self, exchange: Exchange, result: Message) -> None:
        self._out.find(
            RuleId.META_NOT_REJECTED,
            result.seq,
            result.stream,
            f"the server answered {exchange.method} (id {shown(exchange.id)}), which had no _meta, "
            "instead of rejecting it with -32602",
            related_seq=exchange.request_seq,
        )
