"""The catalogue rows of rules/pairing.py (pairing.*, cancel.*: ids, replies and cancels)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import BASE, INFO, STDIO, E, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
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
    Rule(RuleId.PAIRING_PENDING_LIMIT, W,
         "More requests were pending at once than the lean analysis of --log and the live OpenTelemetry "
         "export keeps a direction (10,000): the oldest were set aside as unknown, their replies not paired "
         "and never called unanswered. The finding says how many.",
         "mcpspy docs/report.md \u00a7Reading a finding (--log: memory stays bounded)",
         bad="1,000,000 requests sent, none answered (a server that echoes them, or has hung)",
         good="requests answered, or cancelled once given up, as they come",
         fix="Answer or cancel requests as they come; to judge every one of such a flood, run "
         "`mcpspy report` on the capture, which keeps them all."),
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
    Rule(RuleId.PAIRING_SERVER_REQUEST_UNANSWERED, W,
         "The client never answered a request of the server's (roots/list, sampling/createMessage, "
         "elicitation/create): a server that waits for it holds up the client's requests sent after it.",
         "2025-11-25/basic/index.mdx \u00a7Responses (derived); 2025-11-25/client/roots.mdx "
         "\u00a7Error Handling",
         bad="the server's roots/list gets no reply; the client's tools/call after it waits forever",
         good='a result, or {"error":{"code":-32601,"message":"Method not found"}}',
         fix="Answer every server request, with -32601 Method not found for what the client does not "
         "support."),
]
# fmt: on
