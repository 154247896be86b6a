"""The checks: one table, each row with a stable id, its spec source and the fix in one sentence.

Check ids are a public interface, like the findings catalogue's rule ids: CI
configs and SARIF baselines name them, so never rename one. ``conformance``
names the official conformance suite's checks for the same requirement (the
suite tests servers over HTTP; its ids are given to cross-reference).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpspy.check.client import FLOOD_BYTES, FLOOD_LINES
from mcpspy.check.model import Era, Verdict

M, L = (Era.MODERN,), (Era.LEGACY,)
BOTH = (Era.MODERN, Era.LEGACY)
BASE = "2026-07-28/basic/index.mdx"
STDIO = "2026-07-28/basic/transports/stdio.mdx"
LIFECYCLE = "2025-11-25/basic/lifecycle.mdx"
CACHING = "2026-07-28/server/utilities/caching.mdx §Cacheable Results"
JSONRPC = "JSON-RPC 2.0 §5 Response object"


@dataclass(frozen=True, slots=True)
class CheckSpec:
    id: str
    title: str  # what is checked, in a few words
    eras: tuple[Era, ...]
    source: str  # where the spec says so
    fix: str  # what the server should do, in one sentence
    conformance: tuple[str, ...] = ()


#: The suite's checks on the values of caching hints, wherever they appear.
CACHE_VALUES = ("sep-2549-ttl-non-negative", "sep-2549-cache-scope-valid")


def _list(kind: str, method: str, field: str, suite: tuple[str, ...]) -> CheckSpec:
    return CheckSpec(
        f"list.{kind}",
        f"{method} answered with its {field}, cache hints (2026-07-28) and valid schemas",
        BOTH,
        f"schema/<rev> List*Result; {CACHING}",
        f"Answer {method} with a {field} array (and, in 2026-07-28, resultType, ttlMs and cacheScope).",
        (*suite, *CACHE_VALUES),
    )


_ROWS = [
    CheckSpec(
        "discover.result",
        "server/discover answered with resultType, supportedVersions, capabilities, ttlMs, cacheScope",
        M,
        "2026-07-28/server/discover.mdx; schema/2026-07-28 DiscoverResult",
        "Implement server/discover and answer it with resultType, supportedVersions, capabilities, "
        "ttlMs and cacheScope (serverInfo in the result's _meta).",
        (
            "sep-2575-server-implements-discover",
            "sep-2575-server-identifies-in-result-meta",
            *CACHE_VALUES,
        ),
    ),
    CheckSpec(
        "meta.client-info-optional",
        "a request whose _meta has no clientInfo is served",
        M,
        f"{BASE} §_meta (clientInfo is a SHOULD)",
        "Require only protocolVersion and clientCapabilities in _meta; clientInfo is optional.",
        ("sep-2575-request-meta-client-info-optional",),
    ),
    CheckSpec(
        "initialize.result",
        "initialize answered with protocolVersion, capabilities and serverInfo",
        L,
        f"{LIFECYCLE} §Initialization; schema/<L> InitializeResult",
        "Answer initialize with protocolVersion (the one asked for, or one you support), capabilities "
        "and serverInfo.",
        ("server-initialize",),
    ),
    CheckSpec(
        "initialize.initialized",
        "notifications/initialized is taken without a reply",
        L,
        f"{LIFECYCLE} §Initialization; {BASE} §Notifications",
        "Take notifications/initialized silently: a notification is never answered.",
    ),
    CheckSpec(
        "ping.answered",
        "ping answered with an empty result",
        L,
        "2025-11-25/basic/utilities/ping.mdx §Behavior Requirements",
        "Answer ping promptly with an empty result, {}.",
        ("ping",),
    ),
    _list("tools", "tools/list", "tools", ("tools-list", "sep-2549-tools-list-caching-hints")),
    _list("prompts", "prompts/list", "prompts", ("prompts-list", "sep-2549-prompts-list-caching-hints")),
    _list(
        "resources",
        "resources/list",
        "resources",
        ("resources-list", "sep-2549-resources-list-caching-hints"),
    ),
    _list(
        "resource-templates",
        "resources/templates/list",
        "resourceTemplates",
        ("sep-2549-resources-templates-list-caching-hints",),
    ),
    CheckSpec(
        "meta.missing",
        "a request without _meta is rejected with -32602",
        M,
        f'{BASE} §_meta ("MUST reject it with JSON-RPC error code -32602"), §Statelessness',
        "Reject a request whose _meta lacks protocolVersion or clientCapabilities with -32602, "
        "whatever earlier requests carried.",
        ("sep-2575-request-meta-invalid-missing-meta",),
    ),
    CheckSpec(
        "meta.capabilities-null",
        "a request with clientCapabilities: null is rejected with -32602",
        M,
        f"{BASE} §_meta; schema/2026-07-28 RequestMetaObject (clientCapabilities is an object)",
        "Reject a request whose clientCapabilities is not an object with -32602.",
        ("sep-2575-request-meta-invalid-missing-client-capabilities",),
    ),
    CheckSpec(
        "version.unsupported",
        "an unsupported protocolVersion gets -32022 with data.supported and data.requested",
        M,
        "2026-07-28/basic/versioning.mdx §Protocol Version Negotiation; "
        "schema/2026-07-28 UnsupportedProtocolVersionError",
        "Answer a request in a version you do not implement with -32022 and data.supported (your "
        "versions) and data.requested.",
        ("sep-2575-server-unsupported-version-error",),
    ),
    CheckSpec(
        "method.unknown",
        "an unknown method gets -32601",
        BOTH,
        f"{BASE} §Error Codes; schema MethodNotFoundError",
        "Answer a method you do not implement with -32601 (Method not found).",
        ("sep-2575-http-server-method-not-found-404",),
    ),
    CheckSpec(
        "ping.removed",
        "ping gets -32601 (removed in 2026-07-28)",
        M,
        "2026-07-28/changelog.mdx Major 5",
        "Answer a 2026-07-28 ping with -32601; answer ping only in a legacy (initialize) process.",
        ("sep-2575-http-server-method-not-found-404-ping",),
    ),
    CheckSpec(
        "notification.unanswered",
        "a notification is not answered",
        BOTH,
        f'{BASE} §Notifications ("The receiver MUST NOT send a response")',
        "Never answer a message without an id, not even with an error.",
    ),
    CheckSpec(
        "notification.request-shaped",
        "server/discover sent without an id (a notification) is not answered",
        M,
        f'{BASE} §Notifications; seed §"The Third Kind"',
        "Treat a message without an id as a notification and send nothing back, whatever its method.",
    ),
    CheckSpec(
        "framing.stdout",
        "every stdout line is one JSON-RPC message",
        BOTH,
        f'{STDIO} ("MUST NOT write anything to its stdout that is not a valid MCP message")',
        "Write only compact JSON-RPC messages to stdout, one per line, UTF-8, ending in \\n; log to stderr.",
    ),
    CheckSpec(
        "robust.parse-error",
        "a line that is not JSON gets -32700 with a null id",
        BOTH,
        f"{JSONRPC}; {BASE} §Error Responses (the id may be absent when it could not be read)",
        'Answer a line that is not JSON with {"jsonrpc":"2.0","id":null,"error":{"code":-32700,...}}.',
    ),
    CheckSpec(
        "robust.after-malformed",
        "the server keeps serving after a malformed line",
        BOTH,
        f"{STDIO} (derived: one bad line must not end the session)",
        "Catch parse errors per line and keep reading stdin.",
    ),
    CheckSpec(
        "robust.long-line",
        "a 1 MiB request is answered and the server keeps serving",
        BOTH,
        f"{STDIO} (messages are delimited by newlines; no length limit is set)",
        "Read stdin without a line-length limit (for example, not with a 64 KiB line scanner).",
    ),
    CheckSpec(
        "robust.flood",
        f"the server writes no more than a step asks for: at most {FLOOD_LINES:,} lines or "
        f"{FLOOD_BYTES >> 20} MiB in one step",
        BOTH,
        f"{STDIO} (derived: a client reads what it asked for; a flood starves it of replies)",
        "Write only the replies asked for and the notifications they cause; never loop on stdout, and "
        "end every line.",
    ),
    CheckSpec(
        "robust.id-type",
        "a request with an id of the wrong type does not stop the server",
        BOTH,
        f"{BASE} §Requests (string or integer ids); {JSONRPC}",
        "Answer a request whose id is not a string or integer with -32600 and a null id, and keep serving.",
    ),
    CheckSpec(
        "robust.string-id",
        "a request with a string id (that reads as a number) is answered with that string",
        BOTH,
        f"{BASE} §Requests (string or integer ids); {JSONRPC} (the same value as the request's id)",
        'Echo each request\'s id exactly as sent: "7" stays the string "7", never the number 7.',
    ),
    CheckSpec(
        "pipeline.ten",
        "ten requests sent at once are all answered, each paired by its id",
        BOTH,
        f"{STDIO} §Receiving Messages (responses are correlated by id)",
        "Read every line as it comes and answer each request once, with its own id.",
    ),
    CheckSpec(
        "cancel.in-flight",
        "a cancel for a request in flight is taken without a reply, and the server keeps serving",
        BOTH,
        f"{STDIO} §Cancellation; 2026-07-28/basic/patterns/cancellation.mdx",
        "Take notifications/cancelled silently, send nothing more for that request, and keep serving.",
    ),
    CheckSpec(
        "jsonrpc.batch-refused",
        "a JSON array line (a batch) is refused, and the server keeps serving",
        BOTH,
        "2025-06-18/changelog.mdx (batching removed); schema/<rev> JSONRPCMessage",
        "Answer a JSON array line with one -32600 error (null id), serve none of it, and keep serving: "
        "batching was removed in 2025-06-18.",
        ("json-rpc-batch-rejected",),
    ),
    CheckSpec(
        "logging.per-request",
        "a request whose _meta logLevel is no log level is rejected with -32602",
        M,
        "2026-07-28/server/utilities/logging.mdx §Error Handling",
        "Reject a request whose _meta io.modelcontextprotocol/logLevel is not a log level with -32602.",
        ("per-request-loglevel-invalid-rejection",),
    ),
    CheckSpec(
        "logging.set-level",
        "logging/setLevel is answered with {} (and an unknown level gets -32602)",
        L,
        "2025-11-25/server/utilities/logging.mdx §Setting Log Level, §Error Handling",
        "Answer logging/setLevel with {} for a known level, -32602 for an unknown one, and log only at "
        "or above it.",
        ("logging-set-level",),
    ),
    CheckSpec(
        "initialize.second",
        "a second initialize does not stop the server",
        L,
        f"{LIFECYCLE} §Initialization (derived: initialization happens once per process)",
        "Answer a second initialize (an error is fine) and keep serving.",
    ),
    CheckSpec(
        "tools.call",
        "a tool named with --call answers with a CallToolResult",
        BOTH,
        "schema/<rev> CallToolResult; <rev>/server/tools.mdx §Calling Tools",
        "Answer tools/call with content (and structuredContent that fits the outputSchema, if any).",
    ),
    CheckSpec(
        "progress.notifications",
        "a tool call's progress notifications carry its progressToken, their progress rising",
        BOTH,
        "2025-11-25/basic/utilities/progress.mdx §Behavior Requirements; "
        "2026-07-28/basic/patterns/progress.mdx",
        "Send notifications/progress only with the progressToken of a request in flight, its progress "
        "greater each time.",
        ("progress-token-matches-request", "progress-values-non-decreasing", "tools-call-with-progress"),
    ),
    CheckSpec(
        "tools.structured-content",
        "a tool with an outputSchema answers with structuredContent that fits it "
        "(type, properties, required, items, enum)",
        BOTH,
        "2025-11-25/server/tools.mdx §Output Schema, §Structured Content",
        "Return structuredContent that fits the tool's outputSchema from every call of a tool that "
        "declares one.",
    ),
    CheckSpec(
        "mrtr.retry",
        "a tool call that asks for input (resultType input_required) completes once retried with answers",
        M,
        "2026-07-28/basic/patterns/mrtr.mdx §Server Requirements",
        "Answer a retry that carries inputResponses (and the requestState you gave) with a complete result.",
    ),
    CheckSpec(
        "eof.exit",
        "the server exits promptly once its stdin closes",
        BOTH,
        f'{STDIO} §Shutdown ("SHOULD exit promptly when their standard input is closed")',
        "Exit when stdin reaches end of file (end the read loop, then the process).",
    ),
    CheckSpec(
        "eof.quiet",
        "nothing of the server's own on stdout after stdin closes",
        BOTH,
        f"{STDIO} §Shutdown (derived: only replies to requests still in flight may follow)",
        "After stdin closes, write nothing to stdout but replies still owed; log a goodbye to stderr.",
    ),
    CheckSpec(
        "session.findings",
        "the passive analysis found nothing else wrong in the session",
        BOTH,
        "the findings catalogue (mcpspy rules)",
        "See each finding's rule with `mcpspy rules ID`.",
    ),
]

CHECKS: dict[str, CheckSpec] = {row.id: row for row in _ROWS}


#: Findings whose own fix replaces the check's: what makes a client drop the tools is the schema.
SCHEMA_RULE_FAMILIES = ("tools.", "schema.")


def verdict_fix(verdict: Verdict) -> str:
    """What to do about this verdict: a schema that failed gets its schema rules' fixes (a list check's
    fix would say to answer with a list, which the server did), anything else the check's own fix."""
    from mcpspy.analysis.catalogue import RULES

    fixes: dict[str, None] = {}
    for finding in sorted(verdict.findings, key=lambda f: -f.severity):
        rule = RULES.get(finding.id)
        if rule is not None and rule.fix and finding.id.startswith(SCHEMA_RULE_FAMILIES):
            fixes[f"{rule.fix} ({finding.id})"] = None
    return " ".join(fixes) if fixes else CHECKS[verdict.check_id].fix
