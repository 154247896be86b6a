"""The findings catalogue: one table of rules, each with its spec source.

Rule ids are a public interface (users grep them, CI configs name them):
never rename one. Severity: error breaks a MUST or MUST NOT, warning breaks a
SHOULD or is almost surely a bug, info is legal but worth seeing.
"""

from __future__ import annotations

from typing import NamedTuple

from mcpspy.analysis.catalogue_digest import DIGEST_RULES
from mcpspy.analysis.catalogue_tools import TOOL_SCHEMA_RULES
from mcpspy.analysis.model import Rule, Severity
from mcpspy.analysis.rule_ids import RuleId

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
STDIO = "2026-07-28/basic/transports/stdio.mdx"
BASE = "2026-07-28/basic/index.mdx"
LIFECYCLE = "2025-11-25/basic/lifecycle.mdx"
PROGRESS = "2025-11-25/basic/utilities/progress.mdx; 2026-07-28/basic/patterns/progress.mdx"
REQ = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{...}}}'
RES = '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}'


class Pipe(NamedTuple):
    """One pipe's framing rules: each rule has a twin on the other pipe."""

    side: str
    who: str
    example: str
    not_json: RuleId
    glued_prefix: RuleId
    multiline_json: RuleId
    content_length: RuleId
    invalid_utf8: RuleId
    crlf: RuleId
    unterminated: RuleId
    blank_line: RuleId
    oversized_line: RuleId


STDOUT = Pipe(
    side="server's stdout",
    who="server",
    example=RES,
    not_json=RuleId.STDOUT_NOT_JSON,
    glued_prefix=RuleId.STDOUT_GLUED_PREFIX,
    multiline_json=RuleId.STDOUT_MULTILINE_JSON,
    content_length=RuleId.STDOUT_CONTENT_LENGTH,
    invalid_utf8=RuleId.STDOUT_INVALID_UTF8,
    crlf=RuleId.STDOUT_CRLF,
    unterminated=RuleId.STDOUT_UNTERMINATED,
    blank_line=RuleId.STDOUT_BLANK_LINE,
    oversized_line=RuleId.STDOUT_OVERSIZED_LINE,
)
STDIN = Pipe(
    side="server's stdin",
    who="client",
    example=REQ,
    not_json=RuleId.STDIN_NOT_JSON,
    glued_prefix=RuleId.STDIN_GLUED_PREFIX,
    multiline_json=RuleId.STDIN_MULTILINE_JSON,
    content_length=RuleId.STDIN_CONTENT_LENGTH,
    invalid_utf8=RuleId.STDIN_INVALID_UTF8,
    crlf=RuleId.STDIN_CRLF,
    unterminated=RuleId.STDIN_UNTERMINATED,
    blank_line=RuleId.STDIN_BLANK_LINE,
    oversized_line=RuleId.STDIN_OVERSIZED_LINE,
)


