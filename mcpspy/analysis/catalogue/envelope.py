"""The catalogue rows of rules/envelope.py (jsonrpc.*: the JSON-RPC envelope)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import BASE, REQ, RES, E
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
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
]
# fmt: on
