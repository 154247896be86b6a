"""The catalogue rows of rules/capabilities.py (capability.*: each side uses only what the other declared)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import LIFECYCLE, E, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
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
]
# fmt: on