def _framing(pipe: Pipe) -> list[Rule]:
    """The framing rules hold for both pipes, each in its own words."""
    side, who, ex = pipe.side, pipe.who, pipe.example
    # A table, one rule a paragraph, as RULES_TABLE below.
    # fmt: off
    return [
        Rule(pipe.not_json, E,
             f"A line on the {side} is not JSON: the {who} must write nothing there but MCP messages "
             "(a banner, a log line or a print belongs on stderr).",
             f'{STDIO} ("MUST NOT write anything to its stdout that is not a valid MCP message")',
             bad="ready", good="(log to stderr instead)",
             fix=f"Write only MCP messages on the {side}; send banners, logs and prints to stderr."),
        Rule(pipe.glued_prefix, E,
             "Text was written without a newline and glued onto the next message, so that message "
             "no longer parses and the other side drops it.",
             f"{STDIO}; seed \u00a7\"Tom's 'ready', Explained\"",
             bad=f"ready {ex}", good=ex,
             fix=f"End every write on the {side} with a newline, and send any text that is not a message "
             "to stderr."),
        Rule(pipe.multiline_json, E,
             "One message was spread over several lines (pretty-printed): messages are delimited by "
             "newlines and must not contain embedded newlines.",
             f'{STDIO} ("MUST NOT contain embedded newlines")',
             bad='{\n  "jsonrpc": "2.0",\n  ...\n}', good=ex,
             fix="Serialize each message compactly on one line (no indent, no pretty-printing), then "
             "write one \\n."),
        Rule(pipe.content_length, E,
             "LSP-style Content-Length header framing: MCP on stdio is one JSON message per line, "
             "with no headers.",
             STDIO,
             bad="Content-Length: 52", good=ex,
             fix="Drop the Content-Length headers: write each message as one line of JSON ending in \\n."),
        Rule(pipe.invalid_utf8, E,
             "A line is not valid UTF-8: JSON-RPC messages must be UTF-8 encoded.",
             "2026-07-28/basic/transports/index.mdx \u00a7Messages",
             bad="\\xff\\xfe{...}", good=ex,
             fix=f"Encode every message as UTF-8 before writing it on the {side} (JSON escapes can carry "
             "any character)."),
        Rule(pipe.crlf, INFO,
             "The line ends in \\r\\n: most readers strip the \\r, but some keep it in the message.",
             f"{STDIO} (messages are delimited by newlines)",
             bad=ex + "\\r\\n", good=ex + "\\n",
             fix="End each message with \\n alone (on Windows, open the pipe in binary mode so \\n is "
             "not turned into \\r\\n)."),
        Rule(pipe.unterminated, W,
             "The last line ended without a newline: a reader waiting for the newline never sees it.",
             f'{STDIO} (derived: "delimited by newlines")',
             bad=ex + "<EOF>", good=ex + "\\n",
             fix=f"End the last message with a newline and flush before closing the {side}."),
        Rule(pipe.blank_line, INFO,
             "An empty line: not a message; most readers skip it.",
             'seed \u00a7"Reading Lines" (derived)',
             bad="", good=ex,
             fix="Write no empty lines: one message, then one \\n, then the next."),
        Rule(pipe.oversized_line, INFO,
             "A line over 16 MiB: legal (stdio sets no limit), but mcpspy reads only its first and last "
             "64 KiB, so its kind, id and method are found and its content is not checked.",
             f"{STDIO} (no size limit; mcpspy's own cap)",
             bad=f"{ex[:-3]}<16 MiB of content>{ex[-3:]}", good="large content split up, or a resource link",
             fix="Keep each message under 16 MiB: split large content, or return a resource link the "
             "client reads on demand."),
    ]
    # fmt: on


