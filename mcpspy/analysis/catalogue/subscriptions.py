"""The catalogue rows of rules/subscriptions.py (subscription.*: the streams subscriptions/listen opens)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import STDIO, SUBS_DOC, E, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
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
]
# fmt: on
