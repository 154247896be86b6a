"""Multi round-trip requests (mrtr.*, 2026-07-28): an input_required result and its retry.

The server answers a tools/call, prompts/get or resources/read with
``resultType: "input_required"`` (inputRequests to fulfil, requestState to
echo); the client retries the same request with a new id, the answers in
``inputResponses`` and the state echoed. A passive proxy knows a retry by
what it repeats (the same method on the same target: the tool or prompt
name, the resource uri) and what it adds (inputResponses or requestState); a
request that adds neither is a fresh one, since a client need not retry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpspy.analysis.jsonrpc import shown
from mcpspy.analysis.model import Exchange, Held, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.legacy import EraTracker

MRTR = "2026-07-28/basic/patterns/mrtr.mdx"
# The requests a server may answer with input_required, and the param naming what each is about.
SUPPORTED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
# What an inputRequests entry may ask, and the client capability it needs.
INPUT_METHODS = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}
ABSENT: Any = object()  # a field that was not sent (None would be a JSON null)


@dataclass(slots=True)
class Asked:
    """An input_required result, waiting for its retry."""

    reply_seq: int
    request_id: Any
    request_state: Any  # as sent, or ABSENT
    input_keys: frozenset[str]


def target_of(method: str, held: Held | None) -> tuple[str, str] | None:
    """(method, what it is about) for a request that may be retried through MRTR, else None."""
    field = SUPPORTED.get(method)
    if field is None or held is None:
        return None
    value = held.name if field == "name" else held.uri
    return (method, value) if isinstance(value, str) else None


def capability_missing(request: dict[str, Any], capabilities: dict[str, Any]) -> str | None:
    """The client capability an inputRequests entry needs and the request did not declare, or None."""
    method = request.get("method")
    name = INPUT_METHODS.get(method) if isinstance(method, str) else None
    if name is None:
        return None
    declared = capabilities.get(name)
    if not isinstance(declared, dict):
        return name
    params = request.get("params")
    params = params if isinstance(params, dict) else {}
    if name == "elicitation":
        mode = params.get("mode", "form")
        # An empty elicitation capability means form mode only (client/elicitation.mdx §Capabilities).
        if mode == "url" and "url" not in declared:
            return "elicitation.url"
        if mode == "form" and declared and "form" not in declared:
            return "elicitation.form"
    if name == "sampling" and ("tools" in params or "toolChoice" in params) and "tools" not in declared:
        return "sampling.tools"
    return None


class Mrtr:
    def __init__(self, out: Reporter, era: EraTracker) -> None:
        self._out = out
        self._era = era
        self._asked: dict[tuple[str, str], Asked] = {}

    def result(self, message: Message) -> None:
        """A 2026-07-28 result whose resultType is input_required."""
        payload = message.payload
        result = payload.get("result") if isinstance(payload, dict) else None  # result_of, inline
        # result_type_of, inline (absent reads as complete): every result comes this way.
        if not isinstance(result, dict) or result.get("resultType") != "input_required":
            return
        exchange = message.exchange
        if exchange is None or not self._era.modern_reply(exchange):
            return
        method = exchange.method
        if method not in SUPPORTED:
            self._out.find(
                RuleId.MRTR_WRONG_METHOD,
                message.seq,
                message.stream,
                f"{method} was answered with input_required; only tools/call, prompts/get and "
                "resources/read may be",
                related_seq=exchange.request_seq,
            )
        requests = result.get("inputRequests", ABSENT)
        state = result.get("requestState", ABSENT)
        if requests is ABSENT and state is ABSENT:
            self._out.find(
                RuleId.MRTR_EMPTY,
                message.seq,
                message.stream,
                f"the input_required result to {method} has neither inputRequests nor requestState",
            )
        keys = self._input_requests(exchange, message, requests)
        target = target_of(method, exchange.held)
        if target is not None:
            self._asked[target] = Asked(message.seq, exchange.id, state, keys)

    def _input_requests(self, exchange: Exchange, message: Message, requests: Any) -> frozenset[str]:
        """Check each inputRequests entry; the keys the retry must answer."""
        if not isinstance(requests, dict):
            if requests is not ABSENT:
                self._invalid(message, f"inputRequests is {shown(requests)}, not an object")
            return frozenset()
        capabilities = exchange.held.capabilities if exchange.held is not None else None
        for key, entry in requests.items():
            method = entry.get("method") if isinstance(entry, dict) else None
            if method not in INPUT_METHODS:
                self._invalid(
                    message,
                    f"inputRequests[{shown(key)}] asks {shown(method)}; it must be elicitation/create, "
                    "sampling/createMessage or roots/list",
                )
                continue
            missing = capability_missing(entry, capabilities if isinstance(capabilities, dict) else {})
            if missing is not None:
                self._out.find(
                    RuleId.MRTR_UNDECLARED_CAPABILITY,
                    message.seq,
                    message.stream,
                    f"inputRequests[{shown(key)}] is a {method}, but the request's clientCapabilities "
                    f"do not declare {missing}",
                    related_seq=exchange.request_seq,
                )
        return frozenset(requests)

    def _invalid(self, message: Message, sentence: str) -> None:
        self._out.find(RuleId.MRTR_INVALID_INPUT_REQUEST, message.seq, message.stream, sentence)

    def request(self, message: Message) -> None:
        """A 2026-07-28 client request: the retry of an input_required result, or not."""
        if not self._asked:
            return  # no input_required awaits its retry (most of the time: it costs every request nothing)
        exchange = message.exchange
        if exchange is None or not self._era.modern_request(exchange):
            return
        target = target_of(exchange.method, exchange.held)
        asked = self._asked.pop(target, None) if target is not None else None
        params = message.params
        if asked is None or not ("inputResponses" in params or "requestState" in params):
            return  # a fresh request (a client need not retry), or no input_required came before
        seq, stream = message.seq, message.stream
        if message.id == asked.request_id:
            self._out.find(
                RuleId.MRTR_RETRY_SAME_ID,
                seq,
                stream,
                f"the retry reuses id {shown(message.id)}; a retry is a new request and needs a new id",
                related_seq=asked.reply_seq,
            )
        sent = params.get("requestState", ABSENT)
        problem = None
        if asked.request_state is ABSENT and sent is not ABSENT:
            problem = "carries a requestState, though the input_required result gave none"
        elif asked.request_state is not ABSENT and sent is ABSENT:
            problem = "omits the requestState the input_required result gave"
        elif sent != asked.request_state:
            problem = "changed the requestState; it must echo it exactly"
        if problem is not None:
            self._out.find(
                RuleId.MRTR_REQUEST_STATE, seq, stream, f"the retry {problem}", related_seq=asked.reply_seq
            )
        responses = params.get("inputResponses")
        answered = set(responses) if isinstance(responses, dict) else set()
        missing = sorted(asked.input_keys - answered)
        if missing:
            self._out.find(
                RuleId.MRTR_INPUT_RESPONSES_MISSING,
                seq,
                stream,
                f"the retry's inputResponses lack {', '.join(shown(k) for k in missing)}",
                related_seq=asked.reply_seq,
            )
