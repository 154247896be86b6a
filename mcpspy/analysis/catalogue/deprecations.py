"""The catalogue rows of rules/deprecations.py (what 2026-07-28 removed, retired or deprecated)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import BASE, INFO, STDIO, E, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
    Rule(RuleId.PROGRESS_CLIENT_SENT, W,
         "A 2026-07-28 client sent notifications/progress: only the server reports progress, and a client's "
         "only notification is notifications/cancelled.",
         "schema/2026-07-28 ClientNotification; 2026-07-28/basic/patterns/progress.mdx",
         bad='client: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,...}}',
         good="progress only from the server, about the client's requests",
         fix="Stop sending progress from a 2026-07-28 client; the server has no request of its own to report "
         "on."),
    Rule(RuleId.DEPRECATED_REMOVED_METHOD, W,
         "A method 2026-07-28 removed (logging/setLevel, resources/subscribe and unsubscribe, "
         "notifications/initialized, notifications/roots/list_changed, notifications/elicitation/complete, "
         "tasks/result, tasks/list) in 2026-07-28 traffic.",
         "2026-07-28/changelog.mdx Major 2, 4-6, Minor 11",
         bad='{"method":"logging/setLevel","params":{"level":"info","_meta":{...}}}',
         good='"_meta":{"io.modelcontextprotocol/logLevel":"info",...} on the request whose logs you want',
         fix="Use what replaced it: per-request logLevel, subscriptions/listen, MRTR retries, the tasks "
         "extension's tasks/get."),
    Rule(RuleId.DEPRECATED_FEATURE, INFO,
         "A feature deprecated in 2026-07-28 is in use (the roots or sampling capability, logging): still "
         "legal, but new implementations should not adopt it. Once per feature and process.",
         "2026-07-28/deprecated.mdx; 2026-07-28/changelog.mdx \u00a7Deprecated 1 (SEP-2577)",
         bad='clientCapabilities {"roots":{"listChanged":true}}',
         good="directories passed as tool parameters",
         fix="Migrate: paths as tool parameters or resource uris instead of roots, the LLM provider's API "
         "instead of sampling, stderr instead of logging."),
    Rule(RuleId.ERROR_RETIRED_CODE, E,
         "A 2026-07-28 exchange was answered with a retired error code: -32002 (resource not found, now "
         "-32602) or -32042 (URL elicitation required, now MRTR).",
         f"{BASE} \u00a7Error Codes; 2026-07-28/server/resources.mdx \u00a7Error Handling",
         bad='{"error":{"code":-32002,"message":"Resource not found"}}',
         good='{"error":{"code":-32602,"message":"Resource not found"}}',
         fix="Answer a missing resource with -32602, and ask for a URL elicitation through inputRequests."),
    Rule(RuleId.ERROR_UNDEFINED_CODE, E,
         "An error code in -32023..-32099, the range reserved for the MCP spec, which defines none there.",
         f"{BASE} \u00a7Error Codes (\"MUST NOT emit\" undefined codes in -32020..-32099)",
         bad='{"error":{"code":-32050,"message":"quota"}}',
         good='{"error":{"code":-31050,"message":"quota"}}',
         fix="Pick an application code outside -32768..-32000, or a defined JSON-RPC or MCP code."),
    Rule(RuleId.ERROR_MISSING_CAPABILITY_DATA, E,
         "A MissingRequiredClientCapability error (-32021) without data.requiredCapabilities.",
         "schema/2026-07-28 MissingRequiredClientCapabilityError",
         bad='{"error":{"code":-32021,"message":"needs sampling"}}',
         good='{"error":{"code":-32021,"message":"needs '
         'sampling","data":{"requiredCapabilities":{"sampling":{}}}}}',
         fix="Name the capabilities the request needs in data.requiredCapabilities."),
    Rule(RuleId.ERROR_HEADER_MISMATCH_ON_STDIO, W,
         "HeaderMismatch (-32020) on stdio, which has no header layer.",
         f"schema/2026-07-28 HEADER_MISMATCH; {STDIO} \u00a7Request Metadata (derived)",
         bad='{"error":{"code":-32020,"message":"Header mismatch"}}',
         good='{"error":{"code":-32602,"message":"Invalid params"}}',
         fix="Report a malformed stdio request as -32602."),
    Rule(RuleId.LOGGING_NO_LOG_LEVEL, E,
         "A 2026-07-28 server sent notifications/message while no request in flight carried _meta "
         "io.modelcontextprotocol/logLevel.",
         "2026-07-28/server/utilities/logging.mdx \u00a7Per-request log level (\"MUST NOT emit "
         "notifications/message for a request that does not include this field\")",
         bad="tools/call with no logLevel, then notifications/message",
         good='tools/call with "_meta":{"io.modelcontextprotocol/logLevel":"info",...}, then the message',
         fix="Log only for requests that set a logLevel (and at or above it), or log to stderr."),
    Rule(RuleId.LOGGING_ON_SUBSCRIPTION, E,
         "notifications/message tagged with a subscriptionId: log messages are request-scoped and never "
         "travel on a listen stream.",
         "2026-07-28/server/utilities/logging.mdx \u00a7Per-request log level (\"MUST NOT deliver it on a "
         "subscriptions/listen stream\")",
         bad='{"method":"notifications/message","params":{"_meta":'
         '{"io.modelcontextprotocol/subscriptionId":1},...}}',
         good="the message sent while the request that set logLevel is in flight, untagged",
         fix="Send log messages only for the request that set the level, before its response."),
    Rule(RuleId.LOGGING_INVALID_LOG_LEVEL, W,
         "A request's _meta io.modelcontextprotocol/logLevel is not one of the eight RFC 5424 levels.",
         "2026-07-28/server/utilities/logging.mdx \u00a7Error Handling (a server SHOULD reject it with "
         "-32602)",
         bad='"_meta":{"io.modelcontextprotocol/logLevel":"verbose",...}',
         good='"_meta":{"io.modelcontextprotocol/logLevel":"debug",...}',
         fix="Send one of debug, info, notice, warning, error, critical, alert, emergency."),
    Rule(RuleId.LOGGING_BELOW_LEVEL, W,
         "A log message below the lowest logLevel that the requests in flight set.",
         "2026-07-28/server/utilities/logging.mdx \u00a7Per-request log level (\"MAY send "
         "notifications/message "
         "notifications at or above the requested level\")",
         bad='logLevel "warning", then a "debug" notifications/message',
         good='logLevel "warning", then "warning" and above only',
         fix="Filter log messages by the level the request set."),
    Rule(RuleId.ERROR_RESERVED_CODE, W,
         "An error code in JSON-RPC's reserved -32768..-32100 that is none of its five defined codes.",
         f"{BASE} \u00a7Error Codes (new codes SHOULD sit outside -32768..-32000)",
         bad='{"error":{"code":-32500,"message":"busy"}}', good='{"error":{"code":-31500,"message":"busy"}}',
         fix="Use -32700 or -32600..-32603 for their JSON-RPC meanings, and codes outside -32768..-32000 for "
         "your own."),
    Rule(RuleId.RESOURCE_EMPTY_CONTENTS, W,
         "A resources/read result with empty contents: a resource that does not exist is answered with "
         "-32602.",
         "2026-07-28/server/resources.mdx \u00a7Error Handling (\"MUST NOT return an empty contents array\" "
         "for a resource that does not exist)",
         bad='{"result":{"resultType":"complete","contents":[],...}}',
         good='{"error":{"code":-32602,"message":"Resource not found"}}',
         fix="Answer an unknown uri with -32602, and an existing resource with its contents."),
    Rule(RuleId.DIRECTION_CLIENT_NOTIFICATION, E,
         "A 2026-07-28 client sent a server notification (a list_changed, resources/updated, a log message, "
         "a subscription acknowledgement): its only notification is notifications/cancelled.",
         "schema/2026-07-28 ClientNotification (CancelledNotification alone)",
         bad='client: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}',
         good='client: {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}',
         fix="Send the server nothing but requests and notifications/cancelled."),
    Rule(RuleId.ERA_FALLBACK_AFTER_MODERN_REPLY, W,
         "The client sent initialize after server/discover had answered with a DiscoverResult or -32022: the "
         "server is modern, so the client retries with a listed version instead of falling back.",
         f"{STDIO} \u00a7Backward Compatibility; 2026-07-28/basic/versioning.mdx",
         bad="server/discover -> DiscoverResult, then initialize",
         good="server/discover -> DiscoverResult, then tools/list with a supported version",
         fix="Fall back to initialize only when the probe fails without a 2026-07-28 answer."),
]
# fmt: on