# A table, one rule a paragraph: id and severity; summary; spec source; a bad and a good example.
# fmt: off
RULES_TABLE: list[Rule] = [
    *_framing(STDOUT),
    *_framing(STDIN),
    # JSON-RPC envelope
    Rule(RuleId.JSONRPC_VERSION, E,
         'Every message must carry "jsonrpc": "2.0", exactly.',
         f"{BASE} \u00a7Messages; schema JSONRPCMessage",
         bad='{"id":1,"method":"tools/list"}', good='{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
         fix='Add "jsonrpc": "2.0" to every message, spelled exactly so.'),
    Rule(RuleId.JSONRPC_INVALID, E,
         "JSON, but not a JSON-RPC message: not an object with a method, or an id with a result or an error.",
         f"{BASE} \u00a7Requests, \u00a7Responses, \u00a7Notifications",
         bad='{"jsonrpc":"2.0","hello":1}', good=REQ,
         fix="Send only objects with a method (a request or notification) or with an id and a result or an "
         "error (a response)."),
    Rule(RuleId.JSONRPC_BATCH, E,
         "A JSON array (a batch): batching was removed in 2025-06-18; each line is one message.",
         "2025-06-18/changelog.mdx \u00a7Major changes 1",
         bad=f"[{REQ}]", good=REQ,
         fix="Write each message on a line of its own instead of wrapping several in a JSON array."),
    Rule(RuleId.JSONRPC_NULL_ID, E,
         "The id is null: requests must carry a string or integer id, and a result must answer one "
         "(an error may have a null id only when the request's id could not be read).",
         f'{BASE} \u00a7Requests ("the ID MUST NOT be null")',
         bad='{"jsonrpc":"2.0","id":null,"method":"tools/list"}', good=REQ,
         fix="Give every request a string or integer id, and answer with that id (null only in an error "
         "about a request whose id could not be read)."),
    Rule(RuleId.JSONRPC_ID_TYPE, E,
         "The id must be a string or an integer (not a float, bool, object or array).",
         f"{BASE} \u00a7Requests",
         bad='{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', good=REQ,
         fix="Use a string or an integer for every id, such as a counter or a UUID string."),
    Rule(RuleId.JSONRPC_RESULT_AND_ERROR, E,
         "A response carries exactly one of result and error, never both.",
         "2025-06-18/basic/index.mdx \u00a7Responses",
         bad='{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32603,"message":"x"}}', good=RES,
         fix="Send either result or error in a response, never both: drop the result when the request "
         "failed."),
    Rule(RuleId.JSONRPC_PARAMS_NOT_OBJECT, E,
         "params, when present, is an object: MCP has no by-position (array) params, and no null.",
         "schema/2026-07-28 JSONRPCRequest.params, JSONRPCNotification.params",
         bad='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["get_ticket",{"id":"2318"}]}',
         good='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_ticket",...}}',
         fix="Send params as an object of named members, or leave params out."),
    Rule(RuleId.JSONRPC_RESULT_NOT_OBJECT, E,
         "A result is a JSON object; a string, number, array or null is no MCP result.",
         f"{BASE} \u00a7Result Responses; schema/2026-07-28 Result",
         bad='{"jsonrpc":"2.0","id":1,"result":"ok"}',
         good='{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[...]}}',
         fix="Wrap what the request returns in an object, as its method's result type says."),
    Rule(RuleId.JSONRPC_NOTIFICATION_WITH_ID, E,
         "A notifications/* method sent with an id: notifications carry none, so the receiver reads a "
         "request of a method it does not know.",
         f'{BASE} \u00a7Notifications ("MUST NOT include an ID")',
         bad='{"jsonrpc":"2.0","id":5,"method":"notifications/cancelled","params":{"requestId":4}}',
         good='{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}',
         fix="Leave the id out of every notification."),
    Rule(RuleId.JSONRPC_ERROR_SHAPE, E,
         "An error must be an object with an integer code and a string message.",
         f'{BASE} \u00a7Error Responses ("Error codes MUST be integers")',
         bad='{"jsonrpc":"2.0","id":1,"error":"boom"}',
         good='{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}',
         fix='Send errors as {"code": <integer>, "message": <string>}, with any other detail under data.'),
    Rule(RuleId.JSONRPC_DEPRECATED_ERROR_CODE, W,
         "Error codes -32000 to -32019 predate MCP's reserved range; new implementations should not "
         "use them.",
         f"{BASE} \u00a7Error Codes",
         bad='{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"x"}}',
         good='{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}',
         fix="Use a JSON-RPC or MCP code instead (-32602 invalid params, -32603 internal error, ...), not "
         "one in -32000..-32019."),
    # pairing
    Rule(RuleId.PAIRING_UNKNOWN_ID, E,
         "A reply to an id that no pending request carries: the other side has nothing to match it to.",
         f'{BASE} \u00a7Responses ("MUST include the same ID")',
         bad="request id 1, reply id 2", good="request id 1, reply id 1",
         fix='Reply with the exact id of the request being answered, type included (1 and "1" are '
         "different ids)."),
    Rule(RuleId.PAIRING_DUPLICATE_RESPONSE, E,
         "A second reply to a request that was already answered.",
         f"{BASE} \u00a7Responses (derived)",
         bad="two replies with id 1", good="one reply with id 1",
         fix="Send one response per request: guard the reply path so that a retry, timeout or error "
         "handler cannot answer again."),
    Rule(RuleId.PAIRING_DUPLICATE_ID, E,
         "A request reuses the id of a request of the same sender that is still pending.",
         f'{BASE} \u00a7Requests ("MUST NOT match the ID of any other request ... not yet received")',
         bad="two requests with id 1 in flight", good="ids 1 and 2",
         fix="Take request ids from a counter (or UUIDs) so no id repeats while a request with it is "
         "pending."),
    Rule(RuleId.PAIRING_ID_REUSED, E,
         "Before 2026-07-28, a request reuses an id its sender used earlier in the session, even one "
         "answered long ago.",
         '2025-06-18/basic/index.mdx \u00a7Requests ("MUST NOT have been previously used by the requestor '
         'within the same session")',
         bad="tools/call id 3 answered, later tools/list id 3", good="ids 3, then 4",
         fix="Take request ids from a counter that never goes back within a session."),
    Rule(RuleId.PAIRING_REPLY_AFTER_CANCEL, W,
         "A reply came for a request its sender had cancelled: after a cancel the server must not "
         "send further messages for it.",
         f"{STDIO} \u00a7Cancellation; 2026-07-28/basic/patterns/cancellation.mdx",
         bad="notifications/cancelled for id 4, then a reply to 4", good="no reply after the cancel",
         fix="On notifications/cancelled, stop the work for that request id and send no response for it."),
    Rule(RuleId.PAIRING_OUT_OF_ORDER, INFO,
         "A reply overtook the reply to an older request: legal, since replies are matched by id, but "
         "a client that matches by position breaks.",
         f"{STDIO} \u00a7Receiving Messages",
         bad="(legal) replies 3 then 2", good="(any order is legal)",
         fix="Match replies to requests by id in the client; a server may answer in any order."),
    Rule(RuleId.PAIRING_SLOW, W,
         "A request has waited longer than the slow threshold for its reply.",
         "2026-07-28/basic/patterns/cancellation.mdx \u00a7Timeouts",
         bad="no reply after 30 s", good="a reply, or a cancel",
         fix="Answer long requests sooner or send progress for their progressToken, and cancel the ones no "
         "longer needed."),
    Rule(RuleId.PAIRING_UNANSWERED, W,
         "A request never got a reply before the session ended.",
         f"{BASE} \u00a7Responses (derived)",
         bad="a request with no reply", good="every request answered",
         fix="Answer every request, with an error when it fails, before the session ends."),
    Rule(RuleId.CANCEL_UNKNOWN_REQUEST, W,
         "notifications/cancelled names a request that is not in flight; receivers ignore it.",
         "2026-07-28/basic/patterns/cancellation.mdx \u00a7Behavior Requirements",
         bad='{"method":"notifications/cancelled","params":{"requestId":99}}',
         good="cancel an id still pending",
         fix="Cancel only ids still in flight: skip the cancel once the response has arrived."),
    Rule(RuleId.CANCEL_INITIALIZE, E,
         "The client cancelled initialize, which it must never cancel.",
         "2025-11-25/basic/utilities/cancellation.mdx \u00a7Behavior Requirements "
         '("The initialize request MUST NOT be cancelled by clients")',
         bad='{"method":"notifications/cancelled","params":{"requestId":0}} for initialize id 0',
         good="wait for the initialize result, or close stdin",
         fix="Never cancel initialize: wait for its result, or close the server's stdin to give up."),
    # 2026-07-28
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
    # legacy era
    Rule(RuleId.LEGACY_INITIALIZED_MISSING, W,
         "After a successful initialize the client must send notifications/initialized before other "
         "requests.",
         f"{LIFECYCLE} \u00a7Initialization",
         bad="initialize, then tools/list", good="initialize, notifications/initialized, tools/list",
         fix="Send notifications/initialized right after the initialize result, before any other request."),
    Rule(RuleId.LEGACY_EARLY_REQUEST, W,
         "The client sent a request other than ping before the server answered initialize.",
         f'{LIFECYCLE} \u00a7Initialization ("SHOULD NOT send requests other than pings before the server '
         'has responded to the initialize request")',
         bad="initialize, tools/list, then the initialize result",
         good="initialize, its result, then tools/list",
         fix="Wait for the initialize result before sending any request other than ping."),
    Rule(RuleId.LEGACY_INITIALIZED_EARLY, E,
         "notifications/initialized was sent before initialize was answered, or after it failed: it "
         "follows a successful initialize result.",
         f"{LIFECYCLE} \u00a7Initialization (ordering derived)",
         bad="initialize, notifications/initialized, then the result",
         good="initialize, its result, then notifications/initialized",
         fix="Send notifications/initialized only once a successful initialize result has arrived."),
    Rule(RuleId.LEGACY_SERVER_EARLY_REQUEST, W,
         "The server sent a request other than ping before the client's notifications/initialized.",
         f'{LIFECYCLE} \u00a7Initialization ("SHOULD NOT send requests other than pings and logging before '
         'receiving the initialized notification")',
         bad="initialize result, then roots/list before notifications/initialized",
         good="roots/list after notifications/initialized",
         fix="Hold the server's requests (roots/list, sampling/createMessage, ...) until the client's "
         "notifications/initialized arrives."),
    Rule(RuleId.LEGACY_REINITIALIZE, W,
         "A second initialize in a process whose first one succeeded: initialization is the first "
         "interaction, once per process.",
         f"{LIFECYCLE} \u00a7Initialization; 2026-07-28/basic/versioning.mdx (derived)",
         bad="initialize, ..., initialize again", good="one initialize per process",
         fix="Send initialize once per server process; start a new process for a new session."),
    Rule(RuleId.LEGACY_VERSION_UNKNOWN, W,
         "The server answered initialize with a protocol version the client did not ask for and that is "
         "no revision with an initialize handshake.",
         f"{LIFECYCLE} \u00a7Version Negotiation",
         bad='asks "2025-06-18", gets "1.0"', good='asks "2025-06-18", gets "2025-06-18" or "2025-03-26"',
         fix="Answer initialize with the client's protocolVersion when the server supports it, else with "
         "the latest revision it supports."),
    Rule(RuleId.LEGACY_VERSION_CHANGED, INFO,
         "The server chose another protocol version than the one the client asked for: legal when it "
         "does not support the one asked, but the client must support the answer.",
         f"{LIFECYCLE} \u00a7Version Negotiation",
         bad='(legal) asks "2025-11-25", gets "2025-06-18"', good='asks "2025-06-18", gets "2025-06-18"',
         fix="Make the client speak the version the server chose, or have it disconnect when it cannot."),
    # capabilities
    Rule(RuleId.CAPABILITY_SERVER_UNDECLARED, W,
         "The client called a method whose server capability (tools, prompts, resources, "
         "resources.subscribe, completions, logging) the server did not declare.",
         "2025-11-25/server/tools.mdx, prompts.mdx, resources.mdx \u00a7Capabilities; "
         f"{LIFECYCLE} \u00a7Operation",
         bad='capabilities {"tools":{}}, then prompts/list', good="call only what the server declared",
         fix="Declare the capability in the server's initialize (or server/discover) result, or stop the "
         "client calling the method."),
    Rule(RuleId.CAPABILITY_CLIENT_UNDECLARED, E,
         "The server sent sampling/createMessage, roots/list or elicitation/create though the client "
         "did not declare that capability (2025-06-18 and later: only negotiated capabilities may be used).",
         "2025-06-18/basic/lifecycle.mdx \u00a7Operation; 2025-06-18/changelog.mdx item 9; "
         "<rev>/client/{sampling,roots,elicitation}.mdx \u00a7Capabilities",
         bad="client capabilities {}, then roots/list",
         good='client capabilities {"roots":{}}, then roots/list',
         fix="Check the client's declared capabilities before sending sampling/createMessage, roots/list "
         "or elicitation/create."),
    Rule(RuleId.CAPABILITY_CLIENT_UNNEGOTIATED, W,
         "The server sent sampling/createMessage or roots/list though the client did not declare that "
         "capability (2024-11-05 and 2025-03-26, where the rule is a SHOULD).",
         "2025-03-26/basic/lifecycle.mdx \u00a7Operation; "
         "<rev>/client/{sampling,roots}.mdx \u00a7Capabilities",
         bad="client capabilities {}, then sampling/createMessage",
         good='client capabilities {"sampling":{}}, then sampling/createMessage',
         fix="Check the client's declared capabilities before sending sampling/createMessage or "
         "roots/list."),
    Rule(RuleId.CAPABILITY_LIST_CHANGED_UNDECLARED, W,
         "The server sent a tools, prompts or resources list_changed notification without declaring "
         "listChanged: true for it.",
         "2025-11-25/server/tools.mdx \u00a7List Changed Notification",
         bad='capabilities {"tools":{}}, then notifications/tools/list_changed',
         good='capabilities {"tools":{"listChanged":true}}',
         fix='Declare "listChanged": true for that list in the server capabilities, or stop sending the '
         "notification."),
    Rule(RuleId.CAPABILITY_LOGGING_UNDECLARED, W,
         "The server sent notifications/message without declaring the logging capability (a MUST in the "
         "spec; a warning here because the Python SDK's MCPServer does so whenever a tool logs through "
         "its context).",
         '2025-11-25/server/utilities/logging.mdx \u00a7Capabilities ("MUST declare the logging capability")',
         bad='capabilities {"tools":{}}, then notifications/message', good='capabilities {"logging":{}}',
         fix='Declare "logging": {} in the server capabilities, or stop sending notifications/message.'),
    # progress
    Rule(RuleId.PROGRESS_UNKNOWN_TOKEN, E,
         "A progress notification names a token that no request carried in _meta.progressToken.",
         f"{PROGRESS} \u00a7Behavior Requirements",
         bad='notifications/progress with progressToken "x", never sent',
         good="the token of an in-flight request",
         fix="Send progress only with the progressToken its request carried in _meta, and none for a "
         "request that carried none."),
    Rule(RuleId.PROGRESS_AFTER_COMPLETION, E,
         "A progress notification came after its request was answered: progress must stop when the "
         "operation completes.",
         f"{PROGRESS} \u00a7Implementation Notes",
         bad="the tools/call result, then progress for its token", good="progress, then the result",
         fix="Send the last progress notification before the response, never after it."),
    Rule(RuleId.PROGRESS_INVALID, E,
         "A progress notification without a string or integer progressToken, or without a number progress.",
         "schema/<rev> ProgressNotificationParams (progressToken and progress required)",
         bad='{"method":"notifications/progress","params":{"progressToken":"t1","progress":"50%"}}',
         good='{"method":"notifications/progress","params":{"progressToken":"t1","progress":50,"total":100}}',
         fix="Send progress as a number, with the request's string or integer progressToken."),
    Rule(RuleId.PROGRESS_NOT_INCREASING, E,
         "The progress value did not increase from one notification to the next for the same token.",
         f'{PROGRESS} \u00a7Progress Flow ("MUST increase with each notification")',
         bad="progress 50, then 40", good="progress 40, then 50",
         fix="Send a larger progress value in each notification for a token, such as the count of items "
         "done so far."),
    Rule(RuleId.PROGRESS_TOKEN_INVALID, E,
         "A request's _meta.progressToken is not a string or an integer, so no progress can name it.",
         f"{PROGRESS} \u00a7Progress Flow; schema ProgressToken",
         bad='"_meta":{"progressToken":{"n":1}}', good='"_meta":{"progressToken":"call-7"}',
         fix="Use a string or an integer as the progress token; the request id itself is a good one."),
    Rule(RuleId.PROGRESS_TOKEN_DUPLICATE, E,
         "A request's progressToken is the one another request of the same sender still in flight carries: "
         "their progress cannot be told apart.",
         f'{PROGRESS} \u00a7Progress Flow ("MUST be unique across all active requests")',
         bad="requests 4 and 5 both carry progressToken 1 while 4 is unanswered",
         good="request 4 carries progressToken 4, request 5 carries 5",
         fix="Give each request its own progress token, such as its request id."),
    Rule(RuleId.PROGRESS_CLIENT_SENT, W,
         "A 2026-07-28 client sent notifications/progress: only the server reports progress, and a client's "
         "only notification is notifications/cancelled.",
         "schema/2026-07-28 ClientNotification; 2026-07-28/basic/patterns/progress.mdx",
         bad='client: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,...}}',
         good="progress only from the server, about the client's requests",
         fix="Stop sending progress from a 2026-07-28 client; the server has no request of its own to report "
         "on."),
    # logging
    Rule(RuleId.LOGGING_INVALID_MESSAGE, E,
         "A notifications/message whose level is not one of the eight RFC 5424 levels, or without data.",
         "2025-11-25/server/utilities/logging.mdx \u00a7Log Levels; schema LoggingMessageNotificationParams",
         bad='{"method":"notifications/message","params":{"level":"verbose","data":"x"}}',
         good='{"method":"notifications/message","params":{"level":"debug","data":"x"}}',
         fix="Set level to one of debug, info, notice, warning, error, critical, alert or emergency, and "
         "always send data."),
    # result shapes
    Rule(RuleId.SCHEMA_RESULT_SHAPE, E,
         "A result does not fit its method's result definition in the official JSON Schema of the "
         "revision in force (a required field missing, a wrong type, a content block of no known type).",
         "schema/<rev>/schema.json (the method's *Result definition)",
         bad='{"result":{"tools":[{"name":"get_ticket"}]}}',
         good='{"result":{"tools":[{"name":"get_ticket","inputSchema":{"type":"object"}}]}}',
         fix="Build the result to its method's *Result definition in the negotiated revision's schema (the "
         "finding names the field)."),
    # lifecycle
    Rule(RuleId.LIFECYCLE_NO_EXIT_ON_EOF, W,
         "The server was still running after its stdin closed; it should exit promptly.",
         f"{STDIO} \u00a7Shutdown",
         bad="a server that ignores EOF on stdin", good="exit when stdin reaches end of file",
         fix="Exit when stdin reaches end of file: end the read loop, finish or fail what is in flight, "
         "and exit."),
    Rule(RuleId.LIFECYCLE_CRASH_IN_FLIGHT, E,
         "The server exited with requests in flight: their replies are lost.",
         f"{STDIO} \u00a7Shutdown, \u00a7Unexpected Termination",
         bad="exit while a tools/call is pending", good="answer, then exit",
         fix="Answer (or fail) every request in flight before exiting, and exit only when stdin closes."),
    # tool definitions: schemas and names that make a client drop the tools (rules/tool_schemas.py)
    *TOOL_SCHEMA_RULES,  # catalogue_tools.py
    # MRTR, subscriptions, deprecations, caching, resultType (the DIGEST rules)
    *DIGEST_RULES,  # catalogue_digest.py
    # silent killers of the exchange: progress tokens, unanswered server requests, failed to connect,
    # rejected versions, request methods sent as notifications, replies lost to a glued prefix
    Rule(RuleId.REQUEST_NO_PROGRESS_TOKEN, W,
         "A request waited 60 s (the common client default timeout) with no _meta.progressToken: no "
         "progress can reset the client's timer, so the client gives up on a server still at work.",
         f'{LIFECYCLE} \u00a7Timeouts ("MAY choose to reset the timeout clock when receiving a progress '
         f'notification"); {PROGRESS}',
         bad='tools/call with "_meta":{...} and no reply for 60 s',
         good='tools/call with "_meta":{"progressToken":"export-1",...}, and progress for that token',
         fix="Send a progressToken with long requests and reset the timeout on progress; the server "
         "reports progress against that token."),
    Rule(RuleId.PAIRING_SERVER_REQUEST_UNANSWERED, W,
         "The client never answered a request of the server's (roots/list, sampling/createMessage, "
         "elicitation/create): a server that waits for it holds up the client's requests sent after it.",
         "2025-11-25/basic/index.mdx \u00a7Responses (derived); 2025-11-25/client/roots.mdx "
         "\u00a7Error Handling",
         bad="the server's roots/list gets no reply; the client's tools/call after it waits forever",
         good='a result, or {"error":{"code":-32601,"message":"Method not found"}}',
         fix="Answer every server request, with -32601 Method not found for what the client does not "
         "support."),
    Rule(RuleId.LIFECYCLE_FAILED_TO_CONNECT, E,
         "The server exited, or never started, before its first reply: the client can only say "
         "\"Failed to connect\". The finding gives the exit code, the command and the last stderr lines.",
         f"{STDIO} \u00a7Unexpected Termination; {LIFECYCLE} \u00a7Initialization",
         bad="a command not on PATH, or a server that crashes at start-up", good="a server that answers "
         "its first request",
         fix="Run the command by hand and fix what its stderr names: the path, the interpreter, a "
         "missing dependency or setting."),
    Rule(RuleId.VERSION_REJECTED_NOT_RETRIED, W,
         "The server rejected the protocol version (-32022, or an initialize error) and the client never "
         "retried with a version from the server's list, or retried with one the server did not list.",
         "2026-07-28/basic/versioning.mdx \u00a7Protocol Version Negotiation; "
         f"{LIFECYCLE} \u00a7Version Negotiation",
         bad='-32022 with data.supported ["2026-07-28"], then nothing, or a retry with "2025-01-01"',
         good='-32022 with data.supported ["2026-07-28"], then the request again with "2026-07-28"',
         fix="Retry with a version from the error's data.supported that the client implements, or tell the "
         "user that no version is shared."),
    Rule(RuleId.REQUEST_SENT_AS_NOTIFICATION, W,
         "A request's method (server/discover, tools/list, ...) sent with no id is a notification: "
         "the receiver must not answer it, so whoever sent it waits for nothing.",
         f'{BASE} \u00a7Notifications ("The receiver MUST NOT send a response"); schema/<rev> '
         "ClientRequest, ServerRequest",
         bad='{"jsonrpc":"2.0","method":"server/discover","params":{"_meta":{...}}}',
         good='{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{...}}}',
         fix="Give the request an id, a string or integer that none of the sender's pending requests has."),
    # capture integrity: gaps and torn lines
    Rule(RuleId.CAPTURE_GAP, W,
         "mcpspy dropped records from the capture rather than stall forwarding (a disk, FIFO or mount "
         "that fell behind): the capture-gap record says how many lines and bytes, and which seqs.",
         "mcpspy README \u00a7Proxy options (what the proxy promises: a capture says what it lost)",
         bad='{"seq":90,"t":4.2,"event":"capture-gap","lines":312,"bytes":40960,"first":58,"last":369}',
         good="a capture written to a local disk that keeps up",
         fix="Write captures to a local disk that keeps up (--home, --capture), not a hung mount or FIFO."),
    Rule(RuleId.CAPTURE_TORN_LINE, INFO,
         "The capture ends inside a record: mcpspy was stopped (killed) while writing it, so the last "
         "line it saw is missing.",
         "mcpspy README \u00a7The capture file",
         bad='{"seq":41,"t":2.5,"stream":"s2c","text":"{\\"jsonrpc\\":',
         good='{"seq":41,"t":2.5,"stream":"s2c","text":"{}"}  (then proxy-stopped)',
         fix="Stop mcpspy with SIGTERM or by closing its stdin, not SIGKILL, so it can finish the capture."),
]
# fmt: on

# By id. A RuleId is its id as a str, so a user's spelling (``mcpspy rules ID``) finds its rule too.
RULES: dict[str, Rule] = {rule.id: rule for rule in RULES_TABLE}
assert len(RULES) == len(RULES_TABLE), "duplicate rule id"
