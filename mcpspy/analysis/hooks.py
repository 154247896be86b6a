"""Which family judges a JSON-RPC message, in what order: the analyzer's hooks as data (h11's lesson).

analyzer.py binds each "family.method" to the family's object and walks the
row of each message; adding a rule that needs a message no hook of its family
sees yet adds its hook to a row here.
"""

from __future__ import annotations

from collections.abc import Callable

from mcpspy.analysis.model import Kind, Message
from mcpspy.analysis.rules.caching import LISTS
from mcpspy.analysis.rules.mrtr import SUPPORTED as RETRIED
from mcpspy.capture.records import Stream

REQUEST, NOTIFICATION, RESPONSE, ERROR = Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.ERROR_RESPONSE
C2S, S2C = Stream.C2S, Stream.S2C

Hook = Callable[[Message], "bool | None"]
HookKey = tuple[Kind, Stream] | tuple[Kind, Stream, str]

# Who judges a JSON-RPC message, in order, by (kind, the pipe it came on), or by (kind, pipe, method)
# for the methods whose row differs. A hook is a family's method taking the message: its exchange is
# ``message.exchange`` (pairing opens a request's, and pairs a reply with its request's), and what a
# reply is judged by of its request is ``exchange.held`` (model.Held). A hook that returns True ends
# the row for that message: a reply that answers nothing, a 2026-07-28 server's cancel.
# 2026-07-28 traffic (the DIGEST rules: mrtr, subscriptions, deprecations, caching) is told apart by
# the era: each of those hooks asks rules/legacy.py's EraTracker (modern_request, modern_reply, ...).
_CLIENT_REQUEST = ["pairing.request", "progress.request", "requests.client_request"]
# Any client request but initialize; then the rooms that judge some methods only (their rows below).
_JUDGED = [
    *_CLIENT_REQUEST,
    "era.client_request",
    "modern.client_request",
    "capabilities.client_request",
]
_SERVER_NOTIFICATION = [
    "requests.notification",
    "subscriptions.notification",
    "deprecations.server_notification",
    "caching.server_notification",
    "capabilities.server_notification",
]
_CANCEL = ["requests.notification", "subscriptions.cancel", "pairing.cancel"]
_PROGRESS = ["requests.notification", "progress.notification", "requests.progress"]
HOOKS: dict[HookKey, list[str]] = {
    (REQUEST, C2S): [*_JUDGED, "deprecations.client_request"],
    **{
        (REQUEST, C2S, method): [*_JUDGED, "mrtr.request", "deprecations.client_request"]
        for method in RETRIED
    },
    (REQUEST, C2S, "subscriptions/listen"): [
        *_JUDGED,
        "subscriptions.request",
        "deprecations.client_request",
    ],
    **{
        (REQUEST, C2S, method): [*_JUDGED, "deprecations.client_request", "caching.request"]
        for method in LISTS
    },
    (REQUEST, C2S, "initialize"): [
        *_CLIENT_REQUEST,
        "era.initialize",
        "capabilities.learn_client",
        "deprecations.initialize",
    ],
    (REQUEST, S2C): [
        "pairing.request",
        "progress.request",
        "era.server_request",
        "modern.server_request",
        "capabilities.server_request",
    ],
    (NOTIFICATION, C2S): [
        "requests.notification",
        "deprecations.client_notification",
        "era.client_notification",
    ],
    (NOTIFICATION, C2S, "notifications/cancelled"): _CANCEL,
    (NOTIFICATION, C2S, "notifications/progress"): [*_PROGRESS, "deprecations.client_notification"],
    (NOTIFICATION, S2C): _SERVER_NOTIFICATION,
    (NOTIFICATION, S2C, "notifications/cancelled"): _CANCEL,
    (NOTIFICATION, S2C, "notifications/progress"): _PROGRESS,
    (NOTIFICATION, S2C, "notifications/message"): [*_SERVER_NOTIFICATION, "logging.notification"],
    (RESPONSE, S2C): ["pairing.response"],  # then REPLIES, by its request's method
    (ERROR, S2C): ["envelope.idless_error", "pairing.response"],
    (RESPONSE, C2S): ["modern.client_response", "pairing.response"],
    (ERROR, C2S): ["modern.client_response", "envelope.idless_error", "pairing.response"],
}
# A reply that paired goes on by the method of the request it answers, with the hooks that judge
# that method's replies (a hook that would return at once for it is left out of its row). After its
# row the analyzer lets its request's Held go (what Pairing.release does for an unread reply): no
# hook reads it later.
_RESULT = ["modern.result", "mrtr.result"]  # a result to any client request but initialize
_CACHEABLE = [*_RESULT, "caching.result", "shapes.result"]
REPLIES: dict[HookKey, list[str]] = {
    (RESPONSE, S2C): [*_RESULT, "shapes.result"],
    (RESPONSE, S2C, "initialize"): [
        "era.initialize_answered",
        "modern.initialize_answered",
        "capabilities.learn_server",
        "shapes.result",
    ],
    (RESPONSE, S2C, "server/discover"): [
        "modern.result",
        "capabilities.learn_server",
        "deprecations.discover_answered",
        "mrtr.result",
        "caching.result",
        "shapes.result",
    ],
    (RESPONSE, S2C, "subscriptions/listen"): [
        "modern.result",
        "subscriptions.answered",
        "mrtr.result",
    ],
    (RESPONSE, S2C, "resources/read"): [
        *_RESULT,
        "caching.result",
        "deprecations.read_result",
        "shapes.result",
    ],
    (RESPONSE, S2C, "ping"): [*_RESULT, "modern.ping_result", "shapes.result"],
    (RESPONSE, S2C, "tools/list"): [
        *_RESULT,
        "caching.result",
        "tool_schemas.result",
        "shapes.result",
    ],
    (RESPONSE, S2C, "prompts/list"): _CACHEABLE,
    (RESPONSE, S2C, "resources/list"): _CACHEABLE,
    (RESPONSE, S2C, "resources/templates/list"): _CACHEABLE,
    (ERROR, S2C): [
        "era.initialize_answered",
        "modern.initialize_answered",
        "modern.error",
        "requests.client_error",
        "capabilities.learn_server",
        "subscriptions.answered",
        "deprecations.discover_answered",
        "deprecations.error",
        "caching.error",
    ],
    (RESPONSE, C2S): ["shapes.result"],  # the client answering the server
    (RESPONSE, C2S, "ping"): ["modern.ping_result", "shapes.result"],
    (RESPONSE, C2S, "tools/list"): ["tool_schemas.result", "shapes.result"],
    (ERROR, C2S): [],  # judged by nothing but its pairing
}
# The hooks that judge 2026-07-28 traffic alone (each asks the EraTracker first): a legacy process
# (an answered initialize made it so, and it never changes back) is judged by the rows without them.
MODERN_ONLY = frozenset(
    {
        "mrtr.request",
        "mrtr.result",
        "subscriptions.request",
        "subscriptions.answered",
        "subscriptions.notification",
        "subscriptions.cancel",
        "deprecations.client_request",
        "deprecations.client_notification",
        "deprecations.server_notification",
        "deprecations.discover_answered",
        "deprecations.read_result",
        "deprecations.error",
        "caching.request",
        "caching.result",
        "caching.error",
        "caching.server_notification",
        "modern.server_request",
        "modern.client_response",
    }
)
# After every row: the _meta key names (an initialize result has set the revision by then).
AFTER_EVERY_MESSAGE = ["modern.meta_keys"]
# A message over the size parsed whole has no payload to judge (rules/framing.py): it is paired only.
UNREAD: dict[HookKey, list[str]] = {
    (REQUEST, C2S): ["pairing.request"],
    (REQUEST, S2C): ["pairing.request"],
    (RESPONSE, S2C): ["pairing.response", "pairing.release"],
    (RESPONSE, C2S): ["pairing.response", "pairing.release"],
    (ERROR, S2C): ["pairing.response", "pairing.release"],
    (ERROR, C2S): ["pairing.response", "pairing.release"],
}
