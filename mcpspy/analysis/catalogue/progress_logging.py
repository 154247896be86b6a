"""The catalogue rows of rules/progress_logging.py (progress.*, logging.*: work under way)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import PROGRESS, E
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
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
    Rule(RuleId.LOGGING_INVALID_MESSAGE, E,
         "A notifications/message whose level is not one of the eight RFC 5424 levels, or without data.",
         "2025-11-25/server/utilities/logging.mdx \u00a7Log Levels; schema LoggingMessageNotificationParams",
         bad='{"method":"notifications/message","params":{"level":"verbose","data":"x"}}',
         good='{"method":"notifications/message","params":{"level":"debug","data":"x"}}',
         fix="Set level to one of debug, info, notice, warning, error, critical, alert or emergency, and "
         "always send data."),
]
# fmt: on
