"""The catalogue rows of rules/modern.py (2026-07-28: meta.*, result.*, error.*, direction.*, ...)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import BASE, RES, STDIO, E, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
    Rule(RuleId.JSONRPC_DEPRECATED_ERROR_CODE, W,
         "Error codes -32000 to -32019 predate MCP's reserved range; new implementations should not "
         "use them.",
         f"{BASE} \u00a7Error Codes",
         bad='{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"x"}}',
         good='{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}',
         fix="Use a JSON-RPC or MCP code instead (-32602 invalid params, -32603 internal error, ...), not "
         "one in -32000..-32019."),
    Rule(RuleId.META_MISSING, E,
         "A request without _meta io.modelcontextprotocol/protocolVersion and clientCapabilities: in "
         "2026-07-28 every request carries them; the server must not rely on earlier requests.",
         f'{BASE} \u00a7_meta "Per-request protocol fields"; \u00a7Statelessness',
         bad='{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_ticket"}}',
         good='{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_ticket",'
         '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
         '"io.modelcontextprotocol/clientCapabilities":{}}}}',
         fix="Put io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities "
         "in params._meta of every request."),
    Rule(RuleId.META_NOT_REJECTED, E,
         "The server answered a request that lacked the required _meta instead of rejecting it with "
         "-32602: it is relying on connection state.",
         f'{BASE} \u00a7_meta ("MUST reject it with JSON-RPC error code -32602")',
         bad='{"jsonrpc":"2.0","id":8,"result":{...}}',
         good='{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params"}}',
         fix="Reject a request without the _meta protocol fields with error -32602 instead of relying on "
         "earlier requests."),
    Rule(RuleId.META_KEY_FORMAT, W,
         "A _meta key is not of the form [prefix/]name: prefix labels begin with a letter and end with a "
         "letter or digit, and the name begins and ends with a letter or digit.",
         f"{BASE} \u00a7_meta (General fields); 2025-06-18/basic/index.mdx \u00a7_meta",
         bad='"_meta":{"-trace id":"x","acme./flag":true}', good='"_meta":{"com.acme/trace-id":"x"}',
         fix="Name _meta keys as reverse-DNS prefix, a slash, and a name of letters, digits, '-', '_' "
         "and '.', beginning and ending with a letter or digit."),
    Rule(RuleId.ERROR_UNSUPPORTED_VERSION_DATA, E,
         "An UnsupportedProtocolVersion error (-32022) must list data.supported (and data.requested).",
         "2026-07-28/basic/versioning.mdx \u00a7Protocol Version Negotiation",
         bad='{"error":{"code":-32022,"message":"Unsupported protocol version"}}',
         good='{"error":{"code":-32022,"message":"...","data":{"supported":["2026-07-28"],'
         '"requested":"1900-01-01"}}}',
         fix="Put data.supported (the versions the server speaks) and data.requested in every -32022 "
         "error."),
    Rule(RuleId.VERSION_UNLISTED, W,
         "The server answered a request in a protocol version it does not list as supported.",
         "2026-07-28/basic/versioning.mdx (derived)",
         bad='supportedVersions ["2026-07-28"], answers a "2025-01-01" request',
         good="-32022 with data.supported",
         fix="Reject requests in a version the server does not list with -32022, or add that version to "
         "supportedVersions."),
    Rule(RuleId.RESULT_MISSING_RESULT_TYPE, E,
         "Every 2026-07-28 result must include resultType.",
         f"{BASE} \u00a7ResultType",
         bad='{"result":{"tools":[]}}', good=RES,
         fix='Add "resultType": "complete" (or "input_required") to every result.'),
    Rule(RuleId.CACHE_MISSING_TTL, E,
         "A server/discover, list or resources/read result must carry ttlMs and cacheScope.",
         "2026-07-28/server/utilities/caching.mdx \u00a7Cacheable Results",
         bad='{"result":{"resultType":"complete","tools":[]}}',
         good='{"result":{"resultType":"complete","tools":[],"ttlMs":60000,"cacheScope":"public"}}',
         fix='Add ttlMs (e.g. 60000) and cacheScope ("public" or "private") to every server/discover, list '
         "and resources/read result."),
    Rule(RuleId.DIRECTION_SERVER_REQUEST, E,
         "The server wrote a JSON-RPC request on stdout: in 2026-07-28 servers ask through "
         "InputRequiredResult instead.",
         f"{STDIO} \u00a7Receiving Messages",
         bad='{"jsonrpc":"2.0","id":1,"method":"roots/list"}',
         good='{"result":{"resultType":"input_required","inputRequests":{...}}}',
         fix="Return an InputRequiredResult with inputRequests instead of sending the client a request."),
    Rule(RuleId.DIRECTION_CLIENT_RESPONSE, E,
         "The client wrote a JSON-RPC response on the server's stdin: in 2026-07-28 it must not.",
         f"{STDIO} \u00a7Sending Messages",
         bad='{"jsonrpc":"2.0","id":1,"result":{}}', good="answers travel in the retry's inputResponses",
         fix="Send the answers to a server's input requests in the retried request's inputResponses, not "
         "as JSON-RPC responses."),
    Rule(RuleId.PING_MODERN, W,
         "ping was removed in 2026-07-28; a modern server answers it with -32601.",
         "2026-07-28/changelog.mdx Major 5",
         bad='{"jsonrpc":"2.0","id":1,"method":"ping"}',
         good="server/discover, when a liveness check is needed",
         fix="Stop sending ping to 2026-07-28 servers; send server/discover when a liveness check is "
         "needed."),
    Rule(RuleId.PING_NON_EMPTY_RESULT, W,
         "A ping was answered with a result that is not empty: its receiver must answer {}.",
         '2025-11-25/basic/utilities/ping.mdx \u00a7Behavior Requirements ("MUST respond promptly with '
         'an empty response")',
         bad='{"jsonrpc":"2.0","id":7,"result":{"status":"ok"}}', good='{"jsonrpc":"2.0","id":7,"result":{}}',
         fix="Answer ping with an empty result object and nothing else."),
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
]
# fmt: on
