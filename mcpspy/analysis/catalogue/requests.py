"""The catalogue rows of rules/requests.py (request.*, version.*: requests as their senders wait on them)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import BASE, LIFECYCLE, PROGRESS, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
    Rule(RuleId.REQUEST_NO_PROGRESS_TOKEN, W,
         "A request waited 60 s (the common client default timeout) with no _meta.progressToken: no "
         "progress can reset the client's timer, so the client gives up on a server still at work.",
         f'{LIFECYCLE} \u00a7Timeouts ("MAY choose to reset the timeout clock when receiving a progress '
         f'notification"); {PROGRESS}',
         bad='tools/call with "_meta":{...} and no reply for 60 s',
         good='tools/call with "_meta":{"progressToken":"export-1",...}, and progress for that token',
         fix="Send a progressToken with long requests and reset the timeout on progress; the server "
         "reports progress against that token."),
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
]
# fmt: on
