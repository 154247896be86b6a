"""The catalogue rows of rules/mrtr.py (mrtr.*: multi round-trip requests)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import MRTR_DOC, E, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
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
]
# fmt: on
