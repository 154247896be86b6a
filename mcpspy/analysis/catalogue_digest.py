"""The catalogue rows of the DIGEST rules of 2026-07-28 (issue 17): MRTR, subscriptions, deprecations,
caching and resultType. catalogue.py splices them into RULES_TABLE at their anchor; kept here so that the
one table stays readable (a file of its own per family of rows, as rules/ has one per family of checks).
"""

from __future__ import annotations

from mcpspy.analysis.model import Rule, Severity
from mcpspy.analysis.rule_ids import RuleId

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
STDIO = "2026-07-28/basic/transports/stdio.mdx"
BASE = "2026-07-28/basic/index.mdx"
MRTR_DOC = "2026-07-28/basic/patterns/mrtr.mdx"
SUBS_DOC = "2026-07-28/basic/patterns/subscriptions.mdx"
CACHING = "2026-07-28/server/utilities/caching.mdx"

# A table, one rule a paragraph, as RULES_TABLE: id and severity; summary; spec source; bad, good, fix.
# fmt: off
DIGEST_RULES: list[Rule] = [
    Rule(RuleId.MRTR_WRONG_METHOD, E,
         "An input_required result answered a request other than tools/call, prompts/get or resources/read.",
         f"{MRTR_DOC} \u00a7Supported Requests (\"MUST NOT send InputRequiredResult responses on any other "
         "client requests\")",
         bad='tools/list answered {"resultType":"input_required","requestState":"s1"}',
         good="tools/list answered with the list (resultType complete)",
         fix="Ask for input only while serving tools/call, prompts/get or resources/read; answer every other "
         "request in one round."),
    Rule(RuleId.MRTR_EMPTY, E,
         "An InputRequiredResult with neither inputRequests nor requestState: the client has nothing to "
         "fulfil or echo.",
         f"{MRTR_DOC} \u00a7Server Requirements (\"MUST include at least one of inputRequests or "
         f"requestState\")",
         bad='{"result":{"resultType":"input_required"}}',
         good='{"result":{"resultType":"input_required","inputRequests":{"login":'
         '{"method":"elicitation/create",...}}}}',
         fix="Put the questions in inputRequests, or the state to echo in requestState (or both)."),
    Rule(RuleId.MRTR_INVALID_INPUT_REQUEST, E,
         "An inputRequests entry is not an elicitation/create, sampling/createMessage or roots/list request "
         "(or inputRequests is not an object).",
         f"{MRTR_DOC} \u00a7Server Requirements (\"values are request objects that MUST be one of "
         "ElicitRequest, CreateMessageRequest, or ListRootsRequest\")",
         bad='"inputRequests":{"q":{"method":"tools/call","params":{}}}',
         good='"inputRequests":{"q":{"method":"roots/list","params":{}}}',
         fix="Make each inputRequests value an elicitation/create, sampling/createMessage or "
         "roots/list request "
         "object keyed by your own id."),
    Rule(RuleId.MRTR_UNDECLARED_CAPABILITY, E,
         "An inputRequests entry needs a client capability (elicitation and its mode, sampling, "
         "sampling.tools, "
         "roots) that the request's clientCapabilities did not declare.",
         f"{MRTR_DOC} \u00a7Server Requirements (\"MUST NOT send an inputRequests that the client has not "
         "declared support for\"); 2026-07-28/client/elicitation.mdx \u00a7Capabilities",
         bad='clientCapabilities {}, then "inputRequests":{"q":{"method":"elicitation/create",...}}',
         good='clientCapabilities {"elicitation":{"form":{}}}, then the same inputRequests',
         fix="Read the clientCapabilities of the request being answered and ask only for what it declares; "
         "otherwise fail the request (-32021 with data.requiredCapabilities)."),
    Rule(RuleId.MRTR_REQUEST_STATE, E,
         "A retry after input_required changed the requestState, left it out, or sent one the server never "
         "gave.",
         f"{MRTR_DOC} \u00a7Client Requirements (\"MUST echo back the exact value\"; \"MUST NOT "
         f"include one in "
         "the retry\")",
         bad='result requestState "s1", retry requestState "s2"', good='result requestState "s1", retry "s1"',
         fix="Echo requestState byte for byte from the input_required result, and send none when it "
         "gave none."),
    Rule(RuleId.MRTR_RETRY_SAME_ID, E,
         "The retry after an input_required result reused the JSON-RPC id of the request it retries.",
         f"{MRTR_DOC} \u00a7Client Requirements (\"The JSON-RPC id MUST be different between the initial "
         "request and the retry\")",
         bad="tools/call id 4 -> input_required; retry id 4",
         good="tools/call id 4 -> input_required; retry id 5",
         fix="Give the retry a fresh id: it is a new, independent request."),
    Rule(RuleId.MRTR_INPUT_RESPONSES_MISSING, W,
         "The retry's inputResponses do not answer every key of the inputRequests it was given.",
         f"{MRTR_DOC} \u00a7Client Requirements (\"MUST construct the requested inputs before retrying\"); "
         "schema.ts InputResponseRequestParams",
         bad='inputRequests {"login":...,"repo":...}, retry inputResponses {"login":...}',
         good='retry inputResponses {"login":...,"repo":...}',
         fix="Answer each inputRequests key in inputResponses under the same key (a declined elicitation is "
         'still an answer: {"action":"decline"}).'),
    Rule(RuleId.SUBSCRIPTION_NO_FILTER, E,
         "subscriptions/listen without params.notifications, the filter of the notification types wanted.",
         "schema/2026-07-28 SubscriptionsListenRequestParams (notifications required)",
         bad='{"method":"subscriptions/listen","params":{"_meta":{...}}}',
         good='{"method":"subscriptions/listen","params":{"_meta":{...},'
         '"notifications":{"toolsListChanged":true}}}',
         fix="Send the filter in params.notifications, even an empty object."),
    Rule(RuleId.SUBSCRIPTION_BEFORE_ACK, E,
         "A notification on a subscription came before notifications/subscriptions/acknowledged for it.",
         f"{SUBS_DOC} \u00a7Acknowledgment (\"MUST NOT send any notification on the subscription "
         f"before it\")",
         bad="listen id 1, then tools/list_changed for 1, then the acknowledgement",
         good="listen id 1, the acknowledgement for 1, then tools/list_changed for 1",
         fix="Send notifications/subscriptions/acknowledged first, before anything tagged with that "
         "subscriptionId."),
    Rule(RuleId.SUBSCRIPTION_ID_MISSING, E,
         "A notification that travels on a subscription stream (list_changed, resources/updated, the "
         "acknowledgement) carries no _meta io.modelcontextprotocol/subscriptionId.",
         f"{SUBS_DOC} \u00a7Receiving Notifications (\"All notifications delivered on the stream carry\" it)",
         bad='{"method":"notifications/tools/list_changed","params":{}}',
         good='{"method":"notifications/tools/list_changed","params":{"_meta":'
         '{"io.modelcontextprotocol/subscriptionId":1}}}',
         fix="Tag each stream notification with the id of the subscriptions/listen request it answers, and "
         "send none without an open listen."),
    Rule(RuleId.SUBSCRIPTION_UNKNOWN_ID, E,
         "A notification names a subscriptionId that no subscriptions/listen request of this process opened.",
         f"{SUBS_DOC} \u00a7Receiving Notifications (the value is the listen request's JSON-RPC id)",
         bad="listen id 1, then a notification tagged subscriptionId 2", good="tagged subscriptionId 1",
         fix="Use the JSON-RPC id of the subscriptions/listen request, as sent (1 and \"1\" differ)."),
    Rule(RuleId.SUBSCRIPTION_UNREQUESTED, E,
         "The server sent a notification type, or a resource update, that the listen filter did not ask for.",
         f"{SUBS_DOC} \u00a7Opening a Stream (\"MUST NOT send notification types the client has not "
         f"explicitly "
         "requested\")",
         bad='filter {"toolsListChanged":true}, then notifications/prompts/list_changed',
         good="only notifications/tools/list_changed on that subscription",
         fix="Check the listen request's filter before sending on its stream."),
    Rule(RuleId.SUBSCRIPTION_ACK_SUPERSET, W,
         "The acknowledgement grants notification types or resource uris the listen request did not ask for.",
         f"{SUBS_DOC} \u00a7Acknowledgment (\"reflects the subset the server agreed to honor\"; derived)",
         bad='asked {"toolsListChanged":true}, acknowledged '
         '{"toolsListChanged":true,"promptsListChanged":true}',
         good='acknowledged {"toolsListChanged":true}',
         fix="Acknowledge the part of the requested filter you will honour, never more."),
    Rule(RuleId.SUBSCRIPTION_AFTER_END, W,
         "A notification for a subscription that had ended (its listen was cancelled or answered).",
         f"{STDIO} \u00a7Cancellation; {SUBS_DOC} \u00a7Cancellation",
         bad="notifications/cancelled for listen 1, then tools/list_changed for 1",
         good="nothing more for subscription 1 once it ended",
         fix="Drop a subscription's state when it ends (a cancel or your own closing result) and "
         "send nothing "
         "more for it."),
    Rule(RuleId.SUBSCRIPTION_SERVER_CANCEL, E,
         "A 2026-07-28 server sent notifications/cancelled for something other than an open "
         "subscriptions/listen.",
         "2026-07-28/basic/patterns/cancellation.mdx; schema/2026-07-28 CancelledNotification "
         "(\"Servers MUST "
         "NOT use this notification to cancel any other request\")",
         bad='server: {"method":"notifications/cancelled","params":{"requestId":7}} for a tools/call',
         good="answer the tools/call with an error instead",
         fix="Fail a request you will not finish with an error response; cancel only a listen "
         "stream you end."),
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
    Rule(RuleId.CACHE_INVALID_TTL, E,
         "ttlMs is not an integer >= 0.",
         f"{CACHING} \u00a7Time-to-Live (\"Servers MUST provide a ttlMs value that is >= 0\"); "
         "schema CacheableResult (integer, minimum 0)",
         bad='"ttlMs":-1 (or 1.5, or "60000")', good='"ttlMs":60000',
         fix="Send ttlMs as a whole number of milliseconds, 0 for immediately stale."),
    Rule(RuleId.CACHE_INVALID_SCOPE, E,
         'cacheScope is not "public" or "private".',
         f"{CACHING} \u00a7Cache Scope Field; schema CacheableResult (enum private, public)",
         bad='"cacheScope":"shared"', good='"cacheScope":"public"',
         fix='Send "public" for data the same for every user, else "private".'),
    Rule(RuleId.CACHE_SCOPE_CHANGED, E,
         "A later page of a paginated list has another cacheScope than the first page.",
         f"{CACHING} \u00a7Interaction with Pagination (\"MUST apply the same cacheScope to all "
         f"response pages\")",
         bad='page 1 "private", page 2 (its nextCursor) "public"', good='every page "private"',
         fix="Decide the scope once per list and send it on every page."),
    Rule(RuleId.CACHE_ON_INPUT_REQUIRED, W,
         "An input_required result carries ttlMs or cacheScope: interim results are not cacheable.",
         f"{CACHING} \u00a7Cacheable Results (\"are not cacheable and carry no caching hints\")",
         bad='{"resultType":"input_required","requestState":"s1","ttlMs":60000}',
         good='{"resultType":"input_required","requestState":"s1"}',
         fix="Leave ttlMs and cacheScope off input_required results; put them on the complete result."),
    Rule(RuleId.CACHE_REFETCH_FRESH, INFO,
         "The client asked again for a list page whose last answer was still fresh (within its ttlMs), with "
         "no list_changed or error in between: legal, but the hint went unused.",
         f"{CACHING} \u00a7Time-to-Live (\"the client SHOULD consider the result fresh\"), \u00a7Freshness "
         "Calculation",
         bad='tools/list -> "ttlMs":300000; tools/list again 2 s later', good="the cached list reused",
         fix="Cache list results for their ttlMs and re-fetch when stale or after a list_changed."),
    Rule(RuleId.RESULT_TYPE_INVALID, E,
         "resultType is not a string: the client cannot tell how to read the result.",
         f"{BASE} \u00a7ResultType; schema Result (resultType: string)",
         bad='{"result":{"resultType":1,"content":[]}}',
         good='{"result":{"resultType":"complete","content":[]}}',
         fix='Send resultType "complete", or "input_required" for an interim result.'),
    Rule(RuleId.RESULT_TYPE_UNKNOWN, W,
         "resultType is neither complete nor input_required: a client that no advertised extension taught "
         "the value must treat the result as invalid.",
         f"{BASE} \u00a7ResultType (\"any value unrecognized by the client MUST be considered invalid\")",
         bad='{"result":{"resultType":"done","content":[]}}',
         good='{"result":{"resultType":"complete","content":[]}}',
         fix="Use complete or input_required, or a value of an extension both sides advertise."),
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
    Rule(RuleId.DISCOVER_NOT_IMPLEMENTED, E,
         "The server answers 2026-07-28 requests but answered server/discover with -32601 (method not "
         "found): every 2026-07-28 server implements it.",
         "2026-07-28/server/discover.mdx; 2026-07-28/changelog.mdx Major 3 (\"servers MUST implement this "
         "RPC\")",
         bad="server/discover -> -32601, then tools/list -> a result",
         good="server/discover -> a DiscoverResult",
         fix="Implement server/discover: supportedVersions, capabilities, ttlMs and cacheScope."),
    Rule(RuleId.ERROR_UNSUPPORTED_VERSION_INCONSISTENT, W,
         "An UnsupportedProtocolVersion error (-32022) whose data.requested is not the version the request "
         "carried, or whose data.supported lists that very version.",
         "2026-07-28/basic/versioning.mdx \u00a7Protocol Version Negotiation (derived)",
         bad='asked "2026-07-28", got -32022 with "supported":["2026-07-28"]',
         good='asked "1900-01-01", got -32022 with "supported":["2026-07-28"],"requested":"1900-01-01"',
         fix="Echo the requested version as sent, and refuse only versions you do not list."),
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
